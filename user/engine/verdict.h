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

#include "diagnose.h"
#include "gpulat_user.h"

/* Default window of the verdict, seconds. */
#define VERDICT_WINDOW_S	10.0
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
	struct gl_snapshot **snaps;	/* oldest first, copies */
	size_t nr_snaps, cap_snaps;
	struct gl_trace_rec *recs;	/* a ring of VERDICT_MAX_RECS */
	size_t rec_head, nr_recs;
	uint64_t recs_dropped, lost;
	bool trace_ok;
	uint64_t thresholds[GPULAT_FAM_MAX];
	struct verdict_result res;
	uint64_t computed, failed;	/* verdicts made, and not made */
	double cost_s;			/* CPU time they took, in all */
};

/* verdict_init - an empty verdict over @window_s; 0 or -ENOMEM */
int verdict_init(struct verdict *v, double window_s);
void verdict_free(struct verdict *v);
/* verdict_add_snap - keep a copy of @s, drop those older than the window */
void verdict_add_snap(struct verdict *v, const struct gl_snapshot *s);
/* verdict_add_rec - keep @r for the window */
void verdict_add_rec(struct verdict *v, const struct gl_trace_rec *r);
/* verdict_compute - the diagnosis of the window in v->res; 0 or -errno */
int verdict_compute(struct verdict *v);
/* verdict_text - "storage 812ms/s, culprit fio (pid 4242), cgroup X" */
const char *verdict_text(char *buf, size_t len, const struct verdict *v);
/* verdict_prom - the gpulat_verdict_* metrics */
void verdict_prom(FILE *f, const struct verdict *v);

#endif /* _GPULAT_USER_VERDICT_H */
