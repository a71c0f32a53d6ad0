#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source, cgroups: two cgroups made here under the cgroup2 hierarchy
# (pure, or the unified one of a hybrid host), A with a periodic victim
# and B with a CPU hog, both pinned to one CPU:
#   - the victim's sched records carry A's id and name B's as the
#     culprits' cgroup; A's cgroup.wakeup moves, B's does not;
#   - with every sched sample traced (threshold 1 ns), A's records in
#     the window equal A's cgroup series' counts, none lost, but for
#     the records that ended while a snapshot read the maps (in it or
#     not; cg_probe counts them apart);
#   - more cgroups below a watched one than keys: cgroup.keys_full;
#   - N O_DIRECT reads of a loop device from a task in A: A's
#     cgroup.block moves by N;
#   - a task in A and in a memory cgroup with a small limit (v1 memory
#     controller on a hybrid host, memory.max on cgroup2) reading more
#     than the limit through the page cache: mm.memcg_reclaim and A's
#     cgroup.memcg_reclaim move.
# The watch is set with tests/bpf/cg_probe.c (one process: load, watch,
# trace, two snapshots); cg_window/cg_close are the place to swap in the
# tool's own commands.
. "$(dirname "$0")/lib.sh"
HERE=$(dirname "$0")

CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
TAG=gl-test-$$
CG_DIRS=()
LOOP=

