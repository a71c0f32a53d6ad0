/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvidia family in BPF: which tasks are ours (the module's
 * probe_nvidia_set.c), their keys, and how their samples are filed.
 *
 * A hash map of the followed pids (gl_nv_set) sits behind a count of
 * them per pid hash (gl_bpf_nv_state.filter): a task that is not
 * followed costs one load, and nothing at all while none is followed.
 * IRQ threads join when their handler is decided (nvidia_irq.bpf.h), the
 * driver's kthreads when they are named (sched_process_fork,
 * task_rename) or, for those there before the family attached, by a
 * task iterator the tool runs once after it attached (gl_nv_scan); all
 * leave in sched_process_exit.  The set, the counts and the keys change
 * only here (map updates and atomic adds, each O(1)); the tool empties
 * them only while the family is detached (user/lib/bpf_nvidia.c).
 */
#ifndef _GPULAT_BPF_NVIDIA_SET_H
#define _GPULAT_BPF_NVIDIA_SET_H

#include "tp.bpf.h"
#include "trace.bpf.h"

#define GL_NV_SET_MAX		1024	/* the module's NV_SET_SLOTS */
#define GL_NV_FILTER_MASK	((1U << GL_BPF_NV_FILTER_BITS) - 1)

/* What a followed task is (the module's NV_KIND_*); bit 0: an IRQ thread. */
#define GL_NV_IRQ_THREAD	1	/* irq/N-nvidia */
#define GL_NV_KTHREAD		2
#define GL_NV_IRQ_SECONDARY	3	/* irq/N-s-nvidia */
#define GL_NV_KIND_MASK		3
#define GL_NV_NOKEY		0x100	/* no room for its key */

/* gl_nv_thr.wake: switched out runnable, its next switch-in is no wakeup */
#define GL_NV_PREEMPTED		1ULL

/* The module keeps 41 bits of a stamp: it drops the top 23. */
#define GL_NV_TS_DROP		23

/* task_struct.flags (include/linux/sched.h), the same on every kernel */
#define GL_PF_EXITING		0x00000004
#define GL_PF_KTHREAD		0x00200000

struct gl_nv_thr {
	__u64 key;	/* its series' key: its IRQ's, or its pid */
	__u32 pid;
	__u32 kind;	/* GL_NV_IRQ_THREAD.., | GL_NV_NOKEY */
	__u64 wake;	/* wakeup (request) time, GL_NV_PREEMPTED; 0: none */
	__u64 run;	/* an IRQ thread's switch-in time; 0: not running */
	/* an IRQ thread: its last request's hard IRQ entry, ns (cuda.bpf.h) */
	__u64 irq;
};

/* nvidia.hardirq, .thread.wake, .thread.run, .kthread.wake */
GL_KEYED(nvidia, GPULAT_FAM_NVIDIA, GPULAT_NV_KEYS_FULL, 4, GL_BPF_NV_KEYS);

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gl_bpf_nv_state);
} gl_nv_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GL_NV_SET_MAX);
	__type(key, __u32);
	__type(value, struct gl_nv_thr);
} gl_nv_set SEC(".maps");

/*
 * Per CPU: the driver's handler running on this CPU (handlers do not
 * nest), and the value a new key is made from, named in place (its
 * histograms stay zero), so that a key is listed with its name.
 */
struct gl_nv_cpu {
	__u64 irq_action;
	__u64 irq_ts;
	__u64 irq_key;
	__u32 irq_nokey;
	__u32 pad;
	struct gl_keyed_nvidia new_key;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gl_nv_cpu);
} gl_nv_cpu SEC(".maps");

static __always_inline struct gl_bpf_nv_state *gl_nv_state_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&gl_nv_state, &zero);
}

static __always_inline struct gl_nv_cpu *gl_nv_cpu_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&gl_nv_cpu, &zero);
}

/* the kernel's hash_32(pid, GL_BPF_NV_FILTER_BITS) */
static __always_inline __u32 gl_nv_hash(__u32 pid)
{
	return (__u32)(pid * 0x61C88647U) >> (32 - GL_BPF_NV_FILTER_BITS) &
	       GL_NV_FILTER_MASK;
}

/* gl_nv_find - the entry of @pid when it is followed, else NULL */
static __always_inline struct gl_nv_thr *gl_nv_find(struct gl_bpf_nv_state *st,
						    __u32 pid)
{
	struct gl_nv_thr *t;

	if (!st->filter[gl_nv_hash(pid)])
		return NULL;
	t = bpf_map_lookup_elem(&gl_nv_set, &pid);
	/* an entry deleted and reused meanwhile is another pid's */
	return t && t->pid == pid ? t : NULL;
}

