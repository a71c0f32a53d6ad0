/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The outlier trace in BPF: a sample at or over its family's gate goes
 * to one ring buffer as the module's struct gpulat_rec_sample, followed
 * by a copy of its CPU's history (struct gl_bpf_rec).  While the tool
 * reads, the sched, irq and softirq programs keep the module's per-CPU
 * histories (who got the CPU, hard IRQ and softirq time); the tool names
 * who held the CPU from that copy, as the module does in the kernel
 * (user/lib/bpf_trace.c): the walk's loops are too much for the
 * verifier, and BPF cannot look a task up by pid on every kernel we
 * support.  Documentation/bpf.rst.
 */
#ifndef _GPULAT_BPF_TRACE_H
#define _GPULAT_BPF_TRACE_H

#include "common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gl_trace_act);
} gl_act SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, GL_BPF_TRACE_BYTES);
} gl_trace SEC(".maps");

/* Records the ring buffer had no room for, per CPU (GPULAT_REC_LOST). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} gl_trace_lost SEC(".maps");

/* How an outlier is recorded (@flags of gl_trace_check()). */
#define GL_OUT_CPU_WAIT		0x1

/* while the tool reads the trace: the histories to keep */
static __always_inline bool gl_trace_on(void)
{
	return gl_conf.keep_history;
}

static __always_inline struct gl_trace_act *gl_act_this(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&gl_act, &zero);
}

/* gl_trace_switch - @pid got this CPU at @now */
static __always_inline void gl_trace_switch(__u64 now, __s32 pid)
{
	struct gl_trace_act *a = gl_act_this();
	struct gl_trace_switch *s;

	if (!a)
		return;
	s = &a->sw[a->sw_pos++ & (GL_TRACE_SWITCHES - 1)];
	s->t = now;
	s->pid = pid;
}

/* gl_trace_irq_span - a hard IRQ (@sirq false) or softirq ran @ns to @now */
static __always_inline void gl_trace_span(bool sirq, __u64 now, __u64 ns)
{
	struct gl_trace_act *a = gl_act_this();
	struct gl_trace_span *s;

	if (!a)
		return;
	if (sirq)
		s = &a->sirq[a->sirq_pos++ & (GL_TRACE_IRQS - 1)];
	else
		s = &a->irq[a->irq_pos++ & (GL_TRACE_IRQS - 1)];
	s->end = now;
	s->ns = ns;
}

/*
 * A BPF function takes five arguments at most: gl_trace_sample() gets
 * family, flags and series in one (@what).
 */
#define GL_TRACE_WHAT(family, series, flags) \
	((__u64)(family) << 40 | (__u64)(flags) << 32 | (__u32)(series))

/*
 * gl_trace_sample - record an outlier; the slow path, taken only for
 * samples over an open gate.  Not inlined: one copy for every program.
 */
static __noinline void gl_trace_sample(__u64 what, __u64 key, __u64 end_ns,
				       __u64 latency_ns,
				       struct task_struct *task)
{
	__u32 family = what >> 40, flags = (__u8)(what >> 32), series = what;
	struct gpulat_rec_sample *s;
	struct gl_bpf_rec *r;
	struct gl_trace_act *a;
	__u32 zero = 0;
	__u64 *lost;
	bool hist;

	if (task && BPF_CORE_READ(task, tgid) == (int)gl_conf.self_tgid)
		return;
	a = gl_act_this();
	hist = (flags & GL_OUT_CPU_WAIT) && a && gl_conf.keep_history;
	r = bpf_ringbuf_reserve(&gl_trace, sizeof(*r), 0);
	if (!r) {
		lost = bpf_map_lookup_elem(&gl_trace_lost, &zero);
		if (lost)
			(*lost)++;
		return;
	}
	s = &r->s;
	__builtin_memset(s, 0, sizeof(*s));
	s->hdr.size = sizeof(*s);
	s->hdr.type = GPULAT_REC_SAMPLE;
	s->hdr.cpu = bpf_get_smp_processor_id();
	s->hdr.time_ns = end_ns;
	s->family = family;
	s->series = series;
	s->latency_ns = latency_ns;
	s->key = key;
	if (task) {
		s->pid = BPF_CORE_READ(task, pid);
		s->tgid = BPF_CORE_READ(task, tgid);
		bpf_probe_read_kernel_str(s->comm, sizeof(s->comm),
					  &task->comm);
	}
	/* the CPU's history as it is now: the tool names the culprits */
	r->keeps = hist ? gl_conf.keep_history : 0;
	r->since_ns = gl_conf.since_ns;
	if (hist)
		bpf_probe_read_kernel(&r->act, sizeof(r->act), a);
	else
		__builtin_memset(&r->act, 0, sizeof(r->act.sw_pos) * 4);
	bpf_ringbuf_submit(r, 0);
}

/*
 * gl_trace_check - after a program filed @latency_ns ending at @end_ns:
 * record it if it passes the family's gate.  @task: whom it happened to
 * (NULL: a device).
 */
static __always_inline void gl_trace_check(__u32 family, __u32 series,
					   __u64 key, __u64 end_ns,
					   __u64 latency_ns,
					   struct task_struct *task,
					   __u32 flags)
{
	if (family < GPULAT_FAM_MAX && latency_ns >= gl_conf.gate[family])
		gl_trace_sample(GL_TRACE_WHAT(family, series, flags), key,
				end_ns, latency_ns, task);
}

#endif /* _GPULAT_BPF_TRACE_H */
