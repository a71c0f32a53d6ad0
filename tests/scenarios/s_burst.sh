#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A short burst inside a long quiet watch: two runaway jobs hold one CPU
# for 3 s in the middle of a diagnosis of 12 s, beside a periodic task
# there, and are gone before it ends.  The scheduler still first (the
# burst's waits are the window's outliers), the jobs named.
. "$(dirname "$0")/lib.sh"
cpu=$(sc_last_cpu)
sc_ticker feeder "$cpu" 0.005
EXPECT_LAYER=scheduler
EXPECT_CULPRIT='^burstjob$'
FORBID_ADVICE='burstjob \(pid [0-9]+\)[^.]* the name of a cryptominer'
SC_SECONDS=12
sc_diagnose &
d=$!
sleep 4
sc_spin burstjob "$cpu"
a=$SC_LAST
sc_spin burstjob "$cpu"
b=$SC_LAST
sleep 3
kill -KILL "$a" "$b"
wait "$d" || exit 1
sc_judge
