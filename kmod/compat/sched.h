/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences of the scheduler's tracepoints and task state, read
 * by the sched and nvidia families and the mux, each with its history.
 * The GPULAT_HAVE_* switches come from features-sched.mk, which looks at
 * the target kernel's headers; probe files include this and never test
 * kernel versions themselves.
 */
#ifndef _GPULAT_KMOD_COMPAT_SCHED_H
#define _GPULAT_KMOD_COMPAT_SCHED_H

#include <linux/sched.h>

/*
 * sched_switch: 5.18 (fa2c3254d7cf, "sched/tracing: Don't re-read
 * p->state when emitting sched_switch event") added a trailing prev_state.
 * gpulat reads the task state itself (see gpulat_task_state), so the
 * argument is only taken to match the prototype.
 */
#ifdef GPULAT_HAVE_SWITCH_PREV_STATE
#define GPULAT_SCHED_SWITCH_ARGS					\
	void *data, bool preempt, struct task_struct *prev,		\
	struct task_struct *next, unsigned int prev_state
#else
#define GPULAT_SCHED_SWITCH_ARGS					\
	void *data, bool preempt, struct task_struct *prev,		\
	struct task_struct *next
#endif

/*
 * task_struct::state became __state in 5.14 (2f064a59a11f, "sched: Change
 * task_struct::state").  Read it at switch time rather than trusting the
 * tracepoint's prev_state: __schedule() sets a task with a pending signal
 * back to TASK_RUNNING after sampling prev_state, and such a task stays
 * runnable.
 */
static inline unsigned int gpulat_task_state(struct task_struct *p)
{
#ifdef GPULAT_HAVE_TASK_USTATE
	return READ_ONCE(p->__state);
#else
	return READ_ONCE(p->state);
#endif
}

#endif /* _GPULAT_KMOD_COMPAT_SCHED_H */
