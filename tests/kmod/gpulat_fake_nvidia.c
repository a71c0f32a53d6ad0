// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for the NVIDIA driver's interrupt paths, for the nvidia
 * family's tests.  Test-only; never shipped.
 *
 * It shares an existing legacy IRQ line (module parameter irq, the e1000's
 * in the test VM) the way the driver requests its vectors:
 * request_threaded_irq(irq, hard, thread, IRQF_SHARED, "nvidia", cookie).
 * It has no device, so it cannot tell whether the interrupt was its own:
 * the hard handler claims every interrupt of the line and returns
 * IRQ_WAKE_THREAD, so that each one exercises the thread path (the driver,
 * too, reports unhandled interrupts as handled).  The thread function wakes
 * a kthread named like the driver's UVM bottom half, "UVM GPU1 BH".
 *
 * Read-only parameters count what ran: hard_calls (hard handler), and
 * thread_calls (thread function), bh_naps (the kthread went to sleep),
 * bh_runs (it found work); bh_pid is the kthread's pid.  IRQF_ONESHOT is
 * not requested: without threadirqs it conflicts with the e1000's flags on
 * the shared line (with threadirqs the kernel adds it to every handler).
 */
/* Its log lines say it is a test double, not the NVIDIA driver. */
#define pr_fmt(fmt) KBUILD_MODNAME ": [gpulat test double] " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>

static int irq = -1;
module_param(irq, int, 0444);
MODULE_PARM_DESC(irq, "IRQ line to share (required)");

static unsigned long hard_calls, thread_calls, bh_naps, bh_runs;
static int bh_pid;
module_param(hard_calls, ulong, 0444);
module_param(thread_calls, ulong, 0444);
module_param(bh_naps, ulong, 0444);
module_param(bh_runs, ulong, 0444);
module_param(bh_pid, int, 0444);

static int fake_cookie;
static struct task_struct *fake_bh;
static atomic_t fake_bh_work = ATOMIC_INIT(0);

static irqreturn_t fake_hard(int irq, void *dev_id)
{
	WRITE_ONCE(hard_calls, hard_calls + 1);
	return IRQ_WAKE_THREAD;
}

static irqreturn_t fake_thread(int irq, void *dev_id)
{
	WRITE_ONCE(thread_calls, thread_calls + 1);
	atomic_set(&fake_bh_work, 1);
	wake_up_process(fake_bh);
	return IRQ_HANDLED;
}

/* fake_bh_fn - sleep until the thread function hands over work */
static int fake_bh_fn(void *unused)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		if (!atomic_xchg(&fake_bh_work, 0)) {
			schedule();
			WRITE_ONCE(bh_naps, bh_naps + 1);
			continue;
		}
		__set_current_state(TASK_RUNNING);
		WRITE_ONCE(bh_runs, bh_runs + 1);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static int __init fake_nvidia_init(void)
{
	int ret;

	if (irq < 0)
		return -EINVAL;
	fake_bh = kthread_run(fake_bh_fn, NULL, "UVM GPU%u BH", 1);
	if (IS_ERR(fake_bh))
		return PTR_ERR(fake_bh);
	bh_pid = fake_bh->pid;
	ret = request_threaded_irq(irq, fake_hard, fake_thread, IRQF_SHARED,
				   "nvidia", &fake_cookie);
	if (ret) {
		pr_err("cannot share IRQ %d: %d\n", irq, ret);
		kthread_stop(fake_bh);
		return ret;
	}
	pr_info("loaded: IRQ handler \"nvidia\" on IRQ %d and kthread \"UVM GPU1 BH\", no NVIDIA driver or GPU\n",
		irq);
	return 0;
}

static void __exit fake_nvidia_exit(void)
{
	free_irq(irq, &fake_cookie);
	kthread_stop(fake_bh);
}

module_init(fake_nvidia_init);
module_exit(fake_nvidia_exit);
MODULE_DESCRIPTION("gpulat test: a stand-in for the NVIDIA driver's IRQ paths");
MODULE_LICENSE("GPL");
