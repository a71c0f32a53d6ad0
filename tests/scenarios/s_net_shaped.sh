#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A job's traffic leaves through a device shaped to 2 Mbit/s (tbf), more
# than it lets through: packets wait in its queue, and some are dropped.
# The network first, the shaped device named, the advice to look at its
# queue (tc -s qdisc) on that device.
. "$(dirname "$0")/lib.sh"
command -v ip >/dev/null && command -v tc >/dev/null ||
	sc_skip "no ip or tc (iproute2)"
ns=gl-sc-$$ a=glsc$$a b=glsc$$b
ip netns add "$ns" 2>/dev/null || sc_skip "cannot make a network namespace"
sc_undo "ip netns del $ns"
ip link add "$a" type veth peer name "$b" 2>/dev/null || sc_skip "no veth"
sc_undo "ip link del $a"
ip link set "$b" netns "$ns" &&
	ip addr add 10.213.7.1/30 dev "$a" && ip link set "$a" up &&
	ip -n "$ns" addr add 10.213.7.2/30 dev "$b" &&
	ip -n "$ns" link set "$b" up ||
	sc_skip "cannot set up the veth pair"
tc qdisc add dev "$a" root tbf rate 2mbit burst 16kb latency 100ms ||
	sc_skip "no tbf"
sc_py netjob 0-$(sc_last_cpu) "import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
buf = b'x' * 1200
while True:
    for _ in range(50):
        try:
            s.sendto(buf, ('10.213.7.2', 9))
        except OSError:
            pass
    time.sleep(0.01)"
EXPECT_LAYER=network
EXPECT_ADVICE="tc -s qdisc show dev $a"
sleep 1
sc_diagnose || exit 1
sc_judge
