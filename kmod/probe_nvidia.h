/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The nvidia family's tables, and its work on the tracepoints it shares
 * with other families (sched_switch, sched_wakeup, irq_handler_entry,
 * irq_handler_exit), compiled into mux.c, whose probes call it.  The family is
 * in probe_nvidia.c (what it measures and why), its thread set and
 * kthread scan in probe_nvidia_set.c, its IRQ verdicts in
 * probe_nvidia_irq.c, its Xid ring in probe_nvidia_xid.c.
 */
#ifndef _GPULAT_KMOD_PROBE_NVIDIA_H
#define _GPULAT_KMOD_PROBE_NVIDIA_H

#include <linux/bits.h>
#include <linux/hash.h>
#include <linux/interrupt.h>
#include <linux/irqflags.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "gpulat.h"
#include "keyed.h"
#include "stamp.h"
#include "trace.h"
#include "compat/sched.h"

enum {
	NVIDIA_HITS_AFTER = GPULAT_NV_XID_LOST,	/* the last drop counter */
	GPULAT_TPS_NVIDIA(GPULAT_TP_HIT)
	NV_NR_COUNTERS,
};

struct gpulat_nv_pcpu {
	u64 counters[NV_NR_COUNTERS];
	/* the driver's handler running on this CPU (they do not nest) */
	const struct irqaction *irq_action;
	u64 irq_ts;
	u32 irq_idx;
};

/* key indexes: 16 bits; NV_NOKEY: the key table was full */
#define NV_IDX_BITS		16
#define NV_NOKEY		((1U << NV_IDX_BITS) - 1)

/*
 * Verdict cache: one u64 per entry, written whole.
 *   bits 63..48  thread set generation (never 0: 0 is an empty entry)
 *   bits 47..18  identity hash of the action
 *   bit  17      the driver's handler
 *   bits 15..0   its key index, or NV_NOKEY
 */
#define NV_HANDLER_BITS		12
#define NV_V_GEN_SHIFT		48
#define NV_V_GEN_MASK		((1U << (64 - NV_V_GEN_SHIFT)) - 1)
#define NV_V_ID_SHIFT		18
#define NV_V_ID_BITS		30
#define NV_V_OURS		BIT_ULL(17)
#define NV_V_IDX_MASK		((1ULL << NV_IDX_BITS) - 1)
#define NV_V_VERDICT		(NV_V_OURS | NV_V_IDX_MASK)

/*
 * Thread set: buckets of NV_SET_WAYS u64, one cache line each.
 *   bits 21..0   pid (GPULAT_PID_MASK, stamp.h)
 *   bits 25..24  kind (NV_KIND_*: bit 24 set for both IRQ thread kinds)
 *   bits 47..32  key index, or NV_NOKEY
 * Start stamps live beside, per entry, tagged with the pid they belong to:
 *   bits 63..23  CLOCK_MONOTONIC ns modulo 2^41 (36 minutes)
 *   bit  22      switched out runnable: the next switch-in is no wakeup
 *   bits 21..0   pid
 */
#define NV_SET_WAYS		8
#define NV_SET_BUCKET_BITS	7
#define NV_SET_SLOTS		(NV_SET_WAYS << NV_SET_BUCKET_BITS)
#define NV_KIND_SHIFT		24
#define NV_KIND_MASK		3ULL
#define NV_KIND_IRQ_THREAD	1ULL	/* irq/N-nvidia */
#define NV_KIND_KTHREAD		2ULL
#define NV_KIND_IRQ_SECONDARY	3ULL	/* irq/N-s-nvidia */
#define NV_IDX_SHIFT		32
#define NV_ST_PREEMPTED		BIT_ULL(22)
#define NV_ST_TS_SHIFT		23
/*
 * In front of the set, a filter of 2^12 bits, one per pid hash, set while
 * a followed pid has that hash: a task that is not followed costs one load
 * and a bit test (false positives: followed pids / 4096).
 */
#define NV_FILTER_BITS		12