cg_cleanup() {
	local d p
	for ((i = ${#CG_DIRS[@]} - 1; i >= 0; i--)); do
		d=${CG_DIRS[i]}
		[[ -d $d ]] || continue
		for p in $(cat "$d/cgroup.procs" 2>/dev/null); do
			kill -9 "$p" 2>/dev/null
		done
	done
	sleep 0.2
	for ((i = ${#CG_DIRS[@]} - 1; i >= 0; i--)); do
		rmdir "${CG_DIRS[i]}" 2>/dev/null
	done
	[[ -n $LOOP ]] && losetup -d "$LOOP" 2>/dev/null
	t_cleanup
}
trap cg_cleanup EXIT

# mkcg DIR: make a cgroup, removed at exit
mkcg() {
	mkdir "$1" && CG_DIRS+=("$1")
}

# in_cg DIR... -- CMD...: run CMD in those cgroups
in_cg() {
	local dirs=()
	while [[ $1 != -- ]]; do dirs+=("$1"); shift; done
	shift
	sh -c 'for d; do [ "$d" = -- ] && break; echo $$ > "$d/cgroup.procs" || exit 1; shift; done; shift; exec "$@"' \
		sh "${dirs[@]}" -- "$@"
}

if [[ -z $CG2 ]] || ! mkcg "$CG2/$TAG-a" || ! mkcg "$CG2/$TAG-b"; then
	echo "ok 1 # SKIP no writable cgroup2 hierarchy"
	t_done
	exit
fi
A=$CG2/$TAG-a
B=$CG2/$TAG-b
PROBE=$T_TMP/cg_probe
if ! ${CC:-gcc} -O2 -D_GNU_SOURCE -I user -I kmod -I bpf -I build/bpf \
	-o "$PROBE" "$HERE/cg_probe.c" build/user/libgpulat.a \
	-lbpf -lelf -lz -lm; then
	not_ok "cg_probe built"
	t_done
	exit
fi

# cg_window OUT [-t FAMILY=NS]... DIR...: watch DIRs from now; the
# window's JSON goes to OUT once cg_close OUT
cg_window() {
	local out=$1 i
	shift
	rm -f "$out.stop" "$out"
	# off the test's CPU: the reader is no culprit of the victim's waits;
	# ahead of others there: every sched sample is traced
	nice -n -15 taskset -c 0 "$PROBE" -s "$out.stop" "$@" >"$out.raw" 2>"$out.err" &
	for ((i = 0; i < 150; i++)); do
		grep -q '^ready' "$out.raw" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$out.err" >&2
	return 1
}

cg_close() {
	local out=$1 i
	touch "$out.stop"
	for ((i = 0; i < 150; i++)); do
		grep -q '\]}$' "$out.raw" 2>/dev/null && break
		sleep 0.1
	done
	sed 1d "$out.raw" >"$out"
}

id_of() { stat -c %i "$1"; }
IDA=$(id_of "$A")
IDB=$(id_of "$B")

# cgcheck NAME EXPR FILE: check with d = the window's JSON and
# cg(name, id): the delta of series name of that cgroup (0 if none)
cgcheck() {
	local name=$1 expr=$2 file=$3 out
	if out=$("$PY" - "$file" "$expr" "$IDA" "$IDB" <<'PYEOF' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
A, B = int(sys.argv[3]), int(sys.argv[4])
def cg(name, key):
    return sum(s["delta"] for s in d["series"]
               if s["name"] == name and s["key"] == key)
def mm(name):
    return sum(s["delta"] for s in d["series"] if s["name"] == name)
def rec(key, name):
    return d["records"].get(str(key), {}).get(name, 0)
# rec_is(KEY, NAME, N): the records in the window equal N but for those
# that ended while a snapshot read the maps (in it or not)
def rec_is(key, name, n):
    r = d["records"].get(str(key), {})
    return abs(r.get(name, 0) - n) <= r.get(name + "/edge", 0)
def culprit_ns(key, ns):
    import collections
    c = collections.Counter()
    for r in d["sched"]:
        if r["cgroup"] == key and r["ns"] >= ns:
            for pid, cgid, t in r["culprits"]:
                c[cgid] += t
    return c
def key_name(key):
    return [s["key_name"] for s in d["series"] if s["key"] == key][:1]
v = eval(sys.argv[2])
print(v)
sys.exit(0 if v else 1)
PYEOF
	); then
		ok "$name"
	else
		not_ok "$name # $expr -> $out"
	fi
}

# --- sched: hogs in B, a victim in A, one CPU ------------------------------
# two hogs, the victim at nice 19 (it cannot preempt them): its waits are
# B's time on the CPU, whatever else shares it
cpu=$(($(nproc) - 1))
for i in 1 2; do
	in_cg "$B" -- taskset -c "$cpu" sh -c 'while :; do :; done' \
		>/dev/null 2>&1 &
	T_PIDS+=($!)
done
sleep 0.5
W=$T_TMP/sched.json
# the counts compare only without losses: a busy host may starve the
# reader of a trace of every sample, so a window that lost some is taken
# again (3 at most)
for try in 1 2 3; do
	cg_window "$W" -t sched=1 "$A" "$B" || break
	in_cg "$A" -- nice -n 19 taskset -c "$cpu" "$PY" -c "import time
for i in range(200): time.sleep(0.005)"
	sleep 0.2
	cg_close "$W"
	"$PY" -c "import json, sys; sys.exit(json.load(open('$W'))['lost'] > 0)" &&
		break
	echo "# window $try lost records, again"
done
if [[ -s $W ]]; then
	cgcheck "the victim's sched records carry A's id" \
		"rec(A, 'sched.wakeup') >= 150" "$W"
	cgcheck "A's series are named after its directory" \
		"key_name(A) == ['$TAG-a']" "$W"
	cgcheck "in A's waits of 1 ms or more B's culprits held the CPU most" \
		"culprit_ns(A, 1000000).most_common(1)[0][0] == B" "$W"
	cgcheck "50 of those waits name B among the culprits' cgroups" \
		"sum(1 for r in d['sched'] if r['cgroup'] == A and r['ns'] >= 1000000 and B in [c[1] for c in r['culprits']]) >= 50" "$W"
	cgcheck "A's cgroup.wakeup moves (>= 150)" \
		"cg('cgroup.wakeup', A) >= 150" "$W"
	cgcheck "B's cgroup.wakeup does not (the hog never sleeps)" \
		"cg('cgroup.wakeup', B) == 0" "$W"
	cgcheck "no trace record lost in the window (try $try)" \
		"d['lost'] == 0" "$W"
	cgcheck "A's records == A's cgroup.wakeup count" \
		"rec_is(A, 'sched.wakeup', cg('cgroup.wakeup', A))" "$W"
	cgcheck "A's records == A's cgroup.preempt count" \
		"rec_is(A, 'sched.preempt', cg('cgroup.preempt', A))" "$W"
	cgcheck "B's records == B's cgroup.preempt count" \
		"rec_is(B, 'sched.preempt', cg('cgroup.preempt', B))" "$W"
	cgcheck "no cgroup.keys_full with two cgroups" \
		"d['counters']['cgroup.keys_full'] == 0" "$W"
else
	not_ok "the cgroup window opened (sched)"
fi
kill "${T_PIDS[@]}" 2>/dev/null

# --- keys: 70 cgroups below a watched one, 64 keys -----------------------
P=$CG2/$TAG-p
if mkcg "$P"; then
	for i in $(seq 70); do mkcg "$P/c$i"; done
	W=$T_TMP/keys.json
	if cg_window "$W" "$P"; then
		for i in $(seq 70); do
			in_cg "$P/c$i" -- sh -c 'sleep 0.01; sleep 0.01'
		done
		cg_close "$W"
		cgcheck "64 keys below the watched cgroup, the bound" \
			"len(set(s['key'] for s in d['series'] if s['name'] == 'cgroup.wakeup')) == 64" "$W"
		cgcheck "the samples of the cgroups beyond it: keys_full" \
			"d['counters']['cgroup.keys_full'] >= 6" "$W"
	else
		not_ok "the cgroup window opened (keys)"
	fi
fi

# --- block: N O_DIRECT reads of a loop device from A -------------------
N=64
IMG=$T_TMP/disk.img
truncate -s 64M "$IMG"
if LOOP=$(losetup -f --show "$IMG" 2>/dev/null); then
	dd if="$LOOP" of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
	W=$T_TMP/block.json
	if cg_window "$W" "$A"; then
		in_cg "$A" -- dd if="$LOOP" of=/dev/null bs=4096 count=$N \
			iflag=direct 2>/dev/null
		sleep 0.2
		cg_close "$W"
		cgcheck "$N O_DIRECT reads from A: A's cgroup.block moves by $N" \
			"cg('cgroup.block', A) == $N" "$W"
	else
		not_ok "the cgroup window opened (block)"
	fi
else
	echo "ok $((T_N += 1)) # SKIP no loop device (losetup failed)"
fi

# --- memcg: a task in A and a small memory cgroup reads past its limit ---
# a hybrid host: a v1 memory cgroup beside A; pure cgroup2: A's memory.max
M=
if [[ -n $LOOP && -w /sys/fs/cgroup/memory/cgroup.procs ]] &&
	mkcg /sys/fs/cgroup/memory/$TAG; then
	M=/sys/fs/cgroup/memory/$TAG
	echo $((16 << 20)) >"$M/memory.limit_in_bytes" || M=
elif [[ -n $LOOP && -w $A/memory.max ]]; then
	echo $((16 << 20)) >"$A/memory.max" && M=$A
fi
if [[ -n $M ]]; then
	W=$T_TMP/memcg.json
	blockdev --flushbufs "$LOOP" 2>/dev/null
	if cg_window "$W" "$A"; then
		if [[ $M == "$A" ]]; then
			in_cg "$A" -- dd if="$LOOP" of=/dev/null bs=1M count=48 2>/dev/null
		else
			in_cg "$A" "$M" -- dd if="$LOOP" of=/dev/null bs=1M count=48 2>/dev/null
		fi
		cg_close "$W"
		cgcheck "reading 48 MiB in a 16 MiB memory cgroup: mm.memcg_reclaim" \
			"mm('mm.memcg_reclaim') > 0" "$W"
		cgcheck "A (the task's cgroup2 cgroup) gets cgroup.memcg_reclaim" \
			"cg('cgroup.memcg_reclaim', A) > 0" "$W"
	else
		not_ok "the cgroup window opened (memcg)"
	fi
else
	echo "ok $((T_N += 1)) # SKIP no memory cgroup could be made"
fi
t_done
