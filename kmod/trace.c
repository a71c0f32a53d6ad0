// SPDX-License-Identifier: GPL-2.0
/*
 * The outlier trace: thresholds, per-CPU rings, read() and poll().
 *
 * Each CPU has a ring of fixed-size slots written only by that CPU with
 * interrupts off.  head counts records written; a writer first raises
 * claimed, fills the slot, then publishes head.  Readers never block a
 * writer: each open file keeps its own position per CPU, and a reader
 * that fell more than a ring behind counts what it missed and reports it
 * in a GPULAT_REC_LOST record.  A slot copied while the writer came round
 * to it again is detected through claimed and counted the same way.
 *
 * Rings and histories are allocated when the first reader appears and
 * kept until unload, so a probe never sees them go away.
 *
 * Readers are woken in two hops: a probe queues its CPU's irq_work (it may
 * hold a run-queue lock), whose handler, in hard interrupt context even
 * on PREEMPT_RT, wakes the module's waker thread, a SCHED_OTHER kthread
 * that alone takes the readers' wait-queue lock.  On PREEMPT_RT that lock
 * sleeps: taken from the SCHED_FIFO irq_work/N threads, as an irq_work
 * handler would, it queued every CPU's thread behind the readers (which
 * they boosted), delayed the kernel's other irq_work, and under a storm of
 * records the lock's waiters were seen never to wake.
 *
 * Here: thresholds, writing, allocation, debugfs; the trace's own tasks
 * and the waker thread are in trace_self.c, the readers in trace_read.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/sysfs.h>
#include <linux/wait.h>

#include "compat/cgroup.h"
#include "compat/irq_work.h"
#include "fault.h"
#include "trace_int.h"

u64 gpulat_trace_gate[GPULAT_FAM_MAX] = {
	[0 ... GPULAT_FAM_MAX - 1] = U64_MAX,
};

int gpulat_trace_readers;
u32 gpulat_trace_keeps;
struct gpulat_trace_act __percpu *gpulat_trace_act;
u32 gpulat_trace_hold_shift = GPULAT_HOLD_MAX_SHIFT;

struct gpulat_ring __percpu *gpulat_trace_rings;
u32 gpulat_trace_mask;			/* slots per ring - 1 */
/* readers, thresholds, allocation; the order of the locks: gpulat.h */
DEFINE_MUTEX(gpulat_trace_lock);
DECLARE_WAIT_QUEUE_HEAD(gpulat_trace_wq);
atomic64_t gpulat_trace_lost_total;
/* when the histories began: the first reader since none (0: never) */
u64 gpulat_trace_since;

static unsigned int trace_ring = 32;
module_param(trace_ring, uint, 0444);
MODULE_PARM_DESC(trace_ring,
		 "outlier trace records per CPU (power of two, 8..128)");

/* Thresholds, ns by family (defaults: families.h); 0: not traced. */
#define GPULAT_FAMILY(name, id, threshold_us, keeps, tool)		\
	[id] = (threshold_us) * NSEC_PER_USEC,
static u64 trace_threshold[GPULAT_FAM_MAX] = {
#include "families.h"
};

#undef GPULAT_FAMILY

#define GPULAT_FAMILY(name, id, threshold_us, keeps, tool)		\
	[id] = #name,
static const char * const trace_family_names[GPULAT_FAM_MAX] = {
#include "families.h"
};

#undef GPULAT_FAMILY

/* gpulat_trace_gate_update - open the gates to the thresholds while read */
void gpulat_trace_gate_update(void)
{
	unsigned int f;

	lockdep_assert_held(&gpulat_trace_lock);
	for (f = 0; f < GPULAT_FAM_MAX; f++)
		WRITE_ONCE(gpulat_trace_gate[f],
			   gpulat_trace_readers && trace_threshold[f] ?
			   trace_threshold[f] : U64_MAX);
	WRITE_ONCE(gpulat_trace_hold_shift,
		   gpulat_hold_shift(gpulat_trace_gate[GPULAT_FAM_SCHED]));
}

