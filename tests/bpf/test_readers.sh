#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Readers of one pinned BPF source: two `gpulat trace` and a `gpulat
# serve` flight recorder each get every outlier of a known window, or a
# counted loss.  The known answer is the pinned source's own histogram
# between two snapshots around the window: its samples at or over the
# threshold (a bucket boundary, 2^21 ns, so the count is exact), minus
# the records each reader was told it lost.  A reader's threshold is its
# own: the first trace's 2^21 ns does not change what the second, at
# 2^22 ns, gets.  A killed reader's slot is freed by the next command; a
# fifth reader at once is refused, saying why.
# Runs in a bpffs of its own (tests/bpf/run.sh): the host's pins are
# never read.
. "$(dirname "$0")/lib.sh"

PIN=/sys/fs/bpf/gpulat
THR=2097152		# ns, 2^21: a bucket boundary
THR2=4194304		# ns, 2^22: the second reader's
WORK_S=4		# seconds of the workload
EDGE=2			# records a reader may differ by, waits ending at a snapshot
PROBE="$PY $(dirname "$0")/serve_probe.py"
SERVE_PID=
# the settings (struct gl_bpf_conf, first in .data): the gates, a u64 per
# family id (GPULAT_FAM_MAX, read from the ABI), then keep_history and
# nr_readers (bpf_source.c asserts that layout), as test_pin.sh reads them
FAM_MAX=$(awk '/^enum gpulat_family_id/ { on = 1 } on && /GPULAT_FAM_/ \
	{ n++ } on && /^};/ { print n; exit }' kmod/uapi/gpulat.h)

r_cleanup() {
	[[ -n $SERVE_PID ]] && kill "$SERVE_PID" 2>/dev/null
	"$GPULAT" detach >/dev/null 2>&1
	t_cleanup
}
trap r_cleanup EXIT

if [[ -e $PIN ]]; then
	# only where run.sh's own bpffs is not (run by hand)
	ok "readers of a pinned source # SKIP $PIN exists (run through tests/bpf/run.sh)"
	t_done
	exit
fi
"$GPULAT" attach >"$T_TMP/a" 2>&1 || { not_ok "attach # $(cat "$T_TMP/a")"; t_done; exit 1; }

# the readers on CPU 0, the workload on CPU 1: no reader waits behind it
taskset -c 0 "$GPULAT" trace -j -t sched=${THR}ns -t block=off -t net=off \
	-t irq=off -t softirq=off -t nvidia=off -t mm=off \
	-d $((WORK_S + 6)) >"$T_TMP/tr1" 2>"$T_TMP/tr1.err" &
T_PIDS+=($!)
taskset -c 0 "$GPULAT" trace -j -t sched=${THR2}ns -t block=off -t net=off \
	-t irq=off -t softirq=off -t nvidia=off -t mm=off \
	-d $((WORK_S + 6)) >"$T_TMP/tr2" 2>"$T_TMP/tr2.err" &
T_PIDS+=($!)
port=$($PROBE port)
mkdir -p "$T_TMP/flight"
taskset -c 0 "$GPULAT" serve --listen "127.0.0.1:$port" -t sched=${THR}ns \
	-t block=off -t net=off -t irq=off -t softirq=off -t nvidia=off \
	-t mm=off --flight "$T_TMP/flight" >"$T_TMP/serve.log" 2>&1 &
SERVE_PID=$!
metric() {
	curl -sf --max-time 3 "http://127.0.0.1:$port/metrics" |
		awk -v m="$1" '$1 == m { print $2 }'
}
for ((i = 0; i < 50; i++)); do
	[[ -n $(metric gpulat_trace_records_total) ]] && break
	sleep 0.1
