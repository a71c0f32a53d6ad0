#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/check-layers on the tree (clean), and on copies with a fault
# planted: an engine including the command header, the library an
# engine's, an engine another's private header, a loop between engine
# folders, a header not named from user/, two headers of one name, and an
# engine returning an exit code.  Each fails, naming the file.  TAP.
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

# plant LINE FILE - LINE as the first include of FILE
plant() {
	sed -i "0,/^#include \"/s||$1\n#include \"|" "$2"
}

copy
plant '#include "cmd/cmd.h"' "$tmp/t/user/engine/watch/watch.c"
check "an engine including the command header fails" \
	'! run "$tmp/t" && grep -q "user/engine/watch/watch.c (engine) includes user/cmd/cmd.h (cmd)" "$tmp/out"'

copy
plant '#include "engine/diagnose/diagnose.h"' "$tmp/t/user/lib/units.c"
check "the library including an engine's header fails" \
	'! run "$tmp/t" && grep -q "user/lib/units.c (lib) includes user/engine/diagnose/diagnose.h (engine)" "$tmp/out"'

copy
plant '#include "engine/diagnose/diagnose_int.h"' "$tmp/t/user/engine/drill/drill.c"
check "an engine including another's private header fails" \
	'! run "$tmp/t" && grep -q "drill/drill.c includes user/engine/diagnose/diagnose_int.h, not diagnose.s public header user/engine/diagnose/diagnose.h" "$tmp/out"'

copy
plant '#include "engine/serve/serve.h"' "$tmp/t/user/engine/watch/watch.c"
check "a loop between engine folders fails" \
	'! run "$tmp/t" && grep -q "a loop between engine folders:.*watch" "$tmp/out"'

copy
plant '#include "json.h"' "$tmp/t/user/engine/view/view.c"
check "a header not named from user/ fails, naming the way" \
	'! run "$tmp/t" && grep -q "view/view.c: #include \"json.h\": no such header (name it \"lib/json.h\")" "$tmp/out"'

copy
cp "$tmp/t/kmod/gpulat_hist.h" "$tmp/t/user/gpulat_hist.h"
check "two headers of one name fail" \
	'! run "$tmp/t" && grep -q "#include \"gpulat_hist.h\" is ambiguous: kmod/gpulat_hist.h user/gpulat_hist.h" "$tmp/out"'

copy
sed -i '0,/return 0;/s//return GPULAT_EXIT_OK;/' "$tmp/t/user/engine/watch/watch.c"
check "an engine returning an exit code fails" \
	'! run "$tmp/t" && grep -q "an exit code in an engine: user/engine/watch/watch.c" "$tmp/out"'

echo "1..$n"
exit $fail
