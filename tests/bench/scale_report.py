#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise scripts/bench-scale's guest runs and project them to 224 CPUs.

    scale_report.py --kernel FLAVOR --json FILE [--host-ref-ns NS] \
        N=CONSOLE-LOG...

N is the vCPU count of the boot whose console is CONSOLE-LOG (the SCALE
lines of tests/bench/scale.sh).  For every figure and source it fits
value = fixed + per_cpu * N by least squares over the boots (two points:
the line through them) and evaluates it at TARGET_CPUS.  The key counts
(disks, network devices, IRQ handlers, cgroups) are the same in every
boot, so they are in the fixed part; see Documentation/overhead.rst,
"Scale".  Times are the emulator's: the projection is reported as is (an
upper bound) and divided by the slowdown of the reference workload (the
host's gzip -6 on the same input, in the guest and on the host) as an
estimate of a native machine.
"""
import argparse
import json
import re
import sys

TARGET_CPUS = 224
TARGETS = {
    "snap_median_ms": 5.0,           # snapshot, at 224 CPUs
    "metrics_gzip_kb": 300.0,        # /metrics gzipped
    "serve_cpu_pct": 1.0,            # of one CPU, at 1 Hz
}
SOURCES = ["kmod", "bpf"]
SATURATED = 85.0    # serve's CPU, % of one: it did not keep 1 Hz


def parse(path):
    """The SCALE lines of one console into a dict."""
    d = {"setup": {}, "skip": [], "kmod": {}, "bpf": {}, "ref_ns": []}
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").replace("\r", "").strip()
            m = re.search(r"SCALE (.*)", line)
            if not m or not line.startswith("SCALE"):
                continue
            w = m.group(1).split()
            if not w:
                continue
            if w[0] == "setup" and len(w) >= 3:
                d["setup"][w[1]] = " ".join(w[2:])
            elif w[0] == "skip":
                d["skip"].append(" ".join(w[1:]))
            elif w[0] == "ref":
                d["ref_ns"].append(int(w[2]))
            elif w[0] in SOURCES and len(w) >= 3:
                s = d[w[0]]
                if w[1] == "mem":
                    if w[2].startswith("family_"):
                        s.setdefault("families", {})[w[2][7:]] = \
                            [int(w[3]), int(w[4])]
                    else:
                        s["mem_" + w[2]] = int(w[3])
                elif w[1] == "snap":
                    kv = dict(zip(w[2::2], w[3::2]))
                    for k in ("median_ns", "max_ns", "min_ns", "bytes",
                              "series", "parse_median_ns"):
                        if k in kv:
                            s["snap_" + k] = int(kv[k])
                elif w[1] == "metrics":
                    if w[2] == "top":
                        s.setdefault("metrics_top", []).append(
                            [w[3], int(w[4])])
                    else:
                        s["metrics_" + w[2]] = int(w[3])
                elif w[1] == "serve":
                    kv = dict(zip(w[2::2], w[3::2]))
                    ticks, hz = int(kv["cpu_ticks"]), int(kv["hz"])
                    wall = int(kv["wall_ms"]) / 1000.0
                    s["serve_cpu_pct"] = 100.0 * ticks / hz / wall
                    s["serve_rss_kb"] = int(kv["rss_kb"])
                elif w[1] == "family":
                    s.setdefault("bpf_families", {})[w[2]] = " ".join(w[3:])
    return d


def derived(s, cpus):
    """Figures computed from the raw ones, in the units of the targets."""
    if "snap_median_ns" in s:
        s["snap_median_ms"] = s["snap_median_ns"] / 1e6
        s["snap_max_ms"] = s["snap_max_ns"] / 1e6
    if "snap_parse_median_ns" in s:
        # the library's decoding of the blob, and the rest: the source's
        s["snap_parse_ms"] = s["snap_parse_median_ns"] / 1e6
        s["snap_source_ms"] = max(0.0, s["snap_median_ms"] -
                                  s["snap_parse_ms"])
    if "metrics_gzip6_bytes" in s:
        s["metrics_gzip_kb"] = s["metrics_gzip6_bytes"] / 1000.0
        s["metrics_kb"] = s["metrics_bytes"] / 1000.0
    if "metrics_scrape_ns" in s:
        s["metrics_scrape_ms"] = s["metrics_scrape_ns"] / 1e6
    if s.get("metrics_gzip_http_bytes"):
        s["metrics_gzip_http_kb"] = s["metrics_gzip_http_bytes"] / 1000.0
        s["metrics_gzip_scrape_ms"] = s.get("metrics_gzip_scrape_ns", 0) / 1e6
    if "mem_module_size" in s:
        # the module: what /proc/meminfo says it took at insmod (code and
        # data, per-CPU, slab and large kmalloc, vmalloc; the slab part
        # is noisy: the guest's workload allocates meanwhile) ...
        s["mem_meminfo_bytes"] = (s["mem_module_size"] +
                                  s.get("mem_percpu_delta_end",
                                        s.get("mem_percpu_delta", 0)) +
                                  s.get("mem_slab_delta", 0) +
                                  s.get("mem_vmalloc_delta", 0))
        # ... and what it reports (debugfs, every family), the figure
        # judged: per-CPU blocks for every possible CPU, shared tables
        s["mem_total_bytes"] = (s["mem_debugfs_per_cpu"] * cpus +
                                s.get("mem_debugfs_shared_end",
                                      s["mem_debugfs_shared"]) +
                                s["mem_module_size"])
    if "mem_bpf_memlock" in s:
        s["mem_total_bytes"] = s["mem_bpf_memlock"]
        s["mem_meminfo_bytes"] = (s.get("mem_percpu_delta", 0) +
                                  s.get("mem_vmalloc_delta", 0))


# figure: (label, unit, kind) kind "time" gets the emulator correction
FIGURES = [
    ("mem_total_bytes", "memory (bytes)", "size"),
    ("mem_meminfo_bytes", "memory, /proc/meminfo (bytes)", "size"),
    ("snap_median_ms", "snapshot median (ms)", "time"),
    ("snap_max_ms", "snapshot max (ms)", "time"),
    ("snap_source_ms", " of which ioctl / map reads (ms)", "time"),
    ("snap_parse_ms", " of which decoding (ms)", "time"),
    ("snap_bytes", "snapshot blob (bytes)", "size"),
    ("snap_series", "snapshot series", "size"),
    ("metrics_kb", "/metrics (KB)", "size"),
    ("metrics_gzip_kb", "/metrics gzip -6 (KB)", "size"),
    ("metrics_series", "/metrics series", "size"),
    ("metrics_gzip_http_kb", "/metrics, server's gzip (KB)", "size"),
    ("metrics_scrape_ms", "one scrape (ms)", "time"),
    ("metrics_gzip_scrape_ms", "one gzip scrape, first (ms)", "time"),
    ("serve_cpu_pct", "serve CPU at 1 Hz (% of one CPU)", "time"),
]


def fit(points):
    """Least squares value = a + b * n over [(n, value)]; (a, b)."""
    if len(points) == 1:
        return points[0][1], 0.0
    n = len(points)
    sx = sum(p[0] for p in points)
    sy = sum(p[1] for p in points)
    sxx = sum(p[0] * p[0] for p in points)
    sxy = sum(p[0] * p[1] for p in points)
    den = n * sxx - sx * sx
    if den == 0:
        return sy / n, 0.0
    b = (n * sxy - sx * sy) / den
    return (sy - b * sx) / n, b


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return "{:,.0f}".format(v)
    if abs(v) >= 10:
        return "{:.1f}".format(v)
    return "{:.3g}".format(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--host-ref-ns", type=int, default=0)
    ap.add_argument("runs", nargs="+", help="N=CONSOLE-LOG")
    a = ap.parse_args()

    runs = {}
    for r in a.runs:
        n, path = r.split("=", 1)
        runs[int(n)] = parse(path)
    cpus = sorted(runs)
    for n in cpus:
        for src in SOURCES:
            derived(runs[n][src], n)

    # the emulator's slowdown in each boot: the mean of its reference runs
    # over the host's fastest
    slow = {}
    for n in cpus:
        r = runs[n]["ref_ns"]
        if r and a.host_ref_ns:
            slow[n] = sum(r) / len(r) / a.host_ref_ns

    out = {"kernel": a.kernel, "target_cpus": TARGET_CPUS,
           "host_ref_ns": a.host_ref_ns, "tcg_slowdown": slow, "runs": {}, "projection": {},
           "targets": {}}
    for n in cpus:
        out["runs"][str(n)] = runs[n]

    print("gpulat scale bench, kernel {} (vCPUs: {})".format(
        a.kernel, ", ".join(str(n) for n in cpus)))
    s0 = runs[cpus[-1]]["setup"]
    print("keys: {} disks, {} network devices, {} IRQ actions, {} cgroups "
          "({} processes)".format(s0.get("disks"), s0.get("netdevs"),
                                  s0.get("irq_actions"), s0.get("cgroups"),
                                  s0.get("cgroup_procs")))
    if slow:
        print("emulator slowdown (gzip -6 reference, guest / host's "
              "fastest {:.0f} ms): ".format(a.host_ref_ns / 1e6) +
              ", ".join("{:.1f}x at {}".format(slow[n], n) for n in cpus))
    for n in cpus:
        for sk in runs[n]["skip"]:
            print("skipped at {} vCPUs: {}".format(n, sk))
    print()
    hdr = ["source", "figure"] + ["{} vCPUs".format(n) for n in cpus] + \
        ["basis", "fixed", "per CPU", "@{}".format(TARGET_CPUS)]
    rows = []
    for src in SOURCES:
        proj = {}
        for key, label, kind in FIGURES:
            raw = [(n, runs[n][src][key]) for n in cpus
                   if key in runs[n][src]]
            if not raw:
                continue
            # serve busy 85% of a second or more did not keep 1 Hz: its
            # share there is a floor, left out of the fit while a boot
            # that kept up remains; with one such boot, its figure is the
            # projection's floor (serve's per-tick work grows with CPUs)
            floor = False
            if key == "serve_cpu_pct":
                kept = [(n, v) for n, v in raw if v < SATURATED]
                floor = len(kept) < len(raw)
                if kept:
                    raw = kept
            # times: each boot's figure over its own slowdown, then the fit
            native = kind == "time"
            if native and all(n in slow for n, _ in raw):
                pts = [(n, v / slow[n]) for n, v in raw]
                basis = "native est."
            else:
                pts = raw
                basis = "emulated" if native else "measured"
            fa, fb = fit(pts)
            if floor and len(pts) == 1:
                fb = None
                p = fa
                basis += ", floor"
            else:
                p = fa + fb * TARGET_CPUS
            proj[key] = {"label": label, "measured": dict(
                (str(n), v) for n, v in raw), "points": dict(
                (str(n), v) for n, v in pts), "basis": basis,
                "fixed": fa, "per_cpu": fb, "projected": p}
            vals = [fmt(runs[n][src].get(key)) for n in cpus]
            rows.append([src, label] + vals + [basis, fmt(fa), fmt(fb),
                                               fmt(p)])
        out["projection"][src] = proj
        for key, lim in TARGETS.items():
            if key not in proj:
                continue
            p = proj[key]
            v = p["projected"]
            sat = key == "serve_cpu_pct" and any(
                runs[n][src].get(key, 0) >= SATURATED for n in cpus)
            out["targets"]["{}.{}".format(src, key)] = {
                "target": lim, "projected": v, "basis": p["basis"],
                "saturated": sat, "status": "met" if v <= lim else "missed"}
    w = [max(len(str(r[i])) for r in rows + [hdr]) for i in range(len(hdr))]
    for r in [hdr] + rows:
        print("  ".join(str(c).ljust(w[i]) if i < 2 else str(c).rjust(w[i])
                        for i, c in enumerate(r)))
    print()
    print("targets at {} CPUs (times: native estimates, each boot's "
          "figure over its slowdown):".format(TARGET_CPUS))
    for k, t in out["targets"].items():
        print("  {:24s} <= {:<6g} projected {:>9s}  {}{}".format(
            k, t["target"], fmt(t["projected"]), t["status"],
            " (serve saturated in a boot; see basis)" if t["saturated"]
            else ""))
    for src in SOURCES:
        top = runs[cpus[-1]][src].get("metrics_top")
        if top:
            print("largest metrics ({}, {} vCPUs): {}".format(
                src, cpus[-1], ", ".join("{} {}".format(m, c)
                                         for m, c in top)))
    with open(a.json, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
