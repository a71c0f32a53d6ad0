# SPDX-License-Identifier: GPL-2.0
# What tests/bpf/test_serve.sh asks of Prometheus' HTTP API, of gpulat
# serve's clock and of its HTTP side, standard library only, loopback only.
#
#   serve_probe.py port                     a free TCP port on 127.0.0.1
#   serve_probe.py q PROM EXPR [TIME]       an instant query: the value
#                                           of its one result ("none")
#   serve_probe.py targets PROM JOB         health, lastScrapeDuration
#   serve_probe.py pages PROM SECONDS       "SCRAPE_TS PAGE_TS" for the
#                                           scrapes of the last SECONDS
#   serve_probe.py rules PROM               "N_OK N_RULES ERRORS", a rule
#                                           not evaluated yet an error
#   serve_probe.py snap GPULAT OUT PAGE_TS LEAD
#                   gpulat snapshot -o OUT, started LEAD seconds before
#                   a whole number of seconds after PAGE_TS (gpulat serve
#                   snapshots every second from then on); prints the
#                   snapshot's unix time and the command's duration
#   serve_probe.py slot SECONDS             gpulat's bucket of a value
#                                           that Prometheus interpolated
#   serve_probe.py quantiles PROM EXPR HIST NAME KEY
#                   EXPR with each q of a grid for {q} (an instant
#                   query), against promql's bucketQuantile() over every
#                   bucket of series NAME, key KEY, of gpulat hist --json
#                   HIST: "SAME OF_N FIRST_DIFFERENCE"
#   serve_probe.py abuse PORT SECONDS HOLD OUT
#                   the abusers of the HTTP side (below); JSON to OUT
# idna is imported when a name is first resolved: before an abuser drops
# to a user who may not read this Python's library
import encodings.idna  # noqa: F401
import json
import math
import os
import select
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request


def api(prom, path, **args):
    url = "http://%s/api/v1/%s" % (prom, path)
    if args:
        url += "?" + urllib.parse.urlencode(args)
    with urllib.request.urlopen(url, timeout=5) as r:
        d = json.load(r)
    if d.get("status") != "success":
        raise RuntimeError("%s: %s" % (path, d.get("error")))
    return d["data"]


def cmd_q(prom, expr, at=None):
    args = {"query": expr}
    if at is not None:
        args["time"] = at
    d = api(prom, "query", **args)
    if d["resultType"] == "scalar":
        print(d["result"][1])
    elif d["resultType"] == "vector" and len(d["result"]) == 1:
        print(d["result"][0]["value"][1])
    else:
        print("none")


def cmd_targets(prom, job):
    for t in api(prom, "targets")["activeTargets"]:
        if t["labels"].get("job") == job:
            print(t["health"], t.get("lastScrapeDuration", 0),
                  json.dumps(t.get("lastError", "")))
            return
    print("none 0 \"\"")


def cmd_pages(prom, secs):
    d = api(prom, "query",
            query="gpulat_exporter_last_snapshot_timestamp_seconds[%ss]" %
            secs)
    for r in d["result"]:
        for ts, v in r["values"]:
            print("%.3f %s" % (float(ts), v))


def cmd_rules(prom):
    n = ok = 0
    errs = []
    for g in api(prom, "rules")["groups"]:
        for r in g["rules"]:
            n += 1
            if r.get("health") == "ok":
                ok += 1
            elif r.get("health") != "unknown":
                errs.append("%s: %s" % (r.get("name"), r.get("lastError")))
            else:
                errs.append("%s: not evaluated yet" % r.get("name"))
    print(ok, n, json.dumps("; ".join(errs)))


def cmd_snap(gpulat, out, page_ts, lead):
    page_ts, lead = float(page_ts), float(lead)
    now = time.time()
    k = math.ceil(now + 0.1 + lead - page_ts)
    time.sleep(max(0.0, page_ts + k - lead - time.time()))
    t0 = time.time()
    subprocess.run([gpulat, "snapshot", "-o", out], check=True)
    t1 = time.time()
    off = time.time() - time.monotonic()	# both CLOCK_*, read together
    h = subprocess.run([gpulat, "hist", "-i", out, "--json"], check=True,
                       capture_output=True, text=True)
    ns = json.loads(h.stdout)["time_ns"]	# CLOCK_MONOTONIC
    print("%.6f %.6f" % (ns / 1e9 + off, t1 - t0))


def slot(ns):
    """gpulat_hist_slot(): 512 ns, 8 sub-buckets per power of two"""
    if ns < 512:
        return 0
    msb = ns.bit_length() - 1
    return 1 + ((msb - 9) << 3) + ((ns >> (msb - 3)) & 7)


