# SPDX-License-Identifier: GPL-2.0
# What the host script tests (tests/scripts/test_*.sh) share, sourced:
# TAP lines numbered in n, any failure sets fail.
n=0 fail=0
# check DESC EXPR: EXPR (eval'd) decides ok or not ok
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n $1"; else echo "not ok $n $1"; fail=1; fi
}
# skip DESC WHY: a check this machine cannot make, never a pass
skip() {
	n=$((n + 1))
	echo "ok $n $1 # SKIP $2"
}
