// SPDX-License-Identifier: GPL-2.0
/*
 * nvidia family: the NVIDIA driver's interrupt paths and kthreads, and its
 * Xid events.
 *
 *   nvidia.hardirq       irq_handler_entry -> irq_handler_exit
 *   nvidia.thread.wake   the hard IRQ asks for irq/N-nvidia -> its switch-in;
 *                        irq/N-s-nvidia woken by irq/N-nvidia -> switch-in
 *   nvidia.thread.run    irq/N-nvidia (-s-nvidia) switch-in -> switch-out
 *   nvidia.kthread.wake  sched_wakeup of a driver kthread -> switch-in
 *
 * Handlers are the driver's when their action name matches nvidia_pattern.
 * The IRQ series are keyed like the irq family's handler series,
 * gpulat_irq_key(irq, action); the kthread series by pid.
 *
 * Which handlers are ours: decided once per action, on its first interrupt,
 * and kept in a small verdict cache indexed by the action's address.  An
 * entry also holds a hash of the action's handler, dev_id and name (an
 * action freed and another allocated at its address looks different) and
 * the generation of the thread set; the generation moves whenever an IRQ
 * thread we follow exits, so that every handler is decided again and a
 * re-requested IRQ has its new threads followed.
 *
 * Which tasks are ours: a set of pids in buckets of one cache line each,
 * behind a one-bit-per-hash filter, looked up without locks by the
 * scheduler probes.  IRQ threads join when their handler is decided,
 * driver kthreads when they are created (sched_process_fork, task_rename)
 * or, for those already there, by one walk of the task list when the
 * family attaches; all leave in sched_process_exit.  The set is
 * changed only under nv_set_lock, each change O(1).  Nothing here keeps a
 * task pointer.
 *
 * An IRQ thread's wait is timed from the interrupt's request, not from
 * sched_wakeup: on PREEMPT_RT a thread is also woken by the hand-off of a
 * sleeping lock it waited for inside its handler, which is no interrupt.
 * The request is irq_handler_exit returning IRQ_WAKE_THREAD while the
 * thread is asleep (a thread that is running or runnable serves it
 * without a wakeup); for irq/N-s-nvidia it is its wakeup by irq/N-nvidia.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/glob.h>
#include <linux/hash.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/pci.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <trace/events/task.h>

#include "fault.h"
#include "gpulat.h"
#include "keyed.h"
#include "mux.h"
#include "compat/sched.h"
#include "trace.h"

enum {
	NV_HIT_PEXIT = GPULAT_NV_XID_LOST + 1,
	NV_HIT_FORK,
	NV_HIT_RENAME,
	NV_HIT_SWITCH,
	NV_HIT_WAKEUP,
	NV_HIT_IRQ_EXIT,
	NV_HIT_IRQ_ENTRY,
	NV_NR_COUNTERS,
};

struct nv_pcpu {
	u64 counters[NV_NR_COUNTERS];
	/* the driver's handler running on this CPU (they do not nest) */
	const struct irqaction *irq_action;
	u64 irq_ts;
	u32 irq_idx;
};

static struct nv_pcpu __percpu *nv_pc;

#define NV_NOKEY		0xffffU	/* key index: the key table was full */

/*
 * Verdict cache: one u64 per entry, written whole.
 *   bits 63..48  thread set generation (never 0: 0 is an empty entry)
 *   bits 47..18  identity hash of the action
 *   bit  17      the driver's handler
 *   bits 15..0   its key index, or NV_NOKEY
 */
#define NV_HANDLER_BITS		12
#define NV_V_GEN_SHIFT		48
#define NV_V_ID_SHIFT		18
#define NV_V_ID_BITS		30
#define NV_V_OURS		BIT_ULL(17)
#define NV_V_IDX_MASK		0xffffULL
#define NV_V_VERDICT		(NV_V_OURS | NV_V_IDX_MASK)

/*
 * Thread set: buckets of NV_SET_WAYS u64, one cache line each.
 *   bits 21..0   pid (pids are below PID_MAX_LIMIT = 2^22)
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
#define NV_PID_MASK		((1ULL << 22) - 1)
#define NV_KIND_SHIFT		24
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

#define NV_XID_RING		64	/* a power of two */

struct nv_stamps {
	u64 wake;
	u64 run;
};

/* One Xid; seq is its number + 1 once complete, 0 while written. */
struct nv_xid {
	u64 seq;
	u64 time_ns;
	u32 code;
	u32 cpu;
	char device[GPULAT_NAME_LEN];
};

