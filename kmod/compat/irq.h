/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences of the irq and softirq families.
 *
 * The tracepoints themselves have kept their prototypes on every kernel
 * gpulat builds for (5.10, 6.1, 6.12):
 *
 *   irq_handler_entry(int irq, struct irqaction *action)       2.6.30
 *   irq_handler_exit(int irq, struct irqaction *action, int ret)
 *   softirq_raise/_entry/_exit(unsigned int vec_nr)            2.6.37
 *
 * and GPULAT_CHECK_PROBE() turns a future change into a build error.  What
 * the families depend on beyond that is the list of softirq vectors, which
 * the ABI (GPULAT_SOFTIRQ_NR_VECS, the series ids) has frozen: the check
 * below fails the build on a kernel that renumbers or adds a vector,
 * rather than filing one vector's samples under another's name.
 */
#ifndef _GPULAT_KMOD_COMPAT_IRQ_H
#define _GPULAT_KMOD_COMPAT_IRQ_H

#include <linux/build_bug.h>
#include <linux/interrupt.h>

#include "../uapi/gpulat.h"

/*
 * gpulat_softirq_check_vectors - the kernel's vectors are the ABI's ten
 *
 * Unchanged since IRQ_POLL_SOFTIRQ replaced BLOCK_IOPOLL_SOFTIRQ in 4.5
 * (same number); softirq_to_name[] is not exported, so the family names
 * the vectors itself, in this order.
 */
static __always_inline void gpulat_softirq_check_vectors(void)
{
	BUILD_BUG_ON(NR_SOFTIRQS != GPULAT_SOFTIRQ_NR_VECS);
	BUILD_BUG_ON(HI_SOFTIRQ != 0 || TIMER_SOFTIRQ != 1);
	BUILD_BUG_ON(NET_TX_SOFTIRQ != 2 || NET_RX_SOFTIRQ != 3);
	BUILD_BUG_ON(BLOCK_SOFTIRQ != 4 || IRQ_POLL_SOFTIRQ != 5);
	BUILD_BUG_ON(TASKLET_SOFTIRQ != 6 || SCHED_SOFTIRQ != 7);
	BUILD_BUG_ON(HRTIMER_SOFTIRQ != 8 || RCU_SOFTIRQ != 9);
}

/*
 * gpulat_softirq_pending - whether @vec is pending on this CPU
 *
 * x86 keeps the pending mask in irq_stat up to 6.1 and in pcpu_hot since
 * 6.2 (both exported); local_softirq_pending() reads whichever the kernel
 * has.  Called with interrupts off, so the CPU cannot change under it.
 */
static __always_inline bool gpulat_softirq_pending(unsigned int vec)
{
	return local_softirq_pending() & (1U << vec);
}

/*
 * gpulat_softirq_wait_timed - whether a raise of @vec can start a wait
 *
 * A PREEMPT_RT kernel with the ktimers thread (6.1-rt: GPULAT_HAVE_KTIMERS,
 * from features-irq.mk) raises TIMER and HRTIMER into that thread's mask,
 * pending_timer_softirq, which is not exported, and leaves the CPU's
 * pending bits alone: every raise would look like the first, and a wait
 * could not be told from a raise that joins one (on a quiet 6.1-rt guest
 * such "waits" read 0.1-0.5 s).  Their wait there is the ktimers thread's
 * wakeup, which sched.wakeup times: not timed here (softirq.run is).
 */
static __always_inline bool gpulat_softirq_wait_timed(unsigned int vec)
{
#if defined(CONFIG_PREEMPT_RT) && defined(GPULAT_HAVE_KTIMERS)
	return vec != TIMER_SOFTIRQ && vec != HRTIMER_SOFTIRQ;
#else
	return true;
#endif
}

#endif /* _GPULAT_KMOD_COMPAT_IRQ_H */
