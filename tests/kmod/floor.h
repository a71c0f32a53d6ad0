/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared attach/detach code of the floor modules.  A floor module defines
 * floor_probe() and includes this file.  The tracepoints to hook are named
 * by the module parameter tps, a comma-separated list (default: the three
 * the sched family uses), and found by name as gpulat finds its own.
 *
 * One probe serves every tracepoint: it is declared with the probe's
 * leading data pointer only and ignores the tracepoint's arguments.  On
 * x86-64 (the only architecture the benchmark runs) the caller passes
 * arguments in registers and cleans up after itself, so a callee that
 * declares fewer arguments is called correctly; test-only, never shipped.
 */
#ifndef _GPULAT_FLOOR_H
#define _GPULAT_FLOOR_H

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#define FLOOR_MAX_TPS	16

static char *tps = "sched_wakeup,sched_wakeup_new,sched_switch";
module_param(tps, charp, 0444);
MODULE_PARM_DESC(tps, "comma-separated tracepoints to hook (default: the sched family's three)");

struct floor_tp {
	char name[64];
	struct tracepoint *tp;
	bool attached;
};

static struct floor_tp floor_tps[FLOOR_MAX_TPS];
static unsigned int floor_nr;

static void floor_tp_match(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < floor_nr; i++)
		if (!floor_tps[i].tp && !strcmp(tp->name, floor_tps[i].name))
			floor_tps[i].tp = tp;
}

static void floor_detach(void)
{
	unsigned int i;

	for (i = 0; i < floor_nr; i++) {
		if (!floor_tps[i].attached)
			continue;
		tracepoint_probe_unregister(floor_tps[i].tp, floor_probe, NULL);
		floor_tps[i].attached = false;
	}
	tracepoint_synchronize_unregister();
}

/* floor_parse - fill floor_tps from the parameter tps */
static int floor_parse(void)
{
	char *copy, *cur, *name;
	int ret = 0;

	copy = kstrdup(tps, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cur = copy;
	while ((name = strsep(&cur, ",")) != NULL) {
		if (!*name)
			continue;
		if (floor_nr == FLOOR_MAX_TPS ||
		    strscpy(floor_tps[floor_nr].name, name,
			    sizeof(floor_tps[0].name)) < 0) {
			pr_err("tps: too many or too long names\n");
			ret = -EINVAL;
			break;
		}
		floor_nr++;
	}
	kfree(copy);
	if (!ret && !floor_nr)
		ret = -EINVAL;
	return ret;
}

static int floor_attach(void)
{
	unsigned int i;
	int ret;

	ret = floor_parse();
	if (ret)
		return ret;
	for_each_kernel_tracepoint(floor_tp_match, NULL);
	for (i = 0; i < floor_nr; i++) {
		if (!floor_tps[i].tp) {
			pr_err("tracepoint %s not found\n", floor_tps[i].name);
			return -ENOENT;
		}
	}
	for (i = 0; i < floor_nr; i++) {
		ret = tracepoint_probe_register(floor_tps[i].tp, floor_probe,
						NULL);
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