static char *nvidia_pattern = "nvidia";
module_param(nvidia_pattern, charp, 0444);
MODULE_PARM_DESC(nvidia_pattern,
		 "IRQ handler names of the NVIDIA driver: a glob, or else a prefix (default \"nvidia\")");

static u64 *nv_handlers;		/* verdict cache */
static u32 nv_gen = 1;			/* thread set generation, 16 bits */
static bool nv_glob;			/* nvidia_pattern has glob characters */

static unsigned long nv_filter[BITS_TO_LONGS(1 << NV_FILTER_BITS)];
static u16 nv_filter_refs[1 << NV_FILTER_BITS];	/* followed pids per bit */
static u64 *nv_set;			/* [NV_SET_SLOTS] */
static struct nv_stamps *nv_st;		/* [NV_SET_SLOTS] */
static unsigned int nv_set_used;	/* entries in use */
static DEFINE_RAW_SPINLOCK(nv_set_lock);	/* serialises set changes */

static struct nv_xid nv_xids[NV_XID_RING];
static atomic64_t nv_xid_next;		/* Xids seen since load */
static DEFINE_MUTEX(nv_xid_lock);	/* nv_xid_tp, nv_xid_mod */
static struct tracepoint *nv_xid_tp;	/* the driver's, while attached */
static struct module *nv_xid_mod;

static bool nv_tp_nb_on;		/* the module notifier is registered */

static const struct gpulat_series_desc nv_keyed_series[] = {
	{ .id = GPULAT_NV_HARDIRQ, .name = "nvidia.hardirq",
	  .what = "irq_handler_entry -> irq_handler_exit" },
	{ .id = GPULAT_NV_THREAD_WAKE, .name = "nvidia.thread.wake",
	  .what = "sched_wakeup of irq/N-nvidia -> switch-in" },
	{ .id = GPULAT_NV_THREAD_RUN, .name = "nvidia.thread.run",
	  .what = "irq/N-nvidia switch-in -> switch-out" },
	{ .id = GPULAT_NV_KTHREAD_WAKE, .name = "nvidia.kthread.wake",
	  .what = "sched_wakeup of a driver kthread -> switch-in" },
};

static struct gpulat_keyed nv_keyed = {
	.series		= nv_keyed_series,
	.nr_series	= ARRAY_SIZE(nv_keyed_series),
	.max_keys	= 128,
};

module_param_named(nvidia_max_keys, nv_keyed.max_keys, uint, 0444);
MODULE_PARM_DESC(nvidia_max_keys,
		 "IRQ handlers plus kthreads with series (default 128, 7.2 KiB each)");

/* --- Thread set ------------------------------------------------------ */

static __always_inline u64 *nv_bucket(pid_t pid)
{
	return &nv_set[hash_32((u32)pid, NV_SET_BUCKET_BITS) * NV_SET_WAYS];
}

static __always_inline u64 nv_kind(u64 word)
{
	return word >> NV_KIND_SHIFT & 3;
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
	return &nv_filter[h / BITS_PER_LONG];
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

		if (w && (w & NV_PID_MASK) == (u32)pid) {
			*word = w;
			return b - nv_set + i;
		}
	}
	return -1;
}

/* nv_gen_bump - make every handler be decided again; under nv_set_lock */
static void nv_gen_bump(void)
{
	u32 gen = (READ_ONCE(nv_gen) + 1) & 0xffff;

	WRITE_ONCE(nv_gen, gen ? gen : 1);
}

/*
 * nv_set_add - follow @pid; false when its bucket is full (counted in
 * nvidia.keys_full, at each attempt).  Any context.
 */
static bool nv_set_add(pid_t pid, u64 kind, int idx)
{
	u64 word = (u32)pid | kind << NV_KIND_SHIFT |
		   (u64)(idx < 0 ? NV_NOKEY : idx) << NV_IDX_SHIFT;
	unsigned long flags;
	u64 *b = nv_bucket(pid), old;
	unsigned long bit, *f = nv_filter_word(pid, &bit);
	unsigned int i;
	bool ok = true;

	raw_spin_lock_irqsave(&nv_set_lock, flags);
	if (nv_set_find(pid, &old) >= 0)
		goto out;
	for (i = 0; i < NV_SET_WAYS; i++)
		if (!b[i])
			break;
	if (i == NV_SET_WAYS) {
		this_cpu_inc(nv_pc->counters[GPULAT_NV_KEYS_FULL]);
		ok = false;
		goto out;
	}
	/* stamps of an earlier owner of the entry are cleared first */
	WRITE_ONCE(nv_st[b - nv_set + i].wake, 0);
	WRITE_ONCE(nv_st[b - nv_set + i].run, 0);
	nv_filter_refs[hash_32((u32)pid, NV_FILTER_BITS)]++;
	WRITE_ONCE(*f, *f | bit);
	/* filter bit and clear stamps before a probe can find the entry */
	smp_store_release(&b[i], word);
	WRITE_ONCE(nv_set_used, nv_set_used + 1);
out:
	raw_spin_unlock_irqrestore(&nv_set_lock, flags);
	return ok;
}

