#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A cryptominer as one process of four threads (as xmrig runs), beside a
# periodic task on its CPU: the scheduler first, the miner named, and
# the advice leads with it, by its process's pid (what kill takes), not
# its threads'.
. "$(dirname "$0")/lib.sh"
cpu=$(sc_last_cpu)
sc_threads xmrig "$cpu"
m=$SC_LAST
sc_ticker feeder "$cpu" 0.005
EXPECT_LAYER=scheduler
EXPECT_CULPRIT='^xmrig$'
EXPECT_PIDS=$m
EXPECT_ADVICE="^xmrig \\(pid $m\\).*cryptominer.*kill $m[;) ]"
sleep 1
sc_diagnose || exit 1
sc_judge
