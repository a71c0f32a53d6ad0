#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source, the outlier trace's culprits for the whole wait: on the
# last CPU a hog and a ping-pong pair (two processes bouncing a byte
# through pipes: thousands of switches a second, hundreds in one wait,
# far more than the 16-entry switch history) run at nice -15, and a nice-0
# sleeper there waits behind them.  The known answer: the three hold that
# CPU through the sleeper's waits (other load on the host, at nice 0, gets
# a few percent of it), so the culprits named (the three largest holders) cover
# at least 90% of each wait's time, and each record reaches back to its
# wait's start (not "partial").  Documentation/trace.rst.
. "$(dirname "$0")/lib.sh"

last=$(($(nproc) - 1))
# a path of its own, so that pgrep finds this test's pair alone
pingpong=$T_TMP/pingpong.py
cp "$(dirname "$0")/../lib/pingpong.py" "$pingpong"
spawn nice -n -15 taskset -c "$last" sh -c 'while :; do :; done'
hog=${T_PIDS[-1]}
spawn nice -n -15 taskset -c "$last" "$PY" "$pingpong"
spawn taskset -c "$last" "$PY" -c "import time
while True: time.sleep(0.002)"
victim=${T_PIDS[-1]}
sleep 0.5
"$GPULAT" --source bpf trace -t sched=2ms -j -d 4 >"$T_TMP/t.jsonl" ||
	not_ok "trace ran"
# the pair's second process, and the pids as they ran (nice and taskset
# exec, so the spawned pids are the workloads')
pp=$(pgrep -d, -f "$pingpong")
"$PY" - "$T_TMP/t.jsonl" "$victim" "$hog,$pp" >"$T_TMP/sum.json" <<'PYEOF'
import json, sys
victim, known = int(sys.argv[2]), {int(p) for p in sys.argv[3].split(",")}
n = partial = full = 0
lat = named = mine = 0
first = None
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") != "sample":
        continue
    # the trace began before its first record ended
    first = first or r["time_ns"]
    if r.get("pid") != victim:
        continue
    n += 1
    lat += r["latency_ns"]
    # partial by design: a wait begun before the trace, or longer than
    # the checkpoints surely reach (31 epochs of 2^23 ns at 2 ms: 260 ms)
    if r["time_ns"] - r["latency_ns"] > first and r["latency_ns"] <= 260e6:
        full += 1
        partial += bool(r.get("partial"))
    for c in r.get("culprits", []):
        named += c["ns"]
        mine += c["ns"] if c["pid"] in known else 0
print(json.dumps({"records": n, "full": full, "partial": partial,
                  "wait_ns": lat,
                  "named_ns": named, "known_ns": mine}))
PYEOF
sed 's/^/# /' "$T_TMP/sum.json"
check "the sleeper's waits were traced" "d['records'] >= 5" "$T_TMP/sum.json"
check "the culprits named cover >= 90% of the waits' time" \
	"d['named_ns'] * 10 >= d['wait_ns'] * 9" "$T_TMP/sum.json"
check "the hog and the pair are among them, most of the time" \
	"d['known_ns'] * 2 >= d['wait_ns']" "$T_TMP/sum.json"
check "at most 1 record in 10 does not reach back to its wait's start" \
	"d['partial'] * 10 <= d['full']" "$T_TMP/sum.json"
t_done
