#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two runaway jobs share one CPU with a latency-sensitive periodic task:
# the scheduler first, the jobs named, the advice to release or move
# them by pid.
. "$(dirname "$0")/lib.sh"
cpu=$(sc_last_cpu)
sc_spin hogjob "$cpu"
a=$SC_LAST
sc_spin hogjob "$cpu"
b=$SC_LAST
sc_ticker feeder "$cpu" 0.005
EXPECT_LAYER=scheduler
EXPECT_CULPRIT='^hogjob$'
EXPECT_ADVICE="hogjob \\(pids? $a|hogjob \\(pids? $b"
FORBID_ADVICE='hogjob \(pid [0-9]+\)[^.]* the name of a cryptominer'
sleep 1
sc_diagnose || exit 1
sc_judge
