# SPDX-License-Identifier: GPL-2.0
# The clients of tests/bpf/test_serve_safety.sh, standard library only,
# loopback only.  Each prints one line of numbers.
#
#   serve_safety.py hold PORT N SECONDS
#       N connections from 127.0.0.1 that send nothing, held SECONDS:
#       "CLOSED_EARLY OPEN" (closed by the server within 2 s; still open)
#   serve_safety.py loris PORT ADDRS PER SECONDS
#       PER connections from each of 127.0.0.2 .. 127.0.0.(ADDRS+1), each
#       sending one header byte a second: "CLOSED_EARLY OPEN"
#   serve_safety.py fresh PORT SECONDS
#       scrapes every 0.2 s for SECONDS: "SCRAPES MAX_AGE_S", the age of
#       the newest snapshot a scrape showed (now minus
#       gpulat_exporter_last_snapshot_timestamp_seconds)
import socket
import sys
import time
import urllib.request

METRIC = "gpulat_exporter_last_snapshot_timestamp_seconds "


def conns(port, addrs, n):
    out = []
    for a in addrs:
        for _ in range(n):
            s = socket.socket()
            s.bind((a, 0))
            s.connect(("127.0.0.1", port))
            s.setblocking(False)
            out.append(s)
    return out


def closed(s):
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def watch(socks, secs, trickle):
    early = set()
    t0 = time.time()
    sent = 0
    while time.time() - t0 < secs:
        for i, s in enumerate(socks):
            if i not in early and closed(s):
                if time.time() - t0 < 2:
                    early.add(i)
        if trickle and time.time() - t0 >= sent:
            for i, s in enumerate(socks):
                try:
                    s.send(b"GET /metrics HTTP/1.1\r\nX: "[sent % 20:sent % 20 + 1] or b"a")
                except OSError:
                    pass
            sent += 1
        time.sleep(0.05)
    still = sum(1 for i, s in enumerate(socks) if i not in early and not closed(s))
    print(len(early), still)


def fresh(port, secs):
    t0 = time.time()
    n, worst = 0, 0.0
    while time.time() - t0 < secs:
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port,
                                        timeout=5) as r:
                body = r.read().decode()
            now = time.time()
            for line in body.splitlines():
                if line.startswith(METRIC):
                    worst = max(worst, now - float(line.split()[1]))
                    n += 1
        except OSError:
            worst = max(worst, 5.0)
        time.sleep(0.2)
    print(n, "%.3f" % worst)


def main():
    a = sys.argv[1:]
    if a[0] == "hold":
        watch(conns(int(a[1]), ["127.0.0.1"], int(a[2])), float(a[3]), False)
    elif a[0] == "loris":
        addrs = ["127.0.0.%d" % (i + 2) for i in range(int(a[2]))]
        watch(conns(int(a[1]), addrs, int(a[3])), float(a[4]), True)
    elif a[0] == "fresh":
        fresh(int(a[1]), float(a[2]))
    else:
        sys.exit("usage: see the head of this file")


if __name__ == "__main__":
    main()