long gpulat_trace_threshold(u32 family, bool set, u64 *ns)
{
	if (!family || family >= GPULAT_FAM_MAX)
		return -ENOENT;
	mutex_lock(&gpulat_trace_lock);
	if (set) {
		trace_threshold[family] = *ns;
		gpulat_trace_gate_update();
	}
	*ns = trace_threshold[family];
	mutex_unlock(&gpulat_trace_lock);
	return 0;
}

/*
 * FAMILY_threshold_us: the same thresholds as the ioctl, in microseconds
 * with up to three decimals, so that a threshold under a microsecond set
 * through the ioctl reads back as what it is, not as 0 (off).
 */
static int trace_param_set(const char *val, const struct kernel_param *kp)
{
	u32 family = (unsigned long)kp->arg;
	char buf[32], *frac;
	unsigned int us, ns = 0, scale = 100;
	u64 total;
	int ret;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -EINVAL;
	strim(buf);
	frac = strchr(buf, '.');
	if (frac) {
		*frac++ = '\0';
		if (!*frac || strlen(frac) > 3)
			return -EINVAL;
		for (; *frac; frac++, scale /= 10) {
			if (!isdigit(*frac))
				return -EINVAL;
			ns += (*frac - '0') * scale;
		}
	}
	ret = kstrtouint(buf, 10, &us);
	if (ret)
		return ret;
	total = (u64)us * NSEC_PER_USEC + ns;
	return gpulat_trace_threshold(family, true, &total);
}

static int trace_param_get(char *buf, const struct kernel_param *kp)
{
	u32 family = (unsigned long)kp->arg;
	u64 ns = READ_ONCE(trace_threshold[family]);
	u32 rem = do_div(ns, NSEC_PER_USEC);

	if (!rem)
		return sysfs_emit(buf, "%llu\n", ns);
	return sysfs_emit(buf, "%llu.%03u\n", ns, rem);
}

static const struct kernel_param_ops trace_param_ops = {
	.set = trace_param_set,
	.get = trace_param_get,
};

/*
 * One per line of families.h; each ends in a definition (of the default,
 * in us), so that the lines of the list need no separator.
 */
#define GPULAT_FAMILY(fam, id, dflt, keeps, tool)			\
	module_param_cb(fam##_threshold_us, &trace_param_ops,		\
			(void *)(unsigned long)(id), 0644);		\
	MODULE_PARM_DESC(fam##_threshold_us, "outlier trace threshold of "	\
			 #fam " in us, 3 decimals at most (0: off; default " \
			 __stringify(dflt) ")");				\
	static inline u32 __maybe_unused trace_default_us_##fam(void)	\
	{								\
		return dflt;						\
	}
#include "families.h"
#undef GPULAT_FAMILY

/* --- Writing ----------------------------------------------------------- */

/*
 * trace_put - append @rec to this CPU's ring
 *
 * Interrupts are off around the slot so that a probe in an interrupt
 * cannot write the same slot; the wakeup goes through irq_work because a
 * probe may hold a run-queue lock that wake_up() would take again.
 */
static void trace_put(union gpulat_rec *rec)
{
	struct gpulat_ring *r;
	unsigned long flags;
	u64 seq;

	local_irq_save(flags);
	r = this_cpu_ptr(gpulat_trace_rings);
	seq = r->head;
	rec->hdr.cpu = smp_processor_id();
	WRITE_ONCE(r->claimed, seq + 1);
	smp_wmb();	/* claimed before the slot; pairs with trace_stage() */
	memcpy(&r->slot[seq & gpulat_trace_mask], rec, rec->hdr.size);
	/* the slot before head; pairs with the readers' acquire */
	smp_store_release(&r->head, seq + 1);
	/* a reader that is not waiting finds the record without a wakeup */
	if (wq_has_sleeper(&gpulat_trace_wq))
		irq_work_queue(&r->wake);
	local_irq_restore(flags);
}

