/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cuda family in BPF: a GPU job's waits in the CUDA driver library's
 * synchronising calls (kmod/gpulat_cuda.h), per process (key: its tgid,
 * named by its leader's comm), split where they happen, as the module
 * measures them (kmod/probe_cuda.[ch]):
 *
 *   cuda.call       entry -> return (the outermost call of a thread)
 *   A call the driver woke (gl_nv_waker_irq()), at its last such
 *   sched_waking W, behind the hard IRQ whose handler entered at I:
 *   cuda.gpu        entry -> I, less the preemption before I
 *   cuda.driver     I -> W
 *   cuda.runq       W -> the first switch-in S after it
 *   cuda.return     S -> return, less the preemption after S
 *   Any other call: cuda.oncpu (on CPU), cuda.other (the rest, less
 *   preemption); both: cuda.preempted (switched out runnable -> in).
 *
 * The parts of a call add up to it; when the host's share (all but the
 * GPU's part, or the preemption of another call) reaches the family's
 * threshold, each part that is not 0 is traced at its end event.
 *
 * gl_cuda_entry and gl_cuda_return are placed by the tool as a uprobe and
 * a uretprobe at each function's file offset in the library
 * (user/lib/bpf_cuda.c), the returns first: one placement covers every
 * process that maps the file.  A thread inside a call has an entry in
 * gl_cuda_calls (its tid -> its stamps), made at the outermost entry
 * and deleted at its return or its exit; sched_switch and sched_waking
 * write its stamps, and cost a load while no call is in flight
 * (gl_cuda_state.inflight).  Tracepoints (hit counters): those of
 * GPULAT_TPS_CUDA, in its order.
 */
#ifndef _GPULAT_BPF_CUDA_H
#define _GPULAT_BPF_CUDA_H

#include "nvidia_irq.bpf.h"
#include "tp.bpf.h"

/* Threads inside a call at once: the module's CUDA_SLOTS. */
#define GL_CUDA_ONCE(x)		(*(volatile __typeof__(x) *)&(x))
#define GL_CUDA_SLOTS		1024

GL_KEYED(cuda, GPULAT_FAM_CUDA, GL_NO_COUNT, GPULAT_CUDA_OTHER + 1,
	 GL_BPF_CUDA_KEYS);

/* One thread's call, the module's struct gpulat_cuda_call; 0: none. */
struct gl_cuda_call {
	__u64 entry;
	__u64 on;		/* on CPU since */
	__u64 oncpu;		/* on CPU before that */
	__u64 off;		/* switched out runnable at */
	__u64 pre;		/* preempted so far */
	__u64 wake;		/* the driver's last wakeup of it */
	__u64 irq;		/* the hard IRQ behind that wakeup */
	__u64 pre_wake;		/* pre at that wakeup */
	__u64 pre_part;		/* a preemption then under way, before irq */
	__u64 in;		/* its first switch-in after that wakeup */
	__u32 depth;		/* calls inside the outermost, it included */
	/* whose: an entry deleted and made again meanwhile is another's */
	__u32 tid;
	__u32 key;		/* its process's key (tgid) */
	__u32 nokey;		/* no room for that key: keys_full at return */
	__u32 in_cpu;		/* the CPU of that switch-in */
	/*
	 * odd while sched_switch writes the stamps: a uprobe program may be
	 * preempted, and its thread's switches write while it reads them
	 */
	__u32 seq;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GL_CUDA_SLOTS);
	__type(key, __u32);
	__type(value, struct gl_cuda_call);
} gl_cuda_calls SEC(".maps");

/* Entries of gl_cuda_calls (zeroed by the tool before the family attaches). */
struct gl_cuda_state {
	__u64 inflight;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gl_cuda_state);
} gl_cuda_state SEC(".maps");

static __always_inline struct gl_cuda_state *gl_cuda_state_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&gl_cuda_state, &zero);
}

/* gl_cuda_find - the call thread @tid is inside, or NULL */
static __always_inline struct gl_cuda_call *gl_cuda_find(__u32 tid)
{
	struct gl_cuda_call *c = bpf_map_lookup_elem(&gl_cuda_calls, &tid);

	return c && c->tid == tid ? c : NULL;
}

