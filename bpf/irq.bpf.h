/* SPDX-License-Identifier: GPL-2.0 */
/*
 * irq family in BPF: hard IRQ handler duration, one keyed series per
 * handler, as the module measures it (kmod/probe_irq.h):
 *
 *   irq.handler   irq_handler_entry -> irq_handler_exit, same action
 *
 * Start stamps on a per-CPU stack of (action, stamp) frames, as there:
 * entry pushes, exit pops the topmost frame of its action; frames left
 * above it, and the oldest when a push finds the stack full, count as
 * irq.unpaired; an exit with no frame of its action as irq.no_start.
 * Key: gl_irq_key(), key_name the action's name, copied when the key is
 * made.  Both tracepoints run in hard IRQ context, interrupts off: nothing
 * nests into the stack.  Tracepoints (GL_BPF_HIT()): 0 irq_handler_exit,
 * 1 irq_handler_entry.
 */
#ifndef _GPULAT_BPF_IRQ_H
#define _GPULAT_BPF_IRQ_H

#include "tp.bpf.h"
#include "trace.bpf.h"

#define GL_IRQ_DEPTH	4	/* the module's IRQ_DEPTH */
#define GL_GOLDEN_RATIO_64	0x61C8864680B583EBULL

struct gl_irq_frame {
	__u64 action;
	__u64 ts;
};

struct gl_irq_pcpu {
	struct gl_irq_frame stack[GL_IRQ_DEPTH];
	__u32 depth;
	__u32 pad;
};

/* zeroed by the tool when the family is switched on (the module's clear) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gl_irq_pcpu);
} gl_irq_pc SEC(".maps");

GL_KEYED(irq, GPULAT_FAM_IRQ, GPULAT_IRQ_KEYS_FULL, 1, GL_BPF_IRQ_KEYS);

/*
 * gl_irq_key - the module's gpulat_irq_key(): the IRQ number in bits
 * 0-31, hash_long(handler ^ thread_fn, 32) in bits 32-63 (the kernel's
 * hash_64() on x86-64: a multiply by GOLDEN_RATIO_64, the top bits).  The
 * nvidia family keys its series alike.
 */
static __always_inline __u64 gl_irq_key(int irq, struct irqaction *action)
{
	__u64 fns = (__u64)BPF_CORE_READ(action, handler) ^
		    (__u64)BPF_CORE_READ(action, thread_fn);

	return (__u32)irq | (fns * GL_GOLDEN_RATIO_64) >> 32 << 32;
}

/* gl_irq_name_num - "irq%u" of @n into @name, as scnprintf() would */
static __always_inline void gl_irq_name_num(char *name, __u32 n)
{
	__u32 v = n, digits = 1, i;

#pragma unroll
	for (i = 0; i < 9; i++) {
		if (v >= 10) {
			v /= 10;
			digits++;
		}
	}
	name[0] = 'i';
	name[1] = 'r';
	name[2] = 'q';
#pragma unroll
	for (i = 0; i < 10; i++) {
		if (i < digits) {
			name[(3 + digits - 1 - i) & (GPULAT_NAME_LEN - 1)] =
				'0' + n % 10;
			n /= 10;
		}
	}
	name[(3 + digits) & (GPULAT_NAME_LEN - 1)] = '\0';
}

/* gl_irq_key_fill - name a new key after its action, once (the module's) */
static __always_inline void gl_irq_key_fill(struct gl_bpf_key_hdr *hdr,
					    struct irqaction *action)
{
	const char *name = BPF_CORE_READ(action, name);
	long n = 0;

	if (name)
		n = bpf_probe_read_kernel_str(hdr->name, sizeof(hdr->name),
					      name);
	/* no name, an empty one, or one that cannot be read */
	if (n <= 1)
		gl_irq_name_num(hdr->name, BPF_CORE_READ(action, irq));
}

static __always_inline struct gl_irq_pcpu *gl_irq_this(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&gl_irq_pc, &zero);
}

GL_TP(irq_handler_entry, gl_irq_entry, int irq, struct irqaction *action)
{
	struct gl_irq_pcpu *pc = gl_irq_this();
	__u32 d;

	gl_hit(GPULAT_FAM_IRQ, GL_HIT_IRQ_ENTRY);
	if (!pc)
		return 0;
	d = pc->depth;
	if (d >= GL_IRQ_DEPTH) {
		/* full: the oldest frame can no longer be paired */
		pc->stack[0] = pc->stack[1];
		pc->stack[1] = pc->stack[2];
		pc->stack[2] = pc->stack[3];
		gl_count(GPULAT_FAM_IRQ, GPULAT_IRQ_UNPAIRED);
		d = GL_IRQ_DEPTH - 1;
	}
	pc->stack[d].action = (__u64)action;
	pc->stack[d].ts = bpf_ktime_get_ns();
	pc->depth = d + 1;
	return 0;
}

/* gl_irq_unpaired - @n frames that will never see their exit here */
static __always_inline void gl_irq_unpaired(__u64 n)
{
	__u32 fam = GPULAT_FAM_IRQ;
	struct gl_bpf_cnt *c = bpf_map_lookup_elem(&gl_cnt, &fam);

	if (c)
		c->c[GPULAT_IRQ_UNPAIRED] += n;
}

/* gl_irq_pop - the start stamp of @action's topmost frame, or 0 */
static __always_inline __u64 gl_irq_pop(struct gl_irq_pcpu *pc, __u64 action)
{
	__u32 d = pc->depth, i;

	/* top down: the 4 slots unrolled, no loop for the verifier */
#pragma unroll
	for (i = GL_IRQ_DEPTH; i-- > 0;) {
		if (i >= d || pc->stack[i].action != action)
			continue;
		if (i + 1 < d)
			gl_irq_unpaired(d - 1 - i);
		pc->depth = i;
		return pc->stack[i].ts;
	}
	return 0;
}

GL_TP(irq_handler_exit, gl_irq_exit, int irq, struct irqaction *action, int ret)
{
	struct gl_irq_pcpu *pc = gl_irq_this();
	__u64 now = bpf_ktime_get_ns(), start, key, *max;
	struct gl_keyed_irq *v;
	struct gl_kmax_irq *m;
	bool created;
	__s64 delta;

	gl_hit(GPULAT_FAM_IRQ, GL_HIT_IRQ_EXIT);
	start = pc && action ? gl_irq_pop(pc, (__u64)action) : 0;
	if (!start) {
		gl_count(GPULAT_FAM_IRQ, GPULAT_IRQ_NO_START);
		return 0;
	}
	delta = now - start;
	if (delta < 0) {
		gl_count(GPULAT_FAM_IRQ, GPULAT_IRQ_NEGATIVE);
		return 0;
	}
	key = gl_irq_key(irq, action);
	v = irq_key_get(key, &created, &m);
	if (!v)
		return 0;
	if (created)
		gl_irq_key_fill(&v->hdr, action);
	max = &m->max[GPULAT_IRQ_HANDLER];
	gl_ghist_record(&v->h[GPULAT_IRQ_HANDLER], max, delta);
	if (gl_conf.keep_history & GL_KEEPS_IRQ)
		gl_trace_span(false, now, delta);
	gl_trace_check(GPULAT_FAM_IRQ, GPULAT_IRQ_HANDLER, key, now, delta,
		       NULL, GL_OUT_CURRENT);
	return 0;
}

#endif /* _GPULAT_BPF_IRQ_H */
