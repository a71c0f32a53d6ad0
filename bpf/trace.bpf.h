/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The outlier trace in BPF: a sample at or over its family's gate goes,
 * as the module's struct gpulat_rec_sample followed by a copy of its
 * CPU's history (struct gl_bpf_rec), to the ring of each reader whose
 * own threshold it reaches (every reader gets every record, or a
 * counted loss).  While the tool
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

/*
 * What each CPU did lately, and who held it (gpulat_hold.h) after: a
 * record copies the first part only.
 */
struct gl_act_cpu {
	struct gl_trace_act act;
	struct gpulat_hold hold;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gl_act_cpu);
} gl_act SEC(".maps");

/* A reader's ring; the tool makes one per reader and puts it in gl_rings. */
struct gl_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, GL_BPF_TRACE_BYTES);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, GL_BPF_READERS);
	__type(key, __u32);
	__array(values, struct gl_ring);
} gl_rings SEC(".maps");

/* Records lost per reader, and left out as a reader's own, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gl_bpf_trace_cnt);
} gl_trace_cnt SEC(".maps");

/*
 * A record is made once, here, and copied into each reader's ring: too
 * large for the stack.  One per nesting level on a CPU (task, softirq,
 * hard IRQ, NMI), since a program can run on top of another.
 */
#define GL_TRACE_NEST		4

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GL_TRACE_NEST);
	__type(key, __u32);
	__type(value, struct gl_bpf_rec);
} gl_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} gl_nest SEC(".maps");

/*
 * gl_trace_self - whether @pid is a reader's own thread: counted and left
 * out of every reader's trace (the module's trace_self_left)
 */
static __always_inline bool gl_trace_self(struct gl_bpf_trace_cnt *cnt,
					  __s32 pid)
{
	__u32 i;

	/* unrolled: a loop counter kept on the stack loses its bounds */
#pragma unroll
	for (i = 0; i < GL_BPF_READERS; i++)
		if (gl_conf.rdr[i].tgid && (__s32)gl_conf.rdr[i].pid == pid) {
			cnt->self_left++;
			return true;
		}
	return false;
}

/* gl_trace_out_to - gl_trace_out() for the reader in slot @slot */
static __always_inline void gl_trace_out_to(struct gl_bpf_trace_cnt *cnt,
					    const void *rec, __u32 len,
					    __u32 family, __u64 latency_ns,
					    __u32 slot)
{
	__u32 key = slot;	/* the lookup takes its address */
	void *ring;

	if (!gl_conf.rdr[slot].tgid ||
	    latency_ns < gl_conf.rdr[slot].gate[family])
		return;
	if (!rec) {		/* could not be made: lost for this reader */
		cnt->lost[slot]++;
		return;
	}
	ring = bpf_map_lookup_elem(&gl_rings, &key);
	if (!ring || bpf_ringbuf_output(ring, (void *)rec, len, 0))
		cnt->lost[slot]++;
}

/*
 * gl_trace_out - @len bytes at @rec to each reader whose threshold for
 * @family @latency_ns reaches (~0 for an event, which every reader gets);
 * @rec NULL: a record that could not be made, counted lost for each.
 * Written out slot by slot: a loop whose counter's address is taken (the
 * map key) is kept on the stack, where the verifier loses its bounds.
 */
#if GL_BPF_READERS != 4
#error "gl_trace_out() writes to 4 readers"
#endif
static __always_inline void gl_trace_out(struct gl_bpf_trace_cnt *cnt,
					 const void *rec, __u32 len,
					 __u32 family, __u64 latency_ns)
{
	if (family >= GPULAT_FAM_MAX)
		return;
	gl_trace_out_to(cnt, rec, len, family, latency_ns, 0);
	gl_trace_out_to(cnt, rec, len, family, latency_ns, 1);
	gl_trace_out_to(cnt, rec, len, family, latency_ns, 2);
	gl_trace_out_to(cnt, rec, len, family, latency_ns, 3);
}

/* How an outlier is recorded (@flags of gl_trace_check()). */
#define GL_OUT_CPU_WAIT		0x1
/* it happened to current: fetched on the slow path, not on every event */
#define GL_OUT_CURRENT		0x2

/* while the tool reads the trace: the histories to keep */
static __always_inline bool gl_trace_on(void)
{
	return gl_conf.keep_history;
}