/* trace_name - tgid and comm of the task with global @pid, if alive */
static void trace_name(s32 pid, s32 *tgid, char comm[GPULAT_COMM_LEN])
{
	struct task_struct *t;

	rcu_read_lock();
	t = pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_PID);
	if (t) {
		*tgid = t->tgid;
		/* as trace events do: no lock, a concurrent rename may tear */
		memcpy(comm, t->comm, GPULAT_COMM_LEN);
		comm[GPULAT_COMM_LEN - 1] = '\0';
	} else {
		*tgid = -1;
	}
	rcu_read_unlock();
}

static u64 trace_overlap(u64 a0, u64 a1, u64 b0, u64 b1)
{
	u64 lo = max(a0, b0), hi = min(a1, b1);

	return hi > lo ? hi - lo : 0;
}

/*
 * trace_spans - handler time in [@start, @end]; false if the history does
 * not reach back to @start.  Entries older than the current run of
 * readers (@since) are left over from an earlier one: not history.
 */
static bool trace_spans(const struct gpulat_trace_span *s, u32 pos,
			u64 since, u64 start, u64 end, u64 *sum)
{
	u32 i;

	*sum = 0;
	for (i = 1; i <= GPULAT_TRACE_IRQS; i++) {
		const struct gpulat_trace_span *e;

		if (i > pos)
			return start >= since;	/* all of it since then */
		e = &s[(pos - i) & (GPULAT_TRACE_IRQS - 1)];
		if (e->end < since)
			return start >= since;
		if (e->end < start)
			return true;
		*sum += trace_overlap(e->end - e->ns, e->end, start, end);
	}
	return false;
}

/*
 * trace_walk - who had this CPU during [@start, @end] by the switch
 * history, newest first, into @who; false if it does not reach @start
 */
static bool trace_walk(const struct gpulat_trace_act *a, s32 waiter,
		       u64 since, u64 start, u64 end,
		       struct gpulat_hold_who *who, unsigned int *n)
{
	u64 upto = end, ns;
	unsigned int i;

	for (i = 1; i <= GPULAT_TRACE_SWITCHES && i <= a->sw_pos; i++) {
		const struct gpulat_trace_switch *e =
			&a->sw[(a->sw_pos - i) & (GPULAT_TRACE_SWITCHES - 1)];

		if (e->t < since)
			break;		/* left from an earlier run of readers */
		ns = trace_overlap(e->t, upto, start, end);
		upto = e->t;
		/*
		 * not the idle task, nor the waiter itself (its own switch-in,
		 * filed first by the sched probe, ends an nvidia wait)
		 */
		if (ns && e->pid && e->pid != waiter)
			gpulat_hold_add(who, n, GPULAT_TRACE_SWITCHES, e->pid,
					e->cg, ns);
		if (e->t <= start)
			return true;
	}
	return false;
}

/*
 * trace_culprits - who had this CPU during [@start, @end]: the switch
 * history when it reaches back that far, else the holders' totals since
 * the wait began (gpulat_hold.h); the top ones named
 */
static void trace_culprits(struct gpulat_rec_sample *s,
			   const struct gpulat_trace_act *a, u64 since,
			   u64 start, u64 end)
{
	struct gpulat_hold_who who[GPULAT_TRACE_SWITCHES];
	const struct gpulat_trace_switch *cur;
	const struct gpulat_hold_ck *c;
	unsigned int n = 0, k;
	u64 named = 0;
	int reached;

	BUILD_BUG_ON(GPULAT_TRACE_SWITCHES < GPULAT_HOLD_WHO);
	if (!trace_walk(a, s->pid, since, start, end, who, &n)) {
		c = gpulat_hold_pick(&a->hold,
				     READ_ONCE(gpulat_trace_hold_shift), since,
				     start, end, &reached);
		cur = &a->sw[(a->sw_pos - 1) & (GPULAT_TRACE_SWITCHES - 1)];
		if (c && a->sw_pos && cur->t >= since) {
			n = gpulat_hold_who(a->hold.slot, c, start, end, s->pid,
					    cur->pid, cur->cg, cur->t, who);
			if (!reached)
				s->flags |= GPULAT_REC_F_PARTIAL;
		} else {
			s->flags |= GPULAT_REC_F_PARTIAL;
		}
	}
	n = gpulat_hold_top(who, n, GPULAT_NR_CULPRITS);
	for (k = 0; k < n; k++) {
		struct gpulat_culprit *c = &s->culprits[k];

		c->pid = who[k].pid;
		c->ns = who[k].ns;
		named += c->ns;
		/* its cgroup at its latest switch-in in the wait */
		s->culprit_cgroup[k] = who[k].cg;
		trace_name(c->pid, &c->tgid, c->comm);
	}
	s->nr_culprits = k;
	s->other_ns = end - start > named ? end - start - named : 0;
	s->flags |= GPULAT_REC_F_CULPRITS;
}

