/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The outlier trace's own state, shared by trace.c (thresholds, writing,
 * allocation), trace_self.c (the trace's own tasks, the waker thread) and
 * trace_read.c (the readers).  Private to them.
 */
#ifndef _GPULAT_KMOD_TRACE_INT_H
#define _GPULAT_KMOD_TRACE_INT_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "trace.h"

union gpulat_rec {
	struct gpulat_rec_header hdr;
	struct gpulat_rec_sample sample;
	struct gpulat_rec_event event;
	struct gpulat_rec_lost lost;
};

struct gpulat_ring {
	u64 head;			/* records published */
	u64 claimed;			/* records begun */
	struct irq_work wake;		/* wakes readers outside the probe */
	union gpulat_rec slot[];
};

extern struct gpulat_ring __percpu *gpulat_trace_rings;
extern u32 gpulat_trace_mask;		/* slots per ring - 1 */
/* readers, thresholds, allocation; the order of the locks: gpulat.h */
extern struct mutex gpulat_trace_lock;
extern struct wait_queue_head gpulat_trace_wq;
extern atomic64_t gpulat_trace_lost_total;

void gpulat_trace_gate_update(void);
int gpulat_trace_alloc(void);

/* trace_self.c */
extern struct task_struct *gpulat_trace_waker;	/* wakes gpulat_trace_wq */
extern atomic64_t gpulat_trace_self_left;	/* records left out */
extern atomic64_t gpulat_trace_self_full;	/* tasks the set had no room for */

bool gpulat_trace_self_has(s32 pid);
void gpulat_trace_self_add(s32 pid);
void gpulat_trace_self_del(s32 pid);
void gpulat_trace_self_waker(bool add);
void gpulat_trace_wake(struct irq_work *w);
int gpulat_trace_waker_fn(void *unused);

#endif /* _GPULAT_KMOD_TRACE_INT_H */
