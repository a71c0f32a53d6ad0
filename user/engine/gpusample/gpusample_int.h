/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GPU sampler, inside: the memory the child (gpusample_child.c)
 * writes and gpulat (gpusample.c) reads.  One writer; gpulat reads a
 * counter with acquire after the child stored it with release.
 */
#ifndef _GPULAT_USER_GPUSAMPLE_INT_H
#define _GPULAT_USER_GPUSAMPLE_INT_H

#include "engine/gpusample/gpusample.h"

#define GS_MAGIC	0x47505553U	/* "GPUS" */
/* The child's own end, this long after its window, should gpulat hang. */
#define GS_GRACE_S	60.0
/* The largest pid (PID_MAX_LIMIT): a process table entry above is junk. */
#define GS_PID_MAX	4194304U

enum gs_state {
	GS_STARTING,		/* loading NVML */
	GS_ABSENT,		/* NVML absent: absent[] says why; child gone */
	GS_RUNNING,
	GS_DONE,		/* the child stopped as asked */
};

struct gs_shared {
	uint32_t magic;
	uint32_t state;		/* enum gs_state */
	uint32_t call;		/* enum gs_call now running; 0 none */
	uint32_t call_gpu;	/* its GPU; GS_NA none */
	uint64_t call_since_ns;	/* CLOCK_MONOTONIC */
	uint32_t stop;		/* gpulat asks the child to end */
	uint32_t xids_only;	/* wait for Xids, poll no GPU */
	uint32_t writing;	/* a sample's slot is being written */
	uint32_t events;	/* Xids come from the event API */
	uint32_t nr_gpus, nr_sampled;
	uint32_t cap;		/* slots[] */
	uint32_t pad;
	uint64_t nr_samples;	/* written so far; slot i % cap */
	uint64_t nr_xids;	/* received so far; xid i in xids[i % GS_MAX_XIDS] */
	char absent[512];
	char lib[256];
	char driver[96];
	char missing[512];
	char events_why[256];
	struct gs_cost cost[GS_NR_CALLS];
	uint64_t cpu_ns;	/* the child's CPU time, after each sample */
	struct gs_gpu_info info[GS_MAX_GPUS];
	struct gs_xid xids[GS_MAX_XIDS];
	struct gs_sample slots[];
};

/* gs_now - CLOCK_MONOTONIC ns */
uint64_t gs_now(void);
/*
 * gs_child - the sampler's loop, in the child of @parent (its pid taken
 * before the fork); ends when asked, when gpulat is gone, or GS_GRACE_S
 * after a window of @window_s (0: none).  Never returns.
 */
void __attribute__((noreturn)) gs_child(struct gs_shared *sh,
					double interval_s, pid_t parent,
					double window_s);

#endif /* _GPULAT_USER_GPUSAMPLE_INT_H */