/*
 * nv_filter_drop - clear @pid's filter bit when no other followed pid
 * shares it (a count per bit); the word is replaced whole, so a probe
 * never misses a followed pid.  Under nv_set_lock.
 */
static void nv_filter_drop(pid_t pid)
{
	unsigned long bit, *f = nv_filter_word(pid, &bit);

	if (!--nv_filter_refs[hash_32((u32)pid, NV_FILTER_BITS)])
		WRITE_ONCE(*f, *f & ~bit);
}

/* nv_set_del - stop following @pid; a thread of a handler moves the gen */
static void nv_set_del(pid_t pid)
{
	unsigned long flags;
	u64 word;
	int i;

	raw_spin_lock_irqsave(&nv_set_lock, flags);
	i = nv_set_find(pid, &word);
	if (i >= 0) {
		WRITE_ONCE(nv_set[i], 0);
		nv_filter_drop(pid);
		WRITE_ONCE(nv_set_used, nv_set_used - 1);
		if (nv_is_irq_thread(word))
			nv_gen_bump();
	}
	raw_spin_unlock_irqrestore(&nv_set_lock, flags);
}

/*
 * nv_set_clear - forget every thread: the probes were off a while, and
 * none runs now (the family is detached), so no lock is needed
 */
static void nv_set_clear(void)
{
	memset(nv_set, 0, NV_SET_SLOTS * sizeof(*nv_set));
	memset(nv_filter, 0, sizeof(nv_filter));
	memset(nv_filter_refs, 0, sizeof(nv_filter_refs));
	nv_set_used = 0;
	nv_gen_bump();
}

/* --- Samples ---------------------------------------------------------- */

static __always_inline u64 nv_stamp(u64 now, u64 pid)
{
	return now << NV_ST_TS_SHIFT | pid;
}

/*
 * nv_file - file the sample from stamp @st to @now of entry @word
 *
 * 41-bit stamps: subtract in the top bits and read the result signed, so
 * a stamp from the future (clock skew) is negative, and so is a span over
 * 2^40 ns (18 minutes), which neither a wakeup nor an IRQ thread's run
 * lasts.
 */
static __always_inline void nv_file(u64 word, unsigned int series, u64 st,
				    u64 now, struct task_struct *p)
{
	u32 idx = word >> NV_IDX_SHIFT & NV_V_IDX_MASK;
	s64 delta = (s64)((now << NV_ST_TS_SHIFT) -
			  (st & ~((1ULL << NV_ST_TS_SHIFT) - 1))) >>
		    NV_ST_TS_SHIFT;

	if (unlikely(delta < 0)) {
		this_cpu_inc(nv_pc->counters[GPULAT_NV_NEGATIVE]);
		return;
	}
	if (unlikely(idx == NV_NOKEY)) {
		this_cpu_inc(nv_pc->counters[GPULAT_NV_KEYS_FULL]);
		return;
	}
	gpulat_ghist_record(gpulat_key_hist(&nv_keyed, idx, series), delta);
	gpulat_trace_check(GPULAT_FAM_NVIDIA, series, nv_keyed.keys[idx].key,
			   now, delta, p, series == GPULAT_NV_THREAD_RUN ? 0 :
			   GPULAT_OUT_CPU_WAIT);
}

/* nv_switch_out - entry @i (@word) leaves the CPU at @now */
static __always_inline void nv_switch_out(int i, u64 word,
					  struct task_struct *p, bool preempt,
					  u64 now)
{
	u64 pid = word & NV_PID_MASK;
	bool irq_thread = nv_is_irq_thread(word);

	if (irq_thread) {
		u64 st = READ_ONCE(nv_st[i].run);

		WRITE_ONCE(nv_st[i].run, 0);
		if ((st & NV_PID_MASK) == pid)
			nv_file(word, GPULAT_NV_THREAD_RUN, st, now, p);
		else
			this_cpu_inc(nv_pc->counters[GPULAT_NV_NO_START]);
	}
	/* runnable: its next switch-in ends a preemption, not a wakeup */
	if (preempt || gpulat_task_state(p) == TASK_RUNNING)
		WRITE_ONCE(nv_st[i].wake, NV_ST_PREEMPTED | pid);
	else if (!irq_thread)
		WRITE_ONCE(nv_st[i].wake, 0);
	/* asleep, an IRQ thread keeps the request that will wake it */
}

