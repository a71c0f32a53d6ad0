/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sched family's work on sched_switch and sched_wakeup, inlined into
 * their probes in mux.c; the family itself is in probe_sched.c.
 *
 * Start stamps live in one table of 2^bits entries indexed by the low pid
 * bits, in the layout of stamp.h; the flag bit: 1 = preempted, 0 = woken.
 *
 * All writes to one task's entry happen under that task's run-queue lock,
 * so they are serialised.  Two tasks whose pids collide in the table can
 * overwrite each other: that is counted (sched.evicted), and the victim's
 * switch-in then counts as sched.no_start.
 */
#ifndef _GPULAT_KMOD_PROBE_SCHED_H
#define _GPULAT_KMOD_PROBE_SCHED_H

#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "gpulat.h"
#include "probe_cgroup.h"
#include "stamp.h"
#include "trace.h"
#include "compat/sched.h"

#define SCHED_PREEMPT		GPULAT_PST_FLAG
/* low pid bits that sched_slot() moves to the top of the index */
#define SCHED_SPREAD_BITS	3
#define SCHED_SPREAD_MASK	((1U << SCHED_SPREAD_BITS) - 1)

enum {
	SCHED_HITS_AFTER = GPULAT_SCHED_NEGATIVE,	/* the last drop counter */
	GPULAT_TPS_SCHED(GPULAT_TP_HIT)
	SCHED_NR_COUNTERS,
};

struct gpulat_sched_pcpu {
	struct gpulat_hist hist[2];	/* GPULAT_SCHED_WAKEUP, _PREEMPT */
	u64 counters[SCHED_NR_COUNTERS];
};

/* probe_sched.c: set up before the probes attach, constant after */
extern struct gpulat_sched_pcpu __percpu *gpulat_sched_pc;
extern u64 *gpulat_sched_stamps;
extern u32 gpulat_sched_bits;
/* from gpulat_sched_bits, so that a lookup does not derive them each time */
extern u32 gpulat_sched_mask, gpulat_sched_hi_shift;

/*
 * sched_slot - a pid's entry; a bijection on the table that moves the low
 * three pid bits to the top, so that neighbouring pids (threads created
 * together, often running on different CPUs) sit in different cache lines.
 */
static __always_inline u64 *sched_slot(pid_t pid)
{
	u32 p = (u32)pid & gpulat_sched_mask;

	return &gpulat_sched_stamps[((p & SCHED_SPREAD_MASK) <<
				     gpulat_sched_hi_shift) |
				    (p >> SCHED_SPREAD_BITS)];
}

static __always_inline u64 sched_tag(pid_t pid)
{
	return gpulat_pst_tag(pid, gpulat_sched_bits);
}

static __always_inline bool sched_owns(u64 entry, pid_t pid)
{
	return gpulat_pst_owns(entry, pid, gpulat_sched_bits);
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
		if (keep && (old & SCHED_PREEMPT))
			return;
	} else if (old) {
		this_cpu_inc(gpulat_sched_pc->counters[GPULAT_SCHED_EVICTED]);
	}
	WRITE_ONCE(*slot, gpulat_stamp(now, GPULAT_PST_TS_SHIFT,
				       kind | sched_tag(pid)));
}

/* sched_end - @p runs at @now: file its wait */
static __always_inline void sched_end(struct task_struct *p, u64 now)
{
	pid_t pid = p->pid;
	u64 *slot = sched_slot(pid), old = READ_ONCE(*slot);
	unsigned int series;
	s64 delta;

	if (!sched_owns(old, pid)) {
		this_cpu_inc(gpulat_sched_pc->counters[GPULAT_SCHED_NO_START]);
		return;
	}
	WRITE_ONCE(*slot, 0);
	/* negative: a stamp from the future, or a wait beyond 6.5 days */
	delta = gpulat_pst_delta(old, now);
	if (unlikely(delta < 0)) {
		this_cpu_inc(gpulat_sched_pc->counters[GPULAT_SCHED_NEGATIVE]);
		return;
	}
	series = old & SCHED_PREEMPT ? GPULAT_SCHED_PREEMPT :
				       GPULAT_SCHED_WAKEUP;
	gpulat_hist_record(&gpulat_sched_pc->hist[series], delta);
	/* the same series ids in both families: the task that waited */
	gpulat_cg_task(p, series, delta);
	gpulat_trace_check(GPULAT_FAM_SCHED, series, 0, now, delta, p,
			   GPULAT_OUT_CPU_WAIT);
}

/* gpulat_sched_wakeup - sched_wakeup of @p */
static __always_inline void gpulat_sched_wakeup(struct task_struct *p)
{
	this_cpu_inc(gpulat_sched_pc->counters[SCHED_HIT_WAKEUP]);
	sched_start(p->pid, 0, ktime_get_mono_fast_ns(), true);
}

/* gpulat_sched_switch - sched_switch from @prev to @next */
static __always_inline void gpulat_sched_switch(bool preempt,
						struct task_struct *prev,
						struct task_struct *next)
{
	u64 now = ktime_get_mono_fast_ns();

	this_cpu_inc(gpulat_sched_pc->counters[SCHED_HIT_SWITCH]);
	/* pid 0 is the idle task: neither its start nor its end is a wait */
	if (prev->pid &&
	    (preempt || gpulat_task_state(prev) == TASK_RUNNING))
		sched_start(prev->pid, SCHED_PREEMPT, now, false);
	if (next->pid)
		sched_end(next, now);
	/* after the check above: a wait's history ends before its end */
	if (gpulat_trace_on())
		gpulat_trace_switch(now, prev->pid, next);
}

#endif /* _GPULAT_KMOD_PROBE_SCHED_H */
