// SPDX-License-Identifier: GPL-2.0
/*
 * irq family: hard IRQ handler duration, one series per handler.
 *
 *   irq.handler   irq_handler_entry -> irq_handler_exit, same action
 *
 * Key: gpulat_irq_key(irq, action); key_name: action->name,
 * copied once, when the handler's first sample is filed.  Handlers that
 * appear after load are picked up on their first interrupt.
 *
 * Start stamps sit on a small per-CPU stack of (action, stamp) frames:
 * entry pushes, exit pops the topmost frame of the same action.  A handler
 * that demultiplexes a child interrupt (generic_handle_irq() inside its
 * handler) nests a second pair inside its own on the same CPU, and should
 * a kernel ever run the traced handler preemptibly, another handler can
 * run on that CPU between its entry and exit; both pair up right.  Frames
 * left above the one an exit pops never saw their exit on this CPU (the
 * handler moved CPUs): they are counted in irq.unpaired, as is the oldest
 * frame when a push finds the stack full.  An exit with no frame of its
 * action counts irq.no_start.  With threadirqs, the traced handler of a
 * force-threaded IRQ is the kernel's stub that wakes the IRQ thread, still
 * in hard IRQ context (Documentation/families/irq.rst).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/interrupt.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <trace/events/irq.h>

#include "gpulat.h"
#include "keyed.h"
#include "mux.h"
#include "compat/irq.h"
#include "trace.h"

#define IRQ_DEPTH	4	/* nesting a CPU can hold; more evicts */

enum {
	IRQ_HIT_ENTRY = GPULAT_IRQ_UNPAIRED + 1,
	IRQ_HIT_EXIT,
	IRQ_NR_COUNTERS,
};

struct irq_frame {
	const struct irqaction *action;
	u64 ts;
};

struct irq_pcpu {
	struct irq_frame stack[IRQ_DEPTH];
	u32 depth;
	u64 counters[IRQ_NR_COUNTERS];
};

static struct irq_pcpu __percpu *irq_pc;

static const struct gpulat_series_desc irq_keyed_series[] = {
	{ .id = GPULAT_IRQ_HANDLER, .name = "irq.handler",
	  .what = "irq_handler_entry -> irq_handler_exit" },
};

static struct gpulat_keyed irq_keyed = {
	.series		= irq_keyed_series,
	.nr_series	= ARRAY_SIZE(irq_keyed_series),
	.max_keys	= 256,
};

/* irq_key_fill - name a new key after its action, once */
static void irq_key_fill(struct gpulat_key *k, const void *arg)
{
	const struct irqaction *action = arg;

	if (action->name && action->name[0])
		strscpy(k->name, action->name, sizeof(k->name));
	else
		scnprintf(k->name, sizeof(k->name), "irq%u", action->irq);
}

void irq_probe_entry(void *data, int irq, struct irqaction *action)
{
	struct irq_frame *f;
	unsigned long flags;
	u32 d;

	/* hard IRQ context has interrupts off already; any other must too */
	local_irq_save(flags);
	this_cpu_inc(irq_pc->counters[IRQ_HIT_ENTRY]);
	d = this_cpu_read(irq_pc->depth);
	if (unlikely(d >= IRQ_DEPTH)) {
		/* full: the oldest frame can no longer be paired */
		f = this_cpu_ptr(&irq_pc->stack[0]);
		memmove(f, f + 1, (IRQ_DEPTH - 1) * sizeof(*f));
		this_cpu_inc(irq_pc->counters[GPULAT_IRQ_UNPAIRED]);
		d = IRQ_DEPTH - 1;
	}
	f = this_cpu_ptr(&irq_pc->stack[d]);
	f->action = action;
	f->ts = ktime_get_mono_fast_ns();
	this_cpu_write(irq_pc->depth, d + 1);
	local_irq_restore(flags);
}

/* irq_pop - the start stamp of @action's topmost frame, or 0 */
static __always_inline u64 irq_pop(const struct irqaction *action)
{
	struct irq_frame *stack = this_cpu_ptr(&irq_pc->stack[0]);
	u32 d = this_cpu_read(irq_pc->depth);
	u32 i;

	for (i = d; i-- > 0;) {
		if (stack[i].action != action)
			continue;
		if (i + 1 < d)
			this_cpu_add(irq_pc->counters[GPULAT_IRQ_UNPAIRED],
				     d - 1 - i);
		this_cpu_write(irq_pc->depth, i);
		return stack[i].ts;
	}
	return 0;
}

