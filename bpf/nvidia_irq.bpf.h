/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvidia family in BPF: which handlers are ours, and their hard IRQ
 * (the module's probe_nvidia_irq.c and the handler half of
 * probe_nvidia.h).  Decided once per action, on its first interrupt,
 * and kept in a verdict cache by action address (an LRU map: a verdict
 * evicted is decided again); an entry also holds the action's identity
 * (handler, dev_id, name pointer, IRQ: an action freed and another made
 * at its address looks different) and the thread set's
 * generation, which moves whenever a followed IRQ thread exits, so that
 * a re-requested IRQ has its new threads followed.
 */
#ifndef _GPULAT_BPF_NVIDIA_IRQ_H
#define _GPULAT_BPF_NVIDIA_IRQ_H

#include "nvidia_set.bpf.h"

#define GL_NV_VERDICTS		1024
#define GL_NV_OURS		0x1	/* verdict flags, with GL_NV_NOKEY */
#define GL_IRQ_WAKE_THREAD	2	/* include/linux/irqreturn.h */
#define GL_GOLDEN_RATIO_64	0x61C8864680B583EBULL

struct gl_nv_verdict {
	/* the action's identity */
	__u64 handler;
	__u64 dev_id;
	__u64 name;
	__u32 irq;
	__u32 gen;	/* gl_bpf_nv_state.gen when decided */
	__u64 key;	/* its key, when it is the driver's */
	__u32 flags;	/* GL_NV_OURS, GL_NV_NOKEY */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, GL_NV_VERDICTS);
	__type(key, __u64);
	__type(value, struct gl_nv_verdict);
} gl_nv_verdict SEC(".maps");

/*
 * gl_nv_irq_key - the module's gpulat_irq_key(): the IRQ in bits 0-31,
 * hash_long(handler ^ thread_fn, 32) in bits 32-63 (the irq family's key
 * of the same handler)
 */
static __always_inline __u64 gl_nv_irq_key(int irq, __u64 handler,
					   __u64 thread_fn)
{
	return (__u32)irq |
	       ((handler ^ thread_fn) * GL_GOLDEN_RATIO_64) >> 32 << 32;
}

/* gl_nv_word_mask - the bytes of word @w of a name that are below @len */
static __always_inline __u64 gl_nv_word_mask(__u32 len, __u32 w)
{
	__u32 nb = len > 8 * w ? len - 8 * w : 0;

	return nb >= 8 ? ~0ULL : (1ULL << (8 * nb)) - 1;
}

/*
 * gl_nv_name_match - @name (GPULAT_NAME_LEN bytes, 8-aligned) starts
 * with the pattern, as the module's prefix match; a word at a time under
 * a mask, no loop
 */
static __always_inline bool gl_nv_name_match(struct gl_bpf_nv_state *st,
					     const char *name)
{
	const __u64 *n = (const void *)name, *p = (const void *)st->pattern;
	__u32 len = st->pattern_len;

	if (!len || len >= GPULAT_NAME_LEN)
		return false;
	return !(((n[0] ^ p[0]) & gl_nv_word_mask(len, 0)) |
		 ((n[1] ^ p[1]) & gl_nv_word_mask(len, 1)) |
		 ((n[2] ^ p[2]) & gl_nv_word_mask(len, 2)) |
		 ((n[3] ^ p[3]) & gl_nv_word_mask(len, 3)));
}

/*
 * gl_nv_irq_name - "/@irq" after the @len characters of @name (zeroed
 * past them), cut to GPULAT_NAME_LEN - 1 as the module's "%s/%d"; the
 * digits are kept in a register (no variable stack reads on 5.10)
 */
static __always_inline void gl_nv_irq_name(char *name, __u32 len, int irq)
{
	__u64 digs = 0, v = (__u32)irq;
	__u32 nd = 0, i;

#pragma unroll
	for (i = 0; i < 10; i++) {
		digs |= (v % 10) << (4 * i);
		v /= 10;
		nd++;
		if (!v)
			break;
	}
	if (len >= GPULAT_NAME_LEN - 1)
		return;
	name[len & (GPULAT_NAME_LEN - 1)] = '/';
	len++;
#pragma unroll
	for (i = 0; i < 10; i++) {
		if (i >= nd || len >= GPULAT_NAME_LEN - 1)
			break;
		name[len & (GPULAT_NAME_LEN - 1)] =
			'0' + (digs >> (4 * (nd - 1 - i)) & 15);
		len++;
	}
}

