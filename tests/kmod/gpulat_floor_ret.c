// SPDX-License-Identifier: GPL-2.0
/*
 * Floor 1: probes on sched_wakeup, sched_wakeup_new and sched_switch that
 * only return.  What is left is the cost of a module probe being called at
 * all (tracepoint static key, iteration over the probe array, the call).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched.h>

#include "compat/gpulat_compat.h"

static void floor_probe_wakeup(void *data, struct task_struct *p)
{
}

static void floor_probe_wakeup_new(void *data, struct task_struct *p)
{
}

static void floor_probe_switch(GPULAT_SCHED_SWITCH_ARGS)
{
}

#include "floor.h"

static int __init floor_ret_init(void)
{
	return floor_attach();
}

static void __exit floor_ret_exit(void)
{
	floor_detach();
}

module_init(floor_ret_init);
module_exit(floor_ret_exit);
MODULE_DESCRIPTION("gpulat benchmark floor: sched probes that only return");
MODULE_LICENSE("GPL");
