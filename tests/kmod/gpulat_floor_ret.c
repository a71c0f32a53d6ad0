// SPDX-License-Identifier: GPL-2.0
/*
 * Floor 1: probes that only return, on the tracepoints named by the
 * parameter tps (default: sched_wakeup, sched_wakeup_new, sched_switch).
 * What is left is the cost of a module probe being called at all
 * (tracepoint static key, iteration over the probe array, the call).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

static void floor_probe(void *data)
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
MODULE_DESCRIPTION("gpulat benchmark floor: probes that only return");
MODULE_LICENSE("GPL");