struct gpulat_nv_stamps {
	u64 wake;
	u64 run;
	u64 irq;	/* IRQ thread: its last request's hard IRQ entry, ns */
};

/*
 * Set up by the family before its probes attach (probe_nvidia.c); the set
 * and the filter change under the set's lock (probe_nvidia_set.c), the
 * verdict cache without locks (probe_nvidia_irq.c).
 */
extern struct gpulat_nv_pcpu __percpu *gpulat_nv_pc;
extern struct gpulat_keyed gpulat_nv_keyed;
extern u64 *gpulat_nv_handlers;		/* verdict cache */
extern u32 gpulat_nv_gen;		/* thread set generation, 16 bits */
extern unsigned long gpulat_nv_filter[BITS_TO_LONGS(1 << NV_FILTER_BITS)];
extern u64 *gpulat_nv_set;		/* [NV_SET_SLOTS] */
extern struct gpulat_nv_stamps *gpulat_nv_st;	/* [NV_SET_SLOTS] */
extern unsigned int gpulat_nv_set_used;	/* entries in use */
extern u64 gpulat_nv_last_irq;		/* the last handler's entry, ns */

/* probe_nvidia_set.c */
bool gpulat_nv_set_add(pid_t pid, u64 kind, int idx);
void gpulat_nv_set_clear(void);
void gpulat_nv_probe_exit(void *data, struct task_struct *p);
void gpulat_nv_probe_fork(void *data, struct task_struct *parent,
			  struct task_struct *child);
void gpulat_nv_probe_rename(void *data, struct task_struct *task,
			    const char *comm);
void gpulat_nv_started(struct gpulat_family *fam);

/* probe_nvidia_irq.c */
void gpulat_nv_pattern_init(void);
u64 gpulat_nv_decide(int irq, struct irqaction *action, u64 tag);

/* probe_nvidia_xid.c */
int gpulat_nv_xid_init(void);
void gpulat_nv_xid_exit(void);
size_t gpulat_nv_xid_bytes(void);
unsigned int gpulat_nv_events(struct gpulat_family *fam,
			      struct gpulat_event *out, unsigned int max);

/* --- Thread set ------------------------------------------------------ */

static __always_inline u64 *nv_bucket(pid_t pid)
{
	return &gpulat_nv_set[hash_32((u32)pid, NV_SET_BUCKET_BITS) *
			      NV_SET_WAYS];
}

static __always_inline u64 nv_kind(u64 word)
{
	return word >> NV_KIND_SHIFT & NV_KIND_MASK;
}

/* irq/N-nvidia or irq/N-s-nvidia: a thread with a run series */
static __always_inline bool nv_is_irq_thread(u64 word)
{
	return nv_kind(word) & NV_KIND_IRQ_THREAD;
}

static __always_inline unsigned long *nv_filter_word(pid_t pid,
						     unsigned long *bit)
{
	u32 h = hash_32((u32)pid, NV_FILTER_BITS);

	*bit = BIT(h % BITS_PER_LONG);
	return &gpulat_nv_filter[h / BITS_PER_LONG];
}

/* nv_set_find - slot of @pid in the set (its word in *@word), or -1 */
static __always_inline int nv_set_find(pid_t pid, u64 *word)
{
	u64 *b = nv_bucket(pid);
	unsigned long bit, *f = nv_filter_word(pid, &bit);
	unsigned int i;

	if (likely(!(READ_ONCE(*f) & bit)))
		return -1;

	for (i = 0; i < NV_SET_WAYS; i++) {
		u64 w = READ_ONCE(b[i]);

		if (w && (w & GPULAT_PID_MASK) == (u32)pid) {
			*word = w;
			return b - gpulat_nv_set + i;
		}
	}
	return -1;
}

/* --- Samples ---------------------------------------------------------- */

static __always_inline u64 nv_stamp(u64 now, u64 pid)
{
	return gpulat_stamp(now, NV_ST_TS_SHIFT, pid);
}

/*
 * nv_file - file the sample from stamp @st to @now of entry @word
 *
 * 41-bit stamps (gpulat_stamp_delta()): a stamp from the future (clock
 * skew) is negative, and so is a span over 2^40 ns (18 minutes), which
 * neither a wakeup nor an IRQ thread's run lasts.
 */
