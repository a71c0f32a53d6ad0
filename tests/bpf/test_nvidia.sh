#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source, nvidia family, on a host without the NVIDIA driver:
#  0. not asked for by name, the family is held back (its programs would
#     run on every scheduler event for nothing) and status says why;
#     the rest runs with GPULAT_BPF_ASSUME_DRIVERS, as if it were loaded;
#  1. the programs attach, the driver's Xid tracepoint is missing;
#  2. under forks, renames, disk I/O and wakeups no nvidia series appear
#     and every program runs (hits), no drops: user threads named like
#     the driver's kthreads are not followed (the module follows
#     PF_KTHREAD tasks only);
#  3. nvidia.hardirq of this host's busiest IRQ handler, taken for the
#     driver's with GPULAT_BPF_NVIDIA_PATTERN: keyed by IRQ, named
#     "name/irq" as the module keys and names it;
#  4. nvidia.kthread.wake of Python threads named "UVM GPU7 BH" (before
#     the programs load: the task iterator), "nv_queue" (after: the
#     rename), and of a child forked from a process named "nvidia" (the
#     fork), with GPULAT_BPF_NVIDIA_TEST_USER_TASKS, which lets user
#     tasks through the kthread test: keyed by pid, named by comm; names
#     that are not the driver's are not followed;
#  5. Xids: the programs are loaded as if tracefs listed
#     nvidia:nvidia_dev_xid (a private mount), the Xid program is run by
#     hand 70 times over both CPUs: the snapshot lists the newest 64
#     oldest first, nvidia.xid_lost counts 6, the trace has all 70.
. "$(dirname "$0")/lib.sh"

HERE=$(dirname "$0")
NVT=("$PY" "$HERE/nvidia_threads.py")

# nv_family IN OUT: the nvidia family's object of a status JSON
nv_family() {
	"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["families"] if f["family"] == "nvidia"][0]
f["hits"] = {p["tracepoint"]: p["hits"] for p in f["probes"]}
f["events"] = d["events"]
json.dump(f, open(sys.argv[2], "w"))' "$1" "$2"
}

# report_end SECONDS OUT [CMD...]: the status JSON of the last snapshot
# of a report over SECONDS (hits and events over a window), and its
# trace as OUT.trace; CMD: what runs gpulat (env, unshare)
report_end() {
	local secs=$1 out=$2 dir
	shift 2
	dir=$(mktemp -d "$T_TMP/rep.XXXX")
	"$@" "$GPULAT" --source bpf report -d "$secs" --interval "$secs" \
		-o "$dir/r.tar.gz" >"$dir/log" 2>&1 &&
		tar -xzf "$dir/r.tar.gz" -C "$dir" &&
		"$GPULAT" status -i "$dir"/gpulat-report-*/snapshots/end.bin \
			--json >"$dir/status.json" &&
		nv_family "$dir/status.json" "$out" &&
		cp "$dir"/gpulat-report-*/trace.jsonl "$out.trace"
}

# tid_of FILE NAME: the thread id nvidia_threads.py wrote for NAME
tid_of() {
	awk -v n="$2" '{ p = $1; $1 = ""; if (substr($0, 2) == n) print p }' "$1"
}

# --- 0. held back: no driver, not asked for by name -----------------------
if [[ -e /sys/module/nvidia ]]; then
	ok "held back without the driver # SKIP this host has the driver"
else
	"$GPULAT" --source bpf status --json >"$T_TMP/st0.json" 2>&1
	nv_family "$T_TMP/st0.json" "$T_TMP/nv0.json"
	check "without the driver the family is held back, and says why" \
		"d['state'] == 'off' and d['reason'].startswith('held back until the nvidia driver loads') and not any(p['state'] == 'attached' for p in d['probes'])" \
		"$T_TMP/nv0.json"
fi
# the rest stands in for the driver: the family attaches without it
export GPULAT_BPF_ASSUME_DRIVERS=1

# --- 1. attach ------------------------------------------------------------
"$GPULAT" --source bpf status --json >"$T_TMP/st.json" 2>"$T_TMP/st.err" ||
	not_ok "status ran: $(cat "$T_TMP/st.err")"
