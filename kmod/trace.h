/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The outlier trace: samples at or over their family's threshold go to
 * per-CPU rings that /dev/gpulat's read() and poll() deliver.
 *
 * While no file reads the trace every gate is U64_MAX, so a probe pays
 * one load and one compare per sample and nothing else.  With a reader,
 * the sched, irq and softirq probes also keep a short per-CPU history of
 * who ran on the CPU and of interrupt time, from which an outlier that
 * waited for a CPU names who held it.
 */
#ifndef _GPULAT_KMOD_TRACE_H
#define _GPULAT_KMOD_TRACE_H

#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "gpulat.h"
#include "gpulat_hold.h"
#include "compat/cgroup.h"

/* Entries of the per-CPU histories (powers of two). */
#define GPULAT_TRACE_SWITCHES	16
#define GPULAT_TRACE_IRQS	32

struct gpulat_trace_switch {
	u64 t;				/* switch-in time */
	s32 pid;			/* who got the CPU; 0: idle */
	u32 pad;
	u64 cg;				/* its cgroup (v2) id then */
};

struct gpulat_trace_span {
	u64 end;			/* handler exit */
	u64 ns;				/* handler duration */
};

/* What one CPU did lately; written only by that CPU. */
struct gpulat_trace_act {
	u32 sw_pos, irq_pos, sirq_pos;
	struct gpulat_trace_switch sw[GPULAT_TRACE_SWITCHES];
	struct gpulat_trace_span irq[GPULAT_TRACE_IRQS];
	struct gpulat_trace_span sirq[GPULAT_TRACE_IRQS];
	struct gpulat_hold hold;	/* who held it, for longer waits */
};

/* Effective thresholds, ns by family: U64_MAX while nobody reads. */
extern u64 gpulat_trace_gate[GPULAT_FAM_MAX];
/* Readers of the trace; nonzero: keep the histories. */
extern int gpulat_trace_readers;
/*
 * The histories a family keeps (its keeps in families.h), and those of
 * the attached families, written by the registry under gpulat_lock.
 */
#define GPULAT_KEEPS_SWITCHES	0x1	/* who got the CPU: sw[] */
#define GPULAT_KEEPS_IRQ	0x2	/* hard IRQ time: irq[] */
#define GPULAT_KEEPS_SOFTIRQ	0x4	/* softirq time: sirq[] */
extern u32 gpulat_trace_keeps;
extern struct gpulat_trace_act __percpu *gpulat_trace_act;
/* the holders' epochs, 2^shift ns (gpulat_hold.h), from the threshold */
extern u32 gpulat_trace_hold_shift;
/* when the histories began: the first reader since none (0: never) */
extern u64 gpulat_trace_since;

static __always_inline bool gpulat_trace_over(u32 family, u64 ns)
{
	return unlikely(ns >= READ_ONCE(gpulat_trace_gate[family]));
}

/* the histories are kept while somebody reads (see gpulat_trace_alloc()) */
static __always_inline bool gpulat_trace_on(void)
{
	return unlikely(READ_ONCE(gpulat_trace_readers));
}

/*
 * gpulat_trace_switch - @next got this CPU from @prev at @now (interrupts
 * off)
 */
static __always_inline void gpulat_trace_switch(u64 now, pid_t prev,
						struct task_struct *next)
{
	struct gpulat_trace_act *a = this_cpu_ptr(gpulat_trace_act);
	struct gpulat_trace_switch *s;
	u64 from, since = READ_ONCE(gpulat_trace_since);

	/*
	 * @prev had the CPU since its switch-in, or since the readers began
	 * if that is older (no switch since then, or it would be there)
	 */
	s = &a->sw[(a->sw_pos - 1) & (GPULAT_TRACE_SWITCHES - 1)];
	from = s->t > since ? s->t : since;
	gpulat_hold_credit(&a->hold, prev, s->pid == prev ? s->cg : 0, from,
			   now, READ_ONCE(gpulat_trace_hold_shift));
	s = &a->sw[a->sw_pos++ & (GPULAT_TRACE_SWITCHES - 1)];
	s->t = now;
	s->pid = next->pid;
	/* the culprits' cgroups, taken as they run, as the BPF source does */
	s->cg = next->pid ? gpulat_task_cgroup_id(next) : 0;
}

static __always_inline void gpulat_trace_span(struct gpulat_trace_span *ring,
					      u32 *pos, u64 now, u64 ns)
{
	struct gpulat_trace_span *s = &ring[(*pos)++ & (GPULAT_TRACE_IRQS - 1)];

	s->end = now;
	s->ns = ns;
}

/* gpulat_trace_irq_span - a hard IRQ handler ran @ns until @now */
static __always_inline void gpulat_trace_irq_span(u64 now, u64 ns)
{
	struct gpulat_trace_act *a = this_cpu_ptr(gpulat_trace_act);

	gpulat_trace_span(a->irq, &a->irq_pos, now, ns);
}

/* gpulat_trace_softirq_span - a softirq handler ran @ns until @now */
static __always_inline void gpulat_trace_softirq_span(u64 now, u64 ns)
{
	struct gpulat_trace_act *a = this_cpu_ptr(gpulat_trace_act);

	gpulat_trace_span(a->sirq, &a->sirq_pos, now, ns);
}

/* How an outlier is recorded (flags of gpulat_trace_sample()). */
#define GPULAT_OUT_CPU_WAIT	0x1	/* a wait for this CPU: name who held it */

void gpulat_trace_sample(u32 family, u32 series, u64 key, u64 end_ns,
			 u64 latency_ns, struct task_struct *task, u64 cgroup_id,
			 unsigned int flags);

/*
 * gpulat_trace_check - after a probe filed @latency_ns ending at @end_ns:
 * record it if it passes the family's gate.  @task is whom it happened
 * to (NULL: nobody, a device); the record carries its cgroup.
 */
static __always_inline void gpulat_trace_check(u32 family, u32 series,
					       u64 key, u64 end_ns,
					       u64 latency_ns,
					       struct task_struct *task,
					       unsigned int flags)
{
	if (gpulat_trace_over(family, latency_ns))
		gpulat_trace_sample(family, series, key, end_ns, latency_ns,
				    task, 0, flags);
}

/*
 * gpulat_trace_check_cg - the same for a sample with no task at its end
 * (a block request), whose record carries @cgroup_id instead (0: none)
 */
static __always_inline void gpulat_trace_check_cg(u32 family, u32 series,
						  u64 key, u64 end_ns,
						  u64 latency_ns,
						  u64 cgroup_id)
{
	if (gpulat_trace_over(family, latency_ns))
		gpulat_trace_sample(family, series, key, end_ns, latency_ns,
				    NULL, cgroup_id, 0);
}

void gpulat_trace_event(const struct gpulat_event *ev);

struct dentry;
int gpulat_trace_init(void);
void gpulat_trace_exit(void);	/* after every probe is detached */
void gpulat_trace_debugfs(struct dentry *dir);

struct file;
struct poll_table_struct;
ssize_t gpulat_trace_read(struct file *file, char __user *buf, size_t len);
__poll_t gpulat_trace_poll(struct file *file, struct poll_table_struct *pt);
void gpulat_trace_release(struct file *file);
long gpulat_trace_threshold(u32 family, bool set, u64 *ns);

#endif /* _GPULAT_KMOD_TRACE_H */