/*
 * gl_nv_add - follow @pid, unless it is followed already; -E2BIG when
 * the set is full, counted in nvidia.keys_full at each attempt as the
 * module counts a full bucket
 */
static __always_inline long gl_nv_add(struct gl_bpf_nv_state *st, __u32 pid,
				      __u32 kind, __u64 key, __u64 wake)
{
	struct gl_nv_thr t = {
		.key = key, .pid = pid, .kind = kind, .wake = wake,
	};
	__u32 *f = &st->filter[gl_nv_hash(pid)];
	int e;

	/* the count before the entry: a probe never misses a followed pid */
	__sync_fetch_and_add(f, 1);
	e = bpf_map_update_elem(&gl_nv_set, &pid, &t, BPF_NOEXIST);
	if (e) {
		__sync_fetch_and_add(f, -1);
		if (e == -GL_EEXIST)
			return 0;
		gl_count(GPULAT_FAM_NVIDIA, GPULAT_NV_KEYS_FULL);
		return e;
	}
	/* a locked add: on x86 also the full barrier gl_nv_scan_one() needs */
	__sync_fetch_and_add(&st->used, 1);
	return 0;
}

/* gl_nv_del - stop following @pid; an IRQ thread moves the generation */
static __always_inline void gl_nv_del(struct gl_bpf_nv_state *st, __u32 pid)
{
	struct gl_nv_thr *t = bpf_map_lookup_elem(&gl_nv_set, &pid);
	__u32 kind;

	if (!t)
		return;
	kind = t->kind;
	if (bpf_map_delete_elem(&gl_nv_set, &pid))
		return;		/* another CPU's delete won */
	__sync_fetch_and_add(&st->filter[gl_nv_hash(pid)], -1);
	__sync_fetch_and_add(&st->used, -1);
	/* its IRQ was freed: decide all handlers again (new threads) */
	if (kind & GL_NV_IRQ_THREAD)
		__sync_fetch_and_add(&st->gen, 1);
}

/*
 * gl_nv_key_make - make key @key from this CPU's new_key (the caller
 * named it); false when nvidia_keys is full.  Keys are never removed: a
 * key made before, or by another CPU now, serves, with its first name.
 */
static __always_inline bool gl_nv_key_make(struct gl_nv_cpu *c, __u64 key)
{
	int e;

	e = bpf_map_update_elem(&nvidia_kmax, &key, &nvidia_kmax_zero,
				BPF_NOEXIST);
	if (e && e != -GL_EEXIST)
		return false;
	c->new_key.hdr.created_ns = bpf_ktime_get_ns();
	e = bpf_map_update_elem(&nvidia_keys, &key, &c->new_key, BPF_NOEXIST);
	return !e || e == -GL_EEXIST;
}

/*
 * gl_nv_file_key - file @delta ending at @now in series @series of @key;
 * @p: whom it happened to, @flags: how it is traced
 */
static __always_inline void gl_nv_file_key(__u64 key, __u32 series,
					   __u64 now, __u64 delta,
					   struct task_struct *p, __u32 flags)
{
	struct gl_keyed_nvidia *v = bpf_map_lookup_elem(&nvidia_keys, &key);
	struct gl_kmax_nvidia *m = bpf_map_lookup_elem(&nvidia_kmax, &key);

	if (!v || !m) {
		gl_count(GPULAT_FAM_NVIDIA, GPULAT_NV_KEYS_FULL);
		return;
	}
	series &= 3;
	gl_ghist_record(&v->h[series], &m->max[series], delta);
	gl_trace_check(GPULAT_FAM_NVIDIA, series, key, now, delta, p, flags);
}

/*
 * gl_nv_file - file the sample of followed task @t from stamp @st to
 * @now.  As the module's 41-bit stamps: a stamp from the future (clock
 * skew) is negative, and so is a span of 2^40 ns (18 minutes) or more.
 */
static __always_inline void gl_nv_file(struct gl_nv_thr *t, __u32 series,
				       __u64 st, __u64 now,
				       struct task_struct *p)
{
	__s64 delta = (__s64)((now - st) << GL_NV_TS_DROP) >> GL_NV_TS_DROP;

