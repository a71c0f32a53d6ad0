#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source, sched family: two hogs pinned on the last CPU make a
# sleeper there wait for it an order of magnitude longer than a sleeper
# on CPU 0 (run-queue wait, sched.wakeup p50 per CPU).
. "$(dirname "$0")/lib.sh"

last=$(($(nproc) - 1))
hog "$last"
hog "$last"
sleeper "$last" 0.005
sleeper 0 0.005
sleep 0.5
bpf_hist sched 3 --per-cpu >"$T_TMP/h.json" || not_ok "hist ran"
check "sched.wakeup on CPU 0 has samples" \
	"series('sched.wakeup', 0)['count'] >= 50" "$T_TMP/h.json"
check "sched.wakeup on CPU $last has samples" \
	"series('sched.wakeup', $last)['count'] >= 10" "$T_TMP/h.json"
check "a hogged CPU waits >= 10x longer (p90)" \
	"series('sched.wakeup', $last)['p90_ns'] >= 10 * series('sched.wakeup', 0)['p90_ns']" \
	"$T_TMP/h.json"
check "sched.preempt of the hogs: p50 in milliseconds" \
	"series('sched.preempt', $last)['p50_ns'] >= 1000000" "$T_TMP/h.json"
check "every histogram's buckets sum to its count" \
	"buckets_sum_ok()" "$T_TMP/h.json"
t_done