/* nv_switch_in - entry @i (@word) gets the CPU at @now */
static __always_inline void nv_switch_in(int i, u64 word, u64 now,
					 struct task_struct *p)
{
	u64 pid = word & NV_PID_MASK, st = READ_ONCE(nv_st[i].wake);
	bool irq_thread = nv_is_irq_thread(word);

	WRITE_ONCE(nv_st[i].wake, 0);
	if ((st & NV_PID_MASK) != pid) {
		/* an IRQ thread runs without a request too (a lock hand-off) */
		if (!irq_thread)
			this_cpu_inc(nv_pc->counters[GPULAT_NV_NO_START]);
	} else if (!(st & NV_ST_PREEMPTED))
		nv_file(word, irq_thread ? GPULAT_NV_THREAD_WAKE :
			GPULAT_NV_KTHREAD_WAKE, st, now, p);
	if (irq_thread)
		WRITE_ONCE(nv_st[i].run, nv_stamp(now, pid));
}

/*
 * The scheduler probes run for every task: a read of nv_set_used, then a
 * filter bit per task looked up, and a cache line of the set when it is
 * set.  The stamps of one task are written under
 * its run-queue lock (wakeup and switch), so they are serialised.
 */
void nv_probe_switch(GPULAT_SCHED_SWITCH_ARGS)
{
	int pi = -1, ni = -1;
	u64 pw = 0, nw = 0, now;

	this_cpu_inc(nv_pc->counters[NV_HIT_SWITCH]);
	if (!READ_ONCE(nv_set_used))
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

void nv_probe_wakeup(void *data, struct task_struct *p)
{
	u64 word, w;
	int i;

	this_cpu_inc(nv_pc->counters[NV_HIT_WAKEUP]);
	if (!READ_ONCE(nv_set_used) || !p->pid)
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
	WRITE_ONCE(nv_st[i].wake,
		   nv_stamp(ktime_get_mono_fast_ns(), word & NV_PID_MASK));
}

static void nv_probe_process_exit(void *data, struct task_struct *p)
{
	u64 word;

	this_cpu_inc(nv_pc->counters[NV_HIT_PEXIT]);
	/*
	 * Pairs with the barrier in nv_scan_one(): either the scan sees
	 * PF_EXITING (set before this tracepoint), or this sees its entry.
	 */
	smp_mb();
	if (!READ_ONCE(nv_set_used) || nv_set_find(p->pid, &word) < 0)
		return;
	nv_set_del(p->pid);
}

/* --- Handlers ---------------------------------------------------------- */

struct nv_irq_name {
	int irq;
	const char *name;
};

static void nv_fill_irq(struct gpulat_key *k, const void *arg)
{
	const struct nv_irq_name *n = arg;

	scnprintf(k->name, sizeof(k->name), "%s/%d", n->name, n->irq);
}

static bool nv_name_match(const char *name)
{
	if (!name || !nvidia_pattern[0])
		return false;
	if (nv_glob)
		return glob_match(nvidia_pattern, name);
	return !strncmp(name, nvidia_pattern, strlen(nvidia_pattern));
}

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

	return &nv_handlers[(hash_ptr(a, NV_HANDLER_BITS) + n) & mask];
}

/*
 * nv_decide - the slow path of a handler's first interrupt (and of the
 * first after the thread set changed): match its name, give it a key,
 * follow its threads, cache the verdict.  Hard IRQ context.
 */
