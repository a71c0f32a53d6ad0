#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two faults at once, of two layers: a job's traffic through a shaped
# device (the network), and two runaway jobs on the CPU of a periodic
# task (the scheduler).  Both abnormal, first and second in either
# order, each with its own advice: the queue of that device, and the
# jobs by pid.
. "$(dirname "$0")/lib.sh"
sc_shaped_net
cpu=$(sc_last_cpu)
sc_spin runaway "$cpu"
a=$SC_LAST
sc_spin runaway "$cpu"
b=$SC_LAST
sc_ticker feeder "$cpu" 0.005
EXPECT_LAYER="network scheduler"
EXPECT_CULPRIT='^runaway$'
EXPECT_ADVICE="tc -s qdisc show dev $SC_DEV ;; runaway \\(pids? ($a|$b)"
FORBID_ADVICE='runaway \(pid [0-9]+\)[^.]* the name of a cryptominer'
sleep 1
sc_diagnose || exit 1
sc_judge
