// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat drill irq: what the host allows.  The kernel has no way to make
 * an interrupt handler slow from user space, and a drill never loads a
 * module of its own: without one there is nothing safe to inject, and
 * the drill says so (skipped).  The test module gpulat_irqgen, where it
 * is loaded, raises interrupts whose handler only counts: fast, so no
 * outlier to catch either.
 */
#include "engine/drill/drill.h"

static int drill_irq_check(struct drill *d)
{
	if (drill_exists("/sys/module/gpulat_irqgen"))
		return drill_set(d, DRILL_SKIP,
				 "gpulat_irqgen is loaded, but its handler is fast: no slow interrupt can be injected safely");
	return drill_set(d, DRILL_SKIP,
			 "no safe way to inject an IRQ fault on this host: the kernel cannot slow a handler from user space, and drills load no test module");
}

static int drill_irq_inject(struct drill *d)
{
	return drill_set(d, DRILL_SKIP, "nothing to inject");
}

const struct drill_ops drill_irq_ops = {
	.family = GPULAT_FAM_IRQ,
	.layer = DIAG_SCHED,
	.threshold_ns = 1000000,
	.check = drill_irq_check,
	.inject = drill_irq_inject,
};
