#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A flood of small packets into a namespace whose receive path runs on
# another CPU (RPS), where a periodic task lives: the network softirqs
# (and ksoftirqd) take that CPU.  The network first, as the cause of the
# CPU waits it raises there, its advice on the softirqs; never the advice
# to kill a kernel thread.
. "$(dirname "$0")/lib.sh"
command -v ip >/dev/null || sc_skip "no ip (iproute2)"
(($(nproc) >= 2)) || sc_skip "needs 2 CPUs"
ns=gl-sf-$$ a=glsf$$a b=glsf$$b
cpu=$(sc_last_cpu)
ip netns add "$ns" 2>/dev/null || sc_skip "cannot make a network namespace"
sc_undo "ip netns del $ns"
ip link add "$a" type veth peer name "$b" 2>/dev/null || sc_skip "no veth"
sc_undo "ip link del $a"
ip link set "$b" netns "$ns" &&
	ip addr add 10.213.8.1/30 dev "$a" && ip link set "$a" up &&
	ip -n "$ns" addr add 10.213.8.2/30 dev "$b" &&
	ip -n "$ns" link set "$b" up ||
	sc_skip "cannot set up the veth pair"
ip netns exec "$ns" sh -c \
	"printf '%x' $((1 << cpu)) >/sys/class/net/$b/queues/rx-0/rps_cpus" ||
	sc_skip "no RPS on veth here"
for c in $(seq 0 $((cpu - 1))); do
	sc_py netflood "$c" "import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
while True:
    try:
        s.sendto(b'x', ('10.213.8.2', 9))
    except OSError:
        pass"
done
sc_ticker feeder "$cpu" 0.005
EXPECT_LAYER=network
EXPECT_ADVICE='softirqs'
FORBID_ADVICE='ksoftirqd/[0-9]+ \(pid [0-9]+\)[^.]*(release|kill)'
sleep 1
sc_diagnose || exit 1
sc_judge
