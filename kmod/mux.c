// SPDX-License-Identifier: GPL-2.0
/*
 * One probe per tracepoint that several families hook (see mux.h).  Each
 * family keeps its own gpulat_tp, state and hit counter; only the
 * registration is shared.  A family's bit goes on before the probe is
 * registered and off before it is unregistered, and switching a family
 * off waits for running probes (tracepoint_synchronize_unregister()), so
 * a family's work runs exactly while its bit is on, as if registered
 * alone.
 */
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/interrupt.h>
#include <linux/jump_label.h>
#include <linux/string.h>
#include <trace/events/irq.h>
#include <trace/events/sched.h>

#include "gpulat.h"
#include "mux.h"
#include "probe_cuda.h"
#include "probe_irq.h"
#include "probe_nvidia.h"
#include "probe_sched.h"

static DEFINE_STATIC_KEY_FALSE(mux_switch_sched);
static DEFINE_STATIC_KEY_FALSE(mux_switch_nvidia);
static DEFINE_STATIC_KEY_FALSE(mux_wakeup_sched);
static DEFINE_STATIC_KEY_FALSE(mux_wakeup_nvidia);
static DEFINE_STATIC_KEY_FALSE(mux_switch_cuda);

static struct gpulat_mux mux_irq_entry, mux_irq_exit;

/* call @fn with sched_switch's arguments (data is NULL for every probe) */
#ifdef GPULAT_HAVE_SWITCH_PREV_STATE
#define MUX_SCHED_SWITCH_CALL(fn)	fn(NULL, preempt, prev, next, prev_state)
#else
#define MUX_SCHED_SWITCH_CALL(fn)	fn(NULL, preempt, prev, next)
#endif

/*
 * The nvidia family's work, out of line and called last, as a tail call
 * with the tracepoint's own arguments (__noclone: no copy of it that
 * drops data and moves them): inlined beside the sched family's it would
 * cost sched's common path registers to save.
 */
static noinline __noclone void
gpulat_mux_nv_switch(GPULAT_SCHED_SWITCH_ARGS)
{
	gpulat_nv_switch(preempt, prev, next);
}

static noinline __noclone void
gpulat_mux_nv_wakeup(void *data, struct task_struct *p)
{
	gpulat_nv_wakeup(p);
}

/* The cuda family's, out of line as the nvidia family's. */
static noinline __noclone void
gpulat_mux_cuda_switch(GPULAT_SCHED_SWITCH_ARGS)
{
	gpulat_cuda_switch(preempt, prev, next);
}

/*
 * sched_wakeup and sched_switch: the sched family, hooked by default on
 * the busiest tracepoints, inline; which families are on is in static
 * keys, patched jumps that cost no load.
 */
static void gpulat_mux_sched_wakeup(void *data, struct task_struct *p)
{
	if (static_branch_likely(&mux_wakeup_sched))
		gpulat_sched_wakeup(p);
	if (static_branch_unlikely(&mux_wakeup_nvidia))
		gpulat_mux_nv_wakeup(NULL, p);
}

static void gpulat_mux_sched_switch(GPULAT_SCHED_SWITCH_ARGS)
{
	if (static_branch_likely(&mux_switch_sched))
		gpulat_sched_switch(preempt, prev, next);
	if (static_branch_unlikely(&mux_switch_cuda))
		MUX_SCHED_SWITCH_CALL(gpulat_mux_cuda_switch);
	if (static_branch_unlikely(&mux_switch_nvidia))
		MUX_SCHED_SWITCH_CALL(gpulat_mux_nv_switch);
}

/*
 * The IRQ tracepoints: each family's work in a function of its own (the
 * irq and nvidia families are both on by default), the last a tail call,
 * so that a family alone costs only the load and tests of on.  Inlined
 * here, either family's work made the other's path save its registers
 * (measured: 14 instructions per interrupt with both on).  Every call
 * tests its bit: on may be 0 while the probe is being unregistered.
 */
static noinline __noclone void
gpulat_mux_irq_irq_entry(void *data, int irq, struct irqaction *action)
{
	gpulat_irq_entry(irq, action);
}

static noinline __noclone void
gpulat_mux_nv_irq_entry(void *data, int irq, struct irqaction *action)
{
	gpulat_nv_irq_entry(irq, action);
}

static noinline __noclone void
gpulat_mux_irq_irq_exit(void *data, int irq, struct irqaction *action, int ret)
{
	gpulat_irq_exit(irq, action, ret);
}

static noinline __noclone void
gpulat_mux_nv_irq_exit(void *data, int irq, struct irqaction *action, int ret)
{
	gpulat_nv_irq_exit(irq, action, ret);
}

