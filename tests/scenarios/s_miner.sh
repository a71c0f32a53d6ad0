#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A cryptominer of three processes, one far busier than the others, beside
# a periodic task: the scheduler first, and the advice leads with the
# miner, every pid of it in one kill line, whatever share each held.
. "$(dirname "$0")/lib.sh"
cpu=$(sc_last_cpu)
sc_spin xmrig "$cpu"
a=$SC_LAST
sc_spin xmrig "$cpu"
b=$SC_LAST
# the third mostly sleeps: a small share of the waits, or of a CPU
sc_py xmrig "$cpu" 'import time
while True:
    t = time.time()
    while time.time() - t < 0.002: pass
    time.sleep(0.05)'
c=$SC_LAST
sc_ticker feeder "$cpu" 0.005
EXPECT_LAYER=scheduler
EXPECT_CULPRIT='^xmrig$'
EXPECT_PIDS="$a $b $c"
EXPECT_ADVICE='^xmrig .*cryptominer.*treat the host as compromised'
sleep 1
sc_diagnose || exit 1
sc_judge
