// SPDX-License-Identifier: GPL-2.0
/*
 * The outlier trace's own tasks, left out of the trace, and the waker
 * thread that wakes its readers (see the top of trace.c for why a
 * thread).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/sched.h>
#include <linux/wait.h>

#include "trace_int.h"

/* --- The trace's own tasks ------------------------------------------- */

/*
 * The trace's own tasks: the readers it wakes and the waker thread that
 * wakes them.  A record about one of them would be
 * gpulat's own latency, and, at a low threshold, would make the next
 * wakeup and so the next record without end: the trace leaves them out
 * (the histograms keep them) and counts them.  Open addressing, changed
 * under gpulat_trace_lock, read without locks; TRACE_SELF_GONE marks a
 * removed entry so that lookups go on past it.
 */
#define TRACE_SELF_BITS		8
#define TRACE_SELF_PROBES	8
#define TRACE_SELF_GONE		(-1)
static s32 trace_self[1 << TRACE_SELF_BITS];
static u32 trace_self_refs[1 << TRACE_SELF_BITS];
atomic64_t gpulat_trace_self_left;	/* records left out */
atomic64_t gpulat_trace_self_full;	/* tasks the set had no room for */

static __always_inline s32 *trace_self_slot(s32 pid, unsigned int n)
{
	return &trace_self[(hash_32(pid, TRACE_SELF_BITS) + n) &
			   ((1 << TRACE_SELF_BITS) - 1)];
}

/*
 * gpulat_trace_self_has - whether @pid is one of the trace's own; any
 * context
 */
bool gpulat_trace_self_has(s32 pid)
{
	unsigned int n;

	for (n = 0; n < TRACE_SELF_PROBES; n++) {
		s32 cur = READ_ONCE(*trace_self_slot(pid, n));

		if (cur == pid)
			return true;
		if (!cur)
			return false;
	}
	return false;
}

/*
 * gpulat_trace_self_add - @pid joins the set, or is counted when it finds
 * no room
 */
void gpulat_trace_self_add(s32 pid)
{
	int free = -1;
	unsigned int n;

	lockdep_assert_held(&gpulat_trace_lock);
	for (n = 0; n < TRACE_SELF_PROBES; n++) {
		s32 *e = trace_self_slot(pid, n), cur = *e;

		if (cur == pid) {
			trace_self_refs[e - trace_self]++;
			return;
		}
		if (free < 0 && cur <= 0)
			free = e - trace_self;
		if (!cur)
			break;
	}
	if (free < 0) {
		atomic64_inc(&gpulat_trace_self_full);
		return;
	}
	trace_self_refs[free] = 1;
	WRITE_ONCE(trace_self[free], pid);
}

void gpulat_trace_self_del(s32 pid)
{
	unsigned int n;

	lockdep_assert_held(&gpulat_trace_lock);
	for (n = 0; n < TRACE_SELF_PROBES; n++) {
		s32 *e = trace_self_slot(pid, n);

		if (*e == pid) {
			if (!--trace_self_refs[e - trace_self])
				WRITE_ONCE(*e, TRACE_SELF_GONE);
			return;
		}
		if (!*e)
			return;
	}
}

/*
 * gpulat_trace_self_waker - the waker thread joins (or leaves) the
 * trace's own
 */
void gpulat_trace_self_waker(bool add)
{
	if (add)
		gpulat_trace_self_add(gpulat_trace_waker->pid);
	else
		gpulat_trace_self_del(gpulat_trace_waker->pid);
}

/* --- The waker thread ------------------------------------------------ */

/* wakes gpulat_trace_wq; see the top of trace.c */
struct task_struct *gpulat_trace_waker;
static atomic_t trace_wake_pending;

/* gpulat_trace_wake - hard irq_work: hand the wakeup to the waker thread */
void gpulat_trace_wake(struct irq_work *w)
{
	atomic_set(&trace_wake_pending, 1);
	wake_up_process(gpulat_trace_waker);
}

int gpulat_trace_waker_fn(void *unused)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		if (!atomic_xchg(&trace_wake_pending, 0)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		wake_up_interruptible(&gpulat_trace_wq);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}
