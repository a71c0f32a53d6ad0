// SPDX-License-Identifier: GPL-2.0
/*
 * Many IRQ handlers at once, for scripts/bench-scale: the irq family's
 * keyed series (one per IRQ and handler) as a server with hundreds of
 * MSI-X vectors has them.  Test-only; never shipped.
 *
 * Like tests/kmod/gpulat_irqgen.ko, with no device behind it: it
 * allocates count IRQ descriptors of its own (dummy_irq_chip,
 * handle_simple_irq) and requests each with a handler named
 * "irqmany<N>" that only counts.  Writing N to the parameter fire raises
 * every one of them N times on the writing CPU, each with interrupts
 * disabled around generic_handle_irq(): one irq_handler_entry and one
 * irq_handler_exit per interrupt, nothing else.
 *
 * Parameters: count (at load, 1 to 2048, default 256), fire (write N, 1
 * to 10000; reads back the interrupts raised since load), handled
 * (read-only: handler calls since load).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/numa.h>
#include <linux/sched.h>
#include <linux/slab.h>

#define IRQMANY_MAX	2048
#define IRQMANY_FIRE_MAX	10000

static unsigned int irqmany_count = 256;
module_param_named(count, irqmany_count, uint, 0444);
MODULE_PARM_DESC(count, "IRQs with a handler each (1 to 2048, at load)");

static unsigned long irqmany_handled;
module_param_named(handled, irqmany_handled, ulong, 0444);
MODULE_PARM_DESC(handled, "handler calls since load");

static unsigned long irqmany_fired;
static int *irqmany_irqs;
static char **irqmany_names;
static unsigned int irqmany_nr;	/* requested so far */
static int irqmany_cookie;

static irqreturn_t irqmany_handler(int irq, void *dev_id)
{
	WRITE_ONCE(irqmany_handled, irqmany_handled + 1);
	return IRQ_HANDLED;
}

/* irqmany_fire_set - raise every IRQ N times on this CPU */
static int irqmany_fire_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n, r, i;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n > IRQMANY_FIRE_MAX)
		return -EINVAL;
	for (r = 0; r < n; r++) {
		for (i = 0; i < irqmany_nr; i++) {
			local_irq_disable();
			ret = generic_handle_irq(irqmany_irqs[i]);
			local_irq_enable();
			if (ret)
				return ret;
			WRITE_ONCE(irqmany_fired, irqmany_fired + 1);
		}
		cond_resched();
	}
	return 0;
}

static int irqmany_fire_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lu\n", READ_ONCE(irqmany_fired));
}

static const struct kernel_param_ops irqmany_fire_ops = {
	.set = irqmany_fire_set,
	.get = irqmany_fire_get,
};

module_param_cb(fire, &irqmany_fire_ops, NULL, 0644);
MODULE_PARM_DESC(fire, "write N: raise every IRQ N times (at most 10000)");

static void irqmany_free(void)
{
	while (irqmany_nr) {
		irqmany_nr--;
		free_irq(irqmany_irqs[irqmany_nr], &irqmany_cookie);
		irq_free_desc(irqmany_irqs[irqmany_nr]);
		kfree(irqmany_names[irqmany_nr]);
	}
	kfree(irqmany_irqs);
	kfree(irqmany_names);
}

static int __init irqmany_init(void)
{
	unsigned int i;
	int irq, ret;

	if (!irqmany_count || irqmany_count > IRQMANY_MAX)
		return -EINVAL;
	irqmany_irqs = kcalloc(irqmany_count, sizeof(*irqmany_irqs), GFP_KERNEL);
	irqmany_names = kcalloc(irqmany_count, sizeof(*irqmany_names),
				GFP_KERNEL);
	if (!irqmany_irqs || !irqmany_names) {
		ret = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < irqmany_count; i++) {
		irqmany_names[i] = kasprintf(GFP_KERNEL, "irqmany%u", i);
		if (!irqmany_names[i]) {
			ret = -ENOMEM;
			goto fail;
		}
		irq = irq_alloc_desc(NUMA_NO_NODE);
		if (irq < 0) {
			kfree(irqmany_names[i]);
			ret = irq;
			goto fail;
		}
		irq_set_chip_and_handler(irq, &dummy_irq_chip,
					 handle_simple_irq);
		irq_clear_status_flags(irq, IRQ_NOREQUEST | IRQ_NOPROBE);
		ret = request_irq(irq, irqmany_handler, 0,
				  irqmany_names[i], &irqmany_cookie);
		if (ret) {
			pr_err("cannot request IRQ %d: %d\n", irq, ret);
			irq_free_desc(irq);
			kfree(irqmany_names[i]);
			goto fail;
		}
		irqmany_irqs[i] = irq;
		irqmany_nr = i + 1;
	}
	return 0;
fail:
	irqmany_free();
	return ret;
}

static void __exit irqmany_exit(void)
{
	/* a write of fire that is still in flight finishes first */
	kernel_param_lock(THIS_MODULE);
	irqmany_free();
	kernel_param_unlock(THIS_MODULE);
}

module_init(irqmany_init);
module_exit(irqmany_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gpulat test-only: many IRQ handlers raised on demand");
