// SPDX-License-Identifier: GPL-2.0
/*
 * Floor 2: probes that read the clock gpulat uses
 * (ktime_get_mono_fast_ns()) and bump a per-CPU counter, the least any
 * latency probe does, on the tracepoints named by the parameter tps
 * (default: sched_wakeup, sched_wakeup_new, sched_switch).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/timekeeping.h>

static DEFINE_PER_CPU(u64, floor_hits);

/* the clock value is dropped: the call itself is the cost being measured */
static __always_inline void floor_hit(void)
{
	ktime_get_mono_fast_ns();
	this_cpu_inc(floor_hits);
}

static void floor_probe(void *data)
{
	floor_hit();
}

#include "floor.h"

static int __init floor_clock_init(void)
{
	return floor_attach();
}

static void __exit floor_clock_exit(void)
{
	u64 hits = 0;
	int cpu;

	floor_detach();
	for_each_possible_cpu(cpu)
		hits += per_cpu(floor_hits, cpu);
	pr_info("%llu probe hits\n", hits);
}

module_init(floor_clock_init);
module_exit(floor_clock_exit);
MODULE_DESCRIPTION("gpulat benchmark floor: probes reading the clock");
MODULE_LICENSE("GPL");
