#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A runaway script starts short processes without pause on the CPU of a
# periodic task: each child lives a millisecond, so no pid holds the CPU
# for long and every one is gone when the advice is read.  The scheduler
# first, the script or its children named, and no advice to kill a pid
# that is gone.
. "$(dirname "$0")/lib.sh"
cpu=$(sc_last_cpu)
for i in 1 2; do
	sc_py forkloop "$cpu" 'import subprocess
while True: subprocess.run(["/bin/true"])'
done
sc_ticker feeder "$cpu" 0.005
EXPECT_LAYER=scheduler
EXPECT_CULPRIT='^(forkloop|true)$'
FORBID_ADVICE='^true \(pid [0-9]+\)[^.]*release it|forkloop \(pid [0-9]+\)[^.]* the name of a cryptominer'
sleep 1
sc_diagnose || exit 1
sc_judge