static __always_inline void nv_file(u64 word, unsigned int series, u64 st,
				    u64 now, struct task_struct *p)
{
	u32 idx = word >> NV_IDX_SHIFT & NV_V_IDX_MASK;
	s64 delta = gpulat_stamp_delta(st, now, NV_ST_TS_SHIFT);

	if (unlikely(delta < 0)) {
		this_cpu_inc(gpulat_nv_pc->counters[GPULAT_NV_NEGATIVE]);
		return;
	}
	if (unlikely(idx == NV_NOKEY)) {
		this_cpu_inc(gpulat_nv_pc->counters[GPULAT_NV_KEYS_FULL]);
		return;
	}
	gpulat_ghist_record(gpulat_key_hist(&gpulat_nv_keyed, idx, series),
			    delta);
	gpulat_trace_check(GPULAT_FAM_NVIDIA, series,
			   gpulat_nv_keyed.keys[idx].key, now, delta, p,
			   series == GPULAT_NV_THREAD_RUN ? 0 :
			   GPULAT_OUT_CPU_WAIT);
}

/* nv_switch_out - entry @i (@word) leaves the CPU at @now */
static __always_inline void nv_switch_out(int i, u64 word,
					  struct task_struct *p, bool preempt,
					  u64 now)
{
	u64 pid = word & GPULAT_PID_MASK;
	bool irq_thread = nv_is_irq_thread(word);

	if (irq_thread) {
		u64 st = READ_ONCE(gpulat_nv_st[i].run);

		WRITE_ONCE(gpulat_nv_st[i].run, 0);
		if ((st & GPULAT_PID_MASK) == pid)
			nv_file(word, GPULAT_NV_THREAD_RUN, st, now, p);
		else
			this_cpu_inc(gpulat_nv_pc->counters[GPULAT_NV_NO_START]);
	}
	/* runnable: its next switch-in ends a preemption, not a wakeup */
	if (preempt || gpulat_task_state(p) == TASK_RUNNING)
		WRITE_ONCE(gpulat_nv_st[i].wake, NV_ST_PREEMPTED | pid);
	else if (!irq_thread)
		WRITE_ONCE(gpulat_nv_st[i].wake, 0);
	/* asleep, an IRQ thread keeps the request that will wake it */
}

/* nv_switch_in - entry @i (@word) gets the CPU at @now */
static __always_inline void nv_switch_in(int i, u64 word, u64 now,
					 struct task_struct *p)
{
	u64 pid = word & GPULAT_PID_MASK;
	u64 st = READ_ONCE(gpulat_nv_st[i].wake);
	bool irq_thread = nv_is_irq_thread(word);

	WRITE_ONCE(gpulat_nv_st[i].wake, 0);
	if ((st & GPULAT_PID_MASK) != pid) {
		/* an IRQ thread runs without a request too (a lock hand-off) */
		if (!irq_thread)
			this_cpu_inc(gpulat_nv_pc->counters[GPULAT_NV_NO_START]);
	} else if (!(st & NV_ST_PREEMPTED))
		nv_file(word, irq_thread ? GPULAT_NV_THREAD_WAKE :
			GPULAT_NV_KTHREAD_WAKE, st, now, p);
	if (irq_thread)
		WRITE_ONCE(gpulat_nv_st[i].run, nv_stamp(now, pid));
}

/*
 * The scheduler probes run for every task: a read of gpulat_nv_set_used,
 * then a filter bit per task looked up, and a cache line of the set when
 * it is set.  The stamps of one task are written under its run-queue lock
 * (wakeup and switch), so they are serialised.
 */

/* gpulat_nv_switch - sched_switch from @prev to @next */
static __always_inline void gpulat_nv_switch(bool preempt,
					     struct task_struct *prev,
					     struct task_struct *next)
{
	int pi = -1, ni = -1;
	u64 pw = 0, nw = 0, now;

