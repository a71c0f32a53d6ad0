// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: culprit attribution.  The tasks that held the CPU
 * during the outlier waits (the trace), the processes that used the slow
 * CPUs (/proc CPU time, when the trace cannot say), the processes whose
 * storage I/O it was (/proc I/O bytes: a disk's waits name no task when
 * none passes the trace's threshold), the slow and the hot CPUs, and
 * whether tasks wait on every CPU alike.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/diagnose/diagnose_int.h"

/* --- Processes: the trace's culprits, /proc CPU time ------------------ */

static void diag_procs_free(struct diag_procs *p)
{
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}

/* diag_procs_push - room for one more process, zeroed; NULL on ENOMEM */
static struct diag_proc *diag_procs_push(struct diag_procs *p)
{
	struct diag_proc *e;

	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		struct diag_proc *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		p->v = v;
		p->cap = cap;
	}
	e = &p->v[p->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

/*
 * diag_procs_add - @ns more for @pid (named @comm), seen on @cpu; records
 * come in time order, so a task renamed in the window (exec, prctl) is
 * one, under its latest name.  -ENOMEM
 */
static int diag_procs_add(struct diag_procs *p, int32_t pid, int32_t tgid,
			  const char *comm, uint64_t ns, uint32_t cpu,
			  bool by_process)
{
	struct diag_proc *e = NULL;
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (p->v[i].pid == pid) {
			e = &p->v[i];
			break;
		}
		/*
		 * another thread of its process: one entry, named by the
		 * thread it was first seen as (kill takes the process;
		 * /proc says whether that thread is still there)
		 */
		if (by_process && tgid > 0 && p->v[i].tgid == tgid) {
			e = &p->v[i];
			e->ns += ns;
			e->count++;
			cpuset_add(&e->cpus, cpu);
			return 0;
		}
	}
	if (!e) {
		e = diag_procs_push(p);
		if (!e)
			return -ENOMEM;
		e->pid = pid;
		e->tgid = tgid;
	}
	/* "" and tgid -1: it had exited when named; keep what it was */
	if (comm[0] || !e->comm[0]) {
		memcpy(e->comm, comm, GPULAT_COMM_LEN);
		e->comm[GPULAT_COMM_LEN - 1] = '\0';
		if (tgid > 0)
			e->tgid = tgid;
	}
	e->ns += ns;
	e->count++;
	/* a number past any CPU is none */
	cpuset_add(&e->cpus, cpu);
	return 0;
}

static int diag_proc_cmp(const void *a, const void *b)
{
	const struct diag_proc *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* diag_procs_sort - most time first */
static void diag_procs_sort(struct diag_procs *p)
{
	if (p->n > 1)
		qsort(p->v, p->n, sizeof(*p->v), diag_proc_cmp);
}

/* diag_is_miner - see diagnose_int.h */
bool diag_is_miner(const char *comm)
{
	static const char *const names[] = {
		"miner", "xmrig", "xmr-stak", "kdevtmpfsi", "kinsing",
		"nicehash", "cryptonight", "t-rex", "nbminer", "ethminer",
	};
	char low[GPULAT_COMM_LEN];
	size_t i;

	for (i = 0; i + 1 < sizeof(low) && comm[i]; i++)
		low[i] = tolower((unsigned char)comm[i]);
	low[i] = '\0';
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (strstr(low, names[i]))
			return true;
	return false;
}

/* diag_rec_layer - the layer of a trace sample, as its series counts */
static bool diag_rec_layer(const struct watch *w,
			   const struct gpulat_rec_sample *s,
			   enum diag_layer *layer)
{
	struct gpulat_series sr;
	struct diag_rule rule;

	memset(&sr, 0, sizeof(sr));
	sr.family = s->family;
	sr.id = s->series;
	sr.key = s->key;
	snprintf(sr.key_name, sizeof(sr.key_name), "%s",
		 diag_key_name(w->end, s->family, s->key));
	if (!diag_rule_of(&sr, &rule))
		return false;
	*layer = rule.layer;
	return true;
}

/* diag_culprit_set - culprit @c from process @p */
static void diag_culprit_set(struct diag_culprit *c, const struct diag_proc *p,
			     bool from_trace, double share)
{
	memset(c, 0, sizeof(*c));
	c->pid = p->pid;
	c->tgid = p->tgid;
	memcpy(c->comm, p->comm, sizeof(c->comm));
	c->ns = p->ns;
	c->share = share;
	c->from_trace = from_trace;
	c->miner = diag_is_miner(p->comm);
	c->cpus = p->cpus;
}

/*
 * diag_miner_add - @p into @L's miners when it has a cryptominer's name
 * (once per process; a thread without a known process once per thread)
 */
static void diag_miner_add(struct diag_layer_res *L, const struct diag_proc *p,
			   bool from_trace, double share)
{
	size_t k;

	if (!p->ns || !diag_is_miner(p->comm))
		return;
	for (k = 0; k < L->nr_miners; k++)
		if (p->tgid > 0 ? L->miners[k].tgid == p->tgid :
		    L->miners[k].pid == p->pid)
			return;
	if (L->nr_miners < DIAG_MAX_MINERS)
		diag_culprit_set(&L->miners[L->nr_miners++], p, from_trace,
				 share);
}

/* A pid and the name a record gave it. */
struct diag_name {
	int32_t pid;
	char comm[GPULAT_COMM_LEN];
	size_t at;		/* its record's index: the later name wins */
};

static int diag_name_cmp(const void *a, const void *b)
{
	const struct diag_name *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static int diag_name_pid_cmp(const void *a, const void *b)
{
	const struct diag_name *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * diag_rec_names - every pid the records name, sorted, with the last name
 * they give it: a culprit that had exited when the tool read its name
 * (a short-lived process) may have waited itself, named by the probe.
 * *@n 0 when none (or out of memory: the names then stay unknown).
 */
static struct diag_name *diag_rec_names(const struct watch *w, size_t *n)
{
	struct diag_name *v = malloc((w->nr_recs + 1) * sizeof(*v));
	size_t i, j, m = 0;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < w->nr_recs; i++) {
		const struct gpulat_rec_sample *s = &w->recs[i].u.sample;

		if (w->recs[i].type != GPULAT_REC_SAMPLE || s->pid <= 0 ||
		    !s->comm[0])
			continue;
		v[m].pid = s->pid;
		v[m].at = i;
		memcpy(v[m].comm, s->comm, GPULAT_COMM_LEN);
		v[m++].comm[GPULAT_COMM_LEN - 1] = '\0';
	}
	/* by pid, then time: the last of a pid is kept */
	qsort(v, m, sizeof(*v), diag_name_cmp);
	for (i = 0, j = 0; i < m; i++) {
		if (j && v[j - 1].pid == v[i].pid)
			j--;
		v[j++] = v[i];
	}
	*n = j;
	return v;
}

/* diag_name_of - @c's name, or the one the records give its pid, or "" */
static const char *diag_name_of(const struct gpulat_culprit *c,
				const struct diag_name *names, size_t n)
{
	struct diag_name key = { .pid = c->pid }, *e;

	if (c->comm[0] || !n)
		return c->comm;
	e = bsearch(&key, names, n, sizeof(*names), diag_name_pid_cmp);
	return e ? e->comm : c->comm;
}

/*
 * diag_trace - culprits and affected tasks of every layer from the trace:
 * the tasks that held the CPU during the outlier waits, summed by process
 * (a thread of an unknown process by itself), and the tasks the outliers
 * happened to
 */
int diag_trace(struct diag_result *r, const struct watch *w)
{
	struct diag_procs held[DIAG_NR_LAYERS], hit[DIAG_NR_LAYERS];
	struct diag_name *names;
	size_t i, k, nr_names;
	int l, ret = 0;

	memset(held, 0, sizeof(held));
	memset(hit, 0, sizeof(hit));
	names = diag_rec_names(w, &nr_names);
	for (i = 0; i < w->nr_recs && !ret; i++) {
		const struct gl_trace_rec *rec = &w->recs[i];
		const struct gpulat_rec_sample *s = &rec->u.sample;
		enum diag_layer layer;

		if (rec->type == GPULAT_REC_LOST) {
			r->trace_lost += rec->u.lost.lost;
			continue;
		}
		if (rec->type != GPULAT_REC_SAMPLE)
			continue;
		r->nr_trace++;
		if (!diag_rec_layer(w, s, &layer))
			continue;
		if (s->pid > 0)
			ret = diag_procs_add(&hit[layer], s->pid, s->tgid,
					     s->comm, s->latency_ns, rec->cpu,
					     false);
		if (ret || !(s->flags & GPULAT_REC_F_CULPRITS))
			continue;
		r->layer[layer].trace_wait_ns += s->latency_ns;
		for (k = 0; k < s->nr_culprits && k < GPULAT_NR_CULPRITS &&
			    !ret; k++) {
			const struct gpulat_culprit *c = &s->culprits[k];

			/* a process's threads are one culprit: kill takes it */
			if (c->pid > 0 && c->ns)
				ret = diag_procs_add(&held[layer], c->pid,
						     c->tgid,
						     diag_name_of(c, names,
								  nr_names),
						     c->ns, rec->cpu, true);
		}
	}
	for (l = 0; l < DIAG_NR_LAYERS && !ret; l++) {
		struct diag_layer_res *L = &r->layer[l];

		diag_procs_sort(&held[l]);
		for (k = 0; k < held[l].n && k < DIAG_MAX_CULPRITS && !ret;
		     k++) {
			double share = L->trace_wait_ns ?
				(double)held[l].v[k].ns / L->trace_wait_ns : 0;

			/* most first: the rest held the CPU even less */
			if (share < DIAG_TRACE_LIST)
				break;
			diag_culprit_set(&L->culprits[L->nr_culprits++],
					 &held[l].v[k], true, share);
		}
		if (!ret)
			ret = diag_groups(L, &held[l]);
		for (k = 0; k < held[l].n; k++)
			diag_miner_add(L, &held[l].v[k], true,
				       L->trace_wait_ns ? (double)held[l].v[k].ns /
				       L->trace_wait_ns : 0);
		diag_procs_sort(&hit[l]);
		for (k = 0; k < hit[l].n && k < DIAG_MAX_AFFECTED; k++) {
			L->affected[L->nr_affected++] = hit[l].v[k];
		}
	}
	for (l = 0; l < DIAG_NR_LAYERS; l++) {
		diag_procs_free(&held[l]);
		diag_procs_free(&hit[l]);
	}
	free(names);
	return ret;
}

/*
 * diag_slow_cpus - the CPUs with slow run-queue waits: at least
 * DIAG_CPU_SLOW of the worst CPU's weighted time beyond normal; the hot
 * ones, with DIAG_CPU_ALIKE of it; and how many CPUs have sched series
 * at all (an idle CPU has them since load, empty in the window).
 * 0 or -ENOMEM.
 */
int diag_slow_cpus(struct diag_result *r)
{
	uint32_t nr = 0, c;
	double *per_cpu, worst = 0;
	bool *has;
	size_t i;
	int ret = 0;

	for (i = 0; i < r->nr_items; i++) {
		const struct diag_item *it = &r->items[i];

		if (it->family == GPULAT_FAM_SCHED && it->cpu < CPUSET_MAX_CPUS &&
		    it->cpu + 1 > nr)
			nr = it->cpu + 1;
	}
	per_cpu = calloc(nr ? nr : 1, sizeof(*per_cpu));
	has = calloc(nr ? nr : 1, sizeof(*has));
	if (!per_cpu || !has) {
		free(per_cpu);
		free(has);
		return -ENOMEM;
	}
	for (i = 0; i < r->nr_items; i++) {
		const struct diag_item *it = &r->items[i];

		if (it->family != GPULAT_FAM_SCHED || it->cpu >= nr)
			continue;
		per_cpu[it->cpu] += diag_weighted(it);
		has[it->cpu] = true;
	}
	r->nr_seen = 0;
	for (c = 0; c < nr; c++) {
		r->nr_seen += has[c];
		if (per_cpu[c] > worst)
			worst = per_cpu[c];
	}
	r->nr_slow = 0;
	r->nr_hot = 0;
	for (c = 0; c < nr && worst > 0; c++) {
		if (per_cpu[c] >= worst * DIAG_CPU_ALIKE) {
			cpuset_add(&r->hot, c);
			r->nr_hot++;
		}
		if (per_cpu[c] >= worst * DIAG_CPU_SLOW) {
			cpuset_add(&r->slow, c);
			r->nr_slow++;
		}
	}
	free(per_cpu);
	free(has);
	return ret;
}

/* diag_cause - a culprit that counts as a cause, not one listed only */
bool diag_cause(const struct diag_culprit *c)
{
	return !c->from_trace || c->share >= DIAG_TRACE_SHARE ||
	       c->cpu_share >= DIAG_HOG_SHARE;
}

/*
 * diag_alike - whether tasks wait on every CPU alike: two CPUs at least
 * have sched series and every one of them is hot (its waits beyond
 * normal at least DIAG_CPU_ALIKE of the worst CPU's).  Not when every
 * culprit that counts was seen on one CPU: its hogs make the contention
 * there whatever the others' waits (emulation inflates those); that CPU
 * is then where the contention is.
 */
void diag_alike(struct diag_result *r)
{
	const struct diag_layer_res *L = &r->layer[DIAG_SCHED];
	struct cpuset one;
	size_t k, causes = 0;

	cpuset_clear(&one);
	r->alike = r->nr_seen >= 2 && r->nr_hot == r->nr_seen;
	for (k = 0; k < L->nr_culprits; k++) {
		const struct diag_culprit *c = &L->culprits[k];

		if (!diag_cause(c))
			continue;
		causes++;
		cpuset_or(&one, &c->cpus);
	}
	if (r->alike && causes && cpuset_weight(&one) == 1) {
		r->alike = false;
		r->hot = one;
		r->nr_hot = 1;
	}
}

static int diag_task_tgid_cmp(const void *a, const void *b)
{
	const struct diag_task *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * diag_by_process - what each process of @used used, its threads summed
 * (sorted by process, so in one pass), this tool left out: CPU time, or
 * with @io storage bytes (in ns, sorted alike), most first, named by its
 * leader; every process's total into *@total.  0 or -ENOMEM.
 */
static int diag_by_process(const struct diag_tasks *used, bool io,
			   struct diag_procs *procs, uint64_t *total)
{
	pid_t self = getpid();
	struct diag_task *v;
	size_t i, j;
	int ret = 0;

	*total = 0;
	v = malloc((used->n ? used->n : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (used->n)
		memcpy(v, used->v, used->n * sizeof(*v));
	qsort(v, used->n, sizeof(*v), diag_task_tgid_cmp);
	for (i = 0; i < used->n && !ret; i = j) {
		struct diag_proc *p = NULL;
		const char *comm = v[i].comm;

		for (j = i; j < used->n && v[j].tgid == v[i].tgid; j++) {
			uint64_t n = io ? v[j].io_bytes : v[j].cpu_ns;

			/* the process's name is its leader's */
			if (v[j].pid == v[j].tgid)
				comm = v[j].comm;
			*total += n;
			if (!n || v[j].tgid == self || ret)
				continue;
			if (!p) {
				p = diag_procs_push(procs);
				if (!p) {
					ret = -ENOMEM;
					continue;
				}
				p->pid = p->tgid = v[i].tgid;
			}
			p->ns += n;
			p->count++;
			cpuset_add(&p->cpus, v[j].cpu);
		}
		if (p) {
			memcpy(p->comm, comm, GPULAT_COMM_LEN);
			p->comm[GPULAT_COMM_LEN - 1] = '\0';
		}
	}
	free(v);
	if (!ret)
		diag_procs_sort(procs);
	return ret;
}

/*
 * diag_cpu_users - culprits of the scheduler layer from /proc: processes
 * that used at least DIAG_HOG_SHARE of a CPU on the slow CPUs, most first,
 * after those the trace named.
 */
int diag_cpu_users(struct diag_result *r, const struct diag_tasks *used)
{
	struct diag_layer_res *L = &r->layer[DIAG_SCHED];
	double secs = used->span_s > 0 ? used->span_s : r->duration_s;
	struct diag_procs procs = { 0 };
	uint64_t total;
	size_t i, k;
	int ret = 0;

	ret = diag_by_process(used, false, &procs, &total);
	/* a miner on any CPU, at any share, after those the trace named */
	for (i = 0; !ret && i < procs.n; i++)
		diag_miner_add(L, &procs.v[i], false,
			       procs.v[i].ns / (secs * 1e9));
	for (i = 0; !ret && i < procs.n; i++) {
		const struct diag_proc *p = &procs.v[i];
		double share = p->ns / (secs * 1e9);
		bool dup = false;

		if (share < DIAG_HOG_SHARE)
			break;
		if (r->nr_slow && !cpuset_meets(&p->cpus, &r->slow))
			continue;
		for (k = 0; k < L->nr_culprits; k++)
			if (L->culprits[k].tgid == p->tgid) {
				/* the trace named it; /proc says how busy */
				L->culprits[k].cpu_share = share;
				dup = true;
			}
		if (!dup && L->nr_culprits < DIAG_MAX_CULPRITS)
			diag_culprit_set(&L->culprits[L->nr_culprits++], p,
					 false, share);
	}
	diag_procs_free(&procs);
	return ret;
}

/*
 * diag_io_users - the processes that read from and wrote to storage at
 * least DIAG_IO_SHARE of every process's bytes during the watch, most
 * first.  /proc/PID/io counts a process's own requests and the pages it
 * dirtied (written back later by the kernel's flushers, in its name),
 * on every disk.
 */
int diag_io_users(struct diag_result *r, const struct diag_tasks *used)
{
	struct diag_layer_res *L = &r->layer[DIAG_STORAGE];
	struct diag_procs procs = { 0 };
	uint64_t total;
	size_t i;
	int ret = 0;

	ret = diag_by_process(used, true, &procs, &total);
	for (i = 0; !ret && i < procs.n && L->nr_io < DIAG_MAX_CULPRITS;
	     i++) {
		struct diag_io_user *u = &L->io[L->nr_io];

		if ((double)procs.v[i].ns < DIAG_IO_SHARE * total)
			break;
		u->pid = procs.v[i].pid;
		memcpy(u->comm, procs.v[i].comm, sizeof(u->comm));
		u->bytes = procs.v[i].ns;
		u->share = (double)u->bytes / total;
		L->nr_io++;
	}
	diag_procs_free(&procs);
	return ret;
}
