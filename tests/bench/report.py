#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise the guest output of scripts/bench for one kernel.

    report.py --kernel FLAVOR --json FILE [--quick 0|1] PART=CONSOLE-LOG...

PART is icount, wall or snapN (N vCPUs).  Reads the BENCH lines that
tests/bench/guest.sh printed, writes the tables to stdout and everything,
with the targets and whether each is met, to FILE.  With --quick 1 the
targets are shown but not judged (a short run proves nothing).
"""
import argparse
import json
import re
import statistics
import sys

WORKLOADS = {
    "pp": ("pipe ping-pong, both ends on CPU 0", "round trip", "sched"),
    "hb": ("hackbench-like pipe storm, 1 x 5 x 5", "message", "sched"),
    "blk": ("4 KiB O_DIRECT reads, null_blk irqmode=0", "read", "block"),
    "udp": ("UDP over veth between two namespaces", "packet", "net"),
    "irq": ("UDP out of the e1000 NIC (interrupts)", "packet", "irq"),
    "irqgen": ("hard IRQs of gpulat_irqgen.ko, generic_handle_irq()",
               "interrupt", "irq"),
}
FAMILIES = ["sched", "block", "net", "irq", "softirq", "nvidia", "mm"]
# where each family alone is judged: the workload whose events it sees
# (irq on irqgen, whose interrupts are counted and deterministic; the e1000
# workload irq varies by more than the cost of the probes)
FAMILY_HOME = {"sched": ["pp"], "nvidia": ["pp", "irqgen"], "mm": ["pp"],
               "block": ["blk"], "net": ["udp"], "irq": ["irqgen"],
               "softirq": ["udp", "irq"]}
PEER_FAMILY = {"bpftrace": {"pp": "sched", "hb": "sched", "blk": "block"},
               "ftrace": {"pp": "sched", "hb": "sched"}}
# the BPF source: bpf_<family> alone, bpf_all with every family it has
BPF_FLOORS = ["bpf_floor_ret", "bpf_floor_raw", "bpf_floor_clock"]
BPF_CONFIGS = BPF_FLOORS + ["bpf_" + f for f in FAMILIES] + ["bpf_all"]
TARGETS = {
    "sched_per_event": 150.0,
    "family_per_event": 300.0,
    "all_pp_overhead_pct": 5.0,
    "memory_per_cpu_bytes": 64 * 1024,
    "snapshot_8cpu_ns": 1e6,
    "trace_arrival_ns": 100e6,
    # the BPF source against the module (per event, same family and
    # workload) and against bpftrace (its runqlat/biolatency probes)
    "bpf_to_module": 2.0,
    "bpf_to_bpftrace": 0.2,
}


def bench_lines(path):
    kver = None
    out = []
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").replace("\r", "")
            m = re.match(r"vmrun: booting (\S+)", line)
            if m and not kver:
                kver = m.group(1)
            m = re.search(r"BENCH (.*)", line)
            if m:
                out.append(m.group(1).split())
    return kver, out


def kv(words):
    """'units 5 ns 7 hits 3' -> {'units': 5, ...} (numbers only)"""
    d = {}
    for i in range(0, len(words) - 1, 2):
        try:
            d[words[i]] = float(words[i + 1])
        except ValueError:
            pass
    return d


def spread(vals):
    med = statistics.median(vals)
    return {"median": med, "min": min(vals), "max": max(vals),
            "spread_pct": 100.0 * (max(vals) - min(vals)) / med if med else 0.0,
            "n": len(vals)}


def fmt(x, nd=0):
    if x is None:
        return "--"
    return f"{x:,.{nd}f}"


def parse_run(lines, bpf=None):
    runs, skips, tps, memory = {}, [], {}, {}
    for w in lines:
        if w[0] == "run" and len(w) > 4:
            rep, wl, cfg = w[1], w[2], w[3]
            runs.setdefault(wl, {}).setdefault(cfg, []).append(kv(w[4:]))
        elif w[0] == "skip":
            skips.append({"config": w[1], "workload": w[2],
                          "reason": " ".join(w[3:])})
        elif w[0] == "tps":
            tps[w[1]] = w[2] if len(w) > 2 else ""
        elif w[0] == "memory" and len(w) == 4:
            memory[w[1]] = {"per_cpu_bytes": int(w[2]),
                            "shared_bytes": int(w[3])}
        elif w[0] == "bpf" and len(w) > 2 and bpf is not None:
            bpf[w[1]] = " ".join(w[2:])
    return runs, skips, tps, memory


def event_ref(c, wl, fam, ent):
    """the configuration whose events per unit divide c's extra instructions"""
    if c in FAMILIES:
        return c
    if c.startswith("bpf_") and c[4:] in FAMILIES:
        return c        # its own hits (the BPF source's counters)
    if c == "bpf_all":
        # the module's events of the workload's family, as for "all"; the
        # BPF source's own count of them where the module did not run
        return fam if fam in ent else "bpf_" + str(fam)
    return PEER_FAMILY.get(c, {}).get(wl, fam)


