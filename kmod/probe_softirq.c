// SPDX-License-Identifier: GPL-2.0
/*
 * softirq family: per CPU and vector, two series.
 *
 *   softirq.wait   softirq_raise that finds the vector not pending on
 *                  this CPU -> the softirq_entry that serves it
 *   softirq.run    softirq_entry -> softirq_exit
 *
 * The series are per-CPU histograms with a fixed key, the vector number
 * (key_name "NET_RX"): id = GPULAT_SOFTIRQ_SERIES(vec, kind).
 *
 * The twenty histograms are allocated apart, one per series
 * (GPULAT_HISTS_APART), in id order, and in 48-bit slots (struct
 * gpulat_phist): 27,680 bytes per CPU instead of 36,640, where 64-bit
 * slots would be most of the module's per-CPU memory.
 *
 * A raise sets the pending bit of the CPU it runs on, and the vector runs
 * on that CPU (at irq_exit(), local_bh_enable() or in ksoftirqd), so the
 * stamps are per CPU.  softirq_raise fires before the bit is set: a raise
 * that finds the bit clear starts a wait, later ones join it.  The bits are
 * cleared all at once when __do_softirq() starts a round, before it runs
 * the vectors one by one, so a raise between that moment and its vector's
 * entry finds the bit clear while the earlier wait is still unserved: each
 * vector keeps a queue of two stamps, and each entry takes the oldest.
 *
 * Softirqs do not nest on one CPU, and the probes never run from an
 * interrupt that could nest into the same series: softirq_entry and _exit
 * run in softirq context, which a hard IRQ interrupts but never re-enters.
 * The stamp queue, which a raise in a hard IRQ also writes, is handled
 * with interrupts off.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/interrupt.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <trace/events/irq.h>

#include "gpulat.h"
#include "gpulat_drops.h"
#include "compat/irq.h"
#include "trace.h"

#define NR_VECS		GPULAT_SOFTIRQ_NR_VECS
#define NR_HISTS	(2 * NR_VECS)

enum {
	SOFTIRQ_HITS_AFTER = GPULAT_SOFTIRQ_NEGATIVE,	/* the last drop counter */
	GPULAT_TPS_SOFTIRQ(GPULAT_TP_HIT)
	SOFTIRQ_NR_COUNTERS,
};

struct softirq_pcpu {
	u64 raised[NR_VECS][2];	/* raises that set the pending bit, oldest first */
	u64 run_start;		/* entry of the running vector, or 0 */
	u32 run_vec;
	u64 counters[SOFTIRQ_NR_COUNTERS];
};

static struct softirq_pcpu __percpu *softirq_pc;
/* [GPULAT_SOFTIRQ_SERIES(vec, kind)], allocated by the registry */
static struct gpulat_phist __percpu **softirq_hists;

/* The kernel's vector numbers, which gpulat_series.h keys by */
static_assert(HI_SOFTIRQ == 0 && TIMER_SOFTIRQ == 1 && NET_TX_SOFTIRQ == 2 &&
	      NET_RX_SOFTIRQ == 3 && BLOCK_SOFTIRQ == 4 &&
	      IRQ_POLL_SOFTIRQ == 5 && TASKLET_SOFTIRQ == 6 &&
	      SCHED_SOFTIRQ == 7 && HRTIMER_SOFTIRQ == 8 && RCU_SOFTIRQ == 9);

/* In id order */
static const struct gpulat_series_desc softirq_series[NR_HISTS] = {
	GPULAT_DECL_SOFTIRQ(GPULAT_SERIES_DESC)
};

static __always_inline void softirq_file(unsigned int vec, unsigned int kind,
					 u64 start, u64 now)
{
	s64 delta = now - start;

	if (unlikely(delta < 0)) {
		this_cpu_inc(softirq_pc->counters[GPULAT_SOFTIRQ_NEGATIVE]);
		return;
	}
	gpulat_phist_record(softirq_hists[GPULAT_SOFTIRQ_SERIES(vec, kind)],
			    delta);
	if (kind == GPULAT_SOFTIRQ_RUN && gpulat_trace_on())
		gpulat_trace_softirq_span(now, delta);
	/* a raised softirq waits for this CPU: name who held it */
	gpulat_trace_check(GPULAT_FAM_SOFTIRQ,
			   GPULAT_SOFTIRQ_SERIES(vec, kind), vec, now, delta,
			   current, kind == GPULAT_SOFTIRQ_WAIT ?
			   GPULAT_OUT_CPU_WAIT : 0);
}

static void softirq_probe_raise(void *data, unsigned int vec)
{
	unsigned long flags;
	u64 *q;

	this_cpu_inc(softirq_pc->counters[SOFTIRQ_HIT_RAISE]);
	if (unlikely(vec >= NR_VECS) || !gpulat_softirq_wait_timed(vec))
		return;
	/* callers hold interrupts off; a stray caller gets them off too */
	local_irq_save(flags);
	/* the event fires before the bit is set: a set bit is not the first */
	if (gpulat_softirq_pending(vec))
		goto out;
	q = this_cpu_ptr(softirq_pc->raised[vec]);
	if (unlikely(q[1])) {
		/* a third run queued before two entries: the oldest is lost */
		this_cpu_inc(softirq_pc->counters[GPULAT_SOFTIRQ_NO_START]);
		q[0] = q[1];
		q[1] = 0;
	}
	q[q[0] ? 1 : 0] = ktime_get_mono_fast_ns();
out:
	local_irq_restore(flags);
}

