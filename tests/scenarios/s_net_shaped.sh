#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A job's traffic leaves through a device shaped to 2 Mbit/s (tbf), more
# than it lets through: packets wait in its queue, and some are dropped.
# The network first, the shaped device named, the advice to look at its
# queue (tc -s qdisc) on that device.
. "$(dirname "$0")/lib.sh"
sc_shaped_net
EXPECT_LAYER=network
EXPECT_ADVICE="tc -s qdisc show dev $SC_DEV"
sleep 1
sc_diagnose || exit 1
sc_judge
