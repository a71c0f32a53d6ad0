#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the shape of gpulat JSON output (one object per line).

usage: check_json.py hist|status FILE [EXPECTED_SERIES]
Exits 0 when every line is valid, else prints why and exits 1.
"""
import json
import sys


def fail(msg):
    print("check_json: " + msg, file=sys.stderr)
    sys.exit(1)


def is_uint(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def check_scheme(sc):
    want = {"type": "log-linear", "unit": "ns", "sub_buckets_per_octave": 8,
            "min_ns": 512, "overflow_ns": 137438953472, "slots": 226,
            "buckets_listed": "non-empty"}
    for k, v in want.items():
        if sc.get(k) != v:
            fail("scheme.%s is %r, want %r" % (k, sc.get(k), v))
    if not isinstance(sc.get("quantile_method"), str):
        fail("scheme.quantile_method missing")


def check_series(s):
    keys = {"family": str, "name": str, "count": int, "sum_ns": int,
            "max_ns": int, "max_exact": bool, "p50_ns": int, "p90_ns": int,
            "p99_ns": int, "p999_ns": int, "buckets": list}
    for k, t in keys.items():
        if not isinstance(s.get(k), t):
            fail("series %r: %s is %r" % (s.get("name"), k, s.get(k)))
    for k in ("cpu", "key"):
        if k not in s or not (s[k] is None or is_uint(s[k])):
            fail("series %r: %s is %r" % (s["name"], k, s.get(k)))
    if "key_name" not in s or not (s["key_name"] is None or
                                   isinstance(s["key_name"], str)):
        fail("series %r: key_name" % s["name"])
    total, prev_upper = 0, -1
    for b in s["buckets"]:
        if len(b) != 3 or not is_uint(b[0]) or not is_uint(b[2]) or b[2] == 0:
            fail("series %r: bad bucket %r" % (s["name"], b))
        if b[1] is None:
            if b[0] != 137438953472:
                fail("only the overflow bucket lacks an upper bound")
        elif (not is_uint(b[1]) or b[1] <= b[0] or
              (b[0] and (b[1] - b[0]) * 8 > b[0])):
            fail("series %r: bad bounds %r" % (s["name"], b))
        if b[0] < prev_upper:
            fail("series %r: buckets out of order" % s["name"])
        prev_upper = b[1] if b[1] is not None else b[0]
        total += b[2]
    if total != s["count"]:
        fail("series %r: buckets sum to %d, count %d" %
             (s["name"], total, s["count"]))
    qs = [s["p50_ns"], s["p90_ns"], s["p99_ns"], s["p999_ns"]]
    if qs != sorted(qs) or (s["count"] and qs[-1] > s["max_ns"]):
        fail("series %r: quantiles %r, max %d" % (s["name"], qs, s["max_ns"]))


def check_hist(o):
    if not (is_uint(o["abi"]["major"]) and is_uint(o["abi"]["minor"])):
        fail("abi")
    if not (o["kernel"] is None or isinstance(o["kernel"], str)):
        fail("kernel")
    if o["source"] != "kmod":
        fail("source")
    if not (o["interval_s"] is None or
            isinstance(o["interval_s"], (int, float))):
        fail("interval_s")
    if not is_uint(o["time_ns"]) or not is_uint(o["generation"]):
        fail("time_ns/generation")
    check_scheme(o["scheme"])
    for s in o["series"]:
        check_series(s)
    if not all(is_uint(v) for v in o["drops"].values()):
        fail("drops")
    return len(o["series"])


def check_event(e):
    if not (e["type"] == "xid" or is_uint(e["type"])):
        fail("event type %r" % e)
    if not (is_uint(e["code"]) and is_uint(e["time_ns"]) and
            is_uint(e["age_ns"]) and isinstance(e["device"], str) and
            (e["cpu"] is None or is_uint(e["cpu"]))):
        fail("event %r" % e)


def check_family(f):
    if not isinstance(f["family"], str):
        fail("family name %r" % f)
    state, reason = f["state"], f["reason"]
    if state not in ("attached", "off", "unavailable"):
        fail("family %s: state %r" % (f["family"], state))
    if (state == "attached") != (reason is None):
        fail("family %s: %s with reason %r" % (f["family"], state, reason))
    if state == "unavailable" and reason not in (
            "tracepoints missing on this kernel", "registration failed",
            "no tracepoints in this module"):
        fail("family %s: reason %r" % (f["family"], reason))
    missing = [p["tracepoint"] for p in f["probes"]
               if p["state"] == "missing"]
    if f["missing"] != missing:
        fail("family %s: missing %r, probes say %r" %
             (f["family"], f["missing"], missing))
    failed = reason == "registration failed"
    if failed != is_uint(f["error"]) or \
            failed != isinstance(f["error_name"], str):
        fail("family %s: error %r" % (f["family"], f["error"]))
    if not is_uint(f["series"]):
        fail("family %s: series" % f["family"])
    if not all(is_uint(v) for v in f["drops"].values()):
        fail("family %s: drops" % f["family"])


def check_status(o):
    if not isinstance(o["loaded"], bool) or o["abi"]["tool"]["major"] != 1:
        fail("loaded/abi")
    if o["loaded"]:
        check_scheme(o["scheme"])
        for e in o["events"]:
            check_event(e)
        for f in o["families"]:
            check_family(f)
            for p in f["probes"]:
                if (p["state"] not in ("attached", "disabled", "missing",
                                       "failed") and
                        not p["state"].startswith("state ")) or \
                        not is_uint(p["hits"]):
                    fail("probe %r" % p)
    return len(o.get("families", []))


def main():
    kind, path = sys.argv[1], sys.argv[2]
    want = int(sys.argv[3]) if len(sys.argv) > 3 else None
    with open(path, encoding="ascii") as f:
        lines = f.read().splitlines()
    if not lines:
        fail("no output")
    for line in lines:
        o = json.loads(line)
        n = check_hist(o) if kind == "hist" else check_status(o)
        if want is not None and n != want:
            fail("%d series or families, want %d" % (n, want))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (KeyError, TypeError, ValueError) as e:
        fail("%s: %r" % (type(e).__name__, e))
