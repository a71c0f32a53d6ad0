// SPDX-License-Identifier: GPL-2.0
/*
 * nvidia family: the NVIDIA driver's interrupt paths and kthreads, and its
 * Xid events.
 *
 *   nvidia.hardirq       irq_handler_entry -> irq_handler_exit
 *   nvidia.thread.wake   the hard IRQ asks for irq/N-nvidia -> its switch-in;
 *                        irq/N-s-nvidia woken by irq/N-nvidia -> switch-in
 *   nvidia.thread.run    irq/N-nvidia (-s-nvidia) switch-in -> switch-out
 *   nvidia.kthread.wake  sched_wakeup of a driver kthread -> switch-in
 *
 * Handlers are the driver's when their action name matches nvidia_pattern
 * (which handlers are ours: probe_nvidia_irq.c).  The IRQ series are keyed
 * like the irq family's handler series, gpulat_irq_key(irq, action); the
 * kthread series by pid (which tasks are ours: probe_nvidia_set.c).
 *
 * An IRQ thread's wait is timed from the interrupt's request, not from
 * sched_wakeup: on PREEMPT_RT a thread is also woken by the hand-off of a
 * sleeping lock it waited for inside its handler, which is no interrupt.
 * The request is irq_handler_exit returning IRQ_WAKE_THREAD while the
 * thread is asleep (a thread that is running or runnable serves it
 * without a wakeup); for irq/N-s-nvidia it is its wakeup by irq/N-nvidia.
 *
 * The work on the tracepoints the family shares with others is in
 * probe_nvidia.h, compiled into mux.c, whose probes call it; its Xid
 * events are in probe_nvidia_xid.c.  The family has no kernel differences
 * of its own: it uses compat/sched.h's sched_switch arguments and task
 * state; irq_handler_entry/exit, sched_wakeup, sched_process_exit, struct
 * irqaction's thread and secondary, the tracepoint module notifier and
 * tracepoint_ptr_deref() are the same from 5.10 to 6.12.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <trace/events/sched.h>
#include <trace/events/task.h>

#include "fault.h"
#include "gpulat.h"
#include "gpulat_drops.h"
#include "probe_nvidia.h"

struct gpulat_nv_pcpu __percpu *gpulat_nv_pc;

static const struct gpulat_series_desc nv_keyed_series[] = {
	GPULAT_DECL_NVIDIA(GPULAT_SERIES_DESC)
};

struct gpulat_keyed gpulat_nv_keyed = {
	.series		= nv_keyed_series,
	.nr_series	= ARRAY_SIZE(nv_keyed_series),
	.max_keys	= 128,
	.param		= "nvidia_max_keys",
};

module_param_named(nvidia_max_keys, gpulat_nv_keyed.max_keys, uint, 0444);
MODULE_PARM_DESC(nvidia_max_keys,
		 "IRQ handlers plus kthreads with series (default 128, 7.2 KiB each, at most 65535)");

/* --- Family ------------------------------------------------------------ */

/* nv_free_tables - the handler cache, the thread set and its stamps */
static void nv_free_tables(void)
{
	gl_kvfree(gpulat_nv_handlers);
	gl_kvfree(gpulat_nv_set);
	gl_kvfree(gpulat_nv_st);
	gpulat_nv_handlers = NULL;
	gpulat_nv_set = NULL;
	gpulat_nv_st = NULL;
}

static int nv_init(struct gpulat_family *fam, void __percpu *pcpu)
{
	int ret;

	GPULAT_CHECK_PROBE(sched_process_exit, gpulat_nv_probe_exit);
	GPULAT_CHECK_PROBE(sched_process_fork, gpulat_nv_probe_fork);
	GPULAT_CHECK_PROBE(task_rename, gpulat_nv_probe_rename);

	gpulat_nv_pc = pcpu;
	gpulat_nv_pattern_init();
	gpulat_nv_handlers = gl_kvcalloc(1U << NV_HANDLER_BITS, sizeof(u64));
	gpulat_nv_set = gl_kvcalloc(NV_SET_SLOTS, sizeof(u64));
	gpulat_nv_st = gl_kvcalloc(NV_SET_SLOTS, sizeof(*gpulat_nv_st));
	if (!gpulat_nv_handlers || !gpulat_nv_set || !gpulat_nv_st)
		return -ENOMEM;		/* nv_exit() frees what was taken */
	gpulat_nv_set_clear();
	ret = gpulat_nv_xid_init();
	if (ret)
		return ret;
	/* the tables, the filter and its counts per bit, the Xid ring */
	fam->extra_bytes += (sizeof(u64) << NV_HANDLER_BITS) +
			    NV_SET_SLOTS * (sizeof(u64) + sizeof(*gpulat_nv_st)) +
			    sizeof(gpulat_nv_filter) +
			    (sizeof(u16) << NV_FILTER_BITS) +
			    gpulat_nv_xid_bytes();
	return 0;
}

/* nv_exit - undo nv_init(), whatever step it reached */
static void nv_exit(struct gpulat_family *fam)
{
	gpulat_nv_xid_exit();
	nv_free_tables();
}

/* nv_clear - forget wake, run and IRQ stamps before the probes attach */
static void nv_clear(struct gpulat_family *fam)
{
	int cpu;

	memset(gpulat_nv_st, 0, sizeof(*gpulat_nv_st) * NV_SET_SLOTS);
	WRITE_ONCE(gpulat_nv_last_irq, 0);
	for_each_possible_cpu(cpu)
		per_cpu_ptr(gpulat_nv_pc, cpu)->irq_action = NULL;
	/* no exit probe ran while off: a followed pid may be reused now */
	gpulat_nv_set_clear();
}

/*
 * Attach order: process exit first, so that no thread joins the set
 * without its exit being seen; sched_switch before sched_wakeup (see the
 * sched family); the IRQ exit before the entry, so that no entry leaves a
 * stamp behind for want of its exit probe.
 */
static struct gpulat_tp nv_tps[] = {
	GPULAT_TPS_NVIDIA(GPULAT_TP_ROW)
};

static const char * const nv_drop_names[] = GPULAT_NV_DROP_NAMES;

struct gpulat_family gpulat_nvidia_family = {
	.id		= GPULAT_FAM_NVIDIA,
	.name		= "nvidia",
	.tps		= nv_tps,
	.nr_tps		= ARRAY_SIZE(nv_tps),
	.drop_names	= nv_drop_names,
	.nr_drops	= ARRAY_SIZE(nv_drop_names),
	.pcpu_size	= sizeof(struct gpulat_nv_pcpu),
	.hist_offset	= 0,
	.counter_offset	= offsetof(struct gpulat_nv_pcpu, counters),
	.keyed		= &gpulat_nv_keyed,
	.init		= nv_init,
	.exit		= nv_exit,
	.clear		= nv_clear,
	.started	= gpulat_nv_started,
	.events		= gpulat_nv_events,
	.enabled	= true,
};

module_param_named(nvidia, gpulat_nvidia_family.enabled, bool, 0444);
MODULE_PARM_DESC(nvidia, "NVIDIA driver IRQ, thread and Xid family (default on)");