static void gpulat_mux_irq_entry(void *data, int irq, struct irqaction *action)
{
	u32 on = READ_ONCE(mux_irq_entry.on);

	if (on & BIT(GPULAT_FAM_NVIDIA)) {
		if (on & BIT(GPULAT_FAM_IRQ))
			gpulat_mux_irq_irq_entry(data, irq, action);
		gpulat_mux_nv_irq_entry(data, irq, action);
		return;
	}
	if (on & BIT(GPULAT_FAM_IRQ))
		gpulat_mux_irq_irq_entry(data, irq, action);
}

static void gpulat_mux_irq_exit(void *data, int irq, struct irqaction *action,
				int ret)
{
	u32 on = READ_ONCE(mux_irq_exit.on);

	if (on & BIT(GPULAT_FAM_NVIDIA)) {
		if (on & BIT(GPULAT_FAM_IRQ))
			gpulat_mux_irq_irq_exit(data, irq, action, ret);
		gpulat_mux_nv_irq_exit(data, irq, action, ret);
		return;
	}
	if (on & BIT(GPULAT_FAM_IRQ))
		gpulat_mux_irq_irq_exit(data, irq, action, ret);
}

static struct static_key_false *const switch_keys[GPULAT_FAM_MAX] = {
	[GPULAT_FAM_SCHED] = &mux_switch_sched,
	[GPULAT_FAM_NVIDIA] = &mux_switch_nvidia,
	[GPULAT_FAM_CUDA] = &mux_switch_cuda,
};

static struct static_key_false *const wakeup_keys[GPULAT_FAM_MAX] = {
	[GPULAT_FAM_SCHED] = &mux_wakeup_sched,
	[GPULAT_FAM_NVIDIA] = &mux_wakeup_nvidia,
};

static struct gpulat_mux mux_switch = {
	.name = "sched_switch", .probe = gpulat_mux_sched_switch,
	.fams = BIT(GPULAT_FAM_SCHED) | BIT(GPULAT_FAM_NVIDIA) |
		BIT(GPULAT_FAM_CUDA),
	.keys = switch_keys,
};

static struct gpulat_mux mux_wakeup = {
	.name = "sched_wakeup", .probe = gpulat_mux_sched_wakeup,
	.fams = BIT(GPULAT_FAM_SCHED) | BIT(GPULAT_FAM_NVIDIA),
	.keys = wakeup_keys,
};

static struct gpulat_mux mux_irq_entry = {
	.name = "irq_handler_entry", .probe = gpulat_mux_irq_entry,
	.fams = BIT(GPULAT_FAM_IRQ) | BIT(GPULAT_FAM_NVIDIA),
};

static struct gpulat_mux mux_irq_exit = {
	.name = "irq_handler_exit", .probe = gpulat_mux_irq_exit,
	.fams = BIT(GPULAT_FAM_IRQ) | BIT(GPULAT_FAM_NVIDIA),
};

static struct gpulat_mux *const gpulat_muxes[] = {
	&mux_switch, &mux_wakeup, &mux_irq_entry, &mux_irq_exit,
};

/*
 * gpulat_mux_of - the mux that does @fam's work on @t, or NULL: @t has a
 * probe of its own
 */
struct gpulat_mux *gpulat_mux_of(const struct gpulat_family *fam,
				 const struct gpulat_tp *t)
{
	unsigned int i;

	GPULAT_CHECK_PROBE(sched_switch, gpulat_mux_sched_switch);
	GPULAT_CHECK_PROBE(sched_wakeup, gpulat_mux_sched_wakeup);
	GPULAT_CHECK_PROBE(irq_handler_entry, gpulat_mux_irq_entry);
	GPULAT_CHECK_PROBE(irq_handler_exit, gpulat_mux_irq_exit);

	if (t->probe != GPULAT_TP_MUX || fam->id >= GPULAT_FAM_MAX)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(gpulat_muxes); i++) {
		struct gpulat_mux *m = gpulat_muxes[i];

		if (!strcmp(m->name, t->name) && (m->fams & BIT(fam->id)))
			return m;
	}
	return NULL;
}

/*
 * gpulat_mux_set - switch family @fam_id's bit, and key if any, at @m;
 * called by the registry only, which holds gpulat_lock (and asserts it)
 */
void gpulat_mux_set(struct gpulat_mux *m, u32 fam_id, bool on)
{
	struct static_key_false *key = m->keys ? m->keys[fam_id] : NULL;

	if (on)
		WRITE_ONCE(m->on, m->on | BIT(fam_id));
	else
		WRITE_ONCE(m->on, m->on & ~BIT(fam_id));
	if (!key)
		return;
	/* patched and synced on every CPU before this returns */
	if (on)
		static_branch_enable(key);
	else
		static_branch_disable(key);
}