def icount_part(lines, bpf=None):
    runs, skips, tps, memory = parse_run(lines, bpf)
    res = {}
    for wl, cfgs in runs.items():
        fam = WORKLOADS.get(wl, ("", "unit", None))[2]
        ent = {}
        for c, rl in cfgs.items():
            e = spread([r["ns"] / r["units"] for r in rl])
            e["runs"] = [round(r["ns"] / r["units"], 1) for r in rl]
            if all("hits" in r for r in rl):
                e["events_per_unit"] = statistics.median(
                    r["hits"] / r["units"] for r in rl)
                e["events_from"] = "counted"
            # interrupts raised per unit, counted by the workload (irqgen)
            if all(r.get("irqs") for r in rl):
                e["irqs_per_unit"] = statistics.median(
                    r["irqs"] / r["units"] for r in rl)
            ent[c] = e
        none = ent.get("none")
        fam_epu = (ent.get(fam) or {}).get("events_per_unit")
        for c, e in ent.items():
            e["overhead_pct"] = e["per_event"] = e["per_hit"] = None
            e["per_irq"] = None
            # a family alone: its own hits; every other configuration: the
            # events of the workload's family (or the peer's counterpart)
            ref = event_ref(c, wl, fam, ent)
            ref_epu = (ent.get(ref) or {}).get("events_per_unit")
            if c == "none":
                ref_epu = None
            e["event_ref"] = ref if ref_epu else None
            if not none or c == "none":
                continue
            d = e["median"] - none["median"]
            e["overhead_pct"] = 100.0 * d / none["median"]
            # a difference smaller than either side's spread says nothing,
            # and probes cannot make the code faster: none's median is off
            e["within_noise"] = d < 0 or abs(d) < max(
                none["max"] - none["min"], e["max"] - e["min"])
            if ref_epu:
                e["per_event"] = d / ref_epu
            if e.get("events_per_unit"):
                e["per_hit"] = d / e["events_per_unit"]
            if e.get("irqs_per_unit"):
                e["per_irq"] = d / e["irqs_per_unit"]
        e = None
        res[wl] = ent
    return res, skips, tps, memory


def wall_part(lines):
    runs, skips, _, _ = parse_run(lines)
    res = {}
    for wl, cfgs in runs.items():
        ent = {}
        for c, rl in cfgs.items():
            e = spread([r["units"] * 1e9 / r["ns"] for r in rl])
            e["runs"] = [round(r["units"] * 1e9 / r["ns"]) for r in rl]
            ent[c] = e
        none = ent.get("none")
        for c, e in ent.items():
            e["ratio_to_none"] = e["overhead_pct"] = None
            if none and c != "none":
                e["ratio_to_none"] = e["median"] / none["median"]
                e["overhead_pct"] = 100.0 * (none["median"] / e["median"] - 1)
        res[wl] = ent
    return res, skips


def snap_part(lines):
    snap, memory = None, {}
    for w in lines:
        if w[0] == "snap":
            snap = {k: int(v) for k, v in kv(w[1:]).items()}
        elif w[0] == "memory" and len(w) == 4:
            memory[w[1]] = (int(w[2]), int(w[3]))
        elif w[0] == "trace_delay" and snap is not None:
            snap["trace_delay"] = {k: int(v) for k, v in kv(w[1:]).items()}
    if snap is None:
        return None
    snap["memory_per_cpu_bytes"] = sum(p for p, _ in memory.values())
    snap["memory_shared_bytes"] = sum(s for _, s in memory.values())
    snap["memory_total_bytes"] = (snap["memory_per_cpu_bytes"] * snap["cpus"]
                                  + snap["memory_shared_bytes"])
    return snap


