#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source, softirq family: a UDP flood over loopback raises NET_RX
# (the backlog NAPI) by the thousand.  Per CPU and vector, softirq.run
# counts against the /proc/softirqs deltas (each is one softirq_entry):
# at least those of a window inside the interval, at most those of one
# around it; softirq.wait against softirq.run (every entry files a wait
# or counts softirq.no_start), keys and names against /proc/softirqs.
. "$(dirname "$0")/lib.sh"

SECS=4

spawn "$PY" -c "import socket
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.bind(('127.0.0.1', 0))
r.setblocking(False)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
while True:
    for _ in range(64):
        s.sendto(b'x' * 64, r.getsockname())
    try:
        while True:
            r.recv(2048)
    except BlockingIOError:
        pass"
sleep 0.5
# outer window: before .. after; inner: in .. out, well inside the
# interval, which starts once the programs are loaded (well under 1.5 s)
cp /proc/softirqs "$T_TMP/before"
bpf_hist softirq "$SECS" -C >"$T_TMP/h.json" &
hp=$!
sleep 1.5
cp /proc/softirqs "$T_TMP/in"
sleep 1.5
cp /proc/softirqs "$T_TMP/out"
wait "$hp" || not_ok "hist ran"
cp /proc/softirqs "$T_TMP/after"

cat >"$T_TMP/cmp.py" <<'PYEOF'
import json, sys

def table(path):
    lines = open(path).read().splitlines()
    cpus = [int(c[3:]) for c in lines[0].split()]
    rows = []
    for line in lines[1:]:
        name, *counts = line.split()
        rows.append((name.rstrip(":"), dict(zip(cpus, map(int, counts)))))
    return rows

before, after = table(sys.argv[1]), table(sys.argv[2])
t_in, t_out = table(sys.argv[3]), table(sys.argv[4])
d = json.load(open(sys.argv[5]))
ser = {(s["name"], s["cpu"], s["key"]): s for s in d["series"]}
no_start = d["drops"]["softirq.no_start"]
ncpu = len(after[0][1])
bad = []
for vec, (name, counts) in enumerate(after):
    tot = 0
    for cpu, n in counts.items():
        delta = n - before[vec][1].get(cpu, 0)
        least = t_out[vec][1].get(cpu, 0) - t_in[vec][1].get(cpu, 0)
        run = ser.get(("softirq.run", cpu, vec))
        wait = ser.get(("softirq.wait", cpu, vec))
        if run is None or wait is None:
            if least:
                bad.append("%s CPU %d: %d runs, no series" % (name, cpu, least))
            continue
        tot += run["count"]
        if run["key_name"] != name or wait["key_name"] != name:
            bad.append("vector %d: key_name %r, /proc/softirqs %r" % (vec, run["key_name"], name))
        if run["count"] > delta + 2:
            bad.append("%s CPU %d: %d runs filed, %d ran" % (name, cpu, run["count"], delta))
        if run["count"] < least:
            bad.append("%s CPU %d: %d runs filed, %d ran inside" % (name, cpu, run["count"], least))
        if abs(wait["count"] - run["count"]) > no_start + 2:
            bad.append("%s CPU %d: %d waits, %d runs, no_start %d" % (name, cpu, wait["count"], run["count"], no_start))
        if run["count"] or delta:
            print("#   %s CPU %d: run %d (p50 %dns) wait %d (p50 %dns), /proc/softirqs %d..%d"
                  % (name, cpu, run["count"], run["p50_ns"], wait["count"], wait["p50_ns"], least, delta))
print("; ".join(bad) if bad else "every CPU and vector agrees")
sys.exit(1 if bad else 0)
PYEOF
out=$("$PY" "$T_TMP/cmp.py" "$T_TMP/before" "$T_TMP/after" "$T_TMP/in" \
	"$T_TMP/out" "$T_TMP/h.json")
rc=$?
grep '^#' <<<"$out"
out=$(grep -v '^#' <<<"$out")
if [[ $rc -eq 0 ]]; then
	ok "softirq.run and .wait per CPU and vector match /proc/softirqs # $out"
else
	not_ok "softirq.run and .wait per CPU and vector match /proc/softirqs # $out"
fi
check "the flood moved NET_RX (softirq.run, all CPUs)" \
	"series('softirq.run', None, 'NET_RX')['count'] >= 1000" "$T_TMP/h.json"
check "NET_RX waits were timed too" \
	"series('softirq.wait', None, 'NET_RX')['count'] >= 1000" "$T_TMP/h.json"
check "the tick's TIMER softirq has samples" \
	"series('softirq.run', None, 'TIMER')['count'] >= 1" "$T_TMP/h.json"
check "no negative spans" "d['drops']['softirq.negative'] == 0" "$T_TMP/h.json"
check "every histogram's buckets sum to its count" \
	"buckets_sum_ok()" "$T_TMP/h.json"
t_done
