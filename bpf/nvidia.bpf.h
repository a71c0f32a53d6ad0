/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvidia family in BPF: the NVIDIA driver's interrupt paths and kthreads,
 * and its Xid events, as the module measures them (kmod/probe_nvidia.c):
 *
 *   nvidia.hardirq       irq_handler_entry -> irq_handler_exit
 *   nvidia.thread.wake   the hard IRQ asks for irq/N-nvidia -> its switch-in;
 *                        irq/N-s-nvidia woken by irq/N-nvidia -> switch-in
 *   nvidia.thread.run    irq/N-nvidia (-s-nvidia) switch-in -> switch-out
 *   nvidia.kthread.wake  sched_wakeup of a driver kthread -> switch-in
 *
 * Handlers are the driver's when their action name starts with
 * gl_bpf_nv_state.pattern ("nvidia", the module's nvidia_pattern
 * default); the IRQ series are keyed as the module keys them,
 * gpulat_irq_key(irq, action), named "name/irq"; the kthread series by
 * pid, named by comm.  Which tasks are ours: nvidia_set.bpf.h; which
 * handlers: nvidia_irq.bpf.h; the Xids: nvidia_xid.bpf.h.  The family's
 * own programs on sched_switch, sched_wakeup and irq_handler_*, apart
 * from the sched and irq families': no state shared with them.
 * Tracepoints (hit counters): the module's seven in its order, then
 * nvidia:nvidia_dev_xid (GL_NV_HIT_*).
 */
#ifndef _GPULAT_BPF_NVIDIA_H
#define _GPULAT_BPF_NVIDIA_H

#include "nvidia_set.bpf.h"
#include "nvidia_irq.bpf.h"
#include "nvidia_xid.bpf.h"

/* --- Which tasks are ours ---------------------------------------------- */

GL_TP(sched_process_exit, gl_nv_exit, struct task_struct *p)
{
	struct gl_bpf_nv_state *st = gl_nv_state_get();
	__u32 pid;

	gl_hit(GPULAT_FAM_NVIDIA, GL_HIT_NVIDIA_PEXIT);
	if (!st || !st->used)
		return 0;
	pid = BPF_CORE_READ(p, pid);
	if (gl_nv_find(st, pid))
		gl_nv_del(st, pid);
	return 0;
}

/*
 * A kthread is named at its creation: since 6.2 copy_process() copies
 * the name kthread_create() gives, seen at sched_process_fork; before,
 * kthread_create() renamed the new thread, seen at task_rename, which
 * also sees later renames.  A user task costs a flag test.
 */
GL_TP(sched_process_fork, gl_nv_fork, struct task_struct *parent, struct task_struct *child)
{
	gl_hit(GPULAT_FAM_NVIDIA, GL_HIT_NVIDIA_FORK);
	if (gl_nv_kthread(child))
		gl_nv_scan_one(child, child->comm, GL_NV_PREEMPTED);
	return 0;
}

GL_TP(task_rename, gl_nv_rename, struct task_struct *task, const char *comm)
{
	gl_hit(GPULAT_FAM_NVIDIA, GL_HIT_NVIDIA_RENAME);
	if (gl_nv_kthread(task))
		gl_nv_scan_one(task, comm, 0);
	return 0;
}

/*
 * The kthreads there before the family attached: the tool runs this
 * task iterator once after it attached (the module's walk of the task
 * list); later ones are seen as they are named.
 */
SEC("iter/task")
int gl_nv_scan(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (t)
		gl_nv_scan_one(t, t->comm, 0);
	return 0;
}

/* --- Wakeups and runs -------------------------------------------------- */

