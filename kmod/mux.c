// SPDX-License-Identifier: GPL-2.0
/*
 * One probe per tracepoint that several families hook (see mux.h).  Each
 * family keeps its own gpulat_tp, state and hit counter; only the
 * registration is shared.  A family's bit goes on before the probe is
 * registered and off before it is unregistered, and switching a family
 * off waits for running probes (tracepoint_synchronize_unregister()), so
 * a family's probe runs exactly while its bit is on, as if registered
 * alone.
 */
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/string.h>

#include "gpulat.h"
#include "mux.h"

#ifdef GPULAT_HAVE_SWITCH_PREV_STATE
#define SWITCH_CALL(fn)	fn(data, preempt, prev, next, prev_state)
#else
#define SWITCH_CALL(fn)	fn(data, preempt, prev, next)
#endif

static struct gpulat_mux mux_switch, mux_wakeup, mux_irq_entry, mux_irq_exit;

/*
 * The last call is a tail call, so that a family alone on the tracepoint
 * costs only the load and tests of on.  Every call tests its bit: on may
 * be 0 while the probe is being unregistered.
 */
static void mux_probe_switch(GPULAT_SCHED_SWITCH_ARGS)
{
	u32 on = READ_ONCE(mux_switch.on);

	if (on & BIT(GPULAT_FAM_NVIDIA)) {
		if (on & BIT(GPULAT_FAM_SCHED))
			SWITCH_CALL(sched_probe_switch);
		SWITCH_CALL(nv_probe_switch);
		return;
	}
	if (on & BIT(GPULAT_FAM_SCHED))
		SWITCH_CALL(sched_probe_switch);
}

static void mux_probe_wakeup(void *data, struct task_struct *p)
{
	u32 on = READ_ONCE(mux_wakeup.on);

	if (on & BIT(GPULAT_FAM_NVIDIA)) {
		if (on & BIT(GPULAT_FAM_SCHED))
			sched_probe_wakeup(data, p);
		nv_probe_wakeup(data, p);
		return;
	}
	if (on & BIT(GPULAT_FAM_SCHED))
		sched_probe_wakeup(data, p);
}

static void mux_probe_irq_entry(void *data, int irq, struct irqaction *action)
{
	u32 on = READ_ONCE(mux_irq_entry.on);

	if (on & BIT(GPULAT_FAM_NVIDIA)) {
		if (on & BIT(GPULAT_FAM_IRQ))
			irq_probe_entry(data, irq, action);
		nv_probe_irq_entry(data, irq, action);
		return;
	}
	if (on & BIT(GPULAT_FAM_IRQ))
		irq_probe_entry(data, irq, action);
}

static void mux_probe_irq_exit(void *data, int irq, struct irqaction *action,
			       int ret)
{
	u32 on = READ_ONCE(mux_irq_exit.on);

	if (on & BIT(GPULAT_FAM_NVIDIA)) {
		if (on & BIT(GPULAT_FAM_IRQ))
			irq_probe_exit(data, irq, action, ret);
		nv_probe_irq_exit(data, irq, action, ret);
		return;
	}
	if (on & BIT(GPULAT_FAM_IRQ))
		irq_probe_exit(data, irq, action, ret);
}

static void *const switch_users[GPULAT_FAM_MAX] = {
	[GPULAT_FAM_SCHED] = sched_probe_switch,
	[GPULAT_FAM_NVIDIA] = nv_probe_switch,
};

static void *const wakeup_users[GPULAT_FAM_MAX] = {
	[GPULAT_FAM_SCHED] = sched_probe_wakeup,
	[GPULAT_FAM_NVIDIA] = nv_probe_wakeup,
};

static void *const irq_entry_users[GPULAT_FAM_MAX] = {
	[GPULAT_FAM_IRQ] = irq_probe_entry,
	[GPULAT_FAM_NVIDIA] = nv_probe_irq_entry,
};

static void *const irq_exit_users[GPULAT_FAM_MAX] = {
	[GPULAT_FAM_IRQ] = irq_probe_exit,
	[GPULAT_FAM_NVIDIA] = nv_probe_irq_exit,
};

static struct gpulat_mux mux_switch = {
	.name = "sched_switch", .probe = mux_probe_switch,
	.users = switch_users,
};

static struct gpulat_mux mux_wakeup = {
	.name = "sched_wakeup", .probe = mux_probe_wakeup,
	.users = wakeup_users,
};

static struct gpulat_mux mux_irq_entry = {
	.name = "irq_handler_entry", .probe = mux_probe_irq_entry,
	.users = irq_entry_users,
};

static struct gpulat_mux mux_irq_exit = {
	.name = "irq_handler_exit", .probe = mux_probe_irq_exit,
	.users = irq_exit_users,
};

static struct gpulat_mux *const gpulat_muxes[] = {
	&mux_switch, &mux_wakeup, &mux_irq_entry, &mux_irq_exit,
};

/*
 * gpulat_mux_of - the mux that calls @fam's probe of @t, or NULL: the
 * probe is registered on its own
 */
struct gpulat_mux *gpulat_mux_of(const struct gpulat_family *fam,
				 const struct gpulat_tp *t)
{
	unsigned int i;

	if (fam->id >= GPULAT_FAM_MAX)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(gpulat_muxes); i++) {
		struct gpulat_mux *m = gpulat_muxes[i];

		if (!strcmp(m->name, t->name) && m->users[fam->id] == t->probe)
			return m;
	}
	return NULL;
}
