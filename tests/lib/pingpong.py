# SPDX-License-Identifier: GPL-2.0
# A chatty pair: two processes bouncing a byte through two pipes, a
# switch per hop (thousands a second) on the CPU they share.  Used by
# tests/bpf/test_holders.sh and tests/scenarios/s_switch_storm.sh.
# Killing either ends both: each keeps only its own pipe ends, so the
# other's death is an end of file or a broken pipe, and the child also
# asks the kernel for SIGKILL when its parent dies.
import ctypes
import os

r1, w1 = os.pipe()
r2, w2 = os.pipe()
if os.fork() == 0:
    ctypes.CDLL(None).prctl(1, 9)   # PR_SET_PDEATHSIG, SIGKILL
    os.close(w1)
    os.close(r2)
    while os.read(r1, 1):
        os.write(w2, b"x")
    os._exit(0)
os.close(r1)
os.close(w2)
os.write(w1, b"x")
while os.read(r2, 1):
    os.write(w1, b"x")
