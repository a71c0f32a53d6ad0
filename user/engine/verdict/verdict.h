/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat serve's rolling verdict: the diagnosis of the last seconds,
 * recomputed at every snapshot from the snapshots and trace records of
 * that window, and exported as metrics, so that a fleet can alert on
 * "storage is the cause on host X" within seconds.
 */
#ifndef _GPULAT_USER_VERDICT_H
#define _GPULAT_USER_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/diagnose/diagnose.h"
#include "lib/gpulat_user.h"

/* Default window of the verdict, seconds. */
#define VERDICT_WINDOW_S	10.0
/*
 * Snapshots kept: at least window / VERDICT_STEP apart (and the newest),
 * so the span judged is the window to 1 + 1 / VERDICT_STEP of it (plus a
 * tick), and a 224-CPU host keeps about 6 of 11 MB, not one per tick.
 */
#define VERDICT_STEP		4
/*
 * After verdicts put off, the next judges all since the last one made,
 * up to this many windows: the span judged can grow to it.
 */
#define VERDICT_MAX_SPANS	3
/*
 * The verdicts' share of one CPU: past it, a verdict is put off to a
 * later snapshot (counted deferred), so that serve stays near 1% of a CPU
 * on any host.  A verdict on a 2-CPU host takes about 1 ms and never
 * waits; on 64 CPUs about 3 to 5 ms, made every 2 s or so; on 224 CPUs
 * 15 to 50 ms, made every 8 to 25 s.
 */
#define VERDICT_CPU_SHARE	0.002
/* Records of the window kept at most; the oldest are overwritten. */
#define VERDICT_MAX_RECS	8192

struct verdict_result {
	bool valid;			/* computed at least once */
	bool abnormal;
	enum diag_layer first;		/* DIAG_NR_LAYERS: none abnormal */
	double score_ms[DIAG_NR_LAYERS];	/* per s beyond normal */
	bool measured[DIAG_NR_LAYERS];
	unsigned int rank[DIAG_NR_LAYERS];
	char culprit[GPULAT_COMM_LEN];	/* the first layer's, "" none */
	int32_t culprit_pid;
	char cgroup[256];	/* the first layer's cgroup row, "" none */
	double window_s;		/* the span actually judged */
};

struct verdict {
	double window_s;
	struct gl_snapshot **snaps;	/* oldest first, shared (gl_snapshot_ref) */
	size_t nr_snaps, cap_snaps;
	struct gl_trace_rec *recs;	/* a ring of VERDICT_MAX_RECS */
	size_t rec_head, nr_recs;
	uint64_t recs_dropped, lost;
	bool trace_ok;
	uint64_t thresholds[GPULAT_FAM_MAX];
	struct verdict_result res;
	uint64_t computed, failed;	/* verdicts made, and not made */
	uint64_t deferred;		/* put off: over VERDICT_CPU_SHARE */
	uint64_t first_ns;		/* the first snapshot's time */
	uint64_t judged_ns;		/* the last verdict made: its end */
	double cost_s;			/* CPU time they took, in all */
};

/* verdict_init - an empty verdict over @window_s; 0 or -ENOMEM */
int verdict_init(struct verdict *v, double window_s);
void verdict_free(struct verdict *v);
/* verdict_add_snap - keep @s (shared), drop those older than the window */
void verdict_add_snap(struct verdict *v, const struct gl_snapshot *s);
/* verdict_add_rec - keep @r for the window */
void verdict_add_rec(struct verdict *v, const struct gl_trace_rec *r);
/*
 * verdict_compute - the diagnosis of the window in v->res; 0 or -errno
 * (-EBUSY: put off, over its CPU share; v->res stays the last one)
 */
int verdict_compute(struct verdict *v);
/* verdict_text - "storage 812ms/s, culprit fio (pid 4242), cgroup X" */
const char *verdict_text(char *buf, size_t len, const struct verdict *v);
/* verdict_prom - the gpulat_verdict_* metrics */
void verdict_prom(FILE *f, const struct verdict *v);

#endif /* _GPULAT_USER_VERDICT_H */