/*
 * gl_nv_decide - the slow path of a handler's first interrupt (and of
 * the first after the thread set's generation moved): match its name,
 * make its key, follow its threads, cache the verdict in @v.  The action
 * is live while its handler runs, and so are its threads: free_irq()
 * stops them only after the last handler returned.
 */
static __always_inline void gl_nv_decide(struct gl_bpf_nv_state *st, int irq,
					 struct irqaction *action, __u64 a,
					 struct gl_nv_verdict *v)
{
	struct gl_nv_cpu *c = gl_nv_cpu_get();
	__u64 handler, name;
	struct irqaction *sec;
	struct task_struct *t;
	__u32 nokey;
	long n;

	/* read again as numbers: tp_btf's loads may be typed pointers */
	handler = (__u64)BPF_CORE_READ(action, handler);
	name = (__u64)BPF_CORE_READ(action, name);
	v->handler = handler;
	v->dev_id = (__u64)BPF_CORE_READ(action, dev_id);
	v->name = name;
	v->irq = irq;
	v->key = 0;
	v->flags = 0;
	v->pad = 0;
	if (!c || !name)
		goto cache;
	__builtin_memset(c->new_key.hdr.name, 0, sizeof(c->new_key.hdr.name));
	n = bpf_probe_read_kernel_str(c->new_key.hdr.name,
				      sizeof(c->new_key.hdr.name),
				      (const void *)name);
	if (n <= 0 || !gl_nv_name_match(st, c->new_key.hdr.name))
		goto cache;
	v->flags = GL_NV_OURS;
	v->key = gl_nv_irq_key(irq, handler,
			       (__u64)BPF_CORE_READ(action, thread_fn));
	gl_nv_irq_name(c->new_key.hdr.name, n - 1, irq);
	if (!gl_nv_key_make(c, v->key))
		v->flags |= GL_NV_NOKEY;
	nokey = v->flags & GL_NV_NOKEY;
	t = BPF_CORE_READ(action, thread);
	if (t)
		gl_nv_add(st, BPF_CORE_READ(t, pid), GL_NV_IRQ_THREAD | nokey,
			  v->key, 0);
	sec = BPF_CORE_READ(action, secondary);
	t = sec ? BPF_CORE_READ(sec, thread) : NULL;
	if (t)
		gl_nv_add(st, BPF_CORE_READ(t, pid),
			  GL_NV_IRQ_SECONDARY | nokey, v->key, 0);
cache:
	bpf_map_update_elem(&gl_nv_verdict, &a, v, BPF_ANY);
}

/*
 * gl_nv_irq_entry_do - irq_handler_entry of @action, whose handler,
 * dev_id and name the caller read (compared, never computed with: with
 * BTF they may be typed pointers): every interrupt of every handler
 * comes here, the verdict is one map lookup
 */
static __always_inline int gl_nv_irq_entry_do(int irq, struct irqaction *action,
					      const void *handler,
					      const void *dev_id,
					      const void *name)
{
	struct gl_bpf_nv_state *st = gl_nv_state_get();
	struct gl_nv_verdict *cv, v;
	__u64 a = (__u64)action;
	struct gl_nv_cpu *c;

	gl_hit(GPULAT_FAM_NVIDIA, GL_HIT_NVIDIA_IRQ_ENTRY);
	if (!st || !action)
		return 0;
	v.gen = st->gen;
	cv = bpf_map_lookup_elem(&gl_nv_verdict, &a);
	if (cv && cv->handler == (__u64)handler &&
	    cv->dev_id == (__u64)dev_id && cv->name == (__u64)name &&
	    cv->irq == (__u32)irq && cv->gen == v.gen) {
		v.key = cv->key;
		v.flags = cv->flags;
	} else {
		gl_nv_decide(st, irq, action, a, &v);
	}
	if (!(v.flags & GL_NV_OURS))
		return 0;
	c = gl_nv_cpu_get();
	if (!c)
		return 0;
	/* an entry whose exit this CPU never saw: that sample is lost */
	if (c->irq_action)
		gl_count(GPULAT_FAM_NVIDIA, GPULAT_NV_NO_START);
	c->irq_action = a;
	c->irq_key = v.key;
	c->irq_nokey = v.flags & GL_NV_NOKEY;
	c->irq_ts = bpf_ktime_get_ns();
	st->last_irq = c->irq_ts;
	return 0;
}

/*
 * Not GL_TP: with BTF the action's fields are plain loads (a faulting
 * one reads 0), without it three helper calls; a third of the cost of
 * the program on every interrupt.
 */
