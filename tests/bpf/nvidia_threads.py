# SPDX-License-Identifier: GPL-2.0
# Tasks named like the NVIDIA driver's kthreads (prctl PR_SET_NAME), for
# tests/bpf/test_nvidia.sh.  Each sleeps 2 ms in a loop for SECONDS and
# writes "PID NAME" to OUT once named (PID: its thread id).
#
#   nvidia_threads.py OUT SECONDS NAME...   one thread per NAME
#   nvidia_threads.py --fork OUT SECONDS NAME
#                     the process names itself NAME, then forks a child
#                     (which is born with that name)
import ctypes
import os
import sys
import threading
import time

PR_SET_NAME = 15
libc = ctypes.CDLL(None, use_errno=True)
lock = threading.Lock()


def named(out, name):
    libc.prctl(PR_SET_NAME, name.encode(), 0, 0, 0)
    with lock, open(out, "a") as f:
        f.write("%d %s\n" % (threading.get_native_id(), name))


def nap(secs):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        time.sleep(0.002)


def thread(out, secs, name):
    named(out, name)
    nap(secs)


def main():
    fork = sys.argv[1] == "--fork"
    out, secs = sys.argv[1 + fork], float(sys.argv[2 + fork])
    names = sys.argv[3 + fork:]
    if fork:
        named(out, names[0])
        pid = os.fork()
        if not pid:
            with lock, open(out, "a") as f:
                f.write("%d %s child\n" % (os.getpid(), names[0]))
            nap(secs)
            os._exit(0)
        nap(secs)
        os.waitpid(pid, 0)
        return
    ts = [threading.Thread(target=thread, args=(out, secs, n)) for n in names]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


main()
