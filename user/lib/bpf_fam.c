// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: the BPF source's families (bpf/<family>.bpf.h): their tracepoints,
 * in the module's order, with the program of each, and their maps.
 */
#include <stddef.h>

#include "bpf_fam.h"
#include "gpulat_bpf.h"
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

#define TPS(t)		.tps = (t), .nr_tps = ARRAY_SIZE(t)
#define DROPS(d)	.drops = (d), .nr_drops = ARRAY_SIZE(d)

static const struct gl_bpf_family families[GPULAT_FAM_MAX] = {
	[GPULAT_FAM_SCHED] = {
		.id = GPULAT_FAM_SCHED, TPS(sched_tps), DROPS(sched_drops),
		.pcpu_base = GL_BPF_PCPU_SCHED, .nr_pcpu = 2,
	},
	/* the module's defaults: kmod/probe_block.c, kmod/probe_net.c */
	[GPULAT_FAM_BLOCK] = {
		.id = GPULAT_FAM_BLOCK, TPS(block_tps), DROPS(block_drops),
		.keyed = "block", .nr_keyed = 2 * GPULAT_BLOCK_NR_OPS,
		.inflight = "block_flight", .inflight_per_cpu = 128,
		.inflight_min = 4096, .expire_ns = 60000 * NSEC_PER_MSEC,
		.expired_id = GPULAT_BLOCK_EXPIRED,
	},
	[GPULAT_FAM_NET] = {
		.id = GPULAT_FAM_NET, TPS(net_tps), DROPS(net_drops),
		.keyed = "net", .nr_keyed = 2,
		.inflight = "net_flight", .inflight_per_cpu = 256,
		.inflight_min = 4096, .expire_ns = 1000 * NSEC_PER_MSEC,
		.expired_id = GPULAT_NET_EXPIRED, .pcpu_state = "net_nest",
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
