#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The docs' tables made from kmod/gpulat_series.h (scripts/gen-docs): the
# committed docs are up to date; a table edited by hand, a row the
# declaration gained and a marker with no END each fail the check, naming
# the file; gen-docs then mends what the check found.  Runs on a copy of
# the tree's docs and scripts, never on the tree.  TAP.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"

gendoc=$ROOT/build/user/gendoc
make -s -C "$ROOT" build/user/gendoc >/dev/null || exit 1

# a copy of what gen-docs reads and writes
mkdir -p "$tmp/tree/scripts" "$tmp/tree/Documentation/families"
cp "$ROOT/scripts/gen-docs" "$tmp/tree/scripts/"
cp "$ROOT/README.md" "$tmp/tree/"
cp "$ROOT"/Documentation/*.rst "$ROOT"/Documentation/gpulat.8 "$tmp/tree/Documentation/"
cp "$ROOT"/Documentation/families/*.rst "$tmp/tree/Documentation/families/"
gen() { "$tmp/tree/scripts/gen-docs" "$@" >"$tmp/out" 2>&1; }

check "the committed docs are up to date" \
	'"$ROOT/scripts/gen-docs" --check "$gendoc" >"$tmp/out" 2>&1'

sed -i 's/^1 ms          100%    scheduler  ``sched.wakeup``$/2 ms          100%    scheduler  ``sched.wakeup``/' \
	"$tmp/tree/Documentation/runbook.rst"
check "a hand-edited p99 is found" \
	'! grep -q "^1 ms  .*sched.wakeup" "$tmp/tree/Documentation/runbook.rst" &&
	 ! gen --check "$gendoc" && grep -q "runbook.rst is stale" "$tmp/out"'
check "the check writes nothing" \
	'grep -q "^2 ms  .*sched.wakeup" "$tmp/tree/Documentation/runbook.rst"'
check "gen-docs mends it" \
	'gen "$gendoc" && gen --check "$gendoc" &&
	 grep -q "^1 ms  .*sched.wakeup" "$tmp/tree/Documentation/runbook.rst"'

# a declaration with one more series: a gendoc whose table has a row more
cat >"$tmp/gendoc" <<EOT
#!/bin/bash
"$gendoc" "\$1" | sed '/^| \`cgroup\`/a | \`timer\` | \`timer.expire\` (hrtimer_start -> hrtimer_expire_entry) | CPU |'
EOT
chmod +x "$tmp/gendoc"
check "a family the docs lack is found in README.md" \
	'! gen --check "$tmp/gendoc" && grep -q "README.md is stale" "$tmp/out" &&
	 grep -q "timer.expire" "$tmp/out"'

# the declaration itself edited: sched.wakeup's expected p99 3 ms, and a
# gendoc built from it (its family.o ahead of libgpulat's)
mkdir -p "$tmp/kmod"
sed 's/(SCHED, 1000, 100, 1, NULL)/(SCHED, 3000, 100, 1, NULL)/' \
	"$ROOT/kmod/gpulat_series.h" >"$tmp/kmod/gpulat_series.h"
(cd "$ROOT" && gcc -D_GNU_SOURCE -I "$tmp/kmod" -I user \
	-I kmod -o "$tmp/gendoc3" scripts/gendoc.c \
	user/lib/family.c build/user/libgpulat-tool.a build/user/libgpulat.a \
	-lbpf -lelf -lz -lm -lmicrohttpd -pthread) || exit 1
check "an edited declaration makes the docs stale" \
	'! gen --check "$tmp/gendoc3" && grep -q "runbook.rst is stale" "$tmp/out" &&
	 grep -q "^+3 ms  .*sched.wakeup" "$tmp/out" &&
	 grep -q "histograms.rst is stale" "$tmp/out"'

sed -i '/END gendoc rules/d' "$tmp/tree/Documentation/runbook.rst"
check "a marker with no END fails" \
	'! gen --check "$gendoc" && grep -q "has no END" "$tmp/out"'

sed -i 's/BEGIN gendoc rules/BEGIN gendoc nosuch/' \
	"$tmp/tree/Documentation/runbook.rst"
echo ".. END gendoc nosuch" >>"$tmp/tree/Documentation/runbook.rst"
check "a table gendoc does not make fails" \
	'! gen --check "$gendoc" && grep -q "no table nosuch" "$tmp/out"'

echo "1..$n"
exit $fail
