#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source, net family: N UDP datagrams over a veth pair, one end here,
# the other in a network namespace of its own, are N transmissions of
# the near end (net.tx, key its ifindex) and N trips through the backlog
# of the far end, which a veth without NAPI feeds with netif_rx
# (net.backlog, key its ifindex with the namespace's inode number in bits
# 32-63, named "DEV/net:INODE").  Everything made is removed on exit.
. "$(dirname "$0")/lib.sh"

N=2000
SLACK=10		# other packets (ARP) at most
NS=gl-bpf-$$
A=glA$$
B=glB$$
IP_A=10.213.$(($$ % 250)).1
IP_B=10.213.$(($$ % 250)).2
PORT=9999

# ip netns add bind-mounts /run/netns on itself the first time, and del
# leaves the mount: one this test made and left empty goes too (a chroot
# holding it cannot be removed)
mountpoint -q /run/netns 2>/dev/null && NETNS_MOUNTED=1 || NETNS_MOUNTED=0
net_cleanup() {
	ip link del "$A" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	if ((!NETNS_MOUNTED)) && mountpoint -q /run/netns 2>/dev/null &&
	   [[ -z $(ls -A /run/netns 2>/dev/null) ]]; then
		umount /run/netns 2>/dev/null
	fi
}
trap 'net_cleanup; t_cleanup' EXIT

# note JSON: the counts read, as a TAP comment
note() {
	"$PY" - "$1" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
print("# " + "; ".join("%s %s %d" % (s["name"], s["key_name"], s["count"])
                       for s in d["series"] if s["count"]) +
      "; drops " + ", ".join("%s %d" % (k[4:], v) for k, v in d["drops"].items()))
PYEOF
}