done
sleep 1			# the readers have their slots
slots=$(bpftool -j map dump pinned "$PIN/maps/gpulat_b_data" |
	"$PY" -c "import json,struct,sys
v = bytes(int(x, 16) for x in json.load(sys.stdin)[0]['value'])
print(struct.unpack_from('<I', v, 8 * $FAM_MAX + 4)[0])")
[[ $slots -eq 3 ]] && ok "three readers, three slots" || not_ok "three slots # $slots"

"$GPULAT" snapshot -o "$T_TMP/s1" 2>/dev/null
srv0=$(metric gpulat_trace_records_total)
lost0=$(metric gpulat_trace_lost_total)
hog 1
hog 1
sleeper 1 0.002
sleep $WORK_S
for p in "${T_PIDS[@]:2}"; do kill "$p" 2>/dev/null; done
sleep 0.5
"$GPULAT" snapshot -o "$T_TMP/s2" 2>/dev/null
sleep 0.5
srv1=$(metric gpulat_trace_records_total)
lost1=$(metric gpulat_trace_lost_total)
wait "${T_PIDS[0]}" "${T_PIDS[1]}" 2>/dev/null

"$GPULAT" hist sched -j -i "$T_TMP/s2" --from "$T_TMP/s1" >"$T_TMP/h.json"
read -r want want2 t0 t1 < <("$PY" - "$T_TMP/h.json" "$T_TMP/s1" "$T_TMP/s2" "$THR" "$THR2" "$GPULAT" <<'PYEOF'
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
thr, thr2 = int(sys.argv[4]), int(sys.argv[5])
def over(t):
    return sum(b[2] for s in d["series"] for b in s["buckets"] if b[0] >= t)
def when(f):
    out = subprocess.run([sys.argv[6], "hist", "sched", "-j", "-i", f],
                         capture_output=True, text=True).stdout
    return json.loads(out)["time_ns"]
print(over(thr), over(thr2), when(sys.argv[2]), when(sys.argv[3]))
PYEOF
)
# a reader's records in the window, the losses it was told of, and the
# records it saw within a second of the window (serve's count is not
# windowed: its metric is read around the snapshots)
count() {
	"$PY" - "$1" "$t0" "$t1" <<'PYEOF'
import json, sys
t0, t1 = int(sys.argv[2]), int(sys.argv[3])
n = lost = edge = 0
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("type") == "sample" and r["family"] == "sched":
        if t0 <= r["time_ns"] <= t1:
            n += 1
        elif t0 - 10**9 <= r["time_ns"] <= t1 + 10**9:
            edge += 1
    elif r.get("type") == "lost":
        lost += r.get("lost", 0)
print(n, lost, edge)
PYEOF
}
# self_left: records about the readers' own threads, left out of every
# reader's trace (the histogram has them), over the trace's whole run
self_left() { sed -n 's/^gpulat: \([0-9]*\) records about the trace.s own readers.*/\1/p' "$1"; }
read -r n1 l1 e1 < <(count "$T_TMP/tr1")
read -r n2 l2 e2 < <(count "$T_TMP/tr2")
s1=$(self_left "$T_TMP/tr1.err")
s2=$(self_left "$T_TMP/tr2.err")
ns=$((srv1 - srv0))
ls=$((lost1 - lost0))
echo "# window: $want waits >= ${THR} ns, $want2 >= ${THR2} ns; trace 1: $n1 (+$l1 lost, ${s1:-?} own left out), trace 2: $n2 (+$l2 lost, ${s2:-?} own left out), serve: $ns (+$ls lost)"
[[ $want -ge 50 ]] && ok "the workload made $want waits >= ${THR} ns" ||
	not_ok "the workload made too few waits # $want"
[[ -n $s1 ]] && ok "trace says what it left out as the readers' own ($s1)" ||
	not_ok "trace_self_left # $(tail -2 "$T_TMP/tr1.err")"
s1=${s1:-0}
s2=${s2:-0}
# records + lost = the histogram's, less the readers' own (at most self)
within() { (( $1 >= -EDGE && $1 <= $2 + EDGE )); }
within $((want - n1 - l1)) "$s1" &&
	ok "trace 1 got every record ($n1 + $l1 lost of $want, $s1 own)" ||
	not_ok "trace 1 got every record # $n1 + $l1 lost of $want, $s1 own"
within $((want2 - n2 - l2)) "$s2" &&
	ok "trace 2, at its own threshold, got every record ($n2 + $l2 lost of $want2, $s2 own)" ||
	not_ok "trace 2 got every record # $n2 + $l2 lost of $want2, $s2 own"
(( ns + ls >= want - s1 - EDGE && ns + ls <= want + e1 + EDGE )) &&
	ok "serve got every record ($ns + $ls lost of $want; $s1 own, $e1 near the window)" ||
	not_ok "serve got every record # $ns + $ls lost of $want; $s1 own, $e1 near"

# a reader killed (SIGKILL) keeps its slot until the next command frees it
"$GPULAT" trace -d 30 >/dev/null 2>&1 &
tp=$!
sleep 1.5
kill -9 "$tp"
wait "$tp" 2>/dev/null
kill "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null
SERVE_PID=
"$GPULAT" status >/dev/null 2>&1
conf=$(bpftool -j map dump pinned "$PIN/maps/gpulat_b_data" |
	"$PY" -c "import json,struct,sys
v = bytes(int(x, 16) for x in json.load(sys.stdin)[0]['value'])
n = $FAM_MAX
print(struct.unpack_from('<I', v, 8 * n + 4)[0], min(struct.unpack_from('<%dQ' % n, v, 0)[1:]))")
[[ $conf == "0 18446744073709551615" ]] &&
	ok "a killed reader's slot and gates are freed by the next command" ||
	not_ok "a killed reader's slot # readers, lowest gate: $conf"

# four readers at once: a fifth is refused, saying why, never served empty
for i in 1 2 3 4; do
	"$GPULAT" --source pinned trace -d 8 >/dev/null 2>&1 &
	T_PIDS+=($!)
done
sleep 3
rc=0
"$GPULAT" --source pinned trace -d 1 >/dev/null 2>"$T_TMP/fifth" || rc=$?
[[ $rc -eq 1 ]] && grep -q "serves 4 readers" "$T_TMP/fifth" &&
	ok "a fifth reader is refused with the reason (exit 1)" ||
	not_ok "a fifth reader # rc $rc: $(tail -1 "$T_TMP/fifth")"
t_done
