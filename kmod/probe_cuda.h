/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cuda family's state and its work on sched_switch, compiled into
 * mux.c, whose probe calls it.  The family (what it measures and why,
 * its uprobes, its sched_waking probe and GPULAT_IOC_CUDA) is in
 * probe_cuda.c.
 *
 * A thread inside a timed call holds a slot: its pid in gpulat_cuda_tids
 * (buckets of CUDA_WAYS, one cache line, claimed by cmpxchg at the
 * call's entry, freed at its return or the thread's exit) and its stamps
 * beside, in gpulat_cuda_calls.  The thread writes its stamps at entry
 * and return (preemption off); sched_switch and sched_waking write them
 * under its run-queue lock or its pi_lock, with the thread asleep or
 * about to, so those are serialised.  A wakeup that lands
 * while the thread returns may be half seen: one call's split, never a
 * count.
 */
#ifndef _GPULAT_KMOD_PROBE_CUDA_H
#define _GPULAT_KMOD_PROBE_CUDA_H

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "gpulat.h"
#include "keyed.h"
#include "probe_nvidia.h"
#include "compat/sched.h"

enum {
	CUDA_HITS_AFTER = GPULAT_CUDA_NESTED,	/* the last drop counter */
	GPULAT_TPS_CUDA(GPULAT_TP_HIT)
	CUDA_NR_COUNTERS,
};

struct gpulat_cuda_pcpu {
	u64 counters[CUDA_NR_COUNTERS];
};

#define CUDA_NR_SERIES		(GPULAT_CUDA_OTHER + 1)

/* Threads inside a call at once: 8 ways of 128 buckets. */
#define CUDA_WAYS		8
#define CUDA_BUCKET_BITS	7
#define CUDA_SLOTS		(CUDA_WAYS << CUDA_BUCKET_BITS)

/* One thread's call, CLOCK_MONOTONIC ns; 0 is "none" for each stamp. */
struct gpulat_cuda_call {
	u64 entry;
	u64 on;			/* on CPU since */
	u64 oncpu;		/* on CPU before that */
	u64 off;		/* switched out runnable at */
	u64 pre;		/* preempted so far */
	u64 wake;		/* the driver's last wakeup of it */
	u64 irq;		/* the hard IRQ behind that wakeup */
	u64 pre_wake;		/* pre at that wakeup */
	u64 pre_part;		/* a preemption then under way, before irq */
	u64 in;			/* its first switch-in after that wakeup */
	u32 depth;		/* calls inside the outermost, it included */
	u32 idx;		/* its process's key index, or NV_NOKEY */
	u32 in_cpu;		/* the CPU of that switch-in */
	u32 pad;
};

extern struct gpulat_cuda_pcpu __percpu *gpulat_cuda_pc;
extern u64 *gpulat_cuda_tids;			/* [CUDA_SLOTS] */
extern struct gpulat_cuda_call *gpulat_cuda_calls;	/* [CUDA_SLOTS] */
extern atomic_t gpulat_cuda_inflight;		/* slots held */

/* cuda_find - slot of thread @pid inside a call, or -1 */
static __always_inline int cuda_find(pid_t pid)
{
	u64 *b = &gpulat_cuda_tids[hash_32((u32)pid, CUDA_BUCKET_BITS) *
				   CUDA_WAYS];
	unsigned int i;

	for (i = 0; i < CUDA_WAYS; i++)
		if (READ_ONCE(b[i]) == (u32)pid)
			return b - gpulat_cuda_tids + i;
	return -1;
}

/* gpulat_cuda_switch - sched_switch from @prev to @next */
static __always_inline void gpulat_cuda_switch(bool preempt,
					       struct task_struct *prev,
					       struct task_struct *next)
{
	struct gpulat_cuda_call *c;
	u64 now = 0;
	int i;

	this_cpu_inc(gpulat_cuda_pc->counters[CUDA_HIT_SWITCH]);
	if (likely(!atomic_read(&gpulat_cuda_inflight)))
		return;
	i = prev->pid ? cuda_find(prev->pid) : -1;
	if (i >= 0) {
		c = &gpulat_cuda_calls[i];
		now = ktime_get_mono_fast_ns();
		if (c->on)
			c->oncpu += now - c->on;
		c->on = 0;
		/* runnable: its next switch-in ends a preemption */
		if (preempt || gpulat_task_state(prev) == TASK_RUNNING)
			c->off = now;
	}
	i = next->pid ? cuda_find(next->pid) : -1;
	if (i < 0)
		return;
	c = &gpulat_cuda_calls[i];
	if (!now)
		now = ktime_get_mono_fast_ns();
	c->on = now;
	if (c->wake && !c->in) {
		/*
		 * the first switch-in after the driver's wakeup ends its run
		 * queue wait, also when the thread was preempted on its way
		 * to sleep: what came before the interrupt is in pre_part
		 */
		c->in = now;
		c->in_cpu = smp_processor_id();
		if (c->off < c->wake)
			c->off = 0;
	}
	if (c->off) {
		c->pre += now - c->off;
		c->off = 0;
	}
}

#endif /* _GPULAT_KMOD_PROBE_CUDA_H */
