// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduler family: run-queue latency per CPU, as two series.
 *
 *   sched.wakeup   sched_wakeup / sched_wakeup_new -> sched_switch (next)
 *   sched.preempt  sched_switch (prev, still runnable) -> sched_switch (next)
 *
 * The CPU of a sample is the CPU the task was switched in on.
 *
 * Start stamps live in one table of 2^bits entries indexed by the low pid
 * bits.  Each entry is one u64, written whole, so entries never tear:
 *
 *   bits 63..14  start time, CLOCK_MONOTONIC ns modulo 2^50 (13 days)
 *   bit  13      entry in use
 *   bit  12      1 = preempted, 0 = woken
 *   bits 11..0   the pid bits above the index (pids are below
 *                PID_MAX_LIMIT = 2^22 and the index has >= 10 bits)
 *
 * All writes to one task's entry happen under that task's run-queue lock,
 * so they are serialised.  Two tasks whose pids collide in the table can
 * overwrite each other: that is counted (sched.evicted), and the victim's
 * switch-in then counts as sched.no_start.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <trace/events/sched.h>

#include "fault.h"
#include "gpulat.h"
#include "mux.h"
#include "compat/sched.h"
#include "trace.h"

#define STAMP_PID_BITS		22
#define STAMP_MIN_BITS		10
#define STAMP_PID_HI_MASK	((1ULL << (STAMP_PID_BITS - STAMP_MIN_BITS)) - 1)
#define STAMP_PREEMPT		BIT_ULL(12)
#define STAMP_USED		BIT_ULL(13)
#define STAMP_TS_SHIFT		14

enum {
	SCHED_HIT_WAKEUP = GPULAT_SCHED_NEGATIVE + 1,
	SCHED_HIT_WAKEUP_NEW,
	SCHED_HIT_SWITCH,
	SCHED_NR_COUNTERS,
};

struct sched_pcpu {
	struct gpulat_hist hist[2];	/* GPULAT_SCHED_WAKEUP, _PREEMPT */
	u64 counters[SCHED_NR_COUNTERS];
};

static unsigned int sched_slots;
module_param(sched_slots, uint, 0444);
MODULE_PARM_DESC(sched_slots,
		 "start stamp table entries (0: 1024 per possible CPU)");

static struct sched_pcpu __percpu *sched_pc;
static u64 *sched_stamps;
static u32 sched_bits;
/* from sched_bits, so that a lookup does not derive them each time */
static u32 sched_mask, sched_hi_shift;

/*
 * sched_slot - a pid's entry; a bijection on the table that moves the low
 * three pid bits to the top, so that neighbouring pids (threads created
 * together, often running on different CPUs) sit in different cache lines.
 */
static __always_inline u64 *sched_slot(pid_t pid)
{
	u32 p = (u32)pid & sched_mask;

	return &sched_stamps[((p & 7) << sched_hi_shift) | (p >> 3)];
}

static __always_inline u64 sched_tag(pid_t pid)
{
	return STAMP_USED | ((u32)pid >> sched_bits);
}

static __always_inline bool sched_owns(u64 entry, pid_t pid)
{
	return (entry & (STAMP_USED | STAMP_PID_HI_MASK)) == sched_tag(pid);
}

/*
 * sched_start - stamp @pid as runnable since @now
 *
 * A woken task that already holds a preempt stamp keeps it: it has been
 * runnable since then (preempted after setting a sleeping state, and
 * woken before it ran).  Any other stamp it holds is stale: set by a
 * wakeup that caught it still running, which sched_end() never saw.  Such
 * a stamp is replaced here or at a runnable switch-out, so a task going
 * to sleep need not clear its entry (that cost a table lookup at most
 * switches).
 */
static __always_inline void sched_start(pid_t pid, u64 kind, u64 now,
					bool keep)
{
	u64 *slot = sched_slot(pid), old = READ_ONCE(*slot);

	if (sched_owns(old, pid)) {
		if (keep && (old & STAMP_PREEMPT))
			return;
	} else if (old) {
		this_cpu_inc(sched_pc->counters[GPULAT_SCHED_EVICTED]);
	}
	WRITE_ONCE(*slot, (now << STAMP_TS_SHIFT) | kind | sched_tag(pid));
}

/* sched_end - @p runs at @now: file its wait */
static __always_inline void sched_end(struct task_struct *p, u64 now)
{
	pid_t pid = p->pid;
	u64 *slot = sched_slot(pid), old = READ_ONCE(*slot);
	unsigned int series;
	s64 delta;

	if (!sched_owns(old, pid)) {
		this_cpu_inc(sched_pc->counters[GPULAT_SCHED_NO_START]);
		return;
	}
	WRITE_ONCE(*slot, 0);
	/*
	 * 50-bit stamps: subtract in the top bits and read the result signed,
	 * so a stamp from the future (clock skew) is negative; so is a wait
	 * beyond 2^49 ns (6.5 days), which no runnable task survives.
	 */
	delta = (s64)((now << STAMP_TS_SHIFT) -
		      (old & ~((1ULL << STAMP_TS_SHIFT) - 1))) >> STAMP_TS_SHIFT;
	if (unlikely(delta < 0)) {
		this_cpu_inc(sched_pc->counters[GPULAT_SCHED_NEGATIVE]);
		return;
	}
	series = old & STAMP_PREEMPT ? GPULAT_SCHED_PREEMPT :
				       GPULAT_SCHED_WAKEUP;
	gpulat_hist_record(&sched_pc->hist[series], delta);
	gpulat_trace_check(GPULAT_FAM_SCHED, series, 0, now, delta, p,
			   GPULAT_OUT_CPU_WAIT);
}

