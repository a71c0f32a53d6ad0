// SPDX-License-Identifier: GPL-2.0
/*
 * A generator of hard interrupts with a known count, for scripts/bench
 * (workload irqgen).  Test-only; never shipped.
 *
 * It allocates one IRQ descriptor of its own, with no device behind it
 * (dummy_irq_chip, handle_simple_irq), and requests it with a handler
 * named "gpulat_irqgen" that only counts.  Writing N to the parameter
 * fire raises N interrupts on the writing CPU, one after the other, each
 * with interrupts disabled around generic_handle_irq(), the way an
 * interrupt controller's demultiplexer runs a child interrupt: every one
 * passes through irq_handler_entry and irq_handler_exit exactly once, and
 * nothing else (no irq_enter()/irq_exit(), so no softirq runs on the way
 * out) and no device or timing is involved: under QEMU -icount the same N
 * costs the same instructions each time.
 *
 * Parameters: fire (write N, 1 to 1000000; reads back the interrupts raised
 * since load), handled (read-only: handler calls since load, which equals
 * fire unless an interrupt was lost), irq (read-only: the IRQ number).
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

#define IRQGEN_MAX	1000000

static int irqgen_irq = -1;
module_param_named(irq, irqgen_irq, int, 0444);
MODULE_PARM_DESC(irq, "the IRQ number allocated for the generator");

static unsigned long irqgen_handled;
module_param_named(handled, irqgen_handled, ulong, 0444);
MODULE_PARM_DESC(handled, "handler calls since load");

static unsigned long irqgen_fired;
static int irqgen_cookie;

static irqreturn_t irqgen_handler(int irq, void *dev_id)
{
	WRITE_ONCE(irqgen_handled, irqgen_handled + 1);
	return IRQ_HANDLED;
}

/* irqgen_fire_set - raise N interrupts on this CPU, one at a time */
static int irqgen_fire_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n > IRQGEN_MAX)
		return -EINVAL;
	if (irqgen_irq < 0)
		return -ENODEV;
	for (i = 0; i < n; i++) {
		local_irq_disable();
		ret = generic_handle_irq(irqgen_irq);
		local_irq_enable();
		if (ret)
			return ret;
		WRITE_ONCE(irqgen_fired, irqgen_fired + 1);
		if ((i & 1023) == 1023)
			cond_resched();
	}
	return 0;
}

static int irqgen_fire_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lu\n", READ_ONCE(irqgen_fired));
}

static const struct kernel_param_ops irqgen_fire_ops = {
	.set = irqgen_fire_set,
	.get = irqgen_fire_get,
};

module_param_cb(fire, &irqgen_fire_ops, NULL, 0644);
MODULE_PARM_DESC(fire, "write N: raise N interrupts (at most 1000000); read: interrupts raised since load");

static int __init irqgen_init(void)
{
	int irq, ret;

	/*
	 * no owner: request_irq() takes a reference on the descriptor's,
	 * and the module's own would keep it from being removed
	 */
	irq = __irq_alloc_descs(-1, 0, 1, NUMA_NO_NODE, NULL, NULL);
	if (irq < 0)
		return irq;
	irq_set_chip_and_handler(irq, &dummy_irq_chip, handle_simple_irq);
	irq_clear_status_flags(irq, IRQ_NOREQUEST | IRQ_NOPROBE);
	ret = request_irq(irq, irqgen_handler, 0, "gpulat_irqgen",
			  &irqgen_cookie);
	if (ret) {
		pr_err("cannot request IRQ %d: %d\n", irq, ret);
		irq_free_desc(irq);
		return ret;
	}
	irqgen_irq = irq;
	return 0;
}

static void __exit irqgen_exit(void)
{
	int irq = irqgen_irq;

	/* a write of fire that is still in flight finishes first */
	kernel_param_lock(THIS_MODULE);
	irqgen_irq = -1;
	kernel_param_unlock(THIS_MODULE);
	free_irq(irq, &irqgen_cookie);
	irq_free_desc(irq);
}

module_init(irqgen_init);
module_exit(irqgen_exit);
MODULE_DESCRIPTION("gpulat benchmark: hard interrupts with a known count");
MODULE_LICENSE("GPL");
