#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A job of two readers reads a file sixteen times its memory cgroup's 16 MiB, again and
# again, while the host has plenty free: its page cache is reclaimed at
# its own limit, and read anew.  Memory first (the
# root cause, above the CPU waits its reclaim raises), the writer named,
# the advice names its cgroup and limit as this host has them, and never
# says the host runs short.
. "$(dirname "$0")/lib.sh"
sc_memcg gpulat-sc-memcg $((16 << 20)) ||
	sc_skip "no memory cgroup can be made here (v1 memory, or cgroup2 with memory)"
f=$(mktemp /var/tmp/gpulat-sc-memcg.XXXXXX)
sc_undo "rm -f '$f'"
head -c $((256 << 20)) /dev/zero >"$f" && sync "$f"
# its pages out of the host's cache: the job's reads bring them in anew
echo 1 >/proc/sys/vm/drop_caches
# two long-lived readers: their pids and cgroup stay to be named
for i in 1 2; do
	sc_py memreader 0-$(sc_last_cpu) "import os
open('$SC_PROCS', 'w').write(str(os.getpid()))
while True:
    with open('$f', 'rb') as r:
        while r.read(1 << 20): pass"
done
EXPECT_LAYER=memory
EXPECT_CULPRIT='^memreader$'
EXPECT_ADVICE='memory cgroup|reclaims at its own'
FORBID_ADVICE='runs short of free memory'
sleep 1
sc_diagnose || exit 1
sc_judge
