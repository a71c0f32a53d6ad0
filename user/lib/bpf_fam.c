// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: the BPF source's families (bpf/<family>.bpf.h): their tracepoints,
 * in the module's order, with the program of each, and their maps.
 */
#include <stddef.h>

#include "bpf_fam.h"
#include "gpulat_bpf.h"
#include "gpulat_defaults.h"
#include "gpulat_drops.h"
#include "libinternal.h"

static const struct gl_bpf_tp sched_tps[] = {
	{ "sched_switch", "gl_switch", false },
	{ "sched_wakeup", "gl_sched_wakeup", false },
	{ "sched_wakeup_new", "gl_sched_wakeup_new", false },
};

static const char *const sched_drops[] = GPULAT_SCHED_DROP_NAMES;

/* The module's attach order: each end before the start that sets it. */
static const struct gl_bpf_tp block_tps[] = {
	{ "block_rq_complete", "gl_block_complete", false },
	{ "block_rq_merge", "gl_block_merge", false },
	{ "block_rq_requeue", "gl_block_requeue", false },
	{ "block_rq_issue", "gl_block_issue", false },
	{ "block_rq_insert", "gl_block_insert", false },
};

static const char *const block_drops[] = GPULAT_BLOCK_DROP_NAMES;

static const struct gl_bpf_tp net_tps[] = {
	{ "net_dev_xmit", "gl_net_xmit", false },
	{ "net_dev_start_xmit", "gl_net_start_xmit", false },
	{ "net_dev_queue", "gl_net_queue", false },
	{ "netif_receive_skb", "gl_net_receive", false },
	{ "netif_rx", "gl_net_rx", false },
};

static const char *const net_drops[] = GPULAT_NET_DROP_NAMES;

#define NSEC_PER_MSEC	1000000ULL

/* exit before entry, as the module attaches them (probe_irq.c) */
static const struct gl_bpf_tp irq_tps[] = {
	{ "irq_handler_exit", "gl_irq_exit", false },
	{ "irq_handler_entry", "gl_irq_entry", false },
};

static const char *const irq_drops[] = GPULAT_IRQ_DROP_NAMES;

/* exit, entry, raise: each before the one that starts its interval */
static const struct gl_bpf_tp softirq_tps[] = {
	{ "softirq_exit", "gl_softirq_exit", false },
	{ "softirq_entry", "gl_softirq_entry", false },
	{ "softirq_raise", "gl_softirq_raise", false },
};

static const char *const softirq_drops[] = GPULAT_SOFTIRQ_DROP_NAMES;

/* ends before begins; no compaction events without CONFIG_COMPACTION */
static const struct gl_bpf_tp mm_tps[] = {
	{ "mm_vmscan_direct_reclaim_end", "gl_mm_reclaim_end", false },
	{ "mm_vmscan_direct_reclaim_begin", "gl_mm_reclaim_begin", false },
	{ "mm_compaction_end", "gl_mm_compaction_end", true },
	{ "mm_compaction_begin", "gl_mm_compaction_begin", true },
	{ "mm_vmscan_memcg_reclaim_end", "gl_mm_memcg_end", true },
	{ "mm_vmscan_memcg_reclaim_begin", "gl_mm_memcg_begin", true },
};

static const char *const mm_drops[] = GPULAT_MM_DROP_NAMES;
/* the module's seven in its order, then the driver's Xid tracepoint */
static const struct gl_bpf_tp nvidia_tps[] = {
	{ "sched_process_exit", "gl_nv_exit", false },
	{ "sched_process_fork", "gl_nv_fork", false },
	{ "task_rename", "gl_nv_rename", false },
	{ "sched_switch", "gl_nv_switch", false },
	{ "sched_wakeup", "gl_nv_wakeup", false },
	{ "irq_handler_exit", "gl_nv_irq_exit", false },
	{ "irq_handler_entry", "gl_nv_irq_entry", false },
	{ "nvidia:nvidia_dev_xid", "gl_nv_xid", true },
};

static const char *const nvidia_drops[] = GPULAT_NV_DROP_NAMES;

/* where the sched, block and mm programs file cgroup samples */
static const struct gl_bpf_ride cgroup_rides[] = {
	{ GPULAT_FAM_SCHED, 0 },	/* sched_switch */
	{ GPULAT_FAM_BLOCK, 0 },	/* block_rq_complete */
	{ GPULAT_FAM_MM, 4 },		/* mm_vmscan_memcg_reclaim_end */
};