def linearity(points):
    """least-squares line through (cpus, ns); R^2; flat counts as linear"""
    if len(points) < 3:
        return None
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    b = sxy / sxx
    a = my - b * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    r2 = 1.0 - ss_res / ss_tot if ss_tot else 1.0
    return {"intercept_ns": a, "ns_per_cpu": b, "r2": r2,
            "linear": r2 >= 0.9 or ss_tot <= (0.05 * my) ** 2}


def judge(value, target, quick, lower_is_better=True):
    if quick:
        return "not judged (--quick)"
    if value is None:
        return "n/a"
    return "met" if (value <= target if lower_is_better else value >= target) else "missed"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--quick", type=int, default=0)
    ap.add_argument("logs", nargs="+")
    a = ap.parse_args()

    out = {"kernel": a.kernel, "kver": None, "quick": bool(a.quick),
           "skipped": [], "targets": []}
    icount = wall = None
    snaps = {}
    memory = {}
    for spec in a.logs:
        part, _, path = spec.partition("=")
        try:
            kver, lines = bench_lines(path)
        except OSError as e:
            out["skipped"].append({"config": "-", "workload": part,
                                   "reason": f"no console log: {e}"})
            continue
        out["kver"] = out["kver"] or kver
        if part == "icount":
            bpf_fams = {}
            icount, sk, tps, memory = icount_part(lines, bpf_fams)
            out["tracepoints"] = tps
            if bpf_fams:
                out["bpf_families"] = bpf_fams
            out["skipped"] += [dict(s, part="icount") for s in sk]
        elif part == "wall":
            wall, sk = wall_part(lines)
            out["skipped"] += [dict(s, part="wall") for s in sk]
        elif part.startswith("snap"):
            s = snap_part(lines)
            if s:
                snaps[int(part[4:])] = s
            else:
                out["skipped"].append({"config": "-", "workload": part,
                                       "reason": "guest printed no snapshot time"})
    P = print
    P(f"kernel {a.kernel} ({out['kver'] or '?'})" + (", quick run: targets not judged" if a.quick else ""))

    if icount:
        out["icount"] = {"method": "qemu -icount shift=0,sleep=on, 1 vCPU: guest ns = instructions",
                         "workloads": {}}
        P("\ninstructions per unit of work (QEMU -icount, 1 vCPU), median [min - max] over repetitions")
        for wl in [w for w in WORKLOADS if w in icount] + [w for w in icount if w not in WORKLOADS]:
            what, unit, fam = WORKLOADS.get(wl, (wl, "unit", None))
            ent = icount[wl]
            n = max(e["n"] for e in ent.values())
            fe = (ent.get(fam) or {}).get("events_per_unit")
            P(f"\n{wl}: {what}; unit: {unit}; {n} reps; {fam} events per unit: " + ("--" if fe is None else f"{fe:.3f}"))
            P(f"  {'config':<15} {'instr/unit':>10} {'min':>9} {'max':>9} {'overhead':>9} {'hits/unit':>10} {'per hit':>8} {'per event':>12}")
            for c in sorted(ent, key=lambda c: CONFIG_ORDER.index(c) if c in CONFIG_ORDER else 99):
                e = ent[c]
                ov = "--" if e["overhead_pct"] is None else f"{e['overhead_pct']:+.1f}%"
                epu = e.get("events_per_unit")
                eps = "--" if epu is None else f"{epu:.3f}"
                pev = "--" if e["per_event"] is None else f"{e['per_event']:,.1f}" + ("" if e["event_ref"] in (c, fam) else f" ({e['event_ref']})") + ("~" if e.get("within_noise") else "")
                P(f"  {c:<15} {fmt(e['median']):>10} {fmt(e['min']):>9} {fmt(e['max']):>9} {ov:>9} {eps:>10} {fmt(e['per_hit'], 1):>8} {pev:>12}")
            pi = [(c, e["per_irq"]) for c, e in ent.items()
                  if e.get("per_irq") is not None]
            if pi:
                pi.sort(key=lambda x: CONFIG_ORDER.index(x[0]) if x[0] in CONFIG_ORDER else 99)
                P("  per interrupt raised (extra instructions / interrupts the module counted): "
                  + ", ".join(f"{c} {v:,.1f}" + ("~" if ent[c].get("within_noise") else "") for c, v in pi))
            out["icount"]["workloads"][wl] = {"what": what, "unit": unit,
                                              "family": fam, "configs": ent}
        P("  hits/unit: gpulat's probe hits in the timed part; per hit: extra instructions / hits;\n"
          "  per event: extra instructions / events of the workload's family (a family alone: its own);\n"
          "  ~: the difference to none is within the spread of the repetitions (noise)")
        rows = bpf_rows(icount, out.get("bpf_families", {}))
        if rows:
            out["icount"]["bpf"] = rows
            print_bpf(rows, out.get("bpf_families", {}))

    if wall:
        out["wall"] = {"method": "2 vCPUs, wall clock (TCG, tsc=reliable): units per second",
                       "workloads": {}}
        P("\nthroughput, wall clock (2 vCPUs, TCG), units/s median [min - max], spread = (max - min) / median")
        for wl in [w for w in WORKLOADS if w in wall]:
            what, unit, _ = WORKLOADS[wl]
            ent = wall[wl]
            P(f"\n{wl}: {unit}s per second")
            P(f"  {'config':<12} {'units/s':>10} {'min':>9} {'max':>9} {'spread':>7} {'vs none':>8} {'overhead':>9}")
            for c in sorted(ent, key=lambda c: CONFIG_ORDER.index(c) if c in CONFIG_ORDER else 99):
                e = ent[c]
                r = "--" if e["ratio_to_none"] is None else f"{e['ratio_to_none']:.3f}"
                ov = "--" if e["overhead_pct"] is None else f"{e['overhead_pct']:+.1f}%"
                P(f"  {c:<12} {fmt(e['median']):>10} {fmt(e['min']):>9} {fmt(e['max']):>9} {e['spread_pct']:>6.1f}% {r:>8} {ov:>9}")
            out["wall"]["workloads"][wl] = {"unit": unit, "configs": ent}

    if memory:
        pc = sum(m["per_cpu_bytes"] for m in memory.values())
        sh = sum(m["shared_bytes"] for m in memory.values())
        out["memory"] = {"families": memory, "per_cpu_bytes": pc,
                         "shared_bytes": sh}
        P(f"\ngpulat memory, every family on (debugfs): {pc:,} bytes per CPU, {sh:,} bytes shared")
        P("  " + ", ".join(f"{f} {m['per_cpu_bytes']:,}+{m['shared_bytes']:,}" for f, m in memory.items()))

    if snaps:
        pts = sorted(snaps.items())
        lin = linearity([(n, s["median_ns"]) for n, s in pts])
        out["snapshot"] = {"per_cpus": {str(n): s for n, s in pts},
                           "linear_fit": lin}
        P("\nGPULAT_IOC_SNAPSHOT, every family loaded, median of 50 calls (wall clock under TCG)")
        P(f"  {'vCPUs':>5} {'median':>10} {'min':>10} {'max':>10} {'blob':>9} {'memory total':>13}")
        for n, s in pts:
            P(f"  {n:>5} {s['median_ns'] / 1000:>8.1f}us {s['min_ns'] / 1000:>8.1f}us {s['max_ns'] / 1000:>8.1f}us {s['bytes']:>9,} {s['memory_total_bytes']:>13,}")
        if lin:
            P(f"  linear fit: {lin['intercept_ns'] / 1000:.1f}us + {lin['ns_per_cpu'] / 1000:.1f}us per vCPU, R^2 {lin['r2']:.3f}: {'linear' if lin['linear'] else 'not linear'}")

    # --- targets --------------------------------------------------------
    T = out["targets"]

    def target(name, value, limit, unit, note=""):
        T.append({"name": name, "value": value, "target": limit, "unit": unit,
                  "status": judge(value, limit, a.quick), "note": note})

    def per_event(wl, c):
        e = (icount or {}).get(wl, {}).get(c) or {}
        return None if e.get("within_noise") else e.get("per_event")

    if icount:
        target("sched per event (pp)", per_event("pp", "sched"),
               TARGETS["sched_per_event"], "instructions")
        e = icount.get("pp", {}).get("all")
        target("every family on, ping-pong overhead",
               e["overhead_pct"] if e else None,
               TARGETS["all_pp_overhead_pct"], "% per round trip")
        for f in FAMILIES:
            for wl in FAMILY_HOME[f]:
                v = per_event(wl, f)
                note = ""
                e = icount.get(wl, {}).get(f)
                if e and e.get("within_noise"):
                    note = "within the noise of the repetitions"
                elif e and v is None:
                    note = "no events of the family on this workload"
                target(f"{f} per event ({wl})", v,
                       TARGETS["family_per_event"], "instructions", note)
        for r in (rows or []):
            home = r["family"] == "all" or r["workload"] in FAMILY_HOME.get(r["family"], [])
            if not home:
                continue
            if r["family"] != "all":
                target(f"bpf {r['family']} / module ({r['workload']})",
                       r["bpf_to_module"], TARGETS["bpf_to_module"], "x",
                       r["note"])
            if r.get("bpftrace") is not None:
                target(f"bpf {r['family']} / bpftrace ({r['workload']})",
                       r["bpf_to_bpftrace"], TARGETS["bpf_to_bpftrace"], "x",
                       r["note"])
    if memory:
        target("memory per CPU (per-CPU blocks)", out["memory"]["per_cpu_bytes"],
               TARGETS["memory_per_cpu_bytes"], "bytes",
               "tables that scale with CPUs are counted as shared")
    if snaps:
        s8 = snaps.get(8)
        target("snapshot at 8 vCPUs", s8["median_ns"] if s8 else None,
               TARGETS["snapshot_8cpu_ns"], "ns", "wall clock under TCG")
        lin = out["snapshot"]["linear_fit"]
        T.append({"name": "snapshot grows linearly in CPUs",
                  "value": None if not lin else round(lin["r2"], 3),
                  "target": "R^2 >= 0.9 of a line", "unit": "",
                  "status": "not judged (--quick)" if a.quick else
                  ("n/a" if not lin else ("met" if lin["linear"] else "missed")),
                  "note": ""})
    arrivals = {n: s["trace_delay"] for n, s in snaps.items()
                if "trace_delay" in s}
    if arrivals:
        out["trace_arrival"] = {str(n): d for n, d in sorted(arrivals.items())}
        P("\noutlier -> trace reader (poll() return - end event), wall clock under TCG")
        for n, d in sorted(arrivals.items()):
            P(f"  {n} vCPUs: {d['records']} records, p50 {d['p50_ns'] / 1e6:.2f}ms, p99 {d['p99_ns'] / 1e6:.2f}ms, max {d['max_ns'] / 1e6:.2f}ms, lost {d['lost']}")
        worst = max(d["max_ns"] for d in arrivals.values())
        target("outlier to trace reader (max)", worst,
               TARGETS["trace_arrival_ns"], "ns", "wall clock under TCG")
    else:
        T.append({"name": "outlier to trace reader", "value": None,
                  "target": TARGETS["trace_arrival_ns"], "unit": "ns",
                  "status": "skipped", "note": "no snapshot part at 2+ vCPUs"})

    P("\ntargets")
    for t in T:
        v = t["value"]
        vs = "--" if v is None else (f"{v:,.1f}" if isinstance(v, float) else f"{v:,}")
        ts = "--" if t["target"] is None else (f"{t['target']:,}" if not isinstance(t["target"], str) else t["target"])
        P(f"  {t['name']:<36} {vs:>12} {t['unit']:<16} target {ts:<22} {t['status']}" + (f" ({t['note']})" if t["note"] else ""))

    seen = set()
    if out["skipped"]:
        P("\nskipped")
        for s in out["skipped"]:
            key = (s["config"], s["workload"], s["reason"])
            if key in seen:
                continue
            seen.add(key)
            P(f"  {s['config']} {s['workload']}: skipped: {s['reason']}")

    with open(a.json, "w") as f:
        json.dump(out, f, indent=1, sort_keys=False)
        f.write("\n")
    return 0 if (icount or wall or snaps) else 1


