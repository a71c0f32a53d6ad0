/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cross case of every family: the test that holds the BPF source and
 * the module to one answer for it, in the VM (tests/kernel/both.h, or
 * bpf_cross_test's pairs of snapshots).  cross_cases[] expands the list
 * of families (kmod/families.h) against these lines, so a family without
 * its CROSS_CASE_<name> fails to build the tests; bpf_cross_test prints
 * the table.  Where the sources cannot agree by design, the case's test
 * says why and checks the bound (bpf_cross_test.c's header).
 */
#ifndef _GPULAT_CROSS_CASES_H
#define _GPULAT_CROSS_CASES_H

#include "uapi/gpulat.h"

#define CROSS_CASE_sched	"bpf_cross_test: sched_contended_cpu"
#define CROSS_CASE_block	"bpf_cross_test: block_null_blk (none, mq-deadline)"
#define CROSS_CASE_net		"bpf_cross_test: net_veth_netem"
#define CROSS_CASE_irq		"irq_test: nic_handler_counts_every_interrupt"
#define CROSS_CASE_softirq	"irq_test: nic_handler_counts_every_interrupt (NET_RX)"
#define CROSS_CASE_nvidia	"nvidia_irq_test: hardirq_threads_kthread_known_counts"
#define CROSS_CASE_mm		"mm_test: every case; bpf_cross_test: memcg_reclaim_page_cache"
#define CROSS_CASE_cgroup	"bpf_cross_test: cgroup_contended_cpu"
#define CROSS_CASE_cuda		"cuda_test: every case"

/* By family id: NULL for 0, which is no family. */
static const char *const cross_cases[] = {
#define GPULAT_FAMILY(name, id, threshold_us, keeps, tool)	\
	[id] = CROSS_CASE_##name,
#include "families.h"
#undef GPULAT_FAMILY
};

#endif /* _GPULAT_CROSS_CASES_H */