# send DELAY: N datagrams from here to the far end, after DELAY seconds
send() {
	spawn "$PY" -c "import socket, time
time.sleep($1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range($N):
    try:
        s.sendto(b'gpulat', ('$IP_B', $PORT))
    except OSError:
        pass  # dropped by the qdisc (ENOBUFS)"
	SEND_PID=$!
}

# a namespace that cannot be entered (ip netns exec needs / to be a
# mount, which a chroot's is not) is no namespace to test in
VETH=1
if ! ip netns add "$NS" 2>/dev/null ||
   ! ip netns exec "$NS" true 2>/dev/null ||
   ! ip link add "$A" type veth peer name "$B" 2>/dev/null; then
	VETH=0
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP veth and netns: cannot make and enter a network namespace with a veth pair here"
fi
# the veth pair, one end in a namespace of its own (not indented: the
# Python programs in it are quoted with their own indentation)
if ((VETH)); then
# no IPv6: no router or neighbour solicitations among the datagrams
sysctl -qw "net.ipv6.conf.$A.disable_ipv6=1"
ip link set "$B" netns "$NS"
ip netns exec "$NS" sysctl -qw "net.ipv6.conf.$B.disable_ipv6=1"
ip addr add "$IP_A/30" dev "$A"
ip -n "$NS" addr add "$IP_B/30" dev "$B"
ip link set "$A" up
ip -n "$NS" link set "$B" up
# GRO would feed the far end through NAPI, not the backlog
ip netns exec "$NS" ethtool -K "$B" gro off >/dev/null 2>&1
# the far end's address known: no ARP among the datagrams
mac=$(ip -n "$NS" -o link show "$B" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
ip neigh replace "$IP_B" lladdr "$mac" dev "$A" nud permanent
ifa=$(cat "/sys/class/net/$A/ifindex")
ifb=$(ip -n "$NS" -o link show "$B" | cut -d: -f1)
inum=$(stat -L -c %i "/run/netns/$NS")
key_b="($inum << 32 | $ifb)"	# Python's: past bash's signed 64 bits
echo "# $A (ifindex $ifa) -> $B (ifindex $ifb in $NS, net:$inum)"

# a listener over there: no ICMP port unreachable coming back
spawn ip netns exec "$NS" "$PY" -c "import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('$IP_B', $PORT))
while True:
    s.recv(64)"
sleep 0.5

send 1
bpf_hist net 5 -D >"$T_TMP/n.json" || not_ok "hist ran"
note "$T_TMP/n.json"
if kill -0 "$SEND_PID" 2>/dev/null; then
	not_ok "the datagrams went out inside the interval (the machine is too busy)"
fi
tx="series('net.tx', key_name='$A')"
bl="series('net.backlog', key_name='$B/net:$inum')"
check "net.tx of $A counts the $N datagrams" \
	"$N <= $tx['count'] <= $N + $SLACK" "$T_TMP/n.json"
check "its key is its ifindex (initial namespace)" \
	"$tx['key'] == $ifa" "$T_TMP/n.json"
check "net.backlog of $B/net:$inum counts them" \
	"$N <= $bl['count'] <= $N + $SLACK" "$T_TMP/n.json"
check "its key has the namespace's inode in bits 32-63" \
	"$bl['key'] == $key_b" "$T_TMP/n.json"
check "p50s plausible (under 10ms)" \
	"0 < $tx['p50_ns'] <= 10000000 and 0 < $bl['p50_ns'] <= 10000000" \
	"$T_TMP/n.json"
check "no drops: full, negative, keys_full" \
	"d['drops']['net.full'] == d['drops']['net.negative'] == d['drops']['net.keys_full'] == 0" \
	"$T_TMP/n.json"
check "every histogram's buckets sum to its count" \
	"buckets_sum_ok()" "$T_TMP/n.json"

# a qdisc that drops every packet: N tx stamps whose end never comes,
# counted as expired, when an skb at that address takes the stamp over,
# or when the tool sweeps it at its snapshot (older than the module's 1 s)
if tc qdisc replace dev "$A" root pfifo limit 0 2>/dev/null; then
	send 1
	bpf_hist net 5 -D >"$T_TMP/x.json" || not_ok "hist ran (dropped)"
	note "$T_TMP/x.json"
	check "the $N datagrams dropped at the qdisc count as net.expired" \
		"$N <= d['drops']['net.expired'] <= $N + $SLACK" "$T_TMP/x.json"
	check "and none as net.tx of $A" \
		"(series('net.tx', key_name='$A') or {'count': 0})['count'] == 0" \
		"$T_TMP/x.json"
	tc qdisc del dev "$A" root 2>/dev/null
else
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP no pfifo qdisc to drop packets with"
fi

# stamps older than the module's 1 s, whose end never came, that no skb
# takes over: the tool sweeps them at its snapshot, counted as expired
if command -v bpftool >/dev/null; then
	"$GPULAT" --source bpf hist net --json 3 1 >"$T_TMP/s.json" &
	gp=$!
	put=$(bpf_stale "$gp" net_flight 5)
	wait "$gp" || not_ok "hist ran (stale)"
	check "5 stale stamps swept at the snapshot count as net.expired ($put put)" \
		"$put == 5 and 5 <= d['drops']['net.expired'] <= 5 + $SLACK" \
		"$T_TMP/s.json"
else
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP no bpftool to put stale stamps in"
fi
fi

# loopback: each datagram is one transmission of lo and one backlog trip
spawn "$PY" -c "import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('127.0.0.1', $PORT + 1))
while True:
    s.recv(64)"
spawn "$PY" -c "import socket, time
time.sleep(1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range($N):
    s.sendto(b'gpulat', ('127.0.0.1', $PORT + 1))"
bpf_hist net 4 -D >"$T_TMP/lo.json" || not_ok "hist ran (lo)"
note "$T_TMP/lo.json"
# lo carries what else this machine sends itself: at least N
check "net.tx and net.backlog of lo count at least the $N datagrams" \
	"series('net.tx', key_name='lo')['count'] >= $N and series('net.backlog', key_name='lo')['count'] >= $N" \
	"$T_TMP/lo.json"
check "lo is ifindex 1" "series('net.tx', key_name='lo')['key'] == 1" \
	"$T_TMP/lo.json"
t_done
