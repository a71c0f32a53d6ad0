#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A data loader reads a file at random with O_DIRECT, 1 MiB at a time
# and 64 requests in flight (few reads, little CPU): more than the disk
# moves in the expected 20 ms p99, however fast it is.  The disk's own
# service time or its queue is the wait, as the disk has it.  Storage
# first, the reader named, the advice to check that disk and who did
# the I/O, and the queue advice only where the queue's time was most of
# it (lib.sh checks it against the diagnosis's own evidence).
. "$(dirname "$0")/lib.sh"
sc_bigfile
sc_disk_reader diskreader "$SC_FILE" 64
EXPECT_LAYER=storage
EXPECT_CULPRIT='^diskreader$'
EXPECT_PIDS=$SC_LAST
EXPECT_ADVICE="diskreader \\(pid $SC_LAST, [0-9]+%\\) moved"
FORBID_ADVICE='diskreader \(pid [0-9]+\)[^.]* the name of a cryptominer'
sleep 1
sc_diagnose || exit 1
sc_judge
