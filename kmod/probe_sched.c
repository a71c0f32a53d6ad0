// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduler family: run-queue latency per CPU, as two series.
 *
 *   sched.wakeup   sched_wakeup / sched_wakeup_new -> sched_switch (next)
 *   sched.preempt  sched_switch (prev, still runnable) -> sched_switch (next)
 *
 * The CPU of a sample is the CPU the task was switched in on.  The work
 * on sched_switch and sched_wakeup is in probe_sched.h, inlined into the
 * probes of those tracepoints in mux.c, which other families share.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include <linux/timekeeping.h>
#include <trace/events/sched.h>

#include "fault.h"
#include "gpulat.h"
#include "gpulat_defaults.h"
#include "gpulat_drops.h"
#include "probe_sched.h"
#include "sized.h"

/* more entries than pids would never be used */
#define SCHED_SLOTS_MAX		(1ULL << GPULAT_PID_BITS)

static unsigned int sched_slots;
module_param(sched_slots, uint, 0444);
MODULE_PARM_DESC(sched_slots,
		 "start stamp table entries (0: "
		 __stringify(GPULAT_SCHED_SLOTS_PER_CPU)
		 " per possible CPU; at most 4194304)");

struct gpulat_sched_pcpu __percpu *gpulat_sched_pc;
u64 *gpulat_sched_stamps;
u32 gpulat_sched_bits;
u32 gpulat_sched_mask, gpulat_sched_hi_shift;

static void sched_probe_wakeup_new(void *data, struct task_struct *p)
{
	this_cpu_inc(gpulat_sched_pc->counters[SCHED_HIT_WAKEUP_NEW]);
	sched_start(p->pid, 0, ktime_get_mono_fast_ns(), true);
}

/*
 * sched_entries - stamp table entries for sched_slots: 0 is 1024 per
 * possible CPU (up to the bound), at least 2^GPULAT_PST_MIN_BITS, rounded
 * up to a power of two; over the bound only as sched_check() reports it
 */
static u64 sched_entries(void)
{
	u64 n = sched_slots;

	if (!n)
		n = min((u64)GPULAT_SCHED_SLOTS_PER_CPU * num_possible_cpus(),
			SCHED_SLOTS_MAX);
	return gpulat_sized_pow2(max(n, 1ULL << GPULAT_PST_MIN_BITS));
}

static void sched_sized(struct gpulat_sized *s)
{
	s->param = "sched_slots";
	s->value = sched_slots;
	s->max = SCHED_SLOTS_MAX;
	s->bytes = sched_entries() * sizeof(u64);
}

static int sched_check(struct gpulat_family *fam)
{
	struct gpulat_sized s;

	sched_sized(&s);
	return gpulat_sized_check(&s);
}

static int sched_init(struct gpulat_family *fam, void __percpu *pcpu)
{
	/* sched_check() refused more at load */
	u64 n = min(sched_entries(), SCHED_SLOTS_MAX);

	GPULAT_CHECK_PROBE(sched_wakeup_new, sched_probe_wakeup_new);

	gpulat_sched_stamps = gl_kvcalloc_sized(n, sizeof(u64));
	if (!gpulat_sched_stamps) {
		struct gpulat_sized s;

		sched_sized(&s);
		gpulat_sized_nomem(&s);
		return -ENOMEM;
	}
	gpulat_sched_bits = ilog2(n);
	gpulat_sched_mask = n - 1;
	gpulat_sched_hi_shift = gpulat_sched_bits - SCHED_SPREAD_BITS;
	gpulat_sched_pc = pcpu;
	fam->extra_bytes = n * sizeof(u64);
	return 0;
}

static void sched_clear(struct gpulat_family *fam)
{
	memset(gpulat_sched_stamps, 0, sizeof(u64) << gpulat_sched_bits);
}

static void sched_exit(struct gpulat_family *fam)
{
	gl_kvfree(gpulat_sched_stamps);
	gpulat_sched_stamps = NULL;
}

/*
 * Attached in this order: sched_switch first, so that every stamp a wakeup
 * sets is cleared by the switch probe if the task sleeps again; the other
 * order would let a task woken between the two attaches carry its sleep
 * into its first sample.
 */
static struct gpulat_tp sched_tps[] = {
	GPULAT_TPS_SCHED(GPULAT_TP_ROW)
};

static const struct gpulat_series_desc sched_series[] = {
	GPULAT_DECL_SCHED(GPULAT_SERIES_DESC)
};

static const char * const sched_drop_names[] = GPULAT_SCHED_DROP_NAMES;

struct gpulat_family gpulat_sched_family = {
	.id		= GPULAT_FAM_SCHED,
	.name		= "sched",
	.tps		= sched_tps,
	.nr_tps		= ARRAY_SIZE(sched_tps),
	.series		= sched_series,
	.nr_series	= ARRAY_SIZE(sched_series),
	.drop_names	= sched_drop_names,
	.nr_drops	= ARRAY_SIZE(sched_drop_names),
	.pcpu_size	= sizeof(struct gpulat_sched_pcpu),
	.hist_offset	= offsetof(struct gpulat_sched_pcpu, hist),
	.counter_offset	= offsetof(struct gpulat_sched_pcpu, counters),
	.check		= sched_check,
	.init		= sched_init,
	.exit		= sched_exit,
	.clear		= sched_clear,
	.enabled	= true,
};

module_param_named(sched, gpulat_sched_family.enabled, bool, 0444);
MODULE_PARM_DESC(sched, "run-queue latency family (default on)");
