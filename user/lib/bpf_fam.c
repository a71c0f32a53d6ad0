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

#define TPS(t)		.tps = (t), .nr_tps = ARRAY_SIZE(t)
#define DROPS(d)	.drops = (d), .nr_drops = ARRAY_SIZE(d)

static const struct gl_bpf_family families[GPULAT_FAM_MAX] = {
	[GPULAT_FAM_SCHED] = {
		.id = GPULAT_FAM_SCHED, TPS(sched_tps), DROPS(sched_drops),
		.pcpu_base = GL_BPF_PCPU_SCHED, .nr_pcpu = 2,
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
