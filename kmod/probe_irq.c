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
 *
 * The work on those tracepoints is in probe_irq.h, compiled into mux.c,
 * whose probes the nvidia family shares.
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
#include "gpulat_drops.h"
#include "probe_irq.h"

struct gpulat_irq_pcpu __percpu *gpulat_irq_pc;

static const struct gpulat_series_desc irq_keyed_series[] = {
	GPULAT_DECL_IRQ(GPULAT_SERIES_DESC)
};

struct gpulat_keyed gpulat_irq_keyed = {
	.series		= irq_keyed_series,
	.nr_series	= ARRAY_SIZE(irq_keyed_series),
	.max_keys	= 256,
	.param		= "irq_max_handlers",
};

/* gpulat_irq_key_fill - name a new key after its action, once */
void gpulat_irq_key_fill(struct gpulat_key *k, const void *arg)
{
	const struct irqaction *action = arg;

	if (action->name && action->name[0])
		strscpy(k->name, action->name, sizeof(k->name));
	else
		scnprintf(k->name, sizeof(k->name), "irq%u", action->irq);
}

static int irq_family_init(struct gpulat_family *fam, void __percpu *pcpu)
{
	gpulat_irq_pc = pcpu;
	return 0;
}

/* irq_family_clear - drop every CPU's frames before the probes attach */
static void irq_family_clear(struct gpulat_family *fam)
{
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(gpulat_irq_pc, cpu)->depth, 0);
}

/*
 * Exit first: an exit without its entry is only counted, while an entry
 * attached alone would leave a frame for every handler that runs before
 * the exit probe is on.
 */
static struct gpulat_tp irq_tps[] = {
	GPULAT_TPS_IRQ(GPULAT_TP_ROW)
};

static const char * const irq_drop_names[] = GPULAT_IRQ_DROP_NAMES;

struct gpulat_family gpulat_irq_family = {
	.id		= GPULAT_FAM_IRQ,
	.name		= "irq",
	.tps		= irq_tps,
	.nr_tps		= ARRAY_SIZE(irq_tps),
	.drop_names	= irq_drop_names,
	.nr_drops	= ARRAY_SIZE(irq_drop_names),
	.pcpu_size	= sizeof(struct gpulat_irq_pcpu),
	.hist_offset	= 0,
	.counter_offset	= offsetof(struct gpulat_irq_pcpu, counters),
	.keyed		= &gpulat_irq_keyed,
	.init		= irq_family_init,
	.clear		= irq_family_clear,
	.enabled	= true,
};

module_param_named(irq, gpulat_irq_family.enabled, bool, 0444);
MODULE_PARM_DESC(irq, "hard IRQ handler duration family (default on)");
module_param_named(irq_max_handlers, gpulat_irq_keyed.max_keys, uint, 0444);
MODULE_PARM_DESC(irq_max_handlers,
		 "IRQ handlers with their own series (default 256, at most 65535)");
