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

#include "cgroup.bpf.h"

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

/* gl_trace_switch - @pid (task @t) got this CPU at @now */
static __always_inline void gl_trace_switch(__u64 now, __s32 pid,
					    struct task_struct *t)
{
	struct gl_trace_act *a = gl_act_this();
	struct gl_trace_switch *s;

	if (!a)
		return;
	s = &a->sw[a->sw_pos++ & (GL_TRACE_SWITCHES - 1)];
	s->t = now;
	s->pid = pid;
	/* the culprits' cgroups, taken as they run (the tool names them) */
	s->cg = pid ? gl_cg_task_id(t) : 0;
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
 * What gl_trace_sample() records: a BPF function takes five arguments at
 * most, so they come on the caller's stack.
 */
struct gl_out {
	__u32 family;
	__u32 series;
	__u32 flags;
	__u32 pad;
	__u64 key;
	__u64 end_ns;
	__u64 latency_ns;
	__u64 cg;		/* the cgroup it happened to, when no @task */
	struct task_struct *task;
};

/*
 * gl_trace_sample - record an outlier; the slow path, taken only for
 * samples over an open gate.  Not inlined: one copy for every program.
 */
static __noinline void gl_trace_sample(const struct gl_out *o)
{
	struct task_struct *task = o->task;
	struct gpulat_rec_sample *s;
	struct gl_bpf_rec *r;
	struct gl_trace_act *a;
	__u32 zero = 0;
	__u64 *lost;
	bool hist;

	if (task && BPF_CORE_READ(task, tgid) == (int)gl_conf.self_tgid)
		return;
	a = gl_act_this();
	hist = (o->flags & GL_OUT_CPU_WAIT) && a && gl_conf.keep_history;
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
	s->hdr.time_ns = o->end_ns;
	s->family = o->family;
	s->series = o->series;
	s->latency_ns = o->latency_ns;
	s->key = o->key;
	s->flags = GPULAT_REC_F_CGROUP;
	s->cgroup_id = o->cg;
	if (task) {
		s->pid = BPF_CORE_READ(task, pid);
		s->tgid = BPF_CORE_READ(task, tgid);
		bpf_probe_read_kernel_str(s->comm, sizeof(s->comm),
					  &task->comm);
		s->cgroup_id = gl_cg_task_id(task);
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
 * gl_trace_check_cg - after a program filed @latency_ns ending at
 * @end_ns: record it if it passes the family's gate.  @task: whom it
 * happened to (NULL: a device, or a task gone by then whose cgroup is
 * @cg).
 */
static __always_inline void gl_trace_check_cg(__u32 family, __u32 series,
					      __u64 key, __u64 end_ns,
					      __u64 latency_ns,
					      struct task_struct *task,
					      __u32 flags, __u64 cg)
{
	struct gl_out o;

	if (family >= GPULAT_FAM_MAX || latency_ns < gl_conf.gate[family])
		return;
	o.family = family;
	o.series = series;
	o.flags = flags;
	o.pad = 0;
	o.key = key;
	o.end_ns = end_ns;
	o.latency_ns = latency_ns;
	o.cg = cg;
	o.task = task;
	gl_trace_sample(&o);
}

/* gl_trace_check - gl_trace_check_cg() with the cgroup of @task */
static __always_inline void gl_trace_check(__u32 family, __u32 series,
					   __u64 key, __u64 end_ns,
					   __u64 latency_ns,
					   struct task_struct *task,
					   __u32 flags)
{
	gl_trace_check_cg(family, series, key, end_ns, latency_ns, task,
			  flags, 0);
}

#endif /* _GPULAT_BPF_TRACE_H */
