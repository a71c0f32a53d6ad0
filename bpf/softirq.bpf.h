/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softirq family in BPF: per CPU and vector, as the module measures it
 * (kmod/probe_softirq.c):
 *
 *   softirq.wait   softirq_raise that finds the vector not pending on
 *                  this CPU -> the softirq_entry that serves it
 *   softirq.run    softirq_entry -> softirq_exit
 *
 * Per-CPU series at GL_BPF_PCPU_SOFTIRQ + GPULAT_SOFTIRQ_SERIES(vec,
 * kind).  Stamps per CPU, as there: a raise that finds the vector's bit
 * clear starts a wait, later ones join it; each vector queues two waits
 * (__do_softirq() clears the bits before it runs the vectors), each entry
 * takes the oldest.  The pending bits are the kernel's own, read from the
 * per-CPU variable that holds them (gl_softirq_pending()).  Tracepoints
 * (GL_BPF_HIT()): 0 softirq_exit, 1 softirq_entry, 2 softirq_raise.
 */
#ifndef _GPULAT_BPF_SOFTIRQ_H
#define _GPULAT_BPF_SOFTIRQ_H

#include "tp.bpf.h"
#include "trace.bpf.h"

#define GL_SIRQ_VECS	GPULAT_SOFTIRQ_NR_VECS

struct gl_sirq_pcpu {
	__u64 raised[GL_SIRQ_VECS][2];	/* waits started, oldest first */
	__u64 run_start;		/* entry of the running vector, or 0 */
	__u32 run_vec;
	__u32 pad;
	__u64 pending_at;		/* this CPU's pending mask, or 0 */
};

/* zeroed by the tool when the family is switched on (the module's clear) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gl_sirq_pcpu);
} gl_sirq_pc SEC(".maps");

/*
 * Where this CPU's pending mask (local_softirq_pending()) lies, as an
 * offset from the CPU's struct rq: both are static per-CPU variables, so
 * one offset serves every CPU.  x86 moved the mask from irq_stat to
 * pcpu_hot in 6.2 and to a variable of its own, __softirq_pending, in
 * 6.15; the tool finds which this kernel has, and where, in its BTF (or
 * kallsyms, 5.10's BTF has no variables) and sets this before the load
 * (user/lib/bpf_percpu.c).  0: not found.  Per-CPU variables cannot be
 * read by name here: a typed ksym needs kallsyms to list data symbols,
 * which not every kernel does.
 */
const volatile __s64 gl_sirq_pending_rq_off;

/*
 * The ktimers thread of PREEMPT_RT (6.1-rt) serves TIMER and HRTIMER: a
 * raise of theirs sets that thread's mask, not the CPU's pending bits,
 * so their wait is not timed, as in the module (kmod/compat/irq.h).  Set
 * by the tool when the kernel has pending_timer_softirq.
 */
const volatile bool gl_sirq_ktimers;

static __always_inline bool gl_sirq_wait_timed(__u32 vec)
{
	return !gl_sirq_ktimers || (vec != 1 && vec != 8);
}

/*
 * gl_softirq_pending - this CPU's pending mask, or -1 when unknown (no
 * wait starts then, and the entry that finds none counts
 * softirq.no_start): the CPU's rq is found from the current task, whose
 * sched entity points into it (se.cfs_rq->rq, with group scheduling:
 * every distribution kernel), once per CPU.
 */
static __always_inline int gl_softirq_pending(struct gl_sirq_pcpu *pc)
{
	struct task_struct *t;
	struct rq *rq;
	__u16 v;

	if (!gl_sirq_pending_rq_off)
		return -1;
	if (!pc->pending_at) {
		t = (struct task_struct *)bpf_get_current_task();
		if (!bpf_core_field_exists(t->se.cfs_rq))
			return -1;
		rq = BPF_CORE_READ(t, se.cfs_rq, rq);
		if (!rq || BPF_CORE_READ(rq, cpu) !=
			   (int)bpf_get_smp_processor_id())
			return -1;
		pc->pending_at = (__u64)rq + gl_sirq_pending_rq_off;
	}
	if (bpf_probe_read_kernel(&v, sizeof(v), (void *)pc->pending_at))
		return -1;
	return v;
}