def bpf_rows(icount, fams):
    """per workload and family: the module's and the BPF source's cost per
    event side by side, with the floors and bpftrace on the same events"""
    rows = []

    def pe(e):
        return None if not e or e.get("within_noise") else e.get("per_event")

    for wl in [w for w in WORKLOADS if w in icount]:
        ent = icount[wl]
        fam = WORKLOADS[wl][2]
        for f in FAMILIES + ["all"]:
            b = ent.get("bpf_" + f)
            if not b:
                continue
            # every family on: only where the BPF source has the
            # workload's family (else the two measure different events)
            if f == "all" and fams and fams.get(fam) != "attached":
                continue
            m = ent.get(f)
            r = {"workload": wl, "family": f,
                 "module_events_per_unit": (m or {}).get("events_per_unit"),
                 "bpf_events_per_unit": b.get("events_per_unit"),
                 "module": pe(m), "bpf": pe(b),
                 "floor_ret": None, "floor_clock": None, "bpftrace": None}
            for fl in BPF_FLOORS:
                r[fl] = None
            notes = []
            for c, e in (("module", m), ("BPF", b)):
                if e and e.get("within_noise"):
                    notes.append(f"{c} within the noise")
            # the floors hook the workload's family's tracepoints only
            if f in (fam, "all"):
                for fl in ["floor_ret", "floor_clock"] + BPF_FLOORS:
                    r[fl] = pe(ent.get(fl))
            if PEER_FAMILY["bpftrace"].get(wl) == f:
                r["bpftrace"] = pe(ent.get("bpftrace"))
            me, be = r["module_events_per_unit"], r["bpf_events_per_unit"]
            lacks = [g for g, st in fams.items() if st != "attached"]
            if f == "all" and lacks:
                notes.append("BPF without " + ", ".join(lacks))
            if f != "all" and me and be and abs(be - me) > 0.01 * me:
                notes.append(f"events per unit differ: BPF {be:.3f}, module {me:.3f}")
            r["bpf_to_module"] = (r["bpf"] / r["module"]
                                  if r["bpf"] is not None and r["module"]
                                  and not (f == "all" and lacks) else None)
            r["bpf_to_bpftrace"] = (r["bpf"] / r["bpftrace"]
                                    if r["bpf"] is not None and r["bpftrace"] else None)
            r["note"] = "; ".join(notes)
            rows.append(r)
    return rows


