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
 * that layer (by name, below), one of the tasks that layer's own
 * outliers happened to (a task stalled in reclaim, a task whose I/O
 * waited), or one of the processes that moved most of the storage I/O
 * in the watch (a reader whose own reads keep the CPUs busy).  Likewise the disk's waits are a memory cgroup limit's doing
 * when most of them are the requests of tasks that reclaim at their
 * limit.  The rules are for the class: no layer is named by a case.
 */
#include <string.h>

#include "engine/diagnose/diagnose_int.h"

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
		for (k = 0; k < L->nr_io; k++)
			if (L->io[k].pid == c->pid ||
			    (c->tgid > 0 && L->io[k].pid == c->tgid))
				return l;
	}
	return DIAG_NR_LAYERS;
}

/* diag_above - rank @cause just above @effect when it is below it */
static void diag_above(struct diag_result *r, enum diag_layer cause,
		       enum diag_layer effect)
{
	unsigned int i, at_e = 0, at_c = 0;

	for (i = 0; i < DIAG_NR_LAYERS; i++) {
		if (r->rank[i] == effect)
			at_e = i;
		if (r->rank[i] == cause)
			at_c = i;
	}
	if (at_c > at_e) {
		memmove(&r->rank[at_e + 1], &r->rank[at_e],
			(at_c - at_e) * sizeof(r->rank[0]));
		r->rank[at_e] = cause;
	}
	for (i = 0; i < DIAG_NR_LAYERS; i++)
		r->layer[r->rank[i]].rank = i + 1;
}

static void diag_effect(struct diag_result *r, enum diag_layer effect,
			enum diag_layer cause, double share, const char *comm,
			int32_t pid, bool process)
{
	struct diag_layer_res *E = &r->layer[effect];

	E->effect_of = cause;
	E->effect_share = share;
	snprintf(E->effect_who, sizeof(E->effect_who), "%.15s (%s %d)", comm,
		 process ? "pid" : "thread", pid);
	r->layer[cause].caused |= 1u << effect;
	diag_above(r, cause, effect);
}

/* the scheduler's waits: whose work its CPU holders did */
static void diag_cause_sched(struct diag_result *r)
{
	struct diag_layer_res *S = &r->layer[DIAG_SCHED];
	double share[DIAG_NR_LAYERS] = { 0 }, named = 0;
	const struct diag_culprit *who[DIAG_NR_LAYERS] = { NULL };
	enum diag_layer best = DIAG_NR_LAYERS, l;
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
	if (best < DIAG_NR_LAYERS)
		diag_effect(r, DIAG_SCHED, best, share[best], who[best]->comm,
			    who[best]->tgid > 0 ? who[best]->tgid :
			    who[best]->pid, who[best]->tgid > 0);
}

/*
 * the disk's waits: a working set larger than its memory cgroup's limit
 * is reclaimed and read again, so that the requests of the tasks that
 * reclaim at their limit (mm.memcg_reclaim among memory's evidence) are
 * the limit's doing when they are most of the storage outliers' time
 */
static void diag_cause_storage(struct diag_result *r)
{
	struct diag_layer_res *D = &r->layer[DIAG_STORAGE];
	struct diag_layer_res *M = &r->layer[DIAG_MEMORY];
	const struct diag_proc *who = NULL;
	double all = 0, theirs = 0;
	bool memcg = false;
	size_t j, k;

	if (!D->abnormal || !M->abnormal)
		return;
	for (k = 0; k < M->nr_top; k++) {
		const struct diag_item *it = diag_top_item(r, DIAG_MEMORY, k);

		memcg |= it->family == GPULAT_FAM_MM &&
			 it->id == GPULAT_MM_MEMCG_RECLAIM;
	}
	if (!memcg)
		return;
	for (k = 0; k < D->nr_affected; k++) {
		const struct diag_proc *p = &D->affected[k];

		all += p->ns;
		for (j = 0; j < M->nr_affected; j++)
			if (M->affected[j].tgid > 0 &&
			    M->affected[j].tgid == p->tgid) {
				theirs += p->ns;
				who = who ? who : p;
				break;
			}
	}
	if (who && all > 0 && theirs >= DIAG_CAUSE_SHARE * all)
		diag_effect(r, DIAG_STORAGE, DIAG_MEMORY, theirs / all,
			    who->comm, who->tgid, true);
}

/* diag_root_cause - see diagnose_int.h */
void diag_root_cause(struct diag_result *r)
{
	/* the disk's first: its cause may then be the scheduler's too */
	diag_cause_storage(r);
	diag_cause_sched(r);
}
