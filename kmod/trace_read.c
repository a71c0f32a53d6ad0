// SPDX-License-Identifier: GPL-2.0
/*
 * The outlier trace's readers: each open file's position in every CPU's
 * ring, read() and poll() (the rings themselves: see the top of trace.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "fault.h"
#include "trace_int.h"

/* What one open file has read of each CPU's ring. */
struct gpulat_reader {
	struct mutex lock;		/* concurrent reads of one file */
	s32 pid;			/* who reads it: one of the trace's own */
	u64 *tail;			/* next record to read, per CPU */
	u64 *lost;			/* missed, not yet reported, per CPU */
	union gpulat_rec *staged;	/* next record per CPU, copied */
	unsigned long *has_staged;	/* bitmap by CPU */
};

/* --- Reading ----------------------------------------------------------- */

/* trace_self_reader - @rd is read by the current task: follow it */
static void trace_self_reader(struct gpulat_reader *rd)
{
	if (likely(READ_ONCE(rd->pid) == current->pid))
		return;
	mutex_lock(&gpulat_trace_lock);
	if (rd->pid)
		gpulat_trace_self_del(rd->pid);
	rd->pid = current->pid;
	gpulat_trace_self_add(rd->pid);
	mutex_unlock(&gpulat_trace_lock);
}

/*
 * trace_stage - copy @cpu's next record for @rd, if there is one; counts
 * what the ring overwrote before this reader got to it
 */
static bool trace_stage(struct gpulat_reader *rd, int cpu)
{
	struct gpulat_ring *r = per_cpu_ptr(gpulat_trace_rings, cpu);
	union gpulat_rec *dst = &rd->staged[cpu];
	u64 head, tail;

	if (test_bit(cpu, rd->has_staged))
		return true;
	for (;;) {
		tail = rd->tail[cpu];
		/* head before the slot; pairs with trace_put() */
		head = smp_load_acquire(&r->head);
		if (head == tail)
			return false;
		if (head - tail > gpulat_trace_mask + 1) {
			rd->lost[cpu] += head - tail - (gpulat_trace_mask + 1);
			tail = head - (gpulat_trace_mask + 1);
		}
		memcpy(dst, &r->slot[tail & gpulat_trace_mask], sizeof(*dst));
		smp_rmb();	/* the copy before claimed; pairs with trace_put */
		rd->tail[cpu] = tail + 1;
		if (READ_ONCE(r->claimed) <= tail + gpulat_trace_mask + 1 &&
		    dst->hdr.size >= sizeof(dst->hdr) &&
		    dst->hdr.size <= sizeof(*dst))
			break;
		rd->lost[cpu]++;	/* overwritten while copied */
	}
	__set_bit(cpu, rd->has_staged);
	return true;
}

/* trace_pending - whether a read would find something; changes nothing */
static bool trace_pending(struct gpulat_reader *rd)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct gpulat_ring *r = per_cpu_ptr(gpulat_trace_rings, cpu);

		if (READ_ONCE(rd->lost[cpu]) || test_bit(cpu, rd->has_staged))
			return true;
		/* as in trace_stage(), which then copies the slot */
		if (smp_load_acquire(&r->head) != READ_ONCE(rd->tail[cpu]))
			return true;
	}
	return false;
}

/* trace_fill - copy what fits of the records ready for @rd, oldest first */
static ssize_t trace_fill(struct gpulat_reader *rd, char __user *buf,
			  size_t len)
{
	struct gpulat_rec_lost lost = { };
	size_t done = 0;
	int cpu, best;

	for (;;) {
		/* staging counts what the rings overwrote ... */
		best = -1;
		for_each_possible_cpu(cpu)
			if (trace_stage(rd, cpu) &&
			    (best < 0 || rd->staged[cpu].hdr.time_ns <
					 rd->staged[best].hdr.time_ns))
				best = cpu;
		/* ... which happened before what is staged: reported first */
		for_each_possible_cpu(cpu) {
			if (!rd->lost[cpu])
				continue;
			if (done + sizeof(lost) > len)
				return done ? done : -EINVAL;
			lost.hdr.size = sizeof(lost);
			lost.hdr.type = GPULAT_REC_LOST;
			lost.hdr.cpu = cpu;
			lost.hdr.time_ns = ktime_get_mono_fast_ns();
			lost.lost = rd->lost[cpu];
			if (copy_to_user(buf + done, &lost, sizeof(lost)))
				return done ? done : -EFAULT;
			atomic64_add(rd->lost[cpu], &gpulat_trace_lost_total);
			rd->lost[cpu] = 0;
			done += sizeof(lost);
		}
		if (best < 0)
			return done;
		if (done + rd->staged[best].hdr.size > len)
			return done ? done : -EINVAL;
		if (copy_to_user(buf + done, &rd->staged[best],
				 rd->staged[best].hdr.size))
			return done ? done : -EFAULT;
		done += rd->staged[best].hdr.size;
		__clear_bit(best, rd->has_staged);
	}
}