static void softirq_probe_entry(void *data, unsigned int vec)
{
	u64 now = ktime_get_mono_fast_ns(), raised;
	unsigned long flags;
	u64 *q;

	this_cpu_inc(softirq_pc->counters[SOFTIRQ_HIT_ENTRY]);
	if (unlikely(vec >= NR_VECS)) {
		this_cpu_inc(softirq_pc->counters[GPULAT_SOFTIRQ_NO_START]);
		return;
	}
	/* a run whose exit never came */
	if (unlikely(this_cpu_read(softirq_pc->run_start)))
		this_cpu_inc(softirq_pc->counters[GPULAT_SOFTIRQ_NO_START]);
	this_cpu_write(softirq_pc->run_vec, vec);
	this_cpu_write(softirq_pc->run_start, now);

	/*
	 * A raise from a hard IRQ must not slip between the two moves, nor
	 * a record from an interrupt before this one: the trace stays in
	 * time order.
	 */
	local_irq_save(flags);
	q = this_cpu_ptr(softirq_pc->raised[vec]);
	raised = q[0];
	q[0] = q[1];
	q[1] = 0;
	if (raised)
		softirq_file(vec, GPULAT_SOFTIRQ_WAIT, raised,
			     ktime_get_mono_fast_ns());
	else if (gpulat_softirq_wait_timed(vec))
		this_cpu_inc(softirq_pc->counters[GPULAT_SOFTIRQ_NO_START]);
	local_irq_restore(flags);
}

static void softirq_probe_exit(void *data, unsigned int vec)
{
	unsigned long flags;
	u64 now, start;

	/* stamped and filed with interrupts off: the trace stays in order */
	local_irq_save(flags);
	now = ktime_get_mono_fast_ns();
	start = this_cpu_read(softirq_pc->run_start);
	this_cpu_inc(softirq_pc->counters[SOFTIRQ_HIT_EXIT]);
	this_cpu_write(softirq_pc->run_start, 0);
	if (unlikely(!start || vec >= NR_VECS ||
		     this_cpu_read(softirq_pc->run_vec) != vec))
		this_cpu_inc(softirq_pc->counters[GPULAT_SOFTIRQ_NO_START]);
	else
		softirq_file(vec, GPULAT_SOFTIRQ_RUN, start, now);
	local_irq_restore(flags);
}

static int softirq_family_init(struct gpulat_family *fam, void __percpu *pcpu)
{
	unsigned int vec, kind;

	GPULAT_CHECK_PROBE(softirq_raise, softirq_probe_raise);
	GPULAT_CHECK_PROBE(softirq_entry, softirq_probe_entry);
	GPULAT_CHECK_PROBE(softirq_exit, softirq_probe_exit);
	gpulat_softirq_check_vectors();
	BUILD_BUG_ON(sizeof(struct softirq_pcpu) > PCPU_MIN_UNIT_SIZE);

	/* series i is histogram i */
	for (vec = 0; vec < NR_VECS; vec++) {
		for (kind = 0; kind < 2; kind++) {
			unsigned int i = GPULAT_SOFTIRQ_SERIES(vec, kind);

			if (softirq_series[i].id != i) {
				pr_err("softirq: series table mismatch at %u\n", i);
				return -EINVAL;
			}
		}
	}
	softirq_pc = pcpu;
	softirq_hists = (struct gpulat_phist __percpu **)fam->hists;
	return 0;
}

/* softirq_family_clear - forget every CPU's stamps before the probes attach */
static void softirq_family_clear(struct gpulat_family *fam)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct softirq_pcpu *pc = per_cpu_ptr(softirq_pc, cpu);

		memset(pc->raised, 0, sizeof(pc->raised));
		WRITE_ONCE(pc->run_start, 0);
	}
}

/*
 * Exit, then entry, then raise: each probe attached before the one that
 * starts its interval, so that no interval straddles an attach unnoticed.
 */
static struct gpulat_tp softirq_tps[] = {
	GPULAT_TPS_SOFTIRQ(GPULAT_TP_ROW)
};

static const char * const softirq_drop_names[] = GPULAT_SOFTIRQ_DROP_NAMES;

struct gpulat_family gpulat_softirq_family = {
	.id		= GPULAT_FAM_SOFTIRQ,
	.name		= "softirq",
	.tps		= softirq_tps,
	.nr_tps		= ARRAY_SIZE(softirq_tps),
	.series		= softirq_series,
	.nr_series	= ARRAY_SIZE(softirq_series),
	.drop_names	= softirq_drop_names,
	.nr_drops	= ARRAY_SIZE(softirq_drop_names),
	.pcpu_size	= sizeof(struct softirq_pcpu),
	.hist_offset	= GPULAT_HISTS_APART,
	.packed		= true,
	.counter_offset	= offsetof(struct softirq_pcpu, counters),
	.init		= softirq_family_init,
	.clear		= softirq_family_clear,
	.enabled	= true,
};

module_param_named(softirq, gpulat_softirq_family.enabled, bool, 0444);
MODULE_PARM_DESC(softirq, "softirq wait and run time family (default on)");
