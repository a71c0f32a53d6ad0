# SPDX-License-Identifier: GPL-2.0
"""hostlock.py NAME WAIT_S CMD...: run CMD while holding the host-wide
lock NAME, an abstract unix socket (one per network namespace, so every
checkout and chroot on the host sees it, and the kernel frees it when
the holder dies, kill -9 included).  Waits up to WAIT_S seconds for it,
then runs CMD anyway, saying so.  Exits with CMD's status.

Two runs of incidents that inject faults (a shaped device, a CPU hog)
at once would see each other's: each is a true incident of the host."""
import os
import socket
import subprocess
import sys
import time

name, wait_s, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
t0 = time.monotonic()
said = False
while True:
    try:
        s.bind("\0" + name)
        break
    except OSError:
        if time.monotonic() - t0 > wait_s:
            print("# hostlock: %s held for %.0f s: running anyway"
                  % (name, wait_s), flush=True)
            break
        if not said:
            print("# hostlock: waiting for %s (another run holds it)" % name,
                  flush=True)
            said = True
        time.sleep(0.5)
sys.exit(subprocess.call(cmd, close_fds=False))
