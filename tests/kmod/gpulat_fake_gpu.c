// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in GPU for the job's GPU waits (the cuda family's tests): a
 * read() of /dev/gpulat_fake_gpu is a synchronising call that waits for
 * work of gpu_us microseconds, completed the way the NVIDIA driver
 * completes a blocking-sync wait.  The "GPU" (a hard hrtimer) raises an
 * interrupt on an IRQ of this module's own (dummy_irq_chip, as
 * gpulat_irqgen's), whose handler is named "nvidia"; the primary handler
 * wakes its thread (irq/N-nvidia), and the thread function wakes the
 * reader.  Interrupts may merge: one thread run completes every reader
 * whose work is done.  Test-only; never shipped.
 *
 * Parameters: gpu_us (the work of each read, 1 to 10000000; writable),
 * irq (read-only), reads (reads completed), hard_calls (primary handler),
 * thread_calls (thread function).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": [gpulat test double] " fmt

#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/llist.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

static unsigned int gpu_us = 3000;
module_param(gpu_us, uint, 0644);
MODULE_PARM_DESC(gpu_us, "microseconds of work per read (1 to 10000000)");

static int fake_irq = -1;
module_param_named(irq, fake_irq, int, 0444);
MODULE_PARM_DESC(irq, "the IRQ allocated for the completions");

static unsigned long reads, hard_calls, thread_calls;
module_param(reads, ulong, 0444);
module_param(hard_calls, ulong, 0444);
module_param(thread_calls, ulong, 0444);

static int fake_cookie;
/* work the GPU has done, for the thread function to complete */
static LLIST_HEAD(fake_done);

struct fake_work {
	struct hrtimer timer;
	struct completion done;
	struct llist_node node;
};

/* fake_gpu_done - the work is done: on the list, and the interrupt */
static enum hrtimer_restart fake_gpu_done(struct hrtimer *t)
{
	struct fake_work *w = container_of(t, struct fake_work, timer);

	llist_add(&w->node, &fake_done);
	/* a hard hrtimer runs with interrupts off, as the handler wants */
	generic_handle_irq(fake_irq);
	return HRTIMER_NORESTART;
}

static irqreturn_t fake_hard(int irq, void *dev_id)
{
	WRITE_ONCE(hard_calls, hard_calls + 1);
	return IRQ_WAKE_THREAD;
}

static irqreturn_t fake_thread(int irq, void *dev_id)
{
	struct llist_node *n = llist_del_all(&fake_done);
	struct fake_work *w, *tmp;

	WRITE_ONCE(thread_calls, thread_calls + 1);
	llist_for_each_entry_safe(w, tmp, n, node)
		complete(&w->done);
	return IRQ_HANDLED;
}

static ssize_t fake_read(struct file *f, char __user *buf, size_t len,
			 loff_t *pos)
{
	u64 ns = (u64)clamp(READ_ONCE(gpu_us), 1U, 10000000U) * NSEC_PER_USEC;
	struct fake_work *w;
	int ret;

	if (len < sizeof(ns))
		return -EINVAL;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	init_completion(&w->done);
	hrtimer_init(&w->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	w->timer.function = fake_gpu_done;
	hrtimer_start(&w->timer, ns_to_ktime(ns), HRTIMER_MODE_REL_HARD);
	ret = wait_for_completion_killable(&w->done);
	/* killed: the work, once on the list, is completed before it goes */
	if (ret && !hrtimer_cancel(&w->timer))
		wait_for_completion(&w->done);
	kfree(w);
	if (ret)
		return ret;
	WRITE_ONCE(reads, reads + 1);
	return copy_to_user(buf, &ns, sizeof(ns)) ? -EFAULT : sizeof(ns);
}

static const struct file_operations fake_fops = {
	.owner = THIS_MODULE,
	.read = fake_read,
	.llseek = noop_llseek,
};

static struct miscdevice fake_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "gpulat_fake_gpu",
	.fops = &fake_fops,
	.mode = 0666,
};

static int __init fake_gpu_init(void)
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
	ret = request_threaded_irq(irq, fake_hard, fake_thread, 0, "nvidia",
				   &fake_cookie);
	if (ret) {
		pr_err("cannot request IRQ %d: %d\n", irq, ret);
		goto free_desc;
	}
	fake_irq = irq;
	ret = misc_register(&fake_dev);
	if (ret)
		goto free_irq;
	pr_info("loaded: /dev/gpulat_fake_gpu completes through IRQ %d \"nvidia\", no NVIDIA driver or GPU\n",
		irq);
	return 0;
free_irq:
	free_irq(irq, &fake_cookie);
free_desc:
	irq_free_desc(irq);
	return ret;
}

/* no reader is left: each holds the module through its open file */
static void __exit fake_gpu_exit(void)
{
	misc_deregister(&fake_dev);
	free_irq(fake_irq, &fake_cookie);
	irq_free_desc(fake_irq);
}

module_init(fake_gpu_init);
module_exit(fake_gpu_exit);
MODULE_DESCRIPTION("gpulat test: a stand-in GPU whose work completes through an \"nvidia\" IRQ thread");
MODULE_LICENSE("GPL");