/*
 * gpulat_trace_sample - record an outlier; the slow path, taken only for
 * samples over an open gate.  The record's cgroup is @task's when there
 * is a task, else @cgroup_id.
 */
void gpulat_trace_sample(u32 family, u32 series, u64 key, u64 end_ns,
			 u64 latency_ns, struct task_struct *task, u64 cgroup_id,
			 unsigned int flags)
{
	union gpulat_rec rec = { };
	struct gpulat_rec_sample *s = &rec.sample;
	struct gpulat_trace_act *a;
	unsigned long irqflags;
	u64 start, since;
	u32 keeps;

	if (task && gpulat_trace_self_has(task->pid)) {
		atomic64_inc(&gpulat_trace_self_left);
		return;
	}

	BUILD_BUG_ON(sizeof(*s) != GPULAT_REC_SAMPLE_SIZE_VER1);
	s->hdr.size = GPULAT_REC_SAMPLE_SIZE_VER1;
	s->hdr.type = GPULAT_REC_SAMPLE;
	s->hdr.time_ns = end_ns;
	s->family = family;
	s->series = series;
	s->latency_ns = latency_ns;
	s->key = key;
	s->flags = GPULAT_REC_F_CGROUP;
	s->cgroup_id = cgroup_id;
	if (task) {
		s->cgroup_id = gpulat_task_cgroup_id(task);
		s->pid = task->pid;
		s->tgid = task->tgid;
		memcpy(s->comm, task->comm, GPULAT_COMM_LEN);
		s->comm[GPULAT_COMM_LEN - 1] = '\0';
	}
	if ((flags & GPULAT_OUT_CPU_WAIT) && latency_ns <= end_ns) {
		start = end_ns - latency_ns;
		local_irq_save(irqflags);
		a = this_cpu_ptr(gpulat_trace_act);
		since = READ_ONCE(gpulat_trace_since);
		/* the histories: kept by the attached families (families.h) */
		keeps = READ_ONCE(gpulat_trace_keeps);
		if (keeps & GPULAT_KEEPS_SWITCHES)
			trace_culprits(s, a, since, start, end_ns);
		if (keeps & GPULAT_KEEPS_IRQ) {
			if (!trace_spans(a->irq, a->irq_pos, since, start, end_ns,
					 &s->irq_ns))
				s->flags |= GPULAT_REC_F_SPANS_PARTIAL;
			s->flags |= GPULAT_REC_F_IRQ_TIME;
		}
		if (keeps & GPULAT_KEEPS_SOFTIRQ) {
			if (!trace_spans(a->sirq, a->sirq_pos, since, start,
					 end_ns, &s->softirq_ns))
				s->flags |= GPULAT_REC_F_SPANS_PARTIAL;
			s->flags |= GPULAT_REC_F_SOFTIRQ_TIME;
		}
		local_irq_restore(irqflags);
	}
	trace_put(&rec);
}

/* gpulat_trace_event - put a timeline event (an Xid) on the trace */
void gpulat_trace_event(const struct gpulat_event *ev)
{
	union gpulat_rec rec = { };

	if (!gpulat_trace_on())
		return;
	rec.event.hdr.size = sizeof(rec.event);
	rec.event.hdr.type = GPULAT_REC_EVENT;
	rec.event.hdr.time_ns = ev->time_ns;
	rec.event.event = *ev;
	trace_put(&rec);
}