static noinline u64 nv_decide(int irq, struct irqaction *action, u64 tag)
{
	struct nv_irq_name n = { .irq = irq, .name = action->name };
	u64 v = 0, gen = tag >> NV_V_GEN_SHIFT;
	unsigned int i;
	int idx;

	if (nv_name_match(action->name)) {
		idx = gpulat_key_get(&nv_keyed,
				     gpulat_irq_key(irq, action),
				     nv_fill_irq, &n);
		v = NV_V_OURS | (idx < 0 ? NV_NOKEY : idx);
		/*
		 * The action is live while its handler runs, and so are its
		 * threads: free_irq() stops them only after the last handler
		 * returned.
		 */
		if (action->thread)
			nv_set_add(action->thread->pid, NV_KIND_IRQ_THREAD, idx);
		if (action->secondary && action->secondary->thread)
			nv_set_add(action->secondary->thread->pid,
				   NV_KIND_IRQ_SECONDARY, idx);
	}
	/* a free entry, or one of an older generation, or else evict one */
	for (i = 0; i < GPULAT_KEY_PROBES; i++) {
		u64 *e = nv_handler_slot(action, i), old = READ_ONCE(*e);

		if (old >> NV_V_GEN_SHIFT != gen &&
		    cmpxchg(e, old, tag | v) == old)
			return v;
	}
	WRITE_ONCE(*nv_handler_slot(action, tag >> NV_V_ID_SHIFT & 7), tag | v);
	return v;
}

/* nv_verdict - whether @action is the driver's, and its key index */
static __always_inline u64 nv_verdict(int irq, struct irqaction *action)
{
	u64 tag = (u64)READ_ONCE(nv_gen) << NV_V_GEN_SHIFT |
		  nv_action_id(irq, action) << NV_V_ID_SHIFT;
	unsigned int i;

	for (i = 0; i < GPULAT_KEY_PROBES; i++) {
		u64 e = READ_ONCE(*nv_handler_slot(action, i));

		if ((e & ~NV_V_VERDICT) == tag)
			return e & NV_V_VERDICT;
		if (!e)
			break;
	}
	return nv_decide(irq, action, tag);
}

void nv_probe_irq_entry(void *data, int irq, struct irqaction *action)
{
	struct nv_pcpu *pc;
	unsigned long flags;
	u64 v;

	/* hard IRQ context has interrupts off already; any other must too */
	local_irq_save(flags);
	this_cpu_inc(nv_pc->counters[NV_HIT_IRQ_ENTRY]);
	if (unlikely(!action))
		goto out;
	v = nv_verdict(irq, action);
	if (!(v & NV_V_OURS))
		goto out;
	pc = this_cpu_ptr(nv_pc);
	/* an entry whose exit this CPU never saw: that sample is lost */
	if (unlikely(pc->irq_action))
		pc->counters[GPULAT_NV_NO_START]++;
	pc->irq_action = action;
	pc->irq_idx = v & NV_V_IDX_MASK;
	pc->irq_ts = ktime_get_mono_fast_ns();
out:
	local_irq_restore(flags);
}

/*
 * nv_thread_asked - @action's handler asked for its thread at @now: the
 * thread's wait starts, unless it runs or is runnable (it serves the
 * request without a wakeup) or an earlier request is still waiting
 */
static __always_inline void nv_thread_asked(const struct irqaction *action,
					    u64 now)
{
	struct task_struct *t = READ_ONCE(action->thread);
	u64 word;
	int i;

	if (!t)
		return;
	i = nv_set_find(t->pid, &word);
	if (i < 0 || READ_ONCE(nv_st[i].run))
		return;
	cmpxchg(&nv_st[i].wake, 0, nv_stamp(now, word & NV_PID_MASK));
}

static __always_inline void nv_hardirq_file(u32 idx, u64 now, u64 delta)
{
	gpulat_ghist_record(gpulat_key_hist(&nv_keyed, idx, GPULAT_NV_HARDIRQ),
			    delta);
	gpulat_trace_check(GPULAT_FAM_NVIDIA, GPULAT_NV_HARDIRQ,
			   nv_keyed.keys[idx].key, now, delta, current, 0);
}

void nv_probe_irq_exit(void *data, int irq, struct irqaction *action,
		       int ret)
{
	struct nv_pcpu *pc;
	unsigned long flags;
	s64 delta;
	u64 now;

	local_irq_save(flags);
	pc = this_cpu_ptr(nv_pc);
	pc->counters[NV_HIT_IRQ_EXIT]++;
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
		nv_thread_asked(action, now);
out:
	local_irq_restore(flags);
}

/* --- Kthreads ---------------------------------------------------------- */

/*
 * nv_kthread_match - the driver's kthreads by comm (cut to 15 characters):
 * "nvidia", "nv_queue", "UVM GPU%u BH", "UVM GPU%u KC".
 */
static bool nv_kthread_match(const char *comm)
{
	const char *p;

	if (!strcmp(comm, "nvidia") || !strcmp(comm, "nv_queue"))
		return true;
	if (strncmp(comm, "UVM GPU", 7) || !isdigit(comm[7]))
		return false;
	for (p = comm + 7; isdigit(*p); p++)
		;
	return !strcmp(p, " BH") || !strcmp(p, " KC");
}

