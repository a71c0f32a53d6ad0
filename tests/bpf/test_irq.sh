#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source, irq family: with direct disk writes for interrupts, each
# handler's irq.handler count over one interval against its IRQ's
# /proc/interrupts deltas: at least those of a window inside the
# interval, at most those of one around it (a handler runs once per
# interrupt of its line; an edge IRQ that comes again while it runs, a
# second time: 5% more), keys against /proc/interrupts (the IRQ number in
# the low 32 bits, the handler's name on that line), and no drops.
. "$(dirname "$0")/lib.sh"

SECS=4

# irqs FILE: "IRQ TOTAL REST" per numbered line of /proc/interrupts
irqs() {
	awk 'NR > 1 && $1 ~ /^[0-9]+:$/ {
		n = 0; t = 0; rest = ""
		for (i = 2; i <= NF; i++) {
			if (rest == "" && $i ~ /^[0-9]+$/ && n < ncpu) { t += $i; n++ }
			else rest = rest " " $i
		}
		sub(":", "", $1); print $1, t, rest
	}' ncpu="$(grep -c '^cpu[0-9]' /proc/stat)" /proc/interrupts >"$1"
}

# disk interrupts: small direct writes, one request each
spawn sh -c "while :; do dd if=/dev/zero of=$T_TMP/io bs=4k count=256 \
	oflag=direct conv=notrunc 2>/dev/null; done"
sleep 0.5
# outer window: before .. after; inner: in .. out, well inside the
# interval, which starts once the programs are loaded (well under 1.5 s)
irqs "$T_TMP/before"
bpf_hist irq "$SECS" -D >"$T_TMP/h.json" &
hp=$!
sleep 1.5
irqs "$T_TMP/in"
sleep 1.5
irqs "$T_TMP/out"
wait "$hp" || not_ok "hist ran"
irqs "$T_TMP/after"

cat >"$T_TMP/cmp.py" <<'PYEOF'
import json, re, sys

def table(path):
    t = {}
    for line in open(path):
        irq, total, *rest = line.split(None, 2)
        t[int(irq)] = (int(total), rest[0] if rest else "")
    return t

before, after = table(sys.argv[1]), table(sys.argv[2])
inner = table(sys.argv[3]), table(sys.argv[4])
d = json.load(open(sys.argv[5]))
bad = []
seen = set()
for s in d["series"]:
    irq = s["key"] & 0xffffffff
    seen.add(irq)
    if irq not in after:
        bad.append("key %#x: IRQ %d not in /proc/interrupts" % (s["key"], irq))
        continue
    names = re.split(r"[,\s]+", after[irq][1].strip())
    if s["key_name"] not in names:
        bad.append("IRQ %d: key_name %r not among %r" % (irq, s["key_name"], names))
    delta = after[irq][0] - before.get(irq, (0, ""))[0]
    least = inner[1].get(irq, (0, ""))[0] - inner[0].get(irq, (0, ""))[0]
    print("#   IRQ %d %s: %d samples, %d..%d interrupts" % (irq, s["key_name"], s["count"], least, delta))
    if s["count"] > 1.05 * delta + 2:
        bad.append("IRQ %d %s: %d samples, %d interrupts" % (irq, s["key_name"], s["count"], delta))
    if s["count"] < least:
        bad.append("IRQ %d %s: %d samples, %d interrupts inside" % (irq, s["key_name"], s["count"], least))
for irq, (total, rest) in inner[1].items():
    least = total - inner[0].get(irq, (0, ""))[0]
    if least and irq not in seen:
        bad.append("IRQ %d (%s): %d interrupts, no series" % (irq, rest.strip(), least))
print("; ".join(bad) if bad else "%d handlers agree" % len(d["series"]))
sys.exit(1 if bad else 0)
PYEOF
out=$("$PY" "$T_TMP/cmp.py" "$T_TMP/before" "$T_TMP/after" "$T_TMP/in" \
	"$T_TMP/out" "$T_TMP/h.json")
rc=$?
grep '^#' <<<"$out"
out=$(grep -v '^#' <<<"$out")
if [[ $rc -eq 0 ]]; then
	ok "irq.handler counts and names match /proc/interrupts # $out"
else
	not_ok "irq.handler counts and names match /proc/interrupts # $out"
fi
check "the disk's interrupts were counted" \
	"sum(s['count'] for s in d['series']) >= 200" "$T_TMP/h.json"
check "every key has a handler's name" \
	"all(s['key_name'] for s in d['series'])" "$T_TMP/h.json"
check "no drops" "not any(d['drops'].values())" "$T_TMP/h.json"
check "every histogram's buckets sum to its count" \
	"buckets_sum_ok()" "$T_TMP/h.json"
t_done
