#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/kernel/run.sh on the host, on stand-in tests of known outcome: a
# per-test limit kills a hung test (and its child) and says where it was,
# a skip carries its reason, and --budget sums the limits.  TAP.
set -u
RUN=$(cd "$(dirname "$0")/../kernel" && pwd)/run.sh
LIB=$(cd "$(dirname "$0")/../lib" && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
. "$(dirname "$0")/tap.sh"

printf '#!/bin/sh\necho "  #  RUN  fix.passes"\nexit 0\n' >"$d/a_pass"
printf '#!/bin/sh\necho "1..0 # SKIP family mm: tracepoints missing on this kernel: x"\nexit 4\n' >"$d/b_skip"
# a length of its own: another run of this test on a shared host has another
nap=$((600 + RANDOM % 30000))
printf '#!/bin/sh\necho "#  RUN  fix.hangs_here"\nsleep %d &\nsleep %d\n' \
	"$nap" "$nap" >"$d/c_hang"
printf '#!/bin/sh\nexit 1\n' >"$d/d_fail"
chmod +x "$d"/?_*
printf 'default 5\nc_hang 2\n' >"$d/timeouts"

echo "TAP version 13"
echo "1..10"
check "budget sums the limits (5 + 5 + 2 + 5)" \
	'[[ $(sh "$RUN" --budget "$d") == 17 ]]'
check "budget of a pattern" '[[ $(sh "$RUN" --budget "$d" "c_*") == 2 ]]'
check "GPULAT_TIMEOUT_SCALE multiplies the limits (3 x 17)" \
	'[[ $(GPULAT_TIMEOUT_SCALE=3 sh "$RUN" --budget "$d") == 51 ]]'
start=$SECONDS
out=$(GPULAT_TESTS=$d GPULAT_LIB=$LIB GPULAT_WATCHDOG_SYSRQ=0 sh "$RUN" 2>&1)
rc=$?
check "a failing suite exits non-zero" '((rc != 0))'
check "the hung test is killed at its limit" '((SECONDS - start < 15))'
check "the timeout names the test and its limit" \
	'grep -q "^not ok 3 c_hang # TIMEOUT 2s" <<<"$out"'
check "the timeout shows where the test was" \
	'grep -q "#   #  RUN  fix.hangs_here" <<<"$out" && grep -q "# pid .* (sleep)" <<<"$out"'
check "the timeout lists the other tasks a hang may wait on" \
	'grep -q "# other tasks: running, D state, irq_work" <<<"$out"'
check "a skip carries its reason" \
	'grep -q "^ok 2 b_skip # SKIP family mm: tracepoints missing" <<<"$out"'
check "the totals" 'grep -q ": 1 passed, 2 failed, 1 skipped" <<<"$out"'
((fail)) && printf '%s\n' "$out" | sed 's/^/# /'
# the kill is sent; a loaded host may take a moment to reap it
for _ in 1 2 3 4 5 6; do
	pgrep -fx "sleep $nap" >/dev/null || break
	sleep 0.5
done
pgrep -fx "sleep $nap" >/dev/null &&
	{ echo "# a child of the hung test outlived it"; fail=1; }
exit $fail