static void nv_fill_comm(struct gpulat_key *k, const void *arg)
{
	strscpy(k->name, arg, sizeof(k->name));
}

/*
 * nv_scan_one - follow kthread @p, named @name, if it is the driver's;
 * under RCU or from a probe on it (the task is alive either way).
 * @runnable: it was just forked, and its first switch-in is no wakeup.
 */
static void nv_scan_one(struct task_struct *p, const char *name,
			bool runnable)
{
	char comm[TASK_COMM_LEN];
	u64 word;
	int idx;

	if (!(p->flags & PF_KTHREAD) || nv_set_find(p->pid, &word) >= 0)
		return;
	/*
	 * @name may be shorter than comm (task_rename's argument); a racing
	 * rename of p->comm can only make the copy fail to match
	 */
	strscpy(comm, name, sizeof(comm));
	if (!nv_kthread_match(comm))
		return;
	idx = gpulat_key_get(&nv_keyed, (u32)p->pid, nv_fill_comm, comm);
	if (!nv_set_add(p->pid, NV_KIND_KTHREAD, idx))
		return;
	if (runnable) {
		int i = nv_set_find(p->pid, &word);

		if (i >= 0)
			WRITE_ONCE(nv_st[i].wake, NV_ST_PREEMPTED | (u32)p->pid);
	}
	/* pairs with nv_probe_process_exit(): never keep a dead pid */
	smp_mb();
	if (READ_ONCE(p->flags) & PF_EXITING)
		nv_set_del(p->pid);
}

/*
 * A kthread is named at its creation: since 6.2 copy_process() copies
 * the name kthread_create() gives, seen at sched_process_fork; before,
 * kthread_create() renamed the new thread, seen at task_rename, which
 * also sees later renames.
 */
static void nv_probe_fork(void *data, struct task_struct *parent,
			  struct task_struct *child)
{
	this_cpu_inc(nv_pc->counters[NV_HIT_FORK]);
	if (unlikely(child->flags & PF_KTHREAD))
		nv_scan_one(child, child->comm, true);
}

static void nv_probe_rename(void *data, struct task_struct *task,
			    const char *comm)
{
	this_cpu_inc(nv_pc->counters[NV_HIT_RENAME]);
	if (unlikely(task->flags & PF_KTHREAD))
		nv_scan_one(task, comm, false);
}

/*
 * nv_started - the probes are on: follow the driver's kthreads that were
 * there before (later ones are seen as they are named).  One walk of the
 * task list per attach, with interrupts on.
 */
static void nv_started(struct gpulat_family *fam)
{
	struct task_struct *p;

	rcu_read_lock();
	for_each_process(p)
		nv_scan_one(p, p->comm, false);
	rcu_read_unlock();
}

/* --- Xid ------------------------------------------------------------- */

/*
 * The driver's prototype (kernel-open/nvidia/nv-tracepoint.h, 575+):
 * TP_PROTO(const struct pci_dev *pdev, uint32_t error_code, const char *msg)
 */
typedef void (*nv_xid_probe_t)(void *data, const struct pci_dev *pdev,
			       u32 error_code, const char *msg);

static void nv_probe_xid(void *data, const struct pci_dev *pdev,
			 u32 error_code, const char *msg)
{
	unsigned long flags;
	u64 n;
	struct nv_xid *e;

	if (!READ_ONCE(gpulat_nvidia_family.attached))
		return;
	/* stamped and put with interrupts off: the trace stays in order */
	local_irq_save(flags);
	n = atomic64_inc_return(&nv_xid_next) - 1;
	e = &nv_xids[n & (NV_XID_RING - 1)];
	if (n >= NV_XID_RING)
		this_cpu_inc(nv_pc->counters[GPULAT_NV_XID_LOST]);
	WRITE_ONCE(e->seq, 0);
	smp_wmb();	/* seq cleared before the fields change */
	e->time_ns = ktime_get_mono_fast_ns();
	e->code = error_code;
	e->cpu = raw_smp_processor_id();
	if (pdev)
		strscpy_pad(e->device, pci_name(pdev), sizeof(e->device));
	else
		memset(e->device, 0, sizeof(e->device));
	smp_wmb();	/* fields before seq */
	WRITE_ONCE(e->seq, n + 1);
	if (gpulat_trace_on()) {
		struct gpulat_event ev = {
			.time_ns = e->time_ns, .type = GPULAT_EVENT_XID,
			.code = error_code, .cpu = e->cpu,
		};

		memcpy(ev.device, e->device, sizeof(ev.device));
		gpulat_trace_event(&ev);
	}
	local_irq_restore(flags);
}