static void trace_reader_free(struct gpulat_reader *rd)
{
	if (!rd)
		return;
	gl_kvfree(rd->tail);
	gl_kvfree(rd->lost);
	gl_kvfree(rd->staged);
	gl_bitmap_free(rd->has_staged);
	gl_kfree(rd);
}

/* trace_reader - @file's reader state, made on its first read or poll */
static struct gpulat_reader *trace_reader(struct file *file)
{
	/* pairs with the release below: rd is complete when seen */
	struct gpulat_reader *rd = smp_load_acquire(&file->private_data);
	int cpu, ret;

	if (rd)
		return rd;
	mutex_lock(&gpulat_trace_lock);
	rd = file->private_data;
	if (rd)
		goto out;
	ret = gpulat_trace_alloc();
	if (ret) {
		rd = ERR_PTR(ret);
		goto out;
	}
	rd = gl_kzalloc(sizeof(*rd));
	if (!rd) {
		rd = ERR_PTR(-ENOMEM);
		goto out;
	}
	mutex_init(&rd->lock);
	rd->tail = gl_kvcalloc(nr_cpu_ids, sizeof(u64));
	rd->lost = gl_kvcalloc(nr_cpu_ids, sizeof(u64));
	rd->staged = gl_kvcalloc(nr_cpu_ids, sizeof(*rd->staged));
	rd->has_staged = gl_bitmap_zalloc(nr_cpu_ids);
	if (!rd->tail || !rd->lost || !rd->staged || !rd->has_staged) {
		trace_reader_free(rd);
		rd = ERR_PTR(-ENOMEM);
		goto out;
	}
	/* a new reader starts now */
	for_each_possible_cpu(cpu) {
		struct gpulat_ring *r = per_cpu_ptr(gpulat_trace_rings, cpu);

		/* pairs with trace_put() */
		rd->tail[cpu] = smp_load_acquire(&r->head);
	}
	/* histories start now: what they hold from before is stale */
	if (!gpulat_trace_readers) {
		WRITE_ONCE(gpulat_trace_since, ktime_get_mono_fast_ns());
		gpulat_trace_self_waker(true);
	}
	rd->pid = current->pid;
	gpulat_trace_self_add(rd->pid);
	WRITE_ONCE(gpulat_trace_readers, gpulat_trace_readers + 1);
	gpulat_trace_gate_update();
	/* rd complete before another thread of this file sees it */
	smp_store_release(&file->private_data, rd);
out:
	mutex_unlock(&gpulat_trace_lock);
	return rd;
}

ssize_t gpulat_trace_read(struct file *file, char __user *buf, size_t len)
{
	struct gpulat_reader *rd = trace_reader(file);
	ssize_t ret;

	if (IS_ERR(rd))
		return PTR_ERR(rd);
	trace_self_reader(rd);
	for (;;) {
		if (mutex_lock_interruptible(&rd->lock))
			return -ERESTARTSYS;
		ret = trace_fill(rd, buf, len);
		mutex_unlock(&rd->lock);
		if (ret)
			return ret;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(gpulat_trace_wq, trace_pending(rd)))
			return -ERESTARTSYS;
	}
}

__poll_t gpulat_trace_poll(struct file *file, struct poll_table_struct *pt)
{
	struct gpulat_reader *rd = trace_reader(file);

	if (IS_ERR(rd))
		return EPOLLERR;
	trace_self_reader(rd);
	poll_wait(file, &gpulat_trace_wq, pt);
	return trace_pending(rd) ? EPOLLIN | EPOLLRDNORM : 0;
}

void gpulat_trace_release(struct file *file)
{
	struct gpulat_reader *rd = file->private_data;
	int cpu;

	if (!rd)
		return;
	mutex_lock(&gpulat_trace_lock);
	for_each_possible_cpu(cpu)
		atomic64_add(rd->lost[cpu], &gpulat_trace_lost_total);
	gpulat_trace_self_del(rd->pid);
	WRITE_ONCE(gpulat_trace_readers, gpulat_trace_readers - 1);
	if (!gpulat_trace_readers)
		gpulat_trace_self_waker(false);
	gpulat_trace_gate_update();
	mutex_unlock(&gpulat_trace_lock);
	trace_reader_free(rd);
}