/* gl_nv_switch_out - followed @t (task @p) leaves the CPU at @now */
static __always_inline void gl_nv_switch_out(struct gl_nv_thr *t,
					     struct task_struct *p,
					     bool preempt, __u64 now)
{
	bool irq_thread = t->kind & GL_NV_IRQ_THREAD;
	__u64 st;

	if (irq_thread) {
		st = t->run;
		t->run = 0;
		if (st)
			gl_nv_file(t, GPULAT_NV_THREAD_RUN, st, now, p);
		else
			gl_count(GPULAT_FAM_NVIDIA, GPULAT_NV_NO_START);
	}
	/* runnable: its next switch-in ends a preemption, not a wakeup */
	if (preempt || gl_task_state(p) == 0)
		t->wake = GL_NV_PREEMPTED;
	else if (!irq_thread)
		t->wake = 0;
	/* asleep, an IRQ thread keeps the request that will wake it */
}

/* gl_nv_switch_in - followed @t (task @p) gets the CPU at @now */
static __always_inline void gl_nv_switch_in(struct gl_nv_thr *t,
					    struct task_struct *p, __u64 now)
{
	bool irq_thread = t->kind & GL_NV_IRQ_THREAD;
	__u64 st = t->wake;

	t->wake = 0;
	if (!st) {
		/* an IRQ thread runs without a request too (a lock hand-off) */
		if (!irq_thread)
			gl_count(GPULAT_FAM_NVIDIA, GPULAT_NV_NO_START);
	} else if (st != GL_NV_PREEMPTED) {
		gl_nv_file(t, irq_thread ? GPULAT_NV_THREAD_WAKE :
			   GPULAT_NV_KTHREAD_WAKE, st, now, p);
	}
	if (irq_thread)
		t->run = now;
}

GL_TP(sched_switch, gl_nv_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct gl_bpf_nv_state *st = gl_nv_state_get();
	struct gl_nv_thr *pt = NULL, *nt = NULL;
	__u32 prev_pid, next_pid;
	__u64 now = 0;

	gl_hit(GPULAT_FAM_NVIDIA, GL_HIT_NVIDIA_SWITCH);
	if (!st || !st->used)
		return 0;
	/* pid 0 is the idle task: never followed */
	prev_pid = BPF_CORE_READ(prev, pid);
	next_pid = BPF_CORE_READ(next, pid);
	if (prev_pid)
		pt = gl_nv_find(st, prev_pid);
	if (next_pid)
		nt = gl_nv_find(st, next_pid);
	/* one clock read for both (no "pt || nt": pointers do not OR) */
	if (pt) {
		now = bpf_ktime_get_ns();
		gl_nv_switch_out(pt, prev, preempt, now);
	}
	if (nt) {
		if (!pt)
			now = bpf_ktime_get_ns();
		gl_nv_switch_in(nt, next, now);
	}
	return 0;
}

GL_TP(sched_wakeup, gl_nv_wakeup, struct task_struct *p)
{
	struct gl_bpf_nv_state *st = gl_nv_state_get();
	struct gl_nv_thr *t, *w;
	__u32 pid, kind;

	gl_hit(GPULAT_FAM_NVIDIA, GL_HIT_NVIDIA_WAKEUP);
	if (!st || !st->used)
		return 0;
	pid = BPF_CORE_READ(p, pid);
	t = pid ? gl_nv_find(st, pid) : NULL;
	if (!t)
		return 0;
	kind = t->kind & GL_NV_KIND_MASK;
	/* irq/N-nvidia: timed from its interrupt's request, not here */
	if (kind == GL_NV_IRQ_THREAD)
		return 0;
	/* irq/N-s-nvidia: only irq/N-nvidia's wakeup of it is a request */
	if (kind == GL_NV_IRQ_SECONDARY) {
		w = gl_nv_find(st, (__u32)bpf_get_current_pid_tgid());
		if (!w || (w->kind & GL_NV_KIND_MASK) != GL_NV_IRQ_THREAD)
			return 0;
	}
	t->wake = bpf_ktime_get_ns();
	return 0;
}

#endif /* _GPULAT_BPF_NVIDIA_H */
