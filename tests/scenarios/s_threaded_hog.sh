#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A runaway job of one process and four threads (an OpenMP or data-loader
# pool) spins on the CPU of a periodic task: the scheduler first, the job
# named, and the advice releases it by its process's pid (what kill
# takes), once, never by a thread's id alone.
. "$(dirname "$0")/lib.sh"
cpu=$(sc_last_cpu)
sc_threads ompjob "$cpu"
j=$SC_LAST
sc_ticker feeder "$cpu" 0.005
EXPECT_LAYER=scheduler
EXPECT_CULPRIT='^ompjob$'
EXPECT_PIDS=$j
EXPECT_ADVICE="ompjob \\(pid $j\\).*kill $j\\)"
FORBID_ADVICE="ompjob \\(pid [0-9]+\\)[^.]* the name of a cryptominer|kill [0-9 ]*\\b$j\\b[0-9 ]*\\b$j\\b"
sleep 1
sc_diagnose || exit 1
sc_judge
