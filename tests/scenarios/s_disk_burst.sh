#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A short storage burst inside a long quiet watch: a copy job reads at
# random with O_DIRECT, 1 MiB at a time and 128 in flight, for 4 s in the
# middle of a 12 s diagnosis, and is gone before it ends.  Storage first,
# the reader named (/proc is read through the watch, not only at its
# ends: the bytes it moved before it went), said gone, and no kill of
# its pid.
. "$(dirname "$0")/lib.sh"
sc_bigfile
EXPECT_LAYER=storage
EXPECT_CULPRIT='^copyjob$'
SC_SECONDS=12
sc_diagnose &
d=$!
sleep 4
sc_disk_reader copyjob "$SC_FILE" 128
c=$SC_LAST
sleep 4
kill -KILL "$c"
wait "$d" || exit 1
EXPECT_ADVICE="copyjob \\(pid $c, [0-9]+%\\) moved .*gone since"
FORBID_ADVICE="kill[0-9 ]* $c[ ;)]"
sc_judge