/* gl_cuda_release - thread @tid's call is over (or the thread) */
static __always_inline bool gl_cuda_release(struct gl_cuda_state *st,
					    __u32 tid)
{
	if (bpf_map_delete_elem(&gl_cuda_calls, &tid))
		return false;		/* another CPU's delete won */
	__sync_fetch_and_add(&st->inflight, -1);
	return true;
}

/* --- The calls: the library's uprobes ------------------------------------ */

/*
 * gl_cuda_key - the key of the current process, made and named after its
 * leader's comm at its first call (the only string copy); NULL when the
 * keys are full
 */
static __always_inline struct gl_keyed_cuda *gl_cuda_key(__u32 tgid)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct gl_kmax_cuda *max;
	struct gl_keyed_cuda *v;
	bool created;

	v = cuda_key_get(tgid, &created, &max);
	if (v && created)
		BPF_CORE_READ_STR_INTO(&v->hdr.name, t, group_leader, comm);
	return v;
}

/* cuda_entry(): the outermost call of a thread is timed, once */
SEC("uprobe")
int gl_cuda_entry(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct gl_cuda_state *st = gl_cuda_state_get();
	struct gl_cuda_call n = {}, *c;
	__u32 tid = (__u32)id;

	gl_reject(GPULAT_FAM_CUDA);
	if (!st || !tid)
		return 0;
	c = gl_cuda_find(tid);
	if (c) {
		c->depth++;
		gl_count(GPULAT_FAM_CUDA, GPULAT_CUDA_NESTED);
		return 0;
	}
	/* stamped first: the program may be preempted (a switch sees it) */
	n.entry = bpf_ktime_get_ns();
	n.on = n.entry;
	n.tid = tid;
	n.key = id >> 32;
	n.depth = 1;
	n.nokey = 1;
	if (bpf_map_update_elem(&gl_cuda_calls, &tid, &n, BPF_NOEXIST)) {
		gl_count(GPULAT_FAM_CUDA, GPULAT_CUDA_NO_SLOT);
		return 0;
	}
	__sync_fetch_and_add(&st->inflight, 1);
	c = gl_cuda_find(tid);
	if (c)
		c->nokey = !gl_cuda_key(n.key);
	return 0;
}

/* cuda_file(): @ns into series @id of @v, this CPU's maxima @m */
#define GL_CUDA_FILE(v, m, id, ns) \
	gl_ghist_record(&(v)->h[id], &(m)->max[id], ns)

/*
 * gl_cuda_trace - part @id of the current thread's call in @key, @ns
 * ending at @end, unless 0; the readers' thresholds are held to the
 * host's share @host, as the module's gate is
 */
static __always_inline void gl_cuda_trace(__u32 id, __u64 key, __u64 end,
					  __u64 ns, __u32 flags, __u64 host)
{
	struct gl_out o;

	if (!ns)
		return;
	o.family = GPULAT_FAM_CUDA;
	o.series = id;
	o.flags = flags | GL_OUT_CURRENT;
	o.pad = 0;
	o.key = key;
	o.end_ns = end;
	o.latency_ns = ns;
	o.gate_ns = host;
	o.cg = 0;
	o.task = NULL;
	gl_trace_sample(&o);
}

/*
 * cuda_split() and cuda_file_all(): file call @c, returning at @now, and
 * trace its parts when the host's share of it passes the gate.  The run
 * queue wait was on the CPU of its switch-in: if the thread is still
 * there, who held it then is named.
 */
