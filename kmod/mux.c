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
#include <linux/jump_label.h>
#include <linux/string.h>

#include "gpulat.h"
#include "mux.h"

static struct gpulat_mux mux_irq_entry, mux_irq_exit;

/*
 * The last call is a tail call, so that a family alone on the tracepoint
 * costs only the load and tests of on.  Every call tests its bit: on may
 * be 0 while the probe is being unregistered.  sched_switch and
 * sched_wakeup have the sched family's probes as their mux, which saves
 * the sched family, the one hooked by default on the busiest tracepoints,
 * a call (see probe_sched.c).
 */
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

DEFINE_STATIC_KEY_FALSE(gpulat_mux_switch_sched);
DEFINE_STATIC_KEY_FALSE(gpulat_mux_switch_nvidia);
DEFINE_STATIC_KEY_FALSE(gpulat_mux_wakeup_sched);
DEFINE_STATIC_KEY_FALSE(gpulat_mux_wakeup_nvidia);

static struct static_key_false *const switch_keys[GPULAT_FAM_MAX] = {
	[GPULAT_FAM_SCHED] = &gpulat_mux_switch_sched,
	[GPULAT_FAM_NVIDIA] = &gpulat_mux_switch_nvidia,
};

static struct static_key_false *const wakeup_keys[GPULAT_FAM_MAX] = {
	[GPULAT_FAM_SCHED] = &gpulat_mux_wakeup_sched,
	[GPULAT_FAM_NVIDIA] = &gpulat_mux_wakeup_nvidia,
};

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

struct gpulat_mux gpulat_mux_switch = {
	.name = "sched_switch", .probe = sched_probe_switch,
	.users = switch_users, .keys = switch_keys,
};

struct gpulat_mux gpulat_mux_wakeup = {
	.name = "sched_wakeup", .probe = sched_probe_wakeup,
	.users = wakeup_users, .keys = wakeup_keys,
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
	&gpulat_mux_switch, &gpulat_mux_wakeup, &mux_irq_entry, &mux_irq_exit,
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

/* gpulat_mux_set - switch family @fam_id's bit, and key if any, at @m */
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
