/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints that more than one family hooks (sched_switch, sched_wakeup,
 * irq_handler_entry, irq_handler_exit) get a single probe of gpulat's, which
 * calls each attached family's probe directly: on sched_switch and
 * sched_wakeup the sched family's own probes, elsewhere one in mux.c.  A
 * tracepoint with one probe calls it through a static call; with two it
 * goes through the kernel's iterator and an indirect call (a retpoline)
 * per probe, which cost about 46 instructions per sched event, more than
 * the nvidia family's own work.
 */
#ifndef _GPULAT_MUX_H
#define _GPULAT_MUX_H

#include <linux/interrupt.h>
#include <linux/jump_label.h>
#include <linux/sched.h>

#include "compat/sched.h"

struct gpulat_family;
struct gpulat_tp;

/*
 * One shared tracepoint.  on has a bit per family id that is attached to
 * it; the probe is registered while on is not zero.  A mux may also keep
 * a static key per family, switched with its bit, for a probe that tests
 * the key instead of the bit (a patched jump, no load).  Changed under
 * gpulat_lock only, with gpulat_mux_set().
 */
struct gpulat_mux {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	u32 on;
	/* the family probes it calls: [family id], NULL where none */
	void *const *users;
	/* [family id], NULL where none; NULL: no keys */
	struct static_key_false *const *keys;
};

extern struct gpulat_mux gpulat_mux_switch, gpulat_mux_wakeup;
DECLARE_STATIC_KEY_FALSE(gpulat_mux_switch_sched);
DECLARE_STATIC_KEY_FALSE(gpulat_mux_switch_nvidia);
DECLARE_STATIC_KEY_FALSE(gpulat_mux_wakeup_sched);
DECLARE_STATIC_KEY_FALSE(gpulat_mux_wakeup_nvidia);

/* call @fn with sched_switch's arguments (data is NULL for every probe) */
#ifdef GPULAT_HAVE_SWITCH_PREV_STATE
#define GPULAT_SCHED_SWITCH_CALL(fn)	fn(NULL, preempt, prev, next, prev_state)
#else
#define GPULAT_SCHED_SWITCH_CALL(fn)	fn(NULL, preempt, prev, next)
#endif

struct gpulat_mux *gpulat_mux_of(const struct gpulat_family *fam,
				 const struct gpulat_tp *t);
void gpulat_mux_set(struct gpulat_mux *m, u32 fam_id, bool on);

typedef void (gpulat_switch_probe_t)(GPULAT_SCHED_SWITCH_ARGS);

/* The family probes a mux calls, defined in the probe files. */
gpulat_switch_probe_t sched_probe_switch;
gpulat_switch_probe_t nv_probe_switch;
void sched_probe_wakeup(void *data, struct task_struct *p);
void nv_probe_wakeup(void *data, struct task_struct *p);
void irq_probe_entry(void *data, int irq, struct irqaction *action);
void irq_probe_exit(void *data, int irq, struct irqaction *action, int ret);
void nv_probe_irq_entry(void *data, int irq, struct irqaction *action);
void nv_probe_irq_exit(void *data, int irq, struct irqaction *action,
		       int ret);

#endif /* _GPULAT_MUX_H */
