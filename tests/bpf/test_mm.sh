#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source, mm family: writing vm.compact_memory compacts every
# populated zone in the writer's task, which has no PF_MEMALLOC: one
# mm.compaction_bg sample per zone at least, none of them direct.
#
# Not tested here: mm.direct_reclaim and mm.compaction (direct) need the
# whole machine short of free pages (a memory cgroup's limit reclaims
# through the memcg reclaim events, not these), which a shared host
# cannot be put through safely.  Their programs are checked to attach.
. "$(dirname "$0")/lib.sh"

"$GPULAT" --source bpf status >"$T_TMP/status" 2>&1 || not_ok "status ran"
for tp in mm_vmscan_direct_reclaim_end mm_vmscan_direct_reclaim_begin \
	  mm_compaction_end mm_compaction_begin; do
	if grep -Eq "^  tracepoint  $tp +attached" "$T_TMP/status"; then
		ok "$tp attached"
	else
		not_ok "$tp attached # $(grep "$tp" "$T_TMP/status")"
	fi
done

zones=$(awk '/^Node/ { z = 1 } /^ +present/ && z { if ($2 > 0) n++; z = 0 }
	END { print n + 0 }' /proc/zoneinfo)
(sleep 1; echo 1 >/proc/sys/vm/compact_memory) &
T_PIDS+=($!)
bpf_hist mm 3 >"$T_TMP/h.json" || not_ok "hist ran"
check "compact_memory: mm.compaction_bg >= $zones (populated zones)" \
	"series('mm.compaction_bg')['count'] >= $zones" "$T_TMP/h.json"
check "compact_memory: no direct mm.compaction" \
	"series('mm.compaction')['count'] == 0" "$T_TMP/h.json"
check "compaction_bg p50 above 1us" \
	"series('mm.compaction_bg')['p50_ns'] >= 1000" "$T_TMP/h.json"
check "mm.direct_reclaim is reported" \
	"series('mm.direct_reclaim') is not None" "$T_TMP/h.json"
check "no drops" "not any(d['drops'].values())" "$T_TMP/h.json"
check "every histogram's buckets sum to its count" \
	"buckets_sum_ok()" "$T_TMP/h.json"
t_done