static const char *const cgroup_drops[] = GPULAT_CG_DROP_NAMES;

#define TPS(t)		.tps = (t), .nr_tps = ARRAY_SIZE(t)
#define DROPS(d)	.drops = (d), .nr_drops = ARRAY_SIZE(d)

static const struct gl_bpf_family families[GPULAT_FAM_MAX] = {
	[GPULAT_FAM_SCHED] = {
		.id = GPULAT_FAM_SCHED, TPS(sched_tps), DROPS(sched_drops),
		.pcpu_base = GL_BPF_PCPU_SCHED, .nr_pcpu = 2,
		.stamps = "gl_sched_st",
		.stamps_per_cpu = GPULAT_SCHED_SLOTS_PER_CPU, .stamp_kinds = 1,
	},
	[GPULAT_FAM_BLOCK] = {
		.id = GPULAT_FAM_BLOCK, TPS(block_tps), DROPS(block_drops),
		.keyed = "block", .nr_keyed = 2 * GPULAT_BLOCK_NR_OPS,
		.inflight = "block_flight",
		.inflight_per_cpu = GPULAT_BLOCK_INFLIGHT_PER_CPU,
		.inflight_min = GPULAT_BLOCK_INFLIGHT_MIN,
		.expire_ns = GPULAT_BLOCK_EXPIRE_MS * NSEC_PER_MSEC,
		.expired_id = GPULAT_BLOCK_EXPIRED,
	},
	[GPULAT_FAM_NET] = {
		.id = GPULAT_FAM_NET, TPS(net_tps), DROPS(net_drops),
		.keyed = "net", .nr_keyed = 2,
		.inflight = "net_flight",
		.inflight_per_cpu = GPULAT_NET_INFLIGHT_PER_CPU,
		.inflight_min = GPULAT_NET_INFLIGHT_MIN,
		.expire_ns = GPULAT_NET_EXPIRE_MS * NSEC_PER_MSEC,
		.expired_id = GPULAT_NET_EXPIRED, .pcpu_state = "net_nest",
	},
	[GPULAT_FAM_IRQ] = {
		.id = GPULAT_FAM_IRQ, TPS(irq_tps), DROPS(irq_drops),
		.keyed = "irq", .nr_keyed = 1, .pcpu_state = "gl_irq_pc",
	},
	[GPULAT_FAM_SOFTIRQ] = {
		.id = GPULAT_FAM_SOFTIRQ, TPS(softirq_tps),
		DROPS(softirq_drops), .pcpu_base = GL_BPF_PCPU_SOFTIRQ,
		.nr_pcpu = 2 * GPULAT_SOFTIRQ_NR_VECS, .pcpu_vector = true,
		.pcpu_state = "gl_sirq_pc",
	},
	[GPULAT_FAM_MM] = {
		.id = GPULAT_FAM_MM, TPS(mm_tps), DROPS(mm_drops),
		.pcpu_base = GL_BPF_PCPU_MM, .nr_pcpu = 4,
		.stamps = "gl_mm_st",
		.stamps_per_cpu = GPULAT_MM_SLOTS_PER_CPU, .stamp_kinds = 2,
	},
	/* every key lists its four series, as the module's */
	[GPULAT_FAM_NVIDIA] = {
		.id = GPULAT_FAM_NVIDIA, TPS(nvidia_tps), DROPS(nvidia_drops),
		.keyed = "nvidia", .nr_keyed = 4,
		.clear = gl_bpf_nv_clear, .iter_prog = "gl_nv_scan",
		.driver = "nvidia",
	},
	/* a key lists its four series, as the module's */
	[GPULAT_FAM_CGROUP] = {
		.id = GPULAT_FAM_CGROUP, DROPS(cgroup_drops),
		.keyed = "cg", .nr_keyed = 4,
		.rides = cgroup_rides, .nr_rides = ARRAY_SIZE(cgroup_rides),
	},
};

const struct gl_bpf_family *gl_bpf_family(uint32_t family)
{
	const struct gl_bpf_family *f;

	if (family >= GPULAT_FAM_MAX)
		return NULL;
	f = &families[family];
	_Static_assert(GL_BPF_NR_TPS >= 8 && GL_BPF_NR_DROPS >= 5,
		       "room for every family's tracepoints and drops");
	return f->id ? f : NULL;
}