static __always_inline struct gl_act_cpu *gl_act_cpu_this(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&gl_act, &zero);
}

static __always_inline struct gl_trace_act *gl_act_this(void)
{
	struct gl_act_cpu *c = gl_act_cpu_this();

	return c ? &c->act : NULL;
}

/* gl_trace_switch - @pid (task @t) got this CPU from @prev at @now */
static __always_inline void gl_trace_switch(__u64 now, __s32 prev, __s32 pid,
					    struct task_struct *t)
{
	struct gl_act_cpu *c = gl_act_cpu_this();
	struct gl_trace_switch *s;
	struct gl_trace_act *a;
	__u64 from, since = gl_conf.since_ns;

	if (!c)
		return;
	a = &c->act;
	/*
	 * @prev had the CPU since its switch-in, or since the readers began
	 * if that is older (no switch since then, or it would be there)
	 */
	s = &a->sw[(a->sw_pos - 1) & (GL_TRACE_SWITCHES - 1)];
	from = s->t > since ? s->t : since;
	gpulat_hold_credit(&c->hold, prev, s->pid == prev ? s->cg : 0, from,
			   now, gl_conf.hold_shift);
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
 * gl_hold_pick - the holders of a wait from @start: when the history in
 * @r does not reach back that far, the checkpoint for it and the slots
 */
static __always_inline void gl_hold_pick(struct gl_bpf_rec *r, __u64 start,
					 __u64 end)
{
	const struct gpulat_hold_ck *c;
	struct gl_act_cpu *a;
	__u32 n;
	int reached;

	n = r->act.sw_pos < GL_TRACE_SWITCHES ? r->act.sw_pos :
						GL_TRACE_SWITCHES;
	if (!n || r->act.sw[(r->act.sw_pos - n) &
			    (GL_TRACE_SWITCHES - 1)].t <= start)
		return;
	a = gl_act_cpu_this();
	if (!a)
		return;
	c = gpulat_hold_pick(&a->hold, gl_conf.hold_shift, gl_conf.since_ns,
			     start, end, &reached);
	if (!c)
		return;
	r->hold_ck = *c;
	__builtin_memcpy(r->hold_slot, a->hold.slot, sizeof(r->hold_slot));
	r->hold_reached = reached;
	r->hold_ok = 1;
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
	/*
	 * what the readers' thresholds are held to: latency_ns, or for the
	 * parts of a cuda call the host's share of the call
	 */
	__u64 gate_ns;
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
	struct gl_bpf_trace_cnt *cnt;
	struct gpulat_rec_sample *s;
	struct gl_bpf_rec *r;
	struct gl_trace_act *a;
	__u32 zero = 0, *nest, d;
	bool hist;

	if (o->flags & GL_OUT_CURRENT)
		task = (struct task_struct *)bpf_get_current_task();
	cnt = bpf_map_lookup_elem(&gl_trace_cnt, &zero);
	nest = bpf_map_lookup_elem(&gl_nest, &zero);
	if (!cnt || !nest)
		return;
	if (task && gl_trace_self(cnt, BPF_CORE_READ(task, pid)))
		return;
	d = *nest;
	if (d >= GL_TRACE_NEST) {
		gl_trace_out(cnt, NULL, 0, o->family, o->gate_ns);
		return;
	}
	*nest = d + 1;
	r = bpf_map_lookup_elem(&gl_scratch, &d);
	if (!r) {
		gl_trace_out(cnt, NULL, 0, o->family, o->gate_ns);
		goto out;
	}
	a = gl_act_this();
	hist = (o->flags & GL_OUT_CPU_WAIT) && a && gl_conf.keep_history;
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
	r->pad = 0;
	r->since_ns = gl_conf.since_ns;
	r->hold_ok = 0;
	r->hold_reached = 0;
	if (hist) {
		bpf_probe_read_kernel(&r->act, sizeof(r->act), a);
		if ((gl_conf.keep_history & GL_KEEPS_SWITCHES) &&
		    o->latency_ns <= o->end_ns)
			gl_hold_pick(r, o->end_ns - o->latency_ns, o->end_ns);
	} else {
		__builtin_memset(&r->act, 0, sizeof(r->act.sw_pos) * 4);
	}
	gl_trace_out(cnt, r, sizeof(*r), o->family, o->gate_ns);
out:
	*nest = d;
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
	o.gate_ns = latency_ns;
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
