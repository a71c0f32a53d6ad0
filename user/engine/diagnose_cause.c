// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: the root cause before its effect.  A fault in one
 * layer raises the run-queue waits of every task on its CPUs: reclaim
 * (kswapd, or the reclaiming tasks themselves), an I/O storm (its
 * submitters, jbd2), a softirq flood (ksoftirqd).  The scheduler's
 * outlier records name who held the CPU during the waits; when most of
 * the time they name went to tasks doing an abnormal layer's work (and
 * a tenth of all the wait time at least), that layer is the cause and
 * ranks above the scheduler, which says it is the effect.  Of the time
 * the records do not name (a wait longer than the switch history) no
 * more can be said than of the time they name.
 *
 * A holder does a layer's work when it is one of the kernel threads of
 * that layer (by name, below), or one of the tasks that layer's own
 * outliers happened to (a task stalled in reclaim, a task whose I/O
 * waited).  The rule is for the class: no layer is named by a case.
 */
#include <string.h>

#include "diagnose_int.h"

/* Kernel threads whose CPU time is a layer's work, by name prefix. */
static const struct {
	const char *prefix;
	enum diag_layer layer;
} diag_kthreads[] = {
	{ "kswapd", DIAG_MEMORY },
	{ "kcompactd", DIAG_MEMORY },
	{ "khugepaged", DIAG_MEMORY },
	{ "kdamond", DIAG_MEMORY },
	{ "ksoftirqd/", DIAG_NETWORK },
	{ "jbd2/", DIAG_STORAGE },
	{ "kblockd", DIAG_STORAGE },
	{ "nv_queue", DIAG_DRIVER },
	{ "UVM GPU", DIAG_DRIVER },
};

/* diag_holder_layer - the layer whose work @c did, or DIAG_NR_LAYERS */
static enum diag_layer diag_holder_layer(const struct diag_result *r,
					 const struct diag_culprit *c)
{
	size_t i, k;
	int l;

	for (i = 0; i < ARRAY_SIZE(diag_kthreads); i++)
		if (!strncmp(c->comm, diag_kthreads[i].prefix,
			     strlen(diag_kthreads[i].prefix)))
			return diag_kthreads[i].layer;
	/* irq/N-NAME: the handler's device says whose */
	if (!strncmp(c->comm, "irq/", 4)) {
		if (strstr(c->comm, "nvidia"))
			return DIAG_DRIVER;
		if (strstr(c->comm, "nvme") || strstr(c->comm, "ahci"))
			return DIAG_STORAGE;
	}
	for (l = 0; l < DIAG_NR_LAYERS; l++) {
		const struct diag_layer_res *L = &r->layer[l];

		if (l == DIAG_SCHED || !L->abnormal)
			continue;
		for (k = 0; k < L->nr_affected; k++)
			if (L->affected[k].pid == c->pid ||
			    (c->tgid > 0 && L->affected[k].tgid == c->tgid))
				return l;
	}
	return DIAG_NR_LAYERS;
}

/* diag_root_cause - see diagnose_int.h */
void diag_root_cause(struct diag_result *r)
{
	struct diag_layer_res *S = &r->layer[DIAG_SCHED];
	double share[DIAG_NR_LAYERS] = { 0 }, named = 0;
	const struct diag_culprit *who[DIAG_NR_LAYERS] = { NULL };
	enum diag_layer best = DIAG_NR_LAYERS, l;
	unsigned int i, at_s = 0, at_c = 0;
	size_t k;

	if (!S->abnormal)
		return;
	for (k = 0; k < S->nr_culprits; k++) {
		const struct diag_culprit *c = &S->culprits[k];

		if (!c->from_trace)
			continue;
		named += c->share;
		l = diag_holder_layer(r, c);
		if (l >= DIAG_NR_LAYERS || !r->layer[l].abnormal)
			continue;
		share[l] += c->share;
		if (!who[l])
			who[l] = c;
	}
	for (l = 0; l < DIAG_NR_LAYERS; l++)
		if (share[l] >= DIAG_TRACE_SHARE &&
		    share[l] >= DIAG_CAUSE_SHARE * named &&
		    (best == DIAG_NR_LAYERS || share[l] > share[best]))
			best = l;
	if (best == DIAG_NR_LAYERS)
		return;
	S->effect_of = best;
	S->effect_share = share[best];
	r->layer[best].caused = true;
	snprintf(S->effect_who, sizeof(S->effect_who), "%.15s (%s %d)",
		 who[best]->comm, who[best]->tgid > 0 ? "pid" : "thread",
		 who[best]->tgid > 0 ? who[best]->tgid : who[best]->pid);
	/* the cause just above its effect, the rest as they were */
	for (i = 0; i < DIAG_NR_LAYERS; i++) {
		if (r->rank[i] == DIAG_SCHED)
			at_s = i;
		if (r->rank[i] == best)
			at_c = i;
	}
	if (at_c > at_s) {
		memmove(&r->rank[at_s + 1], &r->rank[at_s],
			(at_c - at_s) * sizeof(r->rank[0]));
		r->rank[at_s] = best;
	}
	for (i = 0; i < DIAG_NR_LAYERS; i++)
		r->layer[r->rank[i]].rank = i + 1;
}
