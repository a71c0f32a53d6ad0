#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scenario library: incidents with a known answer (the layer first,
# the culprit, the key action of the advice), each set up on this host's
# kernel with the BPF source and diagnosed while it lasts (lib.sh).
# Prints TAP, then the confusion matrix (expected layer by row, the
# layer diagnose ranked first by column) and the shares of the goal:
# the true layer first, the culprit named, no advice whose precondition
# is false.
#
#   tests/scenarios/run.sh [NAME...]   (cpu_hogs, s_cpu_hogs or a path)
#   tests/scenarios/run.sh --short     the incidents make check runs
#   GPULAT=path/to/gpulat, SC_SECONDS=N (diagnose's watch, default 10)
#
# Needs root and the kernel's BTF; without them each incident is
# skipped with the reason.  Exit 1 when an incident missed.  Incidents
# inject faults into the host: two runs at once (two checkouts, a CI
# run beside a developer's) take turns, one incident at a time
# (tests/lib/hostlock.py).
cd "$(dirname "$0")/../.." || exit 1
SHORT="cpu_hogs miner switch_storm"
names=("$@")
if [[ ${names[0]:-} == --short ]]; then
	read -ra names <<<"$SHORT"
fi
((${#names[@]})) || names=(tests/scenarios/s_*.sh)
why=
if [[ $(id -u) -ne 0 ]]; then
	why="not root: BPF programs need root"
elif [[ ! -r /sys/kernel/btf/vmlinux ]]; then
	why="this kernel has no BTF (/sys/kernel/btf/vmlinux)"
fi
n=0 fail=0
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for s in "${names[@]}"; do
	[[ -f $s ]] || s=tests/scenarios/s_${s#s_}
	[[ -f $s ]] || s=$s.sh
	name=$(basename "$s" .sh)
	name=${name#s_}
	n=$((n + 1))
	if [[ -n $why ]]; then
		echo "ok $n $name # SKIP $why"
		continue
	fi
	# one incident at a time on this host, whoever runs them
	out=$(python3 tests/lib/hostlock.py gpulat-scenarios 900 bash "$s" 2>&1)
	rc=$?
	sed 's/^/# /' <<<"$out" | grep -v '^# result '
	line=$(grep '^result ' <<<"$out" | tail -1)
	if ((rc == 4)); then
		echo "ok $n $name # SKIP ${line#* SKIP }"
	elif ((rc == 0)); then
		echo "ok $n $name: ${line#result * }"
		echo "$line" >>"$results"
	else
		echo "not ok $n $name: ${line#result * }"
		fail=$((fail + 1))
		[[ -n $line ]] && echo "$line" >>"$results"
	fi
done
echo "1..$n"
python3 - "$results" <<'PYEOF'
import sys
layers = ["driver", "network", "storage", "scheduler", "memory", "none"]
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("result ")]
if not rows:
    sys.exit(0)
m = {(e, g): 0 for e in layers for g in layers}
for r in rows:
    m[(r[2], r[3])] = m.get((r[2], r[3]), 0) + 1
print("# confusion matrix: expected (rows) by ranked first (columns)")
print("# %-10s" % "" + "".join("%10s" % g for g in layers))
for e in layers:
    if any(m[(e, g)] for g in layers):
        print("# %-10s" % e + "".join("%10d" % m[(e, g)] for g in layers))
def share(key):
    vals = [dict(kv.split("=") for kv in r[4:]).get(key, "-") for r in rows]
    asked = [v for v in vals if v != "-"]
    return "%d/%d" % (sum(v == "ok" for v in asked), len(asked))
print("# layer first %s, culprit named %s, advice right %s" % (
      share("layer"), share("culprit"), share("advice")))
PYEOF
((fail == 0))