SEC("tp_btf/irq_handler_entry")
int gl_nv_irq_entry(unsigned long long *ctx)
{
	struct irqaction *a = (void *)ctx[1];

	return gl_nv_irq_entry_do(ctx[0], a, a->handler, a->dev_id, a->name);
}

SEC("raw_tp/irq_handler_entry")
int gl_nv_irq_entry_raw(unsigned long long *ctx)
{
	struct irqaction *a = (void *)ctx[1];

	return gl_nv_irq_entry_do(ctx[0], a, BPF_CORE_READ(a, handler),
				  BPF_CORE_READ(a, dev_id),
				  BPF_CORE_READ(a, name));
}

/*
 * gl_nv_thread_asked - @action's handler, entered at @irq_ts, asked for
 * its thread at @now: the interrupt whose work the thread does next (the
 * cuda family's), and the thread's wait starts, unless it runs or is
 * runnable (it serves the request without a wakeup) or an earlier
 * request still waits.  A test, then the store: no compare-exchange
 * before Linux 5.12.
 */
static __always_inline void gl_nv_thread_asked(struct irqaction *action,
					       __u64 irq_ts, __u64 now)
{
	struct gl_bpf_nv_state *st = gl_nv_state_get();
	struct task_struct *t = BPF_CORE_READ(action, thread);
	struct gl_nv_thr *e;

	if (!st || !t)
		return;
	e = gl_nv_find(st, BPF_CORE_READ(t, pid));
	if (!e)
		return;
	e->irq = irq_ts;
	if (!e->run && !e->wake)
		e->wake = now;
}

GL_TP(irq_handler_exit, gl_nv_irq_exit, int irq, struct irqaction *action, int ret)
{
	struct gl_nv_cpu *c = gl_nv_cpu_get();
	__s64 delta;
	__u64 now;

	gl_hit(GPULAT_FAM_NVIDIA, GL_HIT_NVIDIA_IRQ_EXIT);
	if (!c || !action || c->irq_action != (__u64)action)
		return 0;
	c->irq_action = 0;
	now = bpf_ktime_get_ns();
	delta = now - c->irq_ts;
	if (delta < 0)
		gl_count(GPULAT_FAM_NVIDIA, GPULAT_NV_NEGATIVE);
	else if (c->irq_nokey)
		gl_count(GPULAT_FAM_NVIDIA, GPULAT_NV_KEYS_FULL);
	else
		gl_nv_file_key(c->irq_key, GPULAT_NV_HARDIRQ, now, delta,
			       (struct task_struct *)bpf_get_current_task(), 0);
	if (ret & GL_IRQ_WAKE_THREAD)
		gl_nv_thread_asked(action, c->irq_ts, now);
	return 0;
}

/*
 * gl_nv_waker_irq - the module's gpulat_nv_waker_irq(): the entry time of
 * the driver's hard IRQ behind a wakeup the running context makes now,
 * or 0 when the driver's interrupt path does not make it, or the nvidia
 * family is off: its handler running on this CPU (for that handler); its
 * irq/N-nvidia thread (for the interrupt that last asked for it); a
 * driver kthread or irq/N-s-nvidia (for the driver's last interrupt).
 * BPF cannot read the preemption count on every kernel: the driver's
 * handler on this CPU stands for the module's hardirq_count(), so a
 * wakeup from another hard IRQ that interrupted one of the driver's
 * threads counts as that thread's.
 */
static __always_inline __u64 gl_nv_waker_irq(void)
{
	struct gl_bpf_nv_state *st;
	struct gl_nv_thr *t;
	struct gl_nv_cpu *c;
	__u32 pid;

	if (!(gl_conf.attached & (1U << GPULAT_FAM_NVIDIA)))
		return 0;
	c = gl_nv_cpu_get();
	if (c && c->irq_action)
		return c->irq_ts;
	st = gl_nv_state_get();
	if (!st || !st->used)
		return 0;
	pid = (__u32)bpf_get_current_pid_tgid();
	t = pid ? gl_nv_find(st, pid) : NULL;
	if (!t)
		return 0;
	/* irq/N-s-nvidia is not asked by an interrupt: the last one */
	if ((t->kind & GL_NV_KIND_MASK) == GL_NV_IRQ_THREAD)
		return t->irq;
	return st->last_irq;
}

#endif /* _GPULAT_BPF_NVIDIA_IRQ_H */