static __always_inline struct gl_sirq_pcpu *gl_sirq_this(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&gl_sirq_pc, &zero);
}

static __always_inline void gl_sirq_file(__u32 vec, __u32 kind, __u64 start,
					 __u64 now)
{
	__u32 series = GPULAT_SOFTIRQ_SERIES(vec, kind);
	__s64 delta = now - start;

	if (delta < 0) {
		gl_count(GPULAT_FAM_SOFTIRQ, GPULAT_SOFTIRQ_NEGATIVE);
		return;
	}
	gl_pcpu_record(GL_BPF_PCPU_SOFTIRQ + series, delta);
	if (kind == GPULAT_SOFTIRQ_RUN &&
	    (gl_conf.keep_history & GL_KEEPS_SOFTIRQ))
		gl_trace_span(true, now, delta);
	/* a raised softirq waits for this CPU: name who held it */
	gl_trace_check(GPULAT_FAM_SOFTIRQ, series, vec, now, delta, NULL,
		       GL_OUT_CURRENT |
		       (kind == GPULAT_SOFTIRQ_WAIT ? GL_OUT_CPU_WAIT : 0));
}

/* always with interrupts off (__raise_softirq_irqoff()): nothing nests */
GL_TP(softirq_raise, gl_softirq_raise, unsigned int vec)
{
	struct gl_sirq_pcpu *pc;
	int pending;
	__u64 *q;

	gl_hit(GPULAT_FAM_SOFTIRQ, GL_HIT_SOFTIRQ_RAISE);
	pc = gl_sirq_this();
	if (vec >= GL_SIRQ_VECS || !pc || !gl_sirq_wait_timed(vec))
		return 0;
	/* the event fires before the bit is set: a set bit is not the first */
	pending = gl_softirq_pending(pc);
	if (pending < 0 || (pending & (1U << vec)))
		return 0;
	q = pc->raised[vec];
	if (q[1]) {
		/* a third run queued before two entries: the oldest is lost */
		gl_count(GPULAT_FAM_SOFTIRQ, GPULAT_SOFTIRQ_NO_START);
		q[0] = q[1];
		q[1] = 0;
	}
	q[q[0] ? 1 : 0] = bpf_ktime_get_ns();
	return 0;
}

GL_TP(softirq_entry, gl_softirq_entry, unsigned int vec)
{
	struct gl_sirq_pcpu *pc = gl_sirq_this();
	__u64 now = bpf_ktime_get_ns(), raised, *q;

	gl_hit(GPULAT_FAM_SOFTIRQ, GL_HIT_SOFTIRQ_ENTRY);
	if (!pc)
		return 0;
	if (vec >= GL_SIRQ_VECS) {
		gl_count(GPULAT_FAM_SOFTIRQ, GPULAT_SOFTIRQ_NO_START);
		return 0;
	}
	/* a run whose exit never came */
	if (pc->run_start)
		gl_count(GPULAT_FAM_SOFTIRQ, GPULAT_SOFTIRQ_NO_START);
	pc->run_vec = vec;
	pc->run_start = now;
	q = pc->raised[vec];
	raised = q[0];
	q[0] = q[1];
	q[1] = 0;
	if (raised)
		gl_sirq_file(vec, GPULAT_SOFTIRQ_WAIT, raised, now);
	else if (gl_sirq_wait_timed(vec))
		gl_count(GPULAT_FAM_SOFTIRQ, GPULAT_SOFTIRQ_NO_START);
	return 0;
}

GL_TP(softirq_exit, gl_softirq_exit, unsigned int vec)
{
	struct gl_sirq_pcpu *pc = gl_sirq_this();
	__u64 now = bpf_ktime_get_ns(), start;

	gl_hit(GPULAT_FAM_SOFTIRQ, GL_HIT_SOFTIRQ_EXIT);
	if (!pc)
		return 0;
	start = pc->run_start;
	pc->run_start = 0;
	if (!start || vec >= GL_SIRQ_VECS || pc->run_vec != vec)
		gl_count(GPULAT_FAM_SOFTIRQ, GPULAT_SOFTIRQ_NO_START);
	else
		gl_sirq_file(vec, GPULAT_SOFTIRQ_RUN, start, now);
	return 0;
}

#endif /* _GPULAT_BPF_SOFTIRQ_H */
