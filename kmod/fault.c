// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection, test build only (see fault.h).
 *
 *   fault_nth       write N: the Nth fallible step from now fails (0: none)
 *   fault_steps     fallible steps passed since fault_nth was written
 *   fault_injected  where the fault was injected ("" while none was)
 *   fault_live      allocations the module holds now
 *
 * A test writes N = 1, 2, ... and repeats an operation until one passes
 * with nothing injected: then every step of it has failed once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "fault.h"

static atomic_t fault_nth = ATOMIC_INIT(0);
static atomic_t fault_steps = ATOMIC_INIT(0);
static atomic_long_t fault_live = ATOMIC_LONG_INIT(0);
/* fault_site; innermost (the order of the locks: gpulat.h) */
static DEFINE_SPINLOCK(fault_lock);
static char fault_site[64];

bool gpulat_fault(const char *fn, int line)
{
	int nth = atomic_read(&fault_nth);
	unsigned long flags;

	if (!nth || atomic_inc_return(&fault_steps) != nth)
		return false;
	spin_lock_irqsave(&fault_lock, flags);
	snprintf(fault_site, sizeof(fault_site), "%s:%d", fn, line);
	spin_unlock_irqrestore(&fault_lock, flags);
	pr_info("fault injected at step %d, %s:%d\n", nth, fn, line);
	return true;
}

void *gpulat_fault_track(void *p)
{
	if (p)
		atomic_long_inc(&fault_live);
	return p;
}

void gpulat_fault_untrack(const void *p)
{
	if (p)
		atomic_long_dec(&fault_live);
}

/* a leak is a splat: the test's console check fails on it */
void gpulat_fault_check_leaks(const char *when)
{
	long live = atomic_long_read(&fault_live);

	WARN(live, "gpulat: %ld allocations not freed %s\n", live, when);
}

static int fault_nth_set(const char *val, const struct kernel_param *kp)
{
	unsigned long flags;
	int nth, ret;

	ret = kstrtoint(val, 0, &nth);
	if (ret)
		return ret;
	if (nth < 0)
		return -EINVAL;
	spin_lock_irqsave(&fault_lock, flags);
	fault_site[0] = '\0';
	spin_unlock_irqrestore(&fault_lock, flags);
	atomic_set(&fault_nth, 0);
	atomic_set(&fault_steps, 0);
	atomic_set(&fault_nth, nth);
	return 0;
}

static int fault_nth_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&fault_nth));
}

static const struct kernel_param_ops fault_nth_ops = {
	.set = fault_nth_set,
	.get = fault_nth_get,
};
module_param_cb(fault_nth, &fault_nth_ops, NULL, 0644);
MODULE_PARM_DESC(fault_nth, "test build: fail the Nth fallible step from now (0: none)");

static int fault_steps_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&fault_steps));
}

static const struct kernel_param_ops fault_steps_ops = {
	.get = fault_steps_get,
};
module_param_cb(fault_steps, &fault_steps_ops, NULL, 0444);
MODULE_PARM_DESC(fault_steps, "test build: fallible steps since fault_nth was set");

static int fault_injected_get(char *buf, const struct kernel_param *kp)
{
	unsigned long flags;
	int n;

	spin_lock_irqsave(&fault_lock, flags);
	n = sysfs_emit(buf, "%s\n", fault_site);
	spin_unlock_irqrestore(&fault_lock, flags);
	return n;
}

static const struct kernel_param_ops fault_injected_ops = {
	.get = fault_injected_get,
};
module_param_cb(fault_injected, &fault_injected_ops, NULL, 0444);
MODULE_PARM_DESC(fault_injected, "test build: where the fault was injected");

static int fault_live_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&fault_live));
}

static const struct kernel_param_ops fault_live_ops = {
	.get = fault_live_get,
};
module_param_cb(fault_live, &fault_live_ops, NULL, 0444);
MODULE_PARM_DESC(fault_live, "test build: allocations held now");