	this_cpu_inc(gpulat_nv_pc->counters[NVIDIA_HIT_SWITCH]);
	if (!READ_ONCE(gpulat_nv_set_used))
		return;
	if (prev->pid)
		pi = nv_set_find(prev->pid, &pw);
	if (next->pid)
		ni = nv_set_find(next->pid, &nw);
	if (likely(pi < 0 && ni < 0))
		return;
	now = ktime_get_mono_fast_ns();
	if (pi >= 0)
		nv_switch_out(pi, pw, prev, preempt, now);
	if (ni >= 0)
		nv_switch_in(ni, nw, now, next);
}

/* gpulat_nv_wakeup - sched_wakeup of @p */
static __always_inline void gpulat_nv_wakeup(struct task_struct *p)
{
	u64 word, w;
	int i;

	this_cpu_inc(gpulat_nv_pc->counters[NVIDIA_HIT_WAKEUP]);
	if (!READ_ONCE(gpulat_nv_set_used) || !p->pid)
		return;
	i = nv_set_find(p->pid, &word);
	if (likely(i < 0))
		return;
	/* irq/N-nvidia: timed from its interrupt's request, not here */
	if (nv_kind(word) == NV_KIND_IRQ_THREAD)
		return;
	/* irq/N-s-nvidia: only irq/N-nvidia's wakeup of it is a request */
	if (nv_kind(word) == NV_KIND_IRQ_SECONDARY &&
	    (nv_set_find(current->pid, &w) < 0 ||
	     nv_kind(w) != NV_KIND_IRQ_THREAD))
		return;
	WRITE_ONCE(gpulat_nv_st[i].wake,
		   nv_stamp(ktime_get_mono_fast_ns(), word & GPULAT_PID_MASK));
}

/* --- Handlers ---------------------------------------------------------- */

static __always_inline u64 nv_action_id(int irq, const struct irqaction *a)
{
	u64 x = (unsigned long)a ^ rol64((unsigned long)a->handler, 16) ^
		rol64((unsigned long)a->dev_id, 32) ^
		rol64((unsigned long)a->name, 48) ^ (u32)irq;

	return hash_64(x, NV_V_ID_BITS);
}

static __always_inline u64 *nv_handler_slot(const struct irqaction *a,
					    unsigned int n)
{
	u32 mask = (1U << NV_HANDLER_BITS) - 1;

	return &gpulat_nv_handlers[(hash_ptr(a, NV_HANDLER_BITS) + n) & mask];
}

/* nv_verdict - whether @action is the driver's, and its key index */
static __always_inline u64 nv_verdict(int irq, struct irqaction *action)
{
	u64 tag = (u64)READ_ONCE(gpulat_nv_gen) << NV_V_GEN_SHIFT |
		  nv_action_id(irq, action) << NV_V_ID_SHIFT;
	unsigned int i;

	for (i = 0; i < GPULAT_KEY_PROBES; i++) {
		u64 e = READ_ONCE(*nv_handler_slot(action, i));

		if ((e & ~NV_V_VERDICT) == tag)
			return e & NV_V_VERDICT;
		if (!e)
			break;
	}
	return gpulat_nv_decide(irq, action, tag);
}

/* gpulat_nv_irq_entry - irq_handler_entry */
static __always_inline void gpulat_nv_irq_entry(int irq,
						struct irqaction *action)
{
	struct gpulat_nv_pcpu *pc;
	unsigned long flags;
	u64 v;

	/* hard IRQ context has interrupts off already; any other must too */
	local_irq_save(flags);
	this_cpu_inc(gpulat_nv_pc->counters[NVIDIA_HIT_IRQ_ENTRY]);
	if (unlikely(!action))
		goto out;
	v = nv_verdict(irq, action);
	if (!(v & NV_V_OURS))
		goto out;
	pc = this_cpu_ptr(gpulat_nv_pc);
	/* an entry whose exit this CPU never saw: that sample is lost */
	if (unlikely(pc->irq_action))
		pc->counters[GPULAT_NV_NO_START]++;
	pc->irq_action = action;
	pc->irq_idx = v & NV_V_IDX_MASK;
	pc->irq_ts = ktime_get_mono_fast_ns();
	WRITE_ONCE(gpulat_nv_last_irq, pc->irq_ts);
out:
	local_irq_restore(flags);
}

