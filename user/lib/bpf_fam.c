// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: the BPF source's families (bpf/<family>.bpf.h): their tracepoints,
 * in the module's order, with the program of each, and their maps.
 */
#include <stddef.h>

#include "gpulat_bpf.h"
#include "gpulat_defaults.h"
#include "gpulat_drops.h"
#include "lib/bpf_fam.h"
#include "lib/libinternal.h"

/* a row of GPULAT_TPS_<FAMILY> (gpulat_tps.h): GL_BPF_HIT(i) counts row i */
#define TP_ROW(fam, hit, tp, kprobe, prog, needs) \
	{ tp, #prog, GL_BPF_OPTIONAL_##needs },

static const struct gl_bpf_tp sched_tps[] = { GPULAT_TPS_SCHED(TP_ROW) };
static const struct gl_bpf_tp block_tps[] = { GPULAT_TPS_BLOCK(TP_ROW) };
static const struct gl_bpf_tp net_tps[] = { GPULAT_TPS_NET(TP_ROW) };
static const struct gl_bpf_tp irq_tps[] = { GPULAT_TPS_IRQ(TP_ROW) };
static const struct gl_bpf_tp softirq_tps[] = { GPULAT_TPS_SOFTIRQ(TP_ROW) };
static const struct gl_bpf_tp mm_tps[] = { GPULAT_TPS_MM(TP_ROW) };
static const struct gl_bpf_tp nvidia_tps[] = { GPULAT_TPS_NVIDIA(TP_ROW) };
static const struct gl_bpf_tp cuda_tps[] = { GPULAT_TPS_CUDA(TP_ROW) };

static const char *const sched_drops[] = GPULAT_SCHED_DROP_NAMES;
static const char *const block_drops[] = GPULAT_BLOCK_DROP_NAMES;
static const char *const net_drops[] = GPULAT_NET_DROP_NAMES;
static const char *const irq_drops[] = GPULAT_IRQ_DROP_NAMES;
static const char *const softirq_drops[] = GPULAT_SOFTIRQ_DROP_NAMES;
static const char *const mm_drops[] = GPULAT_MM_DROP_NAMES;
static const char *const nvidia_drops[] = GPULAT_NV_DROP_NAMES;
static const char *const cuda_drops[] = GPULAT_CUDA_DROP_NAMES;

#define NSEC_PER_MSEC	1000000ULL

/* where the sched, block and mm programs file cgroup samples */
static const struct gl_bpf_ride cgroup_rides[] = {
	{ GPULAT_FAM_SCHED, GL_HIT_SCHED_SWITCH },
	{ GPULAT_FAM_BLOCK, GL_HIT_BLOCK_COMPLETE },
	{ GPULAT_FAM_MM, GL_HIT_MM_MEMCG_END },
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
	/* a key lists its eight series, as the module's */
	[GPULAT_FAM_CUDA] = {
		.id = GPULAT_FAM_CUDA, TPS(cuda_tps), DROPS(cuda_drops),
		.keyed = "cuda", .nr_keyed = GPULAT_CUDA_OTHER + 1,
		.clear = gl_bpf_cuda_clear,
		.up_prog = { "gl_cuda_entry", "gl_cuda_return" },
		.lib_on = gl_bpf_cuda_on, .lib_off = gl_bpf_cuda_off,
		.lib_absent = gl_bpf_cuda_absent,
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