nv_family "$T_TMP/st.json" "$T_TMP/nv.json"
check "nvidia family attached" "d['state'] == 'attached'" "$T_TMP/nv.json"
check "its seven kernel tracepoints attached" \
	"[p['tracepoint'] for p in d['probes'] if p['state'] == 'attached'] == ['sched_process_exit', 'sched_process_fork', 'task_rename', 'sched_switch', 'sched_wakeup', 'irq_handler_exit', 'irq_handler_entry']" \
	"$T_TMP/nv.json"
if [[ -d /sys/kernel/tracing/events/nvidia ||
      -d /sys/kernel/debug/tracing/events/nvidia ]]; then
	ok "nvidia_dev_xid missing # SKIP this host has the driver's tracepoints"
else
	check "nvidia_dev_xid listed as missing" \
		"d['missing'] == ['nvidia:nvidia_dev_xid']" "$T_TMP/nv.json"
fi
check "no events, no series" "not d['events'] and d['series'] == 0" \
	"$T_TMP/nv.json"
grep -q "failed" "$T_TMP/st.err" &&
	not_ok "no clear or iterator failure # $(cat "$T_TMP/st.err")"

# --- 2. a host without the driver: nothing followed ----------------------
(sleep 0.5
 "${NVT[@]}" "$T_TMP/t2.txt" 2 "nv_queue" "UVM GPU0 BH" "nvidia" &
 for i in $(seq 200); do /bin/true; done
 dd if=/dev/zero of="$T_TMP/io" bs=4k count=2000 oflag=direct 2>/dev/null
 wait) &
T_PIDS+=($!)
report_end 3 "$T_TMP/r2.json" env || not_ok "report ran"
wait "${T_PIDS[-1]}"
check "no nvidia series under load" "d['series'] == 0" "$T_TMP/r2.json"
check "every program ran" \
	"all(d['hits'][t] > 0 for t in ['sched_process_exit', 'sched_process_fork', 'task_rename', 'sched_switch', 'sched_wakeup'])" \
	"$T_TMP/r2.json"
check "the IRQ programs ran (disk I/O)" \
	"d['hits']['irq_handler_entry'] > 0 and d['hits']['irq_handler_exit'] > 0" \
	"$T_TMP/r2.json"
check "no drops" "not any(d['drops'].values())" "$T_TMP/r2.json"

# --- 3. a handler taken for the driver's: nvidia.hardirq ------------------
read -r irq name < <(busy_irq)
if [[ -z $irq ]]; then
	ok "nvidia.hardirq # SKIP no IRQ line with one handler fires under disk I/O"
else
	(sleep 0.5
	 dd if=/dev/zero of="$T_TMP/io" bs=4k count=2000 oflag=direct 2>/dev/null) &
	T_PIDS+=($!)
	GPULAT_BPF_NVIDIA_PATTERN=$name bpf_hist nvidia 3 -D >"$T_TMP/h3.json" ||
		not_ok "hist ran"
	check "nvidia.hardirq of $name, keyed by IRQ $irq" \
		"(lambda s: s is not None and s['count'] >= 10 and s['key'] & 0xffffffff == $irq and s['key'] >> 32 != 0)(series('nvidia.hardirq', key_name='$name/$irq'))" \
		"$T_TMP/h3.json"
	check "its thread and kthread series empty" \
		"all(s['count'] == 0 for s in d['series'] if s['name'] != 'nvidia.hardirq')" \
		"$T_TMP/h3.json"
	check "no drops" "not any(d['drops'].values())" "$T_TMP/h3.json"
	check "every histogram's buckets sum to its count" \
		"buckets_sum_ok()" "$T_TMP/h3.json"
fi

# --- 4. tasks taken for the driver's kthreads: nvidia.kthread.wake --------
spawn "${NVT[@]}" "$T_TMP/t4a.txt" 6 "UVM GPU7 BH" "UVM GPUx BH"
sleep 0.5
(sleep 1
 "${NVT[@]}" "$T_TMP/t4b.txt" 2 "nv_queue" "nv_queue2" "UVM GPU12 KC" &
 "${NVT[@]}" --fork "$T_TMP/t4c.txt" 2 "nvidia" &
 wait) &
T_PIDS+=($!)
GPULAT_BPF_NVIDIA_TEST_USER_TASKS=1 bpf_hist nvidia 4 -D >"$T_TMP/h4.json" ||
	not_ok "hist ran"