/* --- Allocation, at the first reader ---------------------------------- */

int gpulat_trace_alloc(void)
{
	struct gpulat_ring __percpu *rings;
	struct gpulat_trace_act __percpu *act;
	struct task_struct *waker;
	int cpu;

	lockdep_assert_held(&gpulat_trace_lock);
	if (gpulat_trace_rings)
		return 0;
	act = gl_alloc_percpu(sizeof(struct gpulat_trace_act),
			      __alignof__(struct gpulat_trace_act));
	rings = gl_alloc_percpu(struct_size((struct gpulat_ring *)NULL, slot,
					    gpulat_trace_mask + 1),
				__alignof__(struct gpulat_ring));
	waker = act && rings ?
		GL_CALL(ERR_PTR(-ENOMEM),
			kthread_run(gpulat_trace_waker_fn, NULL, "gpulat_trace")) :
		ERR_PTR(-ENOMEM);
	if (IS_ERR(waker)) {
		gl_free_percpu(act);
		gl_free_percpu(rings);
		return PTR_ERR(waker);
	}
	gpulat_trace_waker = waker;
	for_each_possible_cpu(cpu)
		gpulat_init_irq_work_hard(&per_cpu_ptr(rings, cpu)->wake,
					  gpulat_trace_wake);
	WRITE_ONCE(gpulat_trace_act, act);
	WRITE_ONCE(gpulat_trace_rings, rings);
	/*
	 * Probes run with preemption off: once every CPU has passed a
	 * quiescent state, any probe that sees a reader (or an open gate)
	 * also sees these pointers, on any architecture.
	 */
	synchronize_rcu();
	return 0;
}

/* --- debugfs: thresholds and ring state ------------------------------- */

static int trace_show(struct seq_file *m, void *unused)
{
	u64 written = 0;
	unsigned int f;
	int cpu;

	mutex_lock(&gpulat_trace_lock);
	seq_puts(m, "outlier thresholds (0: off)\n");
	for (f = 1; f < GPULAT_FAM_MAX; f++)
		seq_printf(m, "  %-8s %llu ns\n", trace_family_names[f] ?: "?",
			   trace_threshold[f]);
	if (gpulat_trace_rings)
		for_each_possible_cpu(cpu)
			written += READ_ONCE(per_cpu_ptr(gpulat_trace_rings,
							 cpu)->head);
	seq_printf(m, "readers %d\nrecords per CPU ring %u\n",
		   gpulat_trace_readers, gpulat_trace_mask + 1);
	seq_printf(m, "records written %llu\nrecords lost by readers %lld\n",
		   written, atomic64_read(&gpulat_trace_lost_total));
	seq_printf(m, "records about the trace's own readers, left out %lld\n",
		   atomic64_read(&gpulat_trace_self_left));
	seq_printf(m, "readers the left-out set had no room for %lld\n",
		   atomic64_read(&gpulat_trace_self_full));
	seq_printf(m, "memory once read: %zu bytes per CPU\n",
		   gpulat_trace_rings ? sizeof(struct gpulat_trace_act) +
		   struct_size((struct gpulat_ring *)NULL, slot,
			       gpulat_trace_mask + 1) : 0);
	mutex_unlock(&gpulat_trace_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(trace);

void gpulat_trace_debugfs(struct dentry *dir)
{
	debugfs_create_file("trace", 0400, dir, NULL, &trace_fops);
}

int gpulat_trace_init(void)
{
	trace_ring = roundup_pow_of_two(clamp(trace_ring, 8U, 128U));
	gpulat_trace_mask = trace_ring - 1;
	return 0;
}

void gpulat_trace_exit(void)
{
	int cpu;

	if (!gpulat_trace_rings)
		return;
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(gpulat_trace_rings, cpu)->wake);
	/* no irq_work left to wake it */
	kthread_stop(gpulat_trace_waker);
	gpulat_trace_waker = NULL;
	gl_free_percpu(gpulat_trace_rings);
	gl_free_percpu(gpulat_trace_act);
	gpulat_trace_rings = NULL;
	gpulat_trace_act = NULL;
}