static __always_inline void gl_cuda_split(const struct gl_cuda_call *c,
					  __u64 now)
{
	__u64 wake = c->wake, irq = c->irq, in = c->in, entry = c->entry;
	__s64 call = now - entry, pre = c->pre, oncpu, before, after;
	__u64 key = c->key, gpu, driver, runq, preempted, ret, host;
	struct gl_keyed_cuda *v;
	struct gl_kmax_cuda *m;
	__u32 flags;

	v = c->nokey ? NULL : bpf_map_lookup_elem(&cuda_keys, &key);
	m = v ? bpf_map_lookup_elem(&cuda_kmax, &key) : NULL;
	if (!v || !m) {
		gl_count(GPULAT_FAM_CUDA, GPULAT_CUDA_KEYS_FULL);
		return;
	}
	oncpu = c->oncpu + now - c->on;
	/* the driver's wakeup, with its interrupt inside the call */
	if (wake && irq >= entry && irq <= wake && wake <= now) {
		if (!in || in < wake)
			in = wake;	/* woken before it slept */
		before = c->pre_wake + c->pre_part;
		after = pre - c->pre_wake;
		if (call < 0 || in > now || after > (__s64)(now - in) ||
		    (__u64)before > irq - entry) {
			gl_count(GPULAT_FAM_CUDA, GPULAT_CUDA_NEGATIVE);
			return;
		}
		gpu = irq - entry - before;
		driver = wake - irq;
		runq = in - wake;
		preempted = before + after;
		ret = now - in - after;
		GL_CUDA_FILE(v, m, GPULAT_CUDA_CALL, call);
		GL_CUDA_FILE(v, m, GPULAT_CUDA_GPU, gpu);
		GL_CUDA_FILE(v, m, GPULAT_CUDA_DRIVER, driver);
		GL_CUDA_FILE(v, m, GPULAT_CUDA_RUNQ, runq);
		GL_CUDA_FILE(v, m, GPULAT_CUDA_PREEMPTED, preempted);
		GL_CUDA_FILE(v, m, GPULAT_CUDA_RETURN, ret);
		host = driver + runq + preempted + ret;
		if (host < gl_conf.gate[GPULAT_FAM_CUDA])
			return;
		flags = c->in_cpu == bpf_get_smp_processor_id() ?
			GL_OUT_CPU_WAIT : 0;
		gl_cuda_trace(GPULAT_CUDA_CALL, key, now, call, 0, host);
		gl_cuda_trace(GPULAT_CUDA_GPU, key, irq, gpu, 0, host);
		gl_cuda_trace(GPULAT_CUDA_DRIVER, key, wake, driver, 0, host);
		gl_cuda_trace(GPULAT_CUDA_RUNQ, key, in, runq, flags, host);
		gl_cuda_trace(GPULAT_CUDA_PREEMPTED, key, now, preempted, 0,
			      host);
		gl_cuda_trace(GPULAT_CUDA_RETURN, key, now, ret, 0, host);
		return;
	}
	if (call < 0 || oncpu < 0 || oncpu + pre > call) {
		gl_count(GPULAT_FAM_CUDA, GPULAT_CUDA_NEGATIVE);
		return;
	}
	GL_CUDA_FILE(v, m, GPULAT_CUDA_CALL, call);
	GL_CUDA_FILE(v, m, GPULAT_CUDA_ONCPU, oncpu);
	GL_CUDA_FILE(v, m, GPULAT_CUDA_PREEMPTED, pre);
	GL_CUDA_FILE(v, m, GPULAT_CUDA_OTHER, call - oncpu - pre);
	if ((__u64)pre < gl_conf.gate[GPULAT_FAM_CUDA])
		return;
	gl_cuda_trace(GPULAT_CUDA_CALL, key, now, call, 0, pre);
	gl_cuda_trace(GPULAT_CUDA_ONCPU, key, now, oncpu, 0, pre);
	gl_cuda_trace(GPULAT_CUDA_PREEMPTED, key, now, pre, 0, pre);
	gl_cuda_trace(GPULAT_CUDA_OTHER, key, now, call - oncpu - pre, 0, pre);
}

/*
 * gl_cuda_split_now - file @c's call, ending now, from a copy that no
 * switch of the thread wrote halfway: the program may be preempted, and
 * a switch in between makes another try (a switch completes before the
 * thread runs again, so seq is never seen odd here)
 */
static __always_inline void gl_cuda_split_now(struct gl_cuda_call *c)
{
	struct gl_cuda_call copy;
	__u32 seq;
	__u64 now;

	seq = GL_CUDA_ONCE(c->seq);
	__builtin_memcpy(&copy, c, sizeof(copy));
	if (GL_CUDA_ONCE(c->seq) != seq) {
		seq = GL_CUDA_ONCE(c->seq);
		__builtin_memcpy(&copy, c, sizeof(copy));
		if (GL_CUDA_ONCE(c->seq) != seq)
			__builtin_memcpy(&copy, c, sizeof(copy));
	}
	now = bpf_ktime_get_ns();
	gl_cuda_split(&copy, now > copy.on ? now : copy.on);
}

