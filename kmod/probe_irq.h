/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The irq family's work on irq_handler_entry and irq_handler_exit,
 * compiled into mux.c, whose probes call it; the family itself, and how its
 * start stamps pair up, is in probe_irq.c.
 */
#ifndef _GPULAT_KMOD_PROBE_IRQ_H
#define _GPULAT_KMOD_PROBE_IRQ_H

#include <linux/interrupt.h>
#include <linux/irqflags.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "gpulat.h"
#include "keyed.h"
#include "trace.h"

#define IRQ_DEPTH	4	/* nesting a CPU can hold; more evicts */

enum {
	IRQ_HITS_AFTER = GPULAT_IRQ_UNPAIRED,	/* the last drop counter */
	GPULAT_TPS_IRQ(GPULAT_TP_HIT)
	IRQ_NR_COUNTERS,
};

struct gpulat_irq_frame {
	const struct irqaction *action;
	u64 ts;
};

struct gpulat_irq_pcpu {
	struct gpulat_irq_frame stack[IRQ_DEPTH];
	u32 depth;
	u64 counters[IRQ_NR_COUNTERS];
};

/* probe_irq.c */
extern struct gpulat_irq_pcpu __percpu *gpulat_irq_pc;
extern struct gpulat_keyed gpulat_irq_keyed;
void gpulat_irq_key_fill(struct gpulat_key *k, const void *arg);

/* gpulat_irq_entry - irq_handler_entry */
static __always_inline void gpulat_irq_entry(int irq, struct irqaction *action)
{
	struct gpulat_irq_frame *f;
	unsigned long flags;
	u32 d;

	/* hard IRQ context has interrupts off already; any other must too */
	local_irq_save(flags);
	this_cpu_inc(gpulat_irq_pc->counters[IRQ_HIT_ENTRY]);
	d = this_cpu_read(gpulat_irq_pc->depth);
	if (unlikely(d >= IRQ_DEPTH)) {
		/* full: the oldest frame can no longer be paired */
		f = this_cpu_ptr(&gpulat_irq_pc->stack[0]);
		memmove(f, f + 1, (IRQ_DEPTH - 1) * sizeof(*f));
		this_cpu_inc(gpulat_irq_pc->counters[GPULAT_IRQ_UNPAIRED]);
		d = IRQ_DEPTH - 1;
	}
	f = this_cpu_ptr(&gpulat_irq_pc->stack[d]);
	f->action = action;
	f->ts = ktime_get_mono_fast_ns();
	this_cpu_write(gpulat_irq_pc->depth, d + 1);
	local_irq_restore(flags);
}

/* gpulat_irq_pop - the start stamp of @action's topmost frame, or 0 */
static __always_inline u64 gpulat_irq_pop(const struct irqaction *action)
{
	struct gpulat_irq_frame *stack = this_cpu_ptr(&gpulat_irq_pc->stack[0]);
	u32 d = this_cpu_read(gpulat_irq_pc->depth);
	u32 i;

	for (i = d; i-- > 0;) {
		if (stack[i].action != action)
			continue;
		if (i + 1 < d)
			this_cpu_add(gpulat_irq_pc->counters[GPULAT_IRQ_UNPAIRED],
				     d - 1 - i);
		this_cpu_write(gpulat_irq_pc->depth, i);
		return stack[i].ts;
	}
	return 0;
}

/* gpulat_irq_exit - irq_handler_exit */
static __always_inline void gpulat_irq_exit(int irq, struct irqaction *action,
					    int ret)
{
	unsigned long flags;
	u64 now, start;
	s64 delta;
	int idx;

	local_irq_save(flags);
	now = ktime_get_mono_fast_ns();
	this_cpu_inc(gpulat_irq_pc->counters[IRQ_HIT_EXIT]);
	start = action ? gpulat_irq_pop(action) : 0;
	if (unlikely(!start)) {
		this_cpu_inc(gpulat_irq_pc->counters[GPULAT_IRQ_NO_START]);
		goto out;
	}
	delta = now - start;
	if (unlikely(delta < 0)) {
		this_cpu_inc(gpulat_irq_pc->counters[GPULAT_IRQ_NEGATIVE]);
		goto out;
	}
	idx = gpulat_key_get(&gpulat_irq_keyed, gpulat_irq_key(irq, action),
			     gpulat_irq_key_fill, action);
	if (unlikely(idx < 0)) {
		this_cpu_inc(gpulat_irq_pc->counters[GPULAT_IRQ_KEYS_FULL]);
		goto out;
	}
	gpulat_ghist_record(gpulat_key_hist(&gpulat_irq_keyed, idx,
					    GPULAT_IRQ_HANDLER), delta);
	if (gpulat_trace_on())
		gpulat_trace_irq_span(now, delta);
	gpulat_trace_check(GPULAT_FAM_IRQ, GPULAT_IRQ_HANDLER,
			   gpulat_irq_keyed.keys[idx].key, now, delta, current, 0);
out:
	local_irq_restore(flags);
}

#endif /* _GPULAT_KMOD_PROBE_IRQ_H */
