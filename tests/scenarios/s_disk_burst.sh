#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A short storage burst inside a long quiet watch: a copy job reads at
# random with O_DIRECT, 1 MiB at a time and 128 in flight, for 4 s in the
# middle of a 12 s diagnosis, and is gone before it ends.  Storage first,
# the reader named (/proc is read through the watch, not only at its
# ends: the bytes it moved before it went), said gone, and no kill of
# its pid.
. "$(dirname "$0")/lib.sh"
f=$(mktemp /var/tmp/gpulat-sc-burst.XXXXXX)
sc_undo "rm -f '$f'"
head -c $((512 << 20)) /dev/zero >"$f" && sync "$f" ||
	sc_skip "cannot write a 512 MiB file in /var/tmp"
EXPECT_LAYER=storage
EXPECT_CULPRIT='^copyjob$'
SC_SECONDS=12
sc_diagnose &
d=$!
sleep 4
sc_py copyjob 0-$(sc_last_cpu) "import os, mmap, random, threading
fd = os.open('$f', os.O_RDONLY | os.O_DIRECT)
n = os.fstat(fd).st_size >> 20
def w():
    b = mmap.mmap(-1, 1 << 20)
    r = random.Random()
    while True:
        os.preadv(fd, [b], r.randrange(n) << 20)
for _ in range(127):
    threading.Thread(target=w, daemon=True).start()
w()"
c=$SC_LAST
sleep 4
kill -KILL "$c"
wait "$d" || exit 1
EXPECT_ADVICE="copyjob \\(pid $c, [0-9]+%\\) moved .*gone since"
FORBID_ADVICE="kill[0-9 ]* $c[ ;)]"
sc_judge