/* cuda_return(): the outermost call's return files it */
SEC("uretprobe")
int gl_cuda_return(struct pt_regs *ctx)
{
	struct gl_cuda_state *st = gl_cuda_state_get();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct gl_cuda_call *c;

	gl_reject(GPULAT_FAM_CUDA);
	if (!st)
		return 0;
	c = tid ? gl_cuda_find(tid) : NULL;
	if (!c) {
		gl_count(GPULAT_FAM_CUDA, GPULAT_CUDA_NO_ENTRY);
		return 0;
	}
	if (--c->depth)
		return 0;
	gl_cuda_split_now(c);
	gl_cuda_release(st, tid);
	return 0;
}

/* --- The scheduler's events ----------------------------------------------- */

/* cuda_probe_exit(): a thread that dies inside a call frees its entry */
GL_TP(sched_process_exit, gl_cuda_exit, struct task_struct *p)
{
	struct gl_cuda_state *st = gl_cuda_state_get();
	__u32 pid;

	gl_hit(GPULAT_FAM_CUDA, GL_HIT_CUDA_PEXIT);
	if (!st || !st->inflight)
		return 0;
	pid = BPF_CORE_READ(p, pid);
	if (pid && gl_cuda_find(pid) && gl_cuda_release(st, pid))
		gl_count(GPULAT_FAM_CUDA, GPULAT_CUDA_EXITED);
	return 0;
}

/* gpulat_cuda_switch() */
GL_TP(sched_switch, gl_cuda_switch, bool preempt, struct task_struct *prev, struct task_struct *nx)
{
	struct gl_cuda_state *st = gl_cuda_state_get();
	struct gl_cuda_call *c;
	__u32 prev_pid, next_pid;
	__u64 now = 0;

	gl_hit(GPULAT_FAM_CUDA, GL_HIT_CUDA_SWITCH);
	if (!st || !st->inflight)
		return 0;
	/* pid 0 is the idle task: never inside a call */
	prev_pid = BPF_CORE_READ(prev, pid);
	next_pid = BPF_CORE_READ(nx, pid);
	c = prev_pid ? gl_cuda_find(prev_pid) : NULL;
	if (c) {
		now = bpf_ktime_get_ns();
		GL_CUDA_ONCE(c->seq) = c->seq + 1;
		if (c->on)
			c->oncpu += now - c->on;
		c->on = 0;
		/* runnable: its next switch-in ends a preemption */
		if (preempt || gl_task_state(prev) == 0)
			c->off = now;
		GL_CUDA_ONCE(c->seq) = c->seq + 1;
	}
	c = next_pid ? gl_cuda_find(next_pid) : NULL;
	if (!c)
		return 0;
	if (!now)
		now = bpf_ktime_get_ns();
	GL_CUDA_ONCE(c->seq) = c->seq + 1;
	c->on = now;
	if (c->wake && !c->in) {
		/*
		 * the first switch-in after the driver's wakeup ends its run
		 * queue wait, also when the thread was preempted on its way
		 * to sleep: what came before the interrupt is in pre_part
		 */
		c->in = now;
		c->in_cpu = bpf_get_smp_processor_id();
		if (c->off < c->wake)
			c->off = 0;
	}
	if (c->off) {
		c->pre += now - c->off;
		c->off = 0;
	}
	GL_CUDA_ONCE(c->seq) = c->seq + 1;
	return 0;
}

/*
 * cuda_probe_waking(): sched_waking of @p, in the waker's context (a
 * wakeup of a task on another CPU may reach sched_wakeup there, from an
 * IPI): the driver's wakeup of a thread inside a call marks where the
 * GPU's part ends
 */
GL_TP(sched_waking, gl_cuda_waking, struct task_struct *p)
{
	struct gl_cuda_state *st = gl_cuda_state_get();
	struct gl_cuda_call *c;
	__u64 irq;
	__u32 pid;

	gl_hit(GPULAT_FAM_CUDA, GL_HIT_CUDA_WAKING);
	if (!st || !st->inflight)
		return 0;
	pid = BPF_CORE_READ(p, pid);
	c = pid ? gl_cuda_find(pid) : NULL;
	if (!c)
		return 0;
	irq = gl_nv_waker_irq();
	if (!irq)
		return 0;
	c->irq = irq;
	c->pre_wake = c->pre;
	/* preempted on its way to sleep, before the interrupt: not the GPU's */
	c->pre_part = c->off && c->off < irq ? irq - c->off : 0;
	c->in = 0;
	c->wake = bpf_ktime_get_ns();
	return 0;
}

#endif /* _GPULAT_BPF_CUDA_H */