wait "${T_PIDS[-1]}"
for n in "UVM GPU7 BH:t4a" "nv_queue:t4b" "UVM GPU12 KC:t4b"; do
	tid=$(tid_of "$T_TMP/${n#*:}.txt" "${n%:*}")
	check "nvidia.kthread.wake of \"${n%:*}\" keyed by its pid $tid" \
		"(lambda s: s is not None and s['key'] == ${tid:-0} and s['count'] >= 100)(series('nvidia.kthread.wake', key_name='${n%:*}'))" \
		"$T_TMP/h4.json"
done
child=$(tid_of "$T_TMP/t4c.txt" "nvidia child")
check "nvidia.kthread.wake of a child forked as \"nvidia\" (pid $child)" \
	"any(s['key'] == ${child:-0} and s['key_name'] == 'nvidia' and s['count'] >= 100 for s in d['series'] if s['name'] == 'nvidia.kthread.wake')" \
	"$T_TMP/h4.json"
check "names not the driver's are not followed" \
	"not [s for s in d['series'] if s['key_name'] in ('UVM GPUx BH', 'nv_queue2')]" \
	"$T_TMP/h4.json"
check "a kthread key's IRQ series stay empty" \
	"all(s['count'] == 0 for s in d['series'] if s['name'] != 'nvidia.kthread.wake')" \
	"$T_TMP/h4.json"
# a wakeup the kernel does not show now and then (sched.no_start too)
check "no_start at most 2% of the samples, no other drops" \
	"d['drops'].get('nvidia.no_start', 0) * 50 <= sum(s['count'] for s in d['series']) and not d['drops'].get('nvidia.negative') and not d['drops'].get('nvidia.keys_full')" \
	"$T_TMP/h4.json"
check "every histogram's buckets sum to its count" "buckets_sum_ok()" \
	"$T_TMP/h4.json"

# --- 5. Xids -----------------------------------------------------------------
if ! ${CC:-gcc} -O2 -o "$T_TMP/raw_tp_run" "$HERE/raw_tp_run.c" -lbpf; then
	not_ok "raw_tp_run built"
elif ! command -v "${BPFTOOL:-bpftool}" >/dev/null; then
	ok "Xids # SKIP no bpftool"
elif ! unshare -m --propagation private sh -c \
	'mount -t tmpfs none /sys/kernel/tracing' 2>/dev/null; then
	ok "Xids # SKIP no private mount of /sys/kernel/tracing here (a chroot?)"
else
	# the tool takes a module's tracepoint for there when tracefs lists it
	report_end 4 "$T_TMP/r5.json" unshare -m --propagation private sh -c '
		mount -t tmpfs none /sys/kernel/tracing &&
		mkdir -p /sys/kernel/tracing/events/nvidia/nvidia_dev_xid &&
		exec "$@"' sh &
	rpid=$!
	for i in $(seq 40); do
		id=$("${BPFTOOL:-bpftool}" prog show -j 2>/dev/null | "$PY" -c '
import json, sys
ids = [p["id"] for p in json.load(sys.stdin) if p.get("name") == "gl_nv_xid_raw"]
print(max(ids) if ids else "")')
		[[ -n $id ]] && break
		sleep 0.1
	done
	sleep 0.5
	for i in $(seq 0 69); do echo "@$((i % $(nproc))) 0 $i"; done |
		"$T_TMP/raw_tp_run" "${id:-0}" || not_ok "the Xid program ran"
	wait "$rpid" || not_ok "report ran"
	check "the newest 64 Xids, oldest first" \
		"[e['code'] for e in d['events']] == list(range(6, 70)) and all(e['type'] == 'xid' for e in d['events'])" \
		"$T_TMP/r5.json"
	check "nvidia.xid_lost 6, the Xid program ran 70 times" \
		"d['drops']['nvidia.xid_lost'] == 6 and d['hits']['nvidia:nvidia_dev_xid'] == 70" \
		"$T_TMP/r5.json"
	check "the family stays attached when the Xid attach fails" \
		"d['state'] == 'attached' and d['hits']['sched_switch'] > 0" \
		"$T_TMP/r5.json"
	n=$(grep -c '"type":"xid"' "$T_TMP/r5.json.trace" 2>/dev/null)
	[[ $n -eq 70 ]] && ok "70 Xid records in the trace" ||
		not_ok "70 Xid records in the trace # $n"
fi
t_done