def print_bpf(rows, fams):
    P = print
    P("\nthe BPF source beside the module, bpftrace and the floors: instructions per event (icount)")
    if fams:
        att = [f for f, st in fams.items() if st == "attached"]
        P("  BPF families attached on this kernel: " + (", ".join(att) or "none")
          + "; bpf_all is those")
    P(f"  {'':<17} {'':>11} {'module':-^26} {'BPF':-^35}")
    P(f"  {'workload':<8} {'family':<8} {'events/unit':>11} {'ret':>8} {'clock':>8} {'family':>8} "
      f"{'ret':>8} {'raw':>8} {'clock':>8} {'family':>8} {'BPF/mod':>8} {'bpftrace':>9} {'BPF/bt':>7}")

    def r2(x):
        return "--" if x is None else f"{x:.2f}"
    for r in rows:
        ev = r["bpf_events_per_unit"] if r["family"] != "all" else r["module_events_per_unit"]
        P(f"  {r['workload']:<8} {r['family']:<8} {'--' if ev is None else f'{ev:.3f}':>11} "
          f"{fmt(r['floor_ret'], 1):>8} {fmt(r['floor_clock'], 1):>8} {fmt(r['module'], 1):>8} "
          + "".join(f"{fmt(r[fl], 1):>9}" for fl in BPF_FLOORS) +
          f" {fmt(r['bpf'], 1):>8} {r2(r['bpf_to_module']):>8} {fmt(r['bpftrace'], 1):>9} "
          f"{r2(r['bpf_to_bpftrace']):>7}" + (f"  ({r['note']})" if r["note"] else ""))
    P("  events/unit: the BPF source's own hits (all: the module's events of the workload's family);\n"
      "  ret, clock: the floors (probes that only return; that read the clock and bump a per-CPU\n"
      "  counter), BPF's as tp_btf and (raw) raw_tp, on the workload's family's tracepoints;\n"
      "  floors and bpftrace divided by the module's events; --: not run, or within the noise")


CONFIG_ORDER = ["none", "floor_ret", "floor_clock", "sched", "sched_trace",
                "block", "net", "irq", "softirq", "nvidia", "mm", "all",
                "bpftrace", "ftrace"] + BPF_CONFIGS
# a family with a trace reader open, after the family alone
CONFIG_ORDER.insert(CONFIG_ORDER.index("bpf_sched") + 1, "bpf_sched_trace")

if __name__ == "__main__":
    sys.exit(main())
