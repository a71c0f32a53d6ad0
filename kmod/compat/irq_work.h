/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences of irq_work, read by the outlier trace, each with
 * its history.
 */
#ifndef _GPULAT_KMOD_COMPAT_IRQ_WORK_H
#define _GPULAT_KMOD_COMPAT_IRQ_WORK_H

#include <linux/irq_work.h>

/*
 * IRQ_WORK_INIT_HARD: 5.11 (b4c6f86ec2f6, "irq_work: Handle some irq_work
 * in a per-CPU thread on PREEMPT_RT") ran irq_work without it in the
 * irq_work/N threads on PREEMPT_RT; before, every irq_work ran in hard
 * interrupt context, as one made with it still does.
 */
static inline void gpulat_init_irq_work_hard(struct irq_work *w,
					     void (*fn)(struct irq_work *))
{
#ifdef IRQ_WORK_INIT_HARD
	*w = IRQ_WORK_INIT_HARD(fn);
#else
	init_irq_work(w, fn);
#endif
}

#endif /* _GPULAT_KMOD_COMPAT_IRQ_WORK_H */