	if (delta < 0) {
		gl_count(GPULAT_FAM_NVIDIA, GPULAT_NV_NEGATIVE);
		return;
	}
	if (t->kind & GL_NV_NOKEY) {
		gl_count(GPULAT_FAM_NVIDIA, GPULAT_NV_KEYS_FULL);
		return;
	}
	gl_nv_file_key(t->key, series, now, delta, p,
		       series == GPULAT_NV_THREAD_RUN ? 0 : GL_OUT_CPU_WAIT);
}

/* --- Kthreads ---------------------------------------------------------- */

static __always_inline bool gl_nv_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* " BH" or " KC" at @i, and the end of comm (@i: a constant, inlined) */
static __always_inline bool gl_nv_bh_kc(const char *c, int i)
{
	return c[i] == ' ' &&
	       ((c[i + 1] == 'B' && c[i + 2] == 'H') ||
		(c[i + 1] == 'K' && c[i + 2] == 'C')) && !c[i + 3];
}

/*
 * gl_nv_kthread_match - the driver's kthreads by comm (cut to 15
 * characters): "nvidia", "nv_queue", "UVM GPU%u BH", "UVM GPU%u KC".
 * Constant offsets only: 5.10's verifier has no variable stack reads.
 */
static __always_inline bool gl_nv_kthread_match(const char *c)
{
	if (c[0] == 'n' && c[1] == 'v') {
		if (c[2] == 'i' && c[3] == 'd' && c[4] == 'i' && c[5] == 'a')
			return !c[6];
		return c[2] == '_' && c[3] == 'q' && c[4] == 'u' &&
		       c[5] == 'e' && c[6] == 'u' && c[7] == 'e' && !c[8];
	}
	if (c[0] != 'U' || c[1] != 'V' || c[2] != 'M' || c[3] != ' ' ||
	    c[4] != 'G' || c[5] != 'P' || c[6] != 'U' || !gl_nv_digit(c[7]))
		return false;
	if (!gl_nv_digit(c[8]))
		return gl_nv_bh_kc(c, 8);
	if (!gl_nv_digit(c[9]))
		return gl_nv_bh_kc(c, 9);
	if (!gl_nv_digit(c[10]))
		return gl_nv_bh_kc(c, 10);
	if (!gl_nv_digit(c[11]))
		return gl_nv_bh_kc(c, 11);
	if (!gl_nv_digit(c[12]))
		return gl_nv_bh_kc(c, 12);
	return false;		/* no room for " BH" in 15 characters */
}

/* gl_nv_kthread - @p may be one of the driver's kthreads: a flag test */
static __always_inline bool gl_nv_kthread(struct task_struct *p)
{
	struct gl_bpf_nv_state *st;

	if (BPF_CORE_READ(p, flags) & GL_PF_KTHREAD)
		return true;
	st = gl_nv_state_get();
	return st && st->user_tasks;
}

/*
 * gl_nv_scan_one - follow kthread @p, named @name, if it is the driver's
 * (the module's nv_scan_one()); key: its pid, named after it once.
 * @wake: GL_NV_PREEMPTED when it was just forked (its first switch-in
 * is no wakeup), else 0.
 */
static __always_inline void gl_nv_scan_one(struct task_struct *p,
					   const char *name, __u64 wake)
{
	struct gl_bpf_nv_state *st = gl_nv_state_get();
	struct gl_nv_cpu *c = gl_nv_cpu_get();
	__u32 pid, kind = GL_NV_KTHREAD;
	char *comm;

	if (!st || !c)
		return;
	if (!(BPF_CORE_READ(p, flags) & GL_PF_KTHREAD) && !st->user_tasks)
		return;
	pid = BPF_CORE_READ(p, pid);
	if (gl_nv_find(st, pid))
		return;
	/* a racing rename of p->comm can only make the copy fail to match */
	comm = c->new_key.hdr.name;
	__builtin_memset(comm, 0, sizeof(c->new_key.hdr.name));
	if (bpf_probe_read_kernel_str(comm, GPULAT_COMM_LEN, name) <= 0 ||
	    !gl_nv_kthread_match(comm))
		return;
	if (!gl_nv_key_make(c, pid))
		kind |= GL_NV_NOKEY;
	if (gl_nv_add(st, pid, kind, pid, wake))
		return;
	/* pairs with gl_nv_exit(): never keep a dead pid */
	if (BPF_CORE_READ(p, flags) & GL_PF_EXITING)
		gl_nv_del(st, pid);
}

#endif /* _GPULAT_BPF_NVIDIA_SET_H */
