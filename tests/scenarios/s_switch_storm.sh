#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A runaway job and a chatty pair of processes (a request/response loop
# through pipes: thousands of switches a second) share one CPU with a
# periodic task.  Each of its waits has hundreds of switches, far more
# than the trace's 16-entry switch history: the culprits are named from
# the CPU's holders (Documentation/trace.rst).  The scheduler first, the
# job and the pair named, the advice naming the job by pid.
. "$(dirname "$0")/lib.sh"
cpu=$(sc_last_cpu)
sc_spin hogjob "$cpu"
a=$SC_LAST
sc_py chatjob "$cpu" "exec(open('tests/lib/pingpong.py').read())"
sc_ticker feeder "$cpu" 0.005
EXPECT_LAYER=scheduler
EXPECT_CULPRIT='^(hogjob|chatjob)$'
EXPECT_ADVICE="hogjob \\(pids? $a"
FORBID_ADVICE='(hogjob|chatjob) \(pid [0-9]+\)[^.]* the name of a cryptominer'
sleep 1
sc_diagnose || exit 1
sc_judge
