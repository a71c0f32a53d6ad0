#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs the in-VM tests (kselftest style) and prints KTAP: each test's own
# TAP nested and indented, then its result line.  Exits 1 if any failed.
# Tests are the executables beside this script; PATTERN (a shell glob)
# picks some of them.  Each test runs under its own time limit, taken from
# the file `timeouts` beside it (kselftest's per-test timeout): a test that
# overruns is killed, and the result says where it was.
#
# usage: run.sh [PATTERN]            run the tests (in the guest)
#        run.sh --budget DIR [PATTERN]
#                                    print the seconds a whole run of the
#                                    tests in DIR may take (on the host, for
#                                    vmrun --timeout): their limits summed
# GPULAT_TESTS: the tests' folder for a run (default /gpulat/tests).
# GPULAT_TIMEOUT_SCALE: factor on every limit, for slower kernels (KASAN,
# lockdep); default 1.  In the guest it comes from the kernel command line
# (vmrun --append GPULAT_TIMEOUT_SCALE=N: init gets it in its environment).
DIR=${GPULAT_TESTS:-/gpulat/tests}
BUDGET=0
if [ "${1:-}" = --budget ]; then
	BUDGET=1 DIR=$2
	shift 2
fi
cd "$DIR" || exit 1
PATTERN=${1:-*}
KSFT_SKIP=4

# limit NAME - the test's time limit in seconds (the "default" line
# applies to a test the file does not name), times GPULAT_TIMEOUT_SCALE
limit() {
	awk -v t="$1" -v s="${GPULAT_TIMEOUT_SCALE:-1}" '
		$1 == t { v = $2 } $1 == "default" { d = $2 }
		END { print int((v != "" ? v : (d != "" ? d : 120)) * s + 0.5) }' \
		timeouts 2>/dev/null || echo 120
}

TESTS=""
for t in *; do
	[ -x "$t" ] && [ "$t" != run.sh ] || continue
	case "$t" in $PATTERN) TESTS="$TESTS $t" ;; esac
done

if [ $BUDGET = 1 ]; then
	sum=0
	for t in $TESTS; do sum=$((sum + $(limit "$t"))); done
	echo "$sum"
	exit 0
fi

# the watchdog: run_limited, now (tests/lib/watchdog.sh)
. "${GPULAT_LIB:-/gpulat/lib}/watchdog.sh" || exit 1

set -- $TESTS
echo "TAP version 13"
echo "1..$#"
n=0 fail=0 pass=0 skip=0
for t in $TESTS; do
	n=$((n + 1))
	lim=$(limit "$t")
	run_limited "$lim" /tmp/test.out ./"$t"
	rc=$RL_RC secs=$RL_SECS
	sed 's/^/  /' /tmp/test.out
	if [ -n "$RL_TIMEOUT" ]; then
		echo "  # TIMEOUT: $t ran past its limit of ${lim}s; its last lines:"
		tail -n 5 /tmp/test.out | sed 's/^/  #   /'
		sed 's/^/  /' "$RL_TIMEOUT"
		echo "not ok $n $t # TIMEOUT ${lim}s"; fail=$((fail + 1))
	elif [ $rc -eq 0 ]; then
		echo "ok $n $t # time ${secs}s"; pass=$((pass + 1))
	elif [ $rc -eq $KSFT_SKIP ]; then
		# the reason the test gave, if it gave one
		why=$(sed -n 's/.*# SKIP *//p' /tmp/test.out | tail -n 1)
		echo "ok $n $t # SKIP${why:+ $why}"; skip=$((skip + 1))
	else
		echo "not ok $n $t # exit=$rc, time ${secs}s"; fail=$((fail + 1))
	fi
done
echo "# $(uname -r): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
