/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared attach/detach code of the floor modules.  A floor module defines
 * its three probes and FLOOR_PROBES(), and includes this file; the probes
 * are found by tracepoint name, as gpulat itself finds them.
 */
#ifndef _GPULAT_FLOOR_H
#define _GPULAT_FLOOR_H

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "compat/gpulat_compat.h"

struct floor_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool attached;
};

static struct floor_tp floor_tps[] = {
	{ .name = "sched_wakeup", .probe = floor_probe_wakeup },
	{ .name = "sched_wakeup_new", .probe = floor_probe_wakeup_new },
	{ .name = "sched_switch", .probe = floor_probe_switch },
};

static void floor_tp_match(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(floor_tps); i++)
		if (!floor_tps[i].tp && !strcmp(tp->name, floor_tps[i].name))
			floor_tps[i].tp = tp;
}

static void floor_detach(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(floor_tps); i++) {
		if (!floor_tps[i].attached)
			continue;
		tracepoint_probe_unregister(floor_tps[i].tp,
					    floor_tps[i].probe, NULL);
		floor_tps[i].attached = false;
	}
	tracepoint_synchronize_unregister();
}

static int floor_attach(void)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(floor_tp_match, NULL);
	for (i = 0; i < ARRAY_SIZE(floor_tps); i++) {
		if (!floor_tps[i].tp) {
			pr_err("tracepoint %s not found\n", floor_tps[i].name);
			return -ENOENT;
		}
	}
	for (i = 0; i < ARRAY_SIZE(floor_tps); i++) {
		ret = tracepoint_probe_register(floor_tps[i].tp,
						floor_tps[i].probe, NULL);
		if (ret) {
			pr_err("cannot attach %s: %d\n", floor_tps[i].name,
			       ret);
			floor_detach();
			return ret;
		}
		floor_tps[i].attached = true;
	}
	return 0;
}

#endif /* _GPULAT_FLOOR_H */
