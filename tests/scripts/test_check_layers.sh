#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/check-layers on the tree (clean), and on copies with an upward
# include planted: an engine including the command header, the library
# including an engine's, and an engine returning an exit code.  Each
# fails, naming the file.  TAP.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"

run() { "$1/scripts/check-layers" >"$tmp/out" 2>&1; }

check "the tree's includes only go down" 'run "$ROOT"'

# copy - a fresh copy of what the check reads, in $tmp/t
copy() {
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t/scripts"
	cp "$ROOT/scripts/check-layers" "$tmp/t/scripts/"
	cp -r "$ROOT/user" "$ROOT/kmod" "$ROOT/bpf" "$tmp/t/"
}

copy
sed -i '0,/^#include "/s//#include "gpulat.h"\n#include "/' "$tmp/t/user/engine/watch.c"
check "an engine including the command header fails" \
	'! run "$tmp/t" && grep -q "user/engine/watch.c (engine) includes user/gpulat.h (cmd)" "$tmp/out"'

copy
sed -i '0,/^#include "/s//#include "diagnose.h"\n#include "/' "$tmp/t/user/lib/units.c"
check "the library including an engine's header fails" \
	'! run "$tmp/t" && grep -q "user/lib/units.c (lib) includes user/engine/diagnose.h (engine)" "$tmp/out"'

copy
sed -i '0,/return 0;/s//return GPULAT_EXIT_OK;/' "$tmp/t/user/engine/watch.c"
check "an engine returning an exit code fails" \
	'! run "$tmp/t" && grep -q "an exit code in an engine: user/engine/watch.c" "$tmp/out"'

echo "1..$n"
exit $fail
