/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints that more than one family hooks (sched_switch, sched_wakeup,
 * irq_handler_entry, irq_handler_exit) get a single probe of gpulat's, in
 * mux.c, which does the work of each attached family: the families' work
 * on them is inline functions of their headers (probe_<family>.h),
 * compiled into mux.c (into the probe itself, or a function of mux.c's
 * where that is cheaper), and a family names such a tracepoint in its
 * gpulat_tp with GPULAT_TP_MUX as its probe.
 * A tracepoint with one probe calls it through a static call; with two it
 * goes through the kernel's iterator and an indirect call (a retpoline)
 * per probe, which cost about 46 instructions per sched event, more than
 * the nvidia family's own work.
 */
#ifndef _GPULAT_KMOD_MUX_H
#define _GPULAT_KMOD_MUX_H

#include <linux/jump_label.h>
#include <linux/types.h>

struct gpulat_family;
struct gpulat_tp;

/*
 * One shared tracepoint.  on has a bit per family id that is attached to
 * it; the probe is registered while on is not zero.  A mux may also keep
 * a static key per family, switched with its bit, for a probe that tests
 * the key instead of the bit (a patched jump, no load).  on and the keys
 * change only through gpulat_mux_set(), which the registry calls under
 * gpulat_lock.
 */
struct gpulat_mux {
	const char *name;
	void *probe;
	u32 on;
	u32 fams;			/* bits of the families it serves */
	/* [family id], NULL where none; NULL: no keys */
	struct static_key_false *const *keys;
};

struct gpulat_mux *gpulat_mux_of(const struct gpulat_family *fam,
				 const struct gpulat_tp *t);
void gpulat_mux_set(struct gpulat_mux *m, u32 fam_id, bool on);

#endif /* _GPULAT_KMOD_MUX_H */