/*
 * nv_thread_asked - @action's handler asked for its thread at @now: the
 * thread's wait starts, unless it runs or is runnable (it serves the
 * request without a wakeup) or an earlier request is still waiting
 */
static __always_inline void nv_thread_asked(const struct irqaction *action,
					    u64 irq_ts, u64 now)
{
	struct task_struct *t = READ_ONCE(action->thread);
	u64 word;
	int i;

	if (!t)
		return;
	i = nv_set_find(t->pid, &word);
	if (i < 0)
		return;
	/* the interrupt whose work the thread does next (the cuda family) */
	WRITE_ONCE(gpulat_nv_st[i].irq, irq_ts);
	if (READ_ONCE(gpulat_nv_st[i].run))
		return;
	cmpxchg(&gpulat_nv_st[i].wake, 0,
		nv_stamp(now, word & GPULAT_PID_MASK));
}

static __always_inline void nv_hardirq_file(u32 idx, u64 now, u64 delta)
{
	gpulat_ghist_record(gpulat_key_hist(&gpulat_nv_keyed, idx,
					    GPULAT_NV_HARDIRQ), delta);
	gpulat_trace_check(GPULAT_FAM_NVIDIA, GPULAT_NV_HARDIRQ,
			   gpulat_nv_keyed.keys[idx].key, now, delta, current, 0);
}

/* gpulat_nv_irq_exit - irq_handler_exit */
static __always_inline void gpulat_nv_irq_exit(int irq,
					       struct irqaction *action,
					       int ret)
{
	struct gpulat_nv_pcpu *pc;
	unsigned long flags;
	s64 delta;
	u64 now;

	local_irq_save(flags);
	pc = this_cpu_ptr(gpulat_nv_pc);
	pc->counters[NVIDIA_HIT_IRQ_EXIT]++;
	if (likely(pc->irq_action != action || !action))
		goto out;
	pc->irq_action = NULL;
	now = ktime_get_mono_fast_ns();
	delta = now - pc->irq_ts;
	if (unlikely(delta < 0))
		pc->counters[GPULAT_NV_NEGATIVE]++;
	else if (unlikely(pc->irq_idx == NV_NOKEY))
		pc->counters[GPULAT_NV_KEYS_FULL]++;
	else
		nv_hardirq_file(pc->irq_idx, now, delta);
	if (ret & IRQ_WAKE_THREAD)
		nv_thread_asked(action, pc->irq_ts, now);
out:
	local_irq_restore(flags);
}

/*
 * gpulat_nv_waker_irq - the entry time of the driver's hard IRQ behind a
 * wakeup that the running context makes now, or 0 when the driver's
 * interrupt path does not make it (or the family is off): its handler
 * on this CPU; its IRQ thread, for the interrupt that asked for it; a
 * driver kthread, for the driver's last interrupt
 */
static __always_inline u64 gpulat_nv_waker_irq(void)
{
	struct gpulat_nv_pcpu *pc;
	u64 word;
	int i;

	if (!READ_ONCE(gpulat_nvidia_family.attached))
		return 0;
	if (hardirq_count()) {
		pc = this_cpu_ptr(gpulat_nv_pc);
		return READ_ONCE(pc->irq_action) ? pc->irq_ts : 0;
	}
	if (!READ_ONCE(gpulat_nv_set_used) || !current->pid)
		return 0;
	i = nv_set_find(current->pid, &word);
	if (i < 0)
		return 0;
	/* irq/N-s-nvidia is not asked by an interrupt: the last one */
	if (nv_kind(word) == NV_KIND_IRQ_THREAD)
		return READ_ONCE(gpulat_nv_st[i].irq);
	return READ_ONCE(gpulat_nv_last_irq);
}

#endif /* _GPULAT_KMOD_PROBE_NVIDIA_H */
