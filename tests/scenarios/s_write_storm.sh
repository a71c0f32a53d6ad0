#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A job writes its checkpoint, 1 GiB at a time through the page cache,
# then fsync, again and again: the writeback floods the disk.  Storage
# first (whatever CPU waits the flushers raise), the writer named (the
# pages it dirtied count as its I/O, written back in its name), the
# advice to check that disk and who did the I/O.
. "$(dirname "$0")/lib.sh"
f=$(mktemp /var/tmp/gpulat-sc-write.XXXXXX)
sc_undo "rm -f '$f'"
sc_py ckptwrite 0-$(sc_last_cpu) "import os
buf = b'c' * (1 << 20)
while True:
    fd = os.open('$f', os.O_WRONLY | os.O_TRUNC)
    for _ in range(1024):
        os.write(fd, buf)
    os.fsync(fd)
    os.close(fd)"
EXPECT_LAYER=storage
EXPECT_CULPRIT='^ckptwrite$'
EXPECT_PIDS=$SC_LAST
EXPECT_ADVICE="ckptwrite \\(pid $SC_LAST, [0-9]+%\\) moved"
FORBID_ADVICE='ckptwrite \(pid [0-9]+\)[^.]* the name of a cryptominer'
sleep 2
sc_diagnose || exit 1
sc_judge
