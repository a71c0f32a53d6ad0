# SPDX-License-Identifier: GPL-2.0
# A chatty pair: two processes bouncing a byte through two pipes, a
# switch per hop (thousands a second) on the CPU they share.  Used by
# tests/bpf/test_holders.sh and tests/scenarios/s_switch_storm.sh.
import os

r1, w1 = os.pipe()
r2, w2 = os.pipe()
if os.fork() == 0:
    while True:
        os.read(r1, 1)
        os.write(w2, b"x")
os.write(w1, b"x")
while True:
    os.read(r2, 1)
    os.write(w1, b"x")
