# SPDX-License-Identifier: GPL-2.0
# TAP for the guest's shell tests (as /gpulat/lib/tap.sh), sourced:
# results numbered in n, any failure sets fail.
#
#   ok DESC / not_ok DESC   one result line
#   check DESC CMD...       ok when CMD succeeds, else not ok
#   skip_all WHY            a plan that skips every check; exit 4
#                           (KSFT_SKIP): call it before the plan
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n $1"; }
check() {
	_d=$1
	shift
	if "$@"; then ok "$_d"; else not_ok "$_d"; fi
}
skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $1"
	exit 4
}
