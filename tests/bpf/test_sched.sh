#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source, sched family: two hogs pinned on the last CPU make a
# nice-19 sleeper there wait for it (run-queue wait, sched.wakeup per
# CPU), and a sleeper on CPU 0 gives that CPU samples.  The host may be
# busy (other users, a VM): the known answer is the hogged sleeper's own
# waits, in a cgroup of its own (gpulat hist --cgroup), which other load
# can only lengthen: two nice-0 hogs leave a nice-19 task about 1% of
# the CPU, so its wakeups wait milliseconds.
. "$(dirname "$0")/lib.sh"

CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
CG=
s_cleanup() {
	t_cleanup
	[[ -n $CG ]] && rmdir "$CG" 2>/dev/null
}
trap s_cleanup EXIT

last=$(($(nproc) - 1))
hog "$last"
hog "$last"
sleeper 0 0.005
if [[ -n $CG2 ]] && CG=$CG2/gl-sched-$$ && mkdir "$CG"; then
	# the victim joins its cgroup before it starts sleeping
	nice -n 19 taskset -c "$last" sh -c "echo \$\$ >'$CG/cgroup.procs' &&
		exec $PY -c 'import time
while True: time.sleep(0.005)'" >/dev/null 2>&1 &
	T_PIDS+=($!)
else
	CG=
	sleeper "$last" 0.005
fi
sleep 0.5
bpf_hist sched 3 --per-cpu >"$T_TMP/h.json" || not_ok "hist ran"
check "sched.wakeup on CPU 0 has samples" \
	"series('sched.wakeup', 0)['count'] >= 50" "$T_TMP/h.json"
check "sched.wakeup on CPU $last has samples" \
	"series('sched.wakeup', $last)['count'] >= 10" "$T_TMP/h.json"
check "sched.preempt of the hogs: p50 in milliseconds" \
	"series('sched.preempt', $last)['p50_ns'] >= 1000000" "$T_TMP/h.json"
check "every histogram's buckets sum to its count" \
	"buckets_sum_ok()" "$T_TMP/h.json"
if [[ -z $CG ]]; then
	ok "the hogged sleeper waits milliseconds # SKIP no cgroup2 to hold it"
else
	"$GPULAT" --source bpf hist --cgroup "$CG" -j 3 1 >"$T_TMP/c.json" ||
		not_ok "hist --cgroup ran"
	check "the hogged sleeper waits milliseconds (cgroup.wakeup p50)" \
		"(lambda s: s['count'] >= 2 and s['p50_ns'] >= 1000000)([s for s in d['cgroups'][0]['series'] if s['kind'] == 'wakeup'][0])" \
		"$T_TMP/c.json"
	sed 's/^/# /' "$T_TMP/c.json"
fi
t_done
