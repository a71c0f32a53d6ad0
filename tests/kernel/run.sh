#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs the in-VM tests (kselftest style) and prints KTAP: each test's own
# TAP nested and indented, then its result line.  Exits 1 if any failed.
# Tests are the executables beside this script; PATTERN (a shell glob)
# picks some of them.
# usage: run.sh [PATTERN]
cd /gpulat/tests || exit 1
PATTERN=${1:-*}
KSFT_SKIP=4
TESTS=""
for t in *; do
	[ -x "$t" ] && [ "$t" != run.sh ] || continue
	case "$t" in $PATTERN) TESTS="$TESTS $t" ;; esac
done

set -- $TESTS
echo "TAP version 13"
echo "1..$#"
n=0 fail=0 pass=0 skip=0
for t in $TESTS; do
	n=$((n + 1))
	./"$t" >/tmp/test.out 2>&1
	rc=$?
	sed 's/^/  /' /tmp/test.out
	if [ $rc -eq 0 ]; then
		echo "ok $n $t"; pass=$((pass + 1))
	elif [ $rc -eq $KSFT_SKIP ]; then
		echo "ok $n $t # SKIP"; skip=$((skip + 1))
	else
		echo "not ok $n $t # exit=$rc"; fail=$((fail + 1))
	fi
done
echo "# $(uname -r): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
