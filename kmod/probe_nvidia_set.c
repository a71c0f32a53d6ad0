// SPDX-License-Identifier: GPL-2.0
/*
 * nvidia family: which tasks are ours.  A set of pids in buckets of one
 * cache line each, behind a one-bit-per-hash filter, looked up without
 * locks by the scheduler probes (probe_nvidia.h).  IRQ threads join when
 * their handler is decided (probe_nvidia_irq.c), driver kthreads when
 * they are created (sched_process_fork, task_rename) or, for those
 * already there, by one walk of the task list when the family attaches;
 * all leave in sched_process_exit.  The set is changed only under
 * nv_set_lock, each change O(1).  Nothing here keeps a task pointer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/lockdep.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "gpulat.h"
#include "probe_nvidia.h"

unsigned long gpulat_nv_filter[BITS_TO_LONGS(1 << NV_FILTER_BITS)];
static u16 nv_filter_refs[1 << NV_FILTER_BITS];	/* followed pids per bit */
u64 *gpulat_nv_set;
struct gpulat_nv_stamps *gpulat_nv_st;
unsigned int gpulat_nv_set_used;
u64 gpulat_nv_last_irq;
/* serialises set changes; innermost (the order: gpulat.h) */
static DEFINE_RAW_SPINLOCK(nv_set_lock);

/* nv_gen_next - the generation after the current one (never 0) */
static u32 nv_gen_next(void)
{
	u32 gen = (READ_ONCE(gpulat_nv_gen) + 1) & NV_V_GEN_MASK;

	return gen ? gen : 1;
}

/* nv_gen_bump - make every handler be decided again; under nv_set_lock */
static void nv_gen_bump(void)
{
	lockdep_assert_held(&nv_set_lock);
	WRITE_ONCE(gpulat_nv_gen, nv_gen_next());
}

/*
 * gpulat_nv_set_add - follow @pid; false when its bucket is full (counted
 * in nvidia.keys_full, at each attempt).  Any context.
 */
bool gpulat_nv_set_add(pid_t pid, u64 kind, int idx)
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
		this_cpu_inc(gpulat_nv_pc->counters[GPULAT_NV_KEYS_FULL]);
		ok = false;
		goto out;
	}
	/* stamps of an earlier owner of the entry are cleared first */
	WRITE_ONCE(gpulat_nv_st[b - gpulat_nv_set + i].wake, 0);
	WRITE_ONCE(gpulat_nv_st[b - gpulat_nv_set + i].run, 0);
	WRITE_ONCE(gpulat_nv_st[b - gpulat_nv_set + i].irq, 0);
	nv_filter_refs[hash_32((u32)pid, NV_FILTER_BITS)]++;
	WRITE_ONCE(*f, *f | bit);
	/* filter bit and clear stamps before a probe can find the entry */
	smp_store_release(&b[i], word);
	WRITE_ONCE(gpulat_nv_set_used, gpulat_nv_set_used + 1);
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

	lockdep_assert_held(&nv_set_lock);
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
		WRITE_ONCE(gpulat_nv_set[i], 0);
		nv_filter_drop(pid);
		WRITE_ONCE(gpulat_nv_set_used, gpulat_nv_set_used - 1);
		if (nv_is_irq_thread(word))
			nv_gen_bump();
	}
	raw_spin_unlock_irqrestore(&nv_set_lock, flags);
}

/*
 * gpulat_nv_set_clear - forget every thread: the probes were off a while,
 * and none runs now (the family is detached), so no lock is needed
 */
void gpulat_nv_set_clear(void)
{
	memset(gpulat_nv_set, 0, NV_SET_SLOTS * sizeof(*gpulat_nv_set));
	memset(gpulat_nv_filter, 0, sizeof(gpulat_nv_filter));
	memset(nv_filter_refs, 0, sizeof(nv_filter_refs));
	gpulat_nv_set_used = 0;
	WRITE_ONCE(gpulat_nv_gen, nv_gen_next());
}

void gpulat_nv_probe_exit(void *data, struct task_struct *p)
{
	u64 word;

	this_cpu_inc(gpulat_nv_pc->counters[NVIDIA_HIT_PEXIT]);
	/*
	 * Pairs with the barrier in nv_scan_one(): either the scan sees
	 * PF_EXITING (set before this tracepoint), or this sees its entry.
	 */
	smp_mb();
	if (!READ_ONCE(gpulat_nv_set_used) || nv_set_find(p->pid, &word) < 0)
		return;
	nv_set_del(p->pid);
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
	idx = gpulat_key_get(&gpulat_nv_keyed, (u32)p->pid, nv_fill_comm,
			     comm);
	if (!gpulat_nv_set_add(p->pid, NV_KIND_KTHREAD, idx))
		return;
	if (runnable) {
		int i = nv_set_find(p->pid, &word);

		if (i >= 0)
			WRITE_ONCE(gpulat_nv_st[i].wake,
				   NV_ST_PREEMPTED | (u32)p->pid);
	}
	/* pairs with gpulat_nv_probe_exit(): never keep a dead pid */
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
void gpulat_nv_probe_fork(void *data, struct task_struct *parent,
			  struct task_struct *child)
{
	this_cpu_inc(gpulat_nv_pc->counters[NVIDIA_HIT_FORK]);
	if (unlikely(child->flags & PF_KTHREAD))
		nv_scan_one(child, child->comm, true);
}

void gpulat_nv_probe_rename(void *data, struct task_struct *task,
			    const char *comm)
{
	this_cpu_inc(gpulat_nv_pc->counters[NVIDIA_HIT_RENAME]);
	if (unlikely(task->flags & PF_KTHREAD))
		nv_scan_one(task, comm, false);
}

/*
 * gpulat_nv_started - the probes are on: follow the driver's kthreads that
 * were there before (later ones are seen as they are named).  One walk of
 * the task list per attach, with interrupts on.
 */
void gpulat_nv_started(struct gpulat_family *fam)
{
	struct task_struct *p;

	rcu_read_lock();
	for_each_process(p)
		nv_scan_one(p, p->comm, false);
	rcu_read_unlock();
}
