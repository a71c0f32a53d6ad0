#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every family has its cross case (tests/kernel/cross_cases.h): the list
# builds with the tree's families, and a family added to kmod/families.h
# without a CROSS_CASE_<name> line fails to build, naming the line that
# is missing.  TAP.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"

CC=${CC:-gcc}
printf '#include "cross_cases.h"\nint main(void) { return !cross_cases[1]; }\n' \
	>"$tmp/t.c"
build() { "$CC" -fsyntax-only -I "$1" -I "$ROOT/tests/kernel" \
	-I "$ROOT/kmod" "$tmp/t.c" >"$tmp/out" 2>&1; }

check "the tree's families all have a cross case" 'build "$ROOT/kmod"'

mkdir -p "$tmp/inc"
sed '$a GPULAT_FAMILY(timer, 9, 0, 0, (NONE, NULL, SCHED, 0))' \
	"$ROOT/kmod/families.h" >"$tmp/inc/families.h"
check "a family without a cross case does not build" \
	'! build "$tmp/inc" && grep -q "CROSS_CASE_timer" "$tmp/out"'

echo "1..$n"
exit $fail