void irq_probe_exit(void *data, int irq, struct irqaction *action, int ret)
{
	unsigned long flags;
	u64 now, start;
	s64 delta;
	int idx;

	local_irq_save(flags);
	now = ktime_get_mono_fast_ns();
	this_cpu_inc(irq_pc->counters[IRQ_HIT_EXIT]);
	start = action ? irq_pop(action) : 0;
	if (unlikely(!start)) {
		this_cpu_inc(irq_pc->counters[GPULAT_IRQ_NO_START]);
		goto out;
	}
	delta = now - start;
	if (unlikely(delta < 0)) {
		this_cpu_inc(irq_pc->counters[GPULAT_IRQ_NEGATIVE]);
		goto out;
	}
	idx = gpulat_key_get(&irq_keyed, gpulat_irq_key(irq, action),
			     irq_key_fill, action);
	if (unlikely(idx < 0)) {
		this_cpu_inc(irq_pc->counters[GPULAT_IRQ_KEYS_FULL]);
		goto out;
	}
	gpulat_ghist_record(gpulat_key_hist(&irq_keyed, idx,
					    GPULAT_IRQ_HANDLER), delta);
	if (gpulat_trace_on())
		gpulat_trace_irq_span(now, delta);
	gpulat_trace_check(GPULAT_FAM_IRQ, GPULAT_IRQ_HANDLER,
			   irq_keyed.keys[idx].key, now, delta, current, 0);
out:
	local_irq_restore(flags);
}

static int irq_family_init(struct gpulat_family *fam, void __percpu *pcpu)
{
	GPULAT_CHECK_PROBE(irq_handler_entry, irq_probe_entry);
	GPULAT_CHECK_PROBE(irq_handler_exit, irq_probe_exit);

	irq_pc = pcpu;
	return 0;
}

/* irq_family_clear - drop every CPU's frames before the probes attach */
static void irq_family_clear(struct gpulat_family *fam)
{
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(irq_pc, cpu)->depth, 0);
}

/*
 * Exit first: an exit without its entry is only counted, while an entry
 * attached alone would leave a frame for every handler that runs before
 * the exit probe is on.
 */
static struct gpulat_tp irq_tps[] = {
	{ .name = "irq_handler_exit", .probe = irq_probe_exit,
	  .hit_idx = IRQ_HIT_EXIT },
	{ .name = "irq_handler_entry", .probe = irq_probe_entry,
	  .hit_idx = IRQ_HIT_ENTRY },
};

static const char * const irq_drop_names[] = {
	[GPULAT_IRQ_NO_START] = "irq.no_start",
	[GPULAT_IRQ_NEGATIVE] = "irq.negative",
	[GPULAT_IRQ_KEYS_FULL] = "irq.keys_full",
	[GPULAT_IRQ_UNPAIRED] = "irq.unpaired",
};

struct gpulat_family gpulat_irq_family = {
	.id		= GPULAT_FAM_IRQ,
	.name		= "irq",
	.tps		= irq_tps,
	.nr_tps		= ARRAY_SIZE(irq_tps),
	.drop_names	= irq_drop_names,
	.nr_drops	= ARRAY_SIZE(irq_drop_names),
	.pcpu_size	= sizeof(struct irq_pcpu),
	.hist_offset	= 0,
	.counter_offset	= offsetof(struct irq_pcpu, counters),
	.keyed		= &irq_keyed,
	.init		= irq_family_init,
	.clear		= irq_family_clear,
	.enabled	= true,
};

module_param_named(irq, gpulat_irq_family.enabled, bool, 0444);
MODULE_PARM_DESC(irq, "hard IRQ handler duration family (default on)");
module_param_named(irq_max_handlers, irq_keyed.max_keys, uint, 0444);
MODULE_PARM_DESC(irq_max_handlers,
		 "IRQ handlers with their own series (default 256)");
