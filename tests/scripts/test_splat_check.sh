#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/splat-check against console lines of known verdict: the kernel's
# own report lines are splats, the same words inside data are not.  TAP.
set -u
CHECK=$(dirname "$0")/../../scripts/splat-check
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

# expect VERDICT LINE - splat-check on a log of LINE exits 1 for "splat"
expect() {
	local want=$1 line=$2 rc
	n=$((n + 1))
	printf '%s\r\n' "booting" "$line" "done" >"$tmp/log"
	"$CHECK" "$tmp/log" >/dev/null
	rc=$?
	if { [[ $want == splat ]] && ((rc == 1)); } ||
		{ [[ $want == clean ]] && ((rc == 0)); }; then
		echo "ok $n $want: $line"
	else
		echo "not ok $n $want: $line (exit $rc)"; fail=1
	fi
}

echo "TAP version 13"
echo "1..24"
expect splat "[   12.345678] BUG: kernel NULL pointer dereference, address: 0000000000000008"
expect splat "[    3.100000] Oops: 0000 [#1] PREEMPT SMP NOPTI"
expect splat "[    3.100000] Oops: general protection fault, probably for non-canonical address"
expect splat "[    5.000001] WARNING: CPU: 1 PID: 88 at kernel/trace/trace.c:100 foo+0x1/0x2 [gpulat]"
expect splat "[    5.000002] Call Trace:"
expect splat "[    5.000003] kernel BUG at mm/slub.c:123!"
expect splat "[  125.000000] INFO: task gpulat:201 blocked for more than 120 seconds."
expect splat "[   30.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"
expect splat "[   30.000000] watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [x:1]"
expect splat "[    9.000000] WARNING: possible circular locking dependency detected"
expect splat "[    9.000000] UBSAN: array-index-out-of-bounds in kmod/trace.c:10:2"
expect splat "[    9.000000] BUG: KASAN: slab-out-of-bounds in gpulat_snapshot+0x10/0x20"
expect splat "[    9.000000] Kernel panic - not syncing: Fatal exception in interrupt"
expect splat "[    9.000000] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
expect splat "[    9.000000] [  T123] BUG: sleeping function called from invalid context"
expect splat "BUG: unable to handle page fault for address: ffffa0"
expect splat "test output without newline[    7.000000] WARNING: CPU: 0 PID: 1 at x.c:1 f"
expect clean "  # the word Oops inside a test's output"
expect clean "  ok 3 trace_test.no_BUG: in the records"
expect clean "  # file says: WARNING: not a kernel line"
expect clean "a tar member named Call Trace: in data"
expect clean "[    4.000000] gpulat: tracepoint foo not found, family off"
expect clean "  # TIMEOUT: x ran past; Kernel panic - not syncing was printed by a test"
GPULAT_VM_ALLOW='trace.c:100' expect clean "[    5.000001] WARNING: CPU: 1 PID: 88 at kernel/trace/trace.c:100 foo+0x1/0x2"
echo "# splat-check: $((n - fail)) of $n as expected"
exit $fail