def lower(s):
    """gpulat_hist_lower()"""
    if s == 0:
        return 0
    k = 9 + ((s - 1) >> 3)
    return (1 << k) + (((s - 1) & 7) << (k - 3))


def le_of(s):
    """the le gpulat serve writes for slot s, as Prometheus parses it"""
    ns = lower(s + 1) - 1
    return float("%d.%09d" % (ns // 10**9, ns % 10**9))


def bucket_quantile(q, buckets):
    """promql's bucketQuantile() (Prometheus 2's envelope; Prometheus 3
    also ignores relative differences under 1e-12, none here): buckets
    are (le, cumulative count), sorted, the last +Inf"""
    if math.isnan(q):
        return math.nan
    if q < 0:
        return -math.inf
    if q > 1:
        return math.inf
    b, top = [], None
    for le, c in sorted(buckets):
        top = c if top is None or c > top else top
        b.append((le, top))
    if len(b) < 2 or not math.isinf(b[-1][0]) or b[-1][1] == 0:
        return math.nan
    rank = q * b[-1][1]
    i = next(i for i in range(len(b)) if i == len(b) - 1 or b[i][1] >= rank)
    if i == len(b) - 1:
        return b[-2][0]
    if i == 0 and b[0][0] <= 0:
        return b[0][0]
    start, count = 0.0, b[i][1]
    if i > 0:
        start = b[i - 1][0]
        count -= b[i - 1][1]
        rank -= b[i - 1][1]
    # IEEE division, as Go's: 0/0 is NaN (q 0 in an empty first bucket)
    f = rank / count if count else (math.nan if rank == 0 else math.inf)
    return start + (b[i][0] - start) * f


def cmd_quantiles(prom, expr, hist, name, key):
    d = json.load(open(hist))
    sr = [s for s in d["series"] if s["name"] == name and
          s["key_name"] == key and s["cpu"] is None]
    if not sr:
        print("0 0 \"no series %s of %s\"" % (name, key))
        return
    per = {}
    for lo, up, n in sr[0]["buckets"]:
        per[225 if up is None else slot(lo)] = n
    full, cum = [], 0
    for s in range(225):
        cum += per.get(s, 0)
        full.append((le_of(s), cum))
    full.append((math.inf, cum + per.get(225, 0)))
    qs = [i / 100 for i in range(101)] + [0.001, 0.999, 0.9999]
    same, diff = 0, ""
    for q in qs:
        r = api(prom, "query", query=expr.replace("{q}", repr(q)))["result"]
        got = float(r[0]["value"][1]) if r else None
        want = bucket_quantile(q, full)
        if got is not None and (got == want or
                                (math.isnan(got) and math.isnan(want))):
            same += 1
        elif not diff:
            diff = "q %r: Prometheus %r, over every bucket %r" % (q, got, want)
    print(same, len(qs), json.dumps(diff))


def cmd_slot(secs):
    # Prometheus' buckets are (le_prev, le], le = gpulat's upper - 1 ns:
    # a value x ns inside one is in gpulat's slot of ceil(x)
    x = float(secs) * 1e9
    print(slot(int(math.ceil(round(x, 3)))))


# --- the abusers ---------------------------------------------------------
#
# (a) slowloris: 8 connections from 127.0.0.2, a request line, then a
#     header one byte a second, never finished; one the server closes is
#     opened again at once, as a slowloris does (as user 65534);
# (b) 100 connections from 127.0.0.3, opened and held, nothing sent, from
#     half-way through (as user 65533);
# (c) a 1 MiB header from 127.0.0.4, every 2 s (as user 65532).
# For SECONDS, then every socket is held, silent, for HOLD seconds more
# or until the server has closed them all.  OUT gets, for each
# connection of (a) and (b), when it was opened and when the server
# closed it (seconds after the abuse began; null: still open), and what
# each request of (c) got back.
class Conn:
    def __init__(self, src, port, t0):
        self.t0 = t0
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.s.bind((src, 0))
        self.s.settimeout(2)
        self.opened = round(time.monotonic() - t0, 2)
        self.closed = None
        self.err = None
        try:
            self.s.connect(("127.0.0.1", port))
        except OSError as e:
            self.err = type(e).__name__
            self.closed = self.opened
        self.s.setblocking(False)

    def poll(self):
        if self.closed is not None:
            return False
        try:
            r, _, _ = select.select([self.s], [], [], 0)
            if r and not self.s.recv(65536):
                self.closed = round(time.monotonic() - self.t0, 2)
        except OSError:
            self.closed = round(time.monotonic() - self.t0, 2)
        return self.closed is not None

    def send(self, data):
        if self.closed is not None:
            return
        try:
            self.s.send(data)
        except OSError:
            self.closed = round(time.monotonic() - self.t0, 2)

    def row(self):
        return [self.opened, self.closed]


def big_request(port, out, t0):
    r = {"at": round(time.monotonic() - t0, 3)}
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.4", 0))
    s.settimeout(5)
    hdr = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + \
        b"a" * (1 << 20) + b"\r\n\r\n"
    sent = 0
    try:
        s.connect(("127.0.0.1", port))
        while sent < len(hdr):
            sent += s.send(hdr[sent:sent + 65536])
    except OSError as e:
        r["send_error"] = type(e).__name__
    r["sent"] = sent
    reply = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            reply += b
    except OSError as e:
        r["recv_error"] = type(e).__name__
    r["status"] = reply.split(b"\r\n", 1)[0].decode("latin-1") if reply \
        else None
    r["took"] = round(time.monotonic() - t0 - r["at"], 3)
    s.close()
    out.append(r)


def slowloris(port, t0):
    c = Conn("127.0.0.2", port, t0)
    c.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    return c


def slow_loop(port, secs, hold, t0):
    slow = [slowloris(port, t0) for _ in range(8)]
    done = []		# slowloris connections the server closed
    next_byte = 0.0
    while time.monotonic() - t0 < secs:
        if time.monotonic() - t0 >= next_byte:
            for c in slow:
                c.send(b"a")
            next_byte += 1.0
        for i, c in enumerate(slow):
            if c.poll() or c.closed is not None:
                done.append(c)
                slow[i] = slowloris(port, t0)
        time.sleep(0.05)
    while time.monotonic() - t0 < secs + hold:
        for c in slow:
            c.poll()
        if all(c.closed is not None for c in slow):
            break
        time.sleep(0.05)
    return {"slow_cut": [c.row() for c in done],
            "slow_left": [c.row() for c in slow]}


def many_loop(port, secs, hold, t0):
    while time.monotonic() - t0 < secs / 2:
        time.sleep(0.05)
    many = [Conn("127.0.0.3", port, t0) for _ in range(100)]
    while time.monotonic() - t0 < secs + hold:
        for c in many:
            c.poll()
        if all(c.closed is not None for c in many):
            break
        time.sleep(0.05)
    return {"many": [c.row() for c in many],
            "many_errors": sorted({c.err for c in many if c.err})}


def big_loop(port, secs, t0):
    big, threads, next_big = [], [], 0.0
    while time.monotonic() - t0 < secs:
        if time.monotonic() - t0 >= next_big:
            th = threading.Thread(target=big_request, args=(port, big, t0))
            th.start()
            threads.append(th)
            next_big += 2.0
        time.sleep(0.05)
    for th in threads:
        th.join(10)
    return {"big": big}


def as_user(uid, fn, *args):
    """fn(*args) in a child process of user @uid: gpulat serve bounds a
    local user's connections, whatever its addresses, so each abuser is a
    user of its own (and none the scraper, root); (pid, pipe)"""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        code = 1
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            data = json.dumps(fn(*args)).encode()
            while data:
                data = data[os.write(w, data):]
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    return pid, r


def cmd_abuse(port, secs, hold, out):
    port, secs, hold = int(port), float(secs), float(hold)
    t0 = time.monotonic()
    kids = [as_user(65534, slow_loop, port, secs, hold, t0),
            as_user(65533, many_loop, port, secs, hold, t0),
            as_user(65532, big_loop, port, secs, t0)]
    d = {"seconds": secs}
    for pid, r in kids:
        with os.fdopen(r, "rb") as f:
            data = f.read()
        os.waitpid(pid, 0)
        d.update(json.loads(data) if data else {})
    json.dump(d, open(out, "w"))


def main():
    a = sys.argv[1:]
    if a[0] == "port":
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1])
    elif a[0] == "q":
        cmd_q(*a[1:])
    elif a[0] == "targets":
        cmd_targets(*a[1:])
    elif a[0] == "pages":
        cmd_pages(*a[1:])
    elif a[0] == "rules":
        cmd_rules(*a[1:])
    elif a[0] == "snap":
        cmd_snap(*a[1:])
    elif a[0] == "slot":
        cmd_slot(*a[1:])
    elif a[0] == "quantiles":
        cmd_quantiles(*a[1:])
    elif a[0] == "abuse":
        cmd_abuse(*a[1:])
    else:
        sys.exit("unknown command " + a[0])


if __name__ == "__main__":
    main()
