#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A container of three batch workers (one cgroup, as a runtime makes it:
# cgroup2, and v1 cpu on a hybrid host) spins on the CPU of a periodic
# task outside it.  The scheduler first, the workers named, all three
# pids in one advice, and the advice names the container's cgroup (to
# keep off that CPU, or to cap: its workers' own turns count) and the
# knob this host has for it (cpu.max on cgroup2, cpu.cfs_quota_us under
# v1), never the root's, never an empty task list.
. "$(dirname "$0")/lib.sh"
sc_cgroup gpulat-sc-ctr ||
	sc_skip "no cgroup can be made here (cgroup2 not mounted or not writable)"
cpu=$(sc_last_cpu)
pids=
for i in 1 2 3; do
	sc_py batchwork "$cpu" "$(sc_py_join)
while True: pass"
	pids+=" $SC_LAST"
done
sc_ticker feeder "$cpu" 0.005
name=$(basename "$SC_CG2")
EXPECT_LAYER=scheduler
EXPECT_CULPRIT='^batchwork$'
EXPECT_PIDS=$pids
if [[ -n $SC_CG1 ]]; then
	EXPECT_ADVICE="(Keep [^ ]*$name off the CPUs of|Cap [^ ]*$name:) .*$SC_CG1/cpu.cfs_quota_us"
else
	EXPECT_ADVICE="(Keep [^ ]*$name off the CPUs of|Cap [^ ]*$name:) .*cpu.max"
fi
FORBID_ADVICE='batchwork \(pid [0-9]+\)[^.]* the name of a cryptominer|(/sys/fs/cgroup(/unified)?|/cpu)/(cpu|cpuset)\.[a-z_.]+ |its tasks: \.'
sleep 1
sc_diagnose || exit 1
sc_judge