static struct tracepoint *nv_module_tp(struct module *mod, const char *name)
{
	unsigned int i;

	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp =
			tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);

		if (!strcmp(tp->name, name))
			return tp;
	}
	return NULL;
}

/*
 * nv_tp_module - a module with tracepoints comes or goes: attach to the
 * driver's nvidia_dev_xid when it comes, detach before it goes.  Called for
 * the modules already loaded when the notifier is (un)registered, too.
 */
static int nv_tp_module(struct notifier_block *nb, unsigned long val,
			void *data)
{
	struct tp_module *tpm = data;
	struct tracepoint *tp;
	int ret;

	mutex_lock(&nv_xid_lock);
	if (val == MODULE_STATE_COMING && !nv_xid_tp) {
		tp = nv_module_tp(tpm->mod, "nvidia_dev_xid");
		if (tp) {
			ret = GL_CALL(-ENOMEM,
				      tracepoint_probe_register(tp, nv_probe_xid,
								NULL));
			if (ret) {
				pr_err("nvidia: cannot attach nvidia_dev_xid of %s: %d\n",
				       module_name(tpm->mod), ret);
			} else {
				nv_xid_tp = tp;
				nv_xid_mod = tpm->mod;
			}
		}
	} else if (val == MODULE_STATE_GOING && nv_xid_mod == tpm->mod) {
		tracepoint_probe_unregister(nv_xid_tp, nv_probe_xid, NULL);
		nv_xid_tp = NULL;
		nv_xid_mod = NULL;
	}
	mutex_unlock(&nv_xid_lock);
	return NOTIFY_OK;
}

static struct notifier_block nv_tp_nb = {
	.notifier_call = nv_tp_module,
};

/* nv_events - the Xids still in the ring, oldest first */
static unsigned int nv_events(struct gpulat_family *fam,
			      struct gpulat_event *out, unsigned int max)
{
	u64 end = atomic64_read(&nv_xid_next), n;
	unsigned int got = 0;

	n = end > NV_XID_RING ? end - NV_XID_RING : 0;
	for (; n < end && got < max; n++) {
		struct nv_xid *e = &nv_xids[n & (NV_XID_RING - 1)];
		struct gpulat_event *ev = &out[got];

		/* skip one being written or overwritten; fields after seq */
		if (smp_load_acquire(&e->seq) != n + 1)
			continue;
		memset(ev, 0, sizeof(*ev));
		ev->type = GPULAT_EVENT_XID;
		ev->time_ns = READ_ONCE(e->time_ns);
		ev->code = READ_ONCE(e->code);
		ev->cpu = READ_ONCE(e->cpu);
		memcpy(ev->device, e->device, sizeof(ev->device));
		ev->device[sizeof(ev->device) - 1] = '\0';
		smp_rmb();	/* fields before the second look at seq */
		if (READ_ONCE(e->seq) == n + 1)
			got++;
	}
	return got;
}

/* --- Family ------------------------------------------------------------ */

/* nv_free_tables - the handler cache, the thread set and its stamps */
static void nv_free_tables(void)
{
	gl_kvfree(nv_handlers);
	gl_kvfree(nv_set);
	gl_kvfree(nv_st);
	nv_handlers = NULL;
	nv_set = NULL;
	nv_st = NULL;
}

