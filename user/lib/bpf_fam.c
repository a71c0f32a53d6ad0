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
	{ "sched_switch", "gl_sched_switch", false },
	{ "sched_wakeup", "gl_sched_wakeup", false },
	{ "sched_wakeup_new", "gl_sched_wakeup_new", false },
};

static const char *const sched_drops[] = GPULAT_SCHED_DROP_NAMES;

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

#define TPS(t)		.tps = (t), .nr_tps = ARRAY_SIZE(t)
#define DROPS(d)	.drops = (d), .nr_drops = ARRAY_SIZE(d)

static const struct gl_bpf_family families[GPULAT_FAM_MAX] = {
	[GPULAT_FAM_SCHED] = {
		.id = GPULAT_FAM_SCHED, TPS(sched_tps), DROPS(sched_drops),
		.pcpu_base = GL_BPF_PCPU_SCHED, .nr_pcpu = 2,
	},
	/* every key lists its four series, as the module's */
	[GPULAT_FAM_NVIDIA] = {
		.id = GPULAT_FAM_NVIDIA, TPS(nvidia_tps), DROPS(nvidia_drops),
		.keyed = "nvidia", .nr_keyed = 4,
		.clear = gl_bpf_nv_clear, .iter_prog = "gl_nv_scan",
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