static __always_inline void sched_wakeup(struct task_struct *p)
{
	this_cpu_inc(sched_pc->counters[SCHED_HIT_WAKEUP]);
	sched_start(p->pid, 0, ktime_get_mono_fast_ns(), true);
}

static void sched_probe_wakeup_new(void *data, struct task_struct *p)
{
	this_cpu_inc(sched_pc->counters[SCHED_HIT_WAKEUP_NEW]);
	sched_start(p->pid, 0, ktime_get_mono_fast_ns(), true);
}

static __always_inline void sched_switch(bool preempt,
					 struct task_struct *prev,
					 struct task_struct *next)
{
	u64 now = ktime_get_mono_fast_ns();

	this_cpu_inc(sched_pc->counters[SCHED_HIT_SWITCH]);
	/* pid 0 is the idle task: neither its start nor its end is a wait */
	if (prev->pid &&
	    (preempt || gpulat_task_state(prev) == TASK_RUNNING))
		sched_start(prev->pid, STAMP_PREEMPT, now, false);
	if (next->pid)
		sched_end(next, now);
	/* after the check above: a wait's history ends before its end */
	if (gpulat_trace_on())
		gpulat_trace_switch(now, next->pid);
}

/*
 * sched_probe_wakeup and sched_probe_switch are also the tracepoints' mux
 * (mux.h), the only probe registered there: they call the nvidia
 * family's after their own work, as a tail call.  Which families are on
 * is in static keys, patched jumps that cost no load.
 */
void sched_probe_wakeup(void *data, struct task_struct *p)
{
	if (static_branch_likely(&gpulat_mux_wakeup_sched))
		sched_wakeup(p);
	if (static_branch_unlikely(&gpulat_mux_wakeup_nvidia))
		nv_probe_wakeup(NULL, p);
}

void sched_probe_switch(GPULAT_SCHED_SWITCH_ARGS)
{
	if (static_branch_likely(&gpulat_mux_switch_sched))
		sched_switch(preempt, prev, next);
	if (static_branch_unlikely(&gpulat_mux_switch_nvidia))
		GPULAT_SCHED_SWITCH_CALL(nv_probe_switch);
}

static int sched_init(struct gpulat_family *fam, void __percpu *pcpu)
{
	unsigned long n = sched_slots;

	GPULAT_CHECK_PROBE(sched_wakeup, sched_probe_wakeup);
	GPULAT_CHECK_PROBE(sched_wakeup_new, sched_probe_wakeup_new);
	GPULAT_CHECK_PROBE(sched_switch, sched_probe_switch);

	if (!n)
		n = 1024UL * num_possible_cpus();
	n = roundup_pow_of_two(clamp(n, 1UL << STAMP_MIN_BITS,
				     1UL << STAMP_PID_BITS));
	sched_stamps = gl_kvcalloc(n, sizeof(u64));
	if (!sched_stamps)
		return -ENOMEM;
	sched_bits = ilog2(n);
	sched_mask = n - 1;
	sched_hi_shift = sched_bits - 3;
	sched_pc = pcpu;
	fam->extra_bytes = n * sizeof(u64);
	return 0;
}

static void sched_clear(struct gpulat_family *fam)
{
	memset(sched_stamps, 0, sizeof(u64) << sched_bits);
}

static void sched_exit(struct gpulat_family *fam)
{
	gl_kvfree(sched_stamps);
	sched_stamps = NULL;
}

/*
 * Attached in this order: sched_switch first, so that every stamp a wakeup
 * sets is cleared by the switch probe if the task sleeps again; the other
 * order would let a task woken between the two attaches carry its sleep
 * into its first sample.
 */
static struct gpulat_tp sched_tps[] = {
	{ .name = "sched_switch", .probe = sched_probe_switch,
	  .hit_idx = SCHED_HIT_SWITCH },
	{ .name = "sched_wakeup", .probe = sched_probe_wakeup,
	  .hit_idx = SCHED_HIT_WAKEUP },
	{ .name = "sched_wakeup_new", .probe = sched_probe_wakeup_new,
	  .hit_idx = SCHED_HIT_WAKEUP_NEW },
};

static const struct gpulat_series_desc sched_series[] = {
	{ .id = GPULAT_SCHED_WAKEUP, .name = "sched.wakeup",
	  .what = "sched_wakeup/sched_wakeup_new -> switch-in" },
	{ .id = GPULAT_SCHED_PREEMPT, .name = "sched.preempt",
	  .what = "switched out runnable -> switch-in" },
};

static const char * const sched_drop_names[] = {
	[GPULAT_SCHED_NO_START] = "sched.no_start",
	[GPULAT_SCHED_EVICTED] = "sched.evicted",
	[GPULAT_SCHED_NEGATIVE] = "sched.negative",
};

struct gpulat_family gpulat_sched_family = {
	.id		= GPULAT_FAM_SCHED,
	.name		= "sched",
	.tps		= sched_tps,
	.nr_tps		= ARRAY_SIZE(sched_tps),
	.series		= sched_series,
	.nr_series	= ARRAY_SIZE(sched_series),
	.drop_names	= sched_drop_names,
	.nr_drops	= ARRAY_SIZE(sched_drop_names),
	.pcpu_size	= sizeof(struct sched_pcpu),
	.hist_offset	= offsetof(struct sched_pcpu, hist),
	.counter_offset	= offsetof(struct sched_pcpu, counters),
	.init		= sched_init,
	.exit		= sched_exit,
	.clear		= sched_clear,
	.enabled	= true,
};

module_param_named(sched, gpulat_sched_family.enabled, bool, 0444);
MODULE_PARM_DESC(sched, "run-queue latency family (default on)");
