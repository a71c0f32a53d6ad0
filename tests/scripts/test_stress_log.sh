#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/stress --check-log against console logs of known verdict: the
# stack of each OOM report is exempt, any other "Call Trace:" is not.  TAP.
set -u
STRESS=$(dirname "$0")/../../scripts/stress
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

oom='[   84.646429] stress_load invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0, oom_score_adj=1000
[   84.653330] CPU: 3 PID: 352 Comm: stress_load Tainted: G           OE      6.1.0-57-amd64 #1  Debian 6.1.192-3
[   84.653822] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 0.1 11/11/2019
[   84.654124] Call Trace:
[   84.655033]  <TASK>
[   84.655264]  dump_stack_lvl+0x44/0x5c
[   84.655659]  dump_header+0x4c/0x22b'
killed='[   84.692470] Out of memory: Killed process 352 (stress_load) total-vm:731180kB'
warn='[   90.000001] WARNING: CPU: 1 PID: 88 at kmod/trace.c:100 foo+0x1/0x2 [gpulat]
[   90.000002] Call Trace:
[   90.000003]  <TASK>'

# expect VERDICT DESC LOG-TEXT: --check-log exits 0 for clean, 125 for stack
expect() {
	local want=$1 desc=$2 rc
	n=$((n + 1))
	printf '%s\r\n' "booting" "$3" "done" >"$tmp/log"
	"$STRESS" --check-log "$tmp/log" >/dev/null
	rc=$?
	if { [[ $want == clean ]] && ((rc == 0)); } ||
		{ [[ $want == stack ]] && ((rc == 125)); }; then
		echo "ok $n $want: $desc"
	else
		echo "not ok $n $want: $desc (exit $rc)"; fail=1
	fi
}

echo "TAP version 13"
echo "1..7"
expect clean "an OOM report and its stack" "$oom
$killed"
expect clean "two OOM reports, a stack each" "$oom
$killed
$oom
$killed"
expect clean "guest output before the stack's line" "${oom/\[   84.654124\] Call Trace:/  ok 3 x[   84.654124] Call Trace:}"
expect stack "a WARNING's stack" "$warn"
expect stack "a WARNING's stack after an OOM report" "$oom
$killed
$warn"
expect stack "a stack with no report line before it" "[    5.000002] Call Trace:"
expect stack "the report line quoted by a test is no report" "  #   [   84.6] stress_load invoked oom-killer mentioned
[   84.654124] Call Trace:"
exit $fail