static int nv_init(struct gpulat_family *fam, void __percpu *pcpu)
{
	int ret;

	GPULAT_CHECK_PROBE(sched_process_exit, nv_probe_process_exit);
	GPULAT_CHECK_PROBE(sched_process_fork, nv_probe_fork);
	GPULAT_CHECK_PROBE(task_rename, nv_probe_rename);
	GPULAT_CHECK_PROBE(sched_switch, nv_probe_switch);
	GPULAT_CHECK_PROBE(sched_wakeup, nv_probe_wakeup);
	GPULAT_CHECK_PROBE(irq_handler_exit, nv_probe_irq_exit);
	GPULAT_CHECK_PROBE(irq_handler_entry, nv_probe_irq_entry);
	/* the driver's tracepoint has no header here: check against its copy */
	BUILD_BUG_ON(!__same_type(&nv_probe_xid, nv_xid_probe_t));

	nv_pc = pcpu;
	nv_glob = !!strpbrk(nvidia_pattern, "*?[");
	nv_handlers = gl_kvcalloc(1U << NV_HANDLER_BITS, sizeof(u64));
	nv_set = gl_kvcalloc(NV_SET_SLOTS, sizeof(u64));
	nv_st = gl_kvcalloc(NV_SET_SLOTS, sizeof(*nv_st));
	if (!nv_handlers || !nv_set || !nv_st)
		return -ENOMEM;		/* nv_exit() frees what was taken */
	nv_set_clear();
	ret = GL_CALL(-ENOMEM, register_tracepoint_module_notifier(&nv_tp_nb));
	if (ret)
		return ret;
	nv_tp_nb_on = true;
	fam->extra_bytes += (sizeof(u64) << NV_HANDLER_BITS) +
			    NV_SET_SLOTS * (sizeof(u64) + sizeof(*nv_st)) +
			    sizeof(nv_filter) + sizeof(nv_filter_refs) +
			    sizeof(nv_xids);
	return 0;
}

/* nv_exit - undo nv_init(), whatever step it reached */
static void nv_exit(struct gpulat_family *fam)
{
	if (nv_tp_nb_on) {
		/* detaches from the driver's tracepoint if attached */
		unregister_tracepoint_module_notifier(&nv_tp_nb);
		nv_tp_nb_on = false;
		tracepoint_synchronize_unregister();
	}
	nv_free_tables();
}

/* nv_clear - forget wake, run and IRQ stamps before the probes attach */
static void nv_clear(struct gpulat_family *fam)
{
	int cpu;

	memset(nv_st, 0, sizeof(*nv_st) * NV_SET_SLOTS);
	for_each_possible_cpu(cpu)
		per_cpu_ptr(nv_pc, cpu)->irq_action = NULL;
	/* no exit probe ran while off: a followed pid may be reused now */
	nv_set_clear();
}

/*
 * Attach order: process exit first, so that no thread joins the set
 * without its exit being seen; sched_switch before sched_wakeup (see the
 * sched family); the IRQ exit before the entry, so that no entry leaves a
 * stamp behind for want of its exit probe.
 */
static struct gpulat_tp nv_tps[] = {
	{ .name = "sched_process_exit", .probe = nv_probe_process_exit,
	  .hit_idx = NV_HIT_PEXIT },
	{ .name = "sched_process_fork", .probe = nv_probe_fork,
	  .hit_idx = NV_HIT_FORK },
	{ .name = "task_rename", .probe = nv_probe_rename,
	  .hit_idx = NV_HIT_RENAME },
	{ .name = "sched_switch", .probe = nv_probe_switch,
	  .hit_idx = NV_HIT_SWITCH },
	{ .name = "sched_wakeup", .probe = nv_probe_wakeup,
	  .hit_idx = NV_HIT_WAKEUP },
	{ .name = "irq_handler_exit", .probe = nv_probe_irq_exit,
	  .hit_idx = NV_HIT_IRQ_EXIT },
	{ .name = "irq_handler_entry", .probe = nv_probe_irq_entry,
	  .hit_idx = NV_HIT_IRQ_ENTRY },
};

static const char * const nv_drop_names[] = {
	[GPULAT_NV_NO_START] = "nvidia.no_start",
	[GPULAT_NV_NEGATIVE] = "nvidia.negative",
	[GPULAT_NV_KEYS_FULL] = "nvidia.keys_full",
	[GPULAT_NV_XID_LOST] = "nvidia.xid_lost",
};

struct gpulat_family gpulat_nvidia_family = {
	.id		= GPULAT_FAM_NVIDIA,
	.name		= "nvidia",
	.tps		= nv_tps,
	.nr_tps		= ARRAY_SIZE(nv_tps),
	.drop_names	= nv_drop_names,
	.nr_drops	= ARRAY_SIZE(nv_drop_names),
	.pcpu_size	= sizeof(struct nv_pcpu),
	.hist_offset	= 0,
	.counter_offset	= offsetof(struct nv_pcpu, counters),
	.keyed		= &nv_keyed,
	.init		= nv_init,
	.exit		= nv_exit,
	.clear		= nv_clear,
	.started	= nv_started,
	.events		= nv_events,
	.enabled	= true,
};

module_param_named(nvidia, gpulat_nvidia_family.enabled, bool, 0444);
MODULE_PARM_DESC(nvidia, "NVIDIA driver IRQ, thread and Xid family (default on)");
