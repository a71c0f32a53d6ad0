// SPDX-License-Identifier: GPL-2.0
/*
 * nvidia family: which handlers are ours.  Decided once per action, on
 * its first interrupt, and kept in a small verdict cache indexed by the
 * action's address (looked up in probe_nvidia.h).  An entry also holds a
 * hash of the action's handler, dev_id and name (an action freed and
 * another allocated at its address looks different) and the generation
 * of the thread set; the generation moves whenever an IRQ thread we
 * follow exits, so that every handler is decided again and a
 * re-requested IRQ has its new threads followed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/glob.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/string.h>

#include "gpulat.h"
#include "probe_nvidia.h"

static char *nvidia_pattern = "nvidia";
module_param(nvidia_pattern, charp, 0444);
MODULE_PARM_DESC(nvidia_pattern,
		 "IRQ handler names of the NVIDIA driver: a glob, or else a prefix (default \"nvidia\")");

u64 *gpulat_nv_handlers;
u32 gpulat_nv_gen = 1;
static bool nv_glob;			/* nvidia_pattern has glob characters */

/* gpulat_nv_pattern_init - read nvidia_pattern, before the probes attach */
void gpulat_nv_pattern_init(void)
{
	nv_glob = !!strpbrk(nvidia_pattern, "*?[");
}

struct nv_irq_name {
	int irq;
	const char *name;
};

static void nv_fill_irq(struct gpulat_key *k, const void *arg)
{
	const struct nv_irq_name *n = arg;

	scnprintf(k->name, sizeof(k->name), "%s/%d", n->name, n->irq);
}

static bool nv_name_match(const char *name)
{
	if (!name || !nvidia_pattern[0])
		return false;
	if (nv_glob)
		return glob_match(nvidia_pattern, name);
	return !strncmp(name, nvidia_pattern, strlen(nvidia_pattern));
}

/*
 * gpulat_nv_decide - the slow path of a handler's first interrupt (and of
 * the first after the thread set changed): match its name, give it a key,
 * follow its threads, cache the verdict.  Hard IRQ context.
 */
noinline u64 gpulat_nv_decide(int irq, struct irqaction *action, u64 tag)
{
	struct nv_irq_name n = { .irq = irq, .name = action->name };
	u64 v = 0, gen = tag >> NV_V_GEN_SHIFT;
	unsigned int i;
	int idx;

	if (nv_name_match(action->name)) {
		idx = gpulat_key_get(&gpulat_nv_keyed,
				     gpulat_irq_key(irq, action),
				     nv_fill_irq, &n);
		v = NV_V_OURS | (idx < 0 ? NV_NOKEY : idx);
		/*
		 * The action is live while its handler runs, and so are its
		 * threads: free_irq() stops them only after the last handler
		 * returned.
		 */
		if (action->thread)
			gpulat_nv_set_add(action->thread->pid,
					  NV_KIND_IRQ_THREAD, idx);
		if (action->secondary && action->secondary->thread)
			gpulat_nv_set_add(action->secondary->thread->pid,
					  NV_KIND_IRQ_SECONDARY, idx);
	}
	/* a free entry, or one of an older generation, or else evict one */
	for (i = 0; i < GPULAT_KEY_PROBES; i++) {
		u64 *e = nv_handler_slot(action, i), old = READ_ONCE(*e);

		if (old >> NV_V_GEN_SHIFT != gen &&
		    cmpxchg(e, old, tag | v) == old)
			return v;
	}
	/* which one: from the identity hash, one of the GPULAT_KEY_PROBES */
	WRITE_ONCE(*nv_handler_slot(action, tag >> NV_V_ID_SHIFT &
				    (GPULAT_KEY_PROBES - 1)), tag | v);
	return v;
}
