// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: watch every family for a while, then rank the layers
 * (GPU driver interrupt path, network, storage, scheduler, memory) by
 * how likely each one causes the latency spikes, with the evidence and
 * the next steps of the operators' runbook (Documentation/runbook.rst,
 * section "gpulat diagnose", states the rule).
 *
 * diag_analyze() is a pure function of a finished watch: the window (what
 * happened while watching), the totals at its start (the baseline), the
 * outlier trace records and, optionally, the CPU time every thread used
 * meanwhile.  diagnose_run() does the watching.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diagnose.h"
#include "gpulat.h"
#include "gpulat_hist.h"
#include "json.h"
#include "units.h"

/* A baseline needs this many samples before it counts. */
#define DIAG_BASELINE_MIN	200
/* The normal bound: this many times the baseline's p99 ... */
#define DIAG_BASELINE_MULT	4
/* ... but at most the expected p99 and at least a tenth of it. */
#define DIAG_FLOOR_DIV		10
/* An abnormal layer has this many samples over their bound ... */
#define DIAG_MIN_OVER		3
/* ... or one sample this many times over it. */
#define DIAG_BIG_RATIO		10
/* A process using this share of a CPU is worth naming. */
#define DIAG_HOG_SHARE		0.25
/* A task holding the CPU in this share of the outlier waits is a cause ... */
#define DIAG_TRACE_SHARE	0.10
/* ... and in this share, worth listing. */
#define DIAG_TRACE_LIST		0.02
/* CPUs with at least this fraction of the worst CPU's waits are "slow" ... */
#define DIAG_CPU_SLOW		0.10
/*
 * ... and "hot" with this fraction: tasks wait on every CPU alike only
 * when every CPU is hot.  Half was too low: with hogs on CPU 1 alone,
 * emulation or a busy CPU 0 reached half of CPU 1's now and then.
 */
#define DIAG_CPU_ALIKE		0.75
/* A CPU number beyond any kernel's NR_CPUS (8192): not a CPU. */
#define DIAG_MAX_CPUS		65536

#define DIAG_MAX_EVIDENCE	3
#define DIAG_MAX_CULPRITS	3
#define DIAG_MAX_AFFECTED	3
#define DIAG_MAX_ADVICE		8
#define DIAG_MAX_NOTES		6
#define DIAG_MAX_XIDS		8
#define DIAG_TEXT_LEN		512
/* A space where a line must not wrap ("CPU 1"); printed as a space. */
#define DIAG_NBSP		'\x1f'

/* Where an item's normal bound comes from. */
enum diag_ref {
	DIAG_REF_EXPECTED,	/* the expected p99 of the series */
	DIAG_REF_BASELINE,	/* DIAG_BASELINE_MULT x the baseline's p99 */
	DIAG_REF_FLOOR,		/* the floor: expected / DIAG_FLOOR_DIV */
};

static const char *const diag_ref_names[] = {
	[DIAG_REF_EXPECTED]	= "expected",
	[DIAG_REF_BASELINE]	= "baseline",
	[DIAG_REF_FLOOR]	= "floor",
};

/* How a series counts: its layer, expected p99 and weight in percent. */
struct diag_rule {
	enum diag_layer layer;
	uint64_t expect_ns;
	unsigned int weight;
};

/* One series of the window, judged. */
struct diag_item {
	enum diag_layer layer;
	uint32_t family, id, cpu;
	uint64_t key;
	char name[GPULAT_NAME_LEN];
	char where[2 * GPULAT_NAME_LEN + 48];	/* "CPU 1", "nullb0", ... */
	char key_name[GPULAT_NAME_LEN];		/* printable */
	uint64_t count, p50, p99, p999, max;
	bool max_exact;
	uint64_t expect, ref;
	enum diag_ref ref_from;
	uint64_t base_count, base_p99;
	uint64_t threshold;	/* the family's trace threshold; 0: none */
	double over_threshold;
	double over;		/* samples above ref */
	double excess;		/* ns above ref, summed over those samples */
	unsigned int weight;
};

/* A process seen in the trace or in /proc, and what it did. */
struct diag_proc {
	int32_t pid, tgid;
	char comm[GPULAT_COMM_LEN];
	uint64_t ns;
	uint64_t count;
	struct diag_cpuset cpus;
};

struct diag_procs {
	struct diag_proc *v;
	size_t n, cap;
};

struct diag_xid_seen {
	uint64_t time_ns;
	uint32_t code;
	char device[32];
	bool in_window;
};

struct diag_layer_res {
	bool measured;
	char why_not[96];
	bool abnormal;
	double score;
	uint64_t samples;
	double over;
	double excess;
	double worst_ratio;	/* largest max / ref of its items */
	size_t top[DIAG_MAX_EVIDENCE];
	size_t nr_top;
	struct diag_culprit culprits[DIAG_MAX_CULPRITS];
	size_t nr_culprits;
	struct diag_proc affected[DIAG_MAX_AFFECTED];
	size_t nr_affected;
	uint64_t trace_wait_ns;	/* outlier wait time the culprits share */
	struct diag_xid_seen xids[DIAG_MAX_XIDS];
	size_t nr_xids, xids_in_window;
	char advice[DIAG_MAX_ADVICE][DIAG_TEXT_LEN];
	size_t nr_advice;
	char notes[DIAG_MAX_NOTES][DIAG_TEXT_LEN];
	size_t nr_notes;
	char why_normal[DIAG_TEXT_LEN];	/* a measured normal layer's */
	uint64_t drops;
	unsigned int rank;
};

struct diag_result {
	double duration_s;
	char kernel[65];
	bool trace_ok, interrupted, has_tasks;
	uint64_t trace_lost;
	size_t nr_trace;
	struct diag_cpuset slow;	/* CPUs with slow waits */
	size_t nr_slow;
	struct diag_cpuset hot;		/* where the contention is */
	size_t nr_hot;
	size_t nr_seen;		/* CPUs with sched series */
	bool alike;		/* tasks wait on every CPU alike */
	struct diag_item *items;
	size_t nr_items;
	struct diag_layer_res layer[DIAG_NR_LAYERS];
	enum diag_layer rank[DIAG_NR_LAYERS];
	bool abnormal;
};

static const char *const diag_names[DIAG_NR_LAYERS] = {
	[DIAG_DRIVER]	= "driver",
	[DIAG_NETWORK]	= "network",
	[DIAG_STORAGE]	= "storage",
	[DIAG_SCHED]	= "scheduler",
	[DIAG_MEMORY]	= "memory",
};

static const char *const diag_titles[DIAG_NR_LAYERS] = {
	[DIAG_DRIVER]	= "GPU driver interrupt path",
	[DIAG_NETWORK]	= "network",
	[DIAG_STORAGE]	= "storage",
	[DIAG_SCHED]	= "scheduler (waits for a CPU)",
	[DIAG_MEMORY]	= "memory (reclaim and compaction stalls)",
};

/* The families whose probes measure each layer. */
static const uint32_t diag_families[DIAG_NR_LAYERS] = {
	[DIAG_DRIVER]	= GPULAT_FAM_NVIDIA,
	[DIAG_NETWORK]	= GPULAT_FAM_NET,
	[DIAG_STORAGE]	= GPULAT_FAM_BLOCK,
	[DIAG_SCHED]	= GPULAT_FAM_SCHED,
	[DIAG_MEMORY]	= GPULAT_FAM_MM,
};

/* diag_layer_name - "driver", "network", "storage", "scheduler", "memory" */
const char *diag_layer_name(enum diag_layer l)
{
	return l < DIAG_NR_LAYERS ? diag_names[l] : "none";
}

#define US	1000ULL
#define MS	1000000ULL

/*
 * diag_rule_of - how series @sr counts; false for one that does not
 * (background compaction: no task waits for it).  The expected p99s are
 * the table of Documentation/runbook.rst.
 */
static bool diag_rule_of(const struct gpulat_series *sr, struct diag_rule *r)
{
	uint32_t vec;

	r->weight = 100;
	switch (sr->family) {
	case GPULAT_FAM_SCHED:
		r->layer = DIAG_SCHED;
		if (sr->id == GPULAT_SCHED_WAKEUP) {
			r->expect_ns = 1 * MS;
		} else {
			/* CPU-bound threads taking turns: slices of ms */
			r->expect_ns = 5 * MS;
			r->weight = 50;
		}
		return sr->id <= GPULAT_SCHED_PREEMPT;
	case GPULAT_FAM_BLOCK:
		r->layer = DIAG_STORAGE;
		/* flushes and discards of healthy disks take longer */
		if (sr->id / 2 == GPULAT_BLOCK_FLUSH ||
		    sr->id / 2 == GPULAT_BLOCK_DISCARD)
			r->expect_ns = 50 * MS;
		else
			r->expect_ns = 20 * MS;
		return sr->id < 2 * GPULAT_BLOCK_NR_OPS;
	case GPULAT_FAM_NET:
		r->layer = DIAG_NETWORK;
		r->expect_ns = 1 * MS;
		return sr->id <= GPULAT_NET_BACKLOG;
	case GPULAT_FAM_IRQ:
		/* an NVIDIA handler is the driver's; others take CPU time */
		r->layer = strncmp(sr->key_name, "nvidia", 6) ? DIAG_SCHED :
								DIAG_DRIVER;
		r->expect_ns = 100 * US;
		return sr->id == GPULAT_IRQ_HANDLER;
	case GPULAT_FAM_SOFTIRQ:
		vec = sr->id / 2;
		if (vec == VIEW_NET_TX_SOFTIRQ || vec == VIEW_NET_RX_SOFTIRQ) {
			r->layer = DIAG_NETWORK;
		} else {
			r->layer = DIAG_SCHED;
			r->weight = 50;
		}
		/* net_rx_action() stops after 2 ms; so may a wait */
		r->expect_ns = 2 * MS;
		return vec < GPULAT_SOFTIRQ_NR_VECS;
	case GPULAT_FAM_NVIDIA:
		r->layer = DIAG_DRIVER;
		switch (sr->id) {
		case GPULAT_NV_HARDIRQ:
			r->expect_ns = 100 * US;
			return true;
		case GPULAT_NV_THREAD_WAKE:
			r->expect_ns = 500 * US;
			return true;
		case GPULAT_NV_THREAD_RUN:
		case GPULAT_NV_KTHREAD_WAKE:
			r->expect_ns = 1 * MS;
			return true;
		}
		return false;
	case GPULAT_FAM_MM:
		r->layer = DIAG_MEMORY;
		r->expect_ns = 1 * MS;
		return sr->id == GPULAT_MM_DIRECT_RECLAIM ||
		       sr->id == GPULAT_MM_COMPACTION;
	}
	return false;
}

/*
 * diag_above - samples of @h above @ref and the ns they spend above it,
 * taking each slot's samples as spread evenly over the slot (its upper
 * bound capped at the maximum, as the quantiles do)
 */
static void diag_above(const struct gl_hist *h, uint64_t ref, double *over,
		       double *excess)
{
	uint32_t k;

	*over = 0;
	*excess = 0;
	for (k = 0; k < GPULAT_HIST_NR_BUCKETS; k++) {
		double lo, hi, c = (double)h->slots[k], frac;

		if (!h->slots[k])
			continue;
		lo = (double)gpulat_hist_lower(k);
		hi = k == GPULAT_HIST_OVERFLOW ? (double)h->max_ns :
		     (double)gpulat_hist_upper(k);
		if (hi > (double)h->max_ns)
			hi = (double)h->max_ns;
		if (hi < lo)
			hi = lo;
		if (hi <= (double)ref)
			continue;
		if (lo >= (double)ref) {
			*over += c;
			*excess += c * ((lo + hi) / 2 - (double)ref);
			continue;
		}
		frac = (hi - (double)ref) / (hi - lo);
		*over += c * frac;
		*excess += c * frac * (hi - (double)ref) / 2;
	}
}

/* diag_ratio - @v / @ref, 0 when @ref is 0 */
static double diag_ratio(uint64_t v, uint64_t ref)
{
	return ref ? (double)v / (double)ref : 0;
}

/*
 * diag_item_fill - judge one window series: its tail, its baseline from
 * @start, its normal bound, how much of it lies beyond
 */
static void diag_item_fill(struct diag_item *it, const struct gl_snapshot *win,
			   size_t i, const struct gl_snapshot *start,
			   const struct diag_rule *rule, uint64_t threshold)
{
	const struct gpulat_series *sr = gl_snapshot_series(win, i);
	struct gl_hist h, base;
	double unused;

	memset(it, 0, sizeof(*it));
	it->layer = rule->layer;
	it->family = sr->family;
	it->id = sr->id;
	it->cpu = sr->cpu;
	it->key = sr->key;
	units_printable(it->name, sizeof(it->name), sr->name);
	units_printable(it->key_name, sizeof(it->key_name), sr->key_name);
	hist_key_text(it->where, sizeof(it->where), sr);
	if (sr->cpu != GPULAT_CPU_NONE) {
		size_t n = strlen(it->where);

		snprintf(it->where + n, sizeof(it->where) - n, "%sCPU %u",
			 n ? " " : "", sr->cpu);
	}

	memset(&h, 0, sizeof(h));
	h.max_exact = true;
	gl_hist_add_series(&h, sr, gl_snapshot_max_exact(win, i));
	it->count = gl_hist_total(&h);
	it->p50 = gl_hist_quantile(&h, 500000);
	it->p99 = gl_hist_quantile(&h, 990000);
	it->p999 = gl_hist_quantile(&h, 999000);
	it->max = it->count ? h.max_ns : 0;
	it->max_exact = h.max_exact;
	it->weight = rule->weight;

	it->expect = rule->expect_ns;
	it->ref = it->expect;
	it->ref_from = DIAG_REF_EXPECTED;
	if (start && gl_hist_merge_key(start, sr->family, sr->id, sr->key,
				       sr->cpu, &base) > 0) {
		it->base_count = gl_hist_total(&base);
		it->base_p99 = gl_hist_quantile(&base, 990000);
	}
	if (it->base_count >= DIAG_BASELINE_MIN &&
	    it->base_p99 * DIAG_BASELINE_MULT < it->expect) {
		it->ref = it->base_p99 * DIAG_BASELINE_MULT;
		it->ref_from = DIAG_REF_BASELINE;
		if (it->ref < it->expect / DIAG_FLOOR_DIV) {
			it->ref = it->expect / DIAG_FLOOR_DIV;
			it->ref_from = DIAG_REF_FLOOR;
		}
	}
	diag_above(&h, it->ref, &it->over, &it->excess);
	it->threshold = threshold;
	if (threshold)
		diag_above(&h, threshold, &it->over_threshold, &unused);
}

/* diag_weighted - what @it adds to its layer's score, ns */
static double diag_weighted(const struct diag_item *it)
{
	return it->excess * it->weight / 100.0;
}

/* --- CPU sets ---------------------------------------------------------- */

/* diag_cpuset_add - put @cpu in @s; 0 or -ENOMEM (a number past any CPU: 0) */
static int diag_cpuset_add(struct diag_cpuset *s, uint32_t cpu)
{
	size_t need = cpu / 64 + 1;

	if (cpu >= DIAG_MAX_CPUS)
		return 0;
	if (need > s->nr_words) {
		uint64_t *w = realloc(s->w, need * sizeof(*w));

		if (!w)
			return -ENOMEM;
		memset(w + s->nr_words, 0, (need - s->nr_words) * sizeof(*w));
		s->w = w;
		s->nr_words = need;
	}
	s->w[cpu / 64] |= 1ULL << (cpu % 64);
	return 0;
}

static void diag_cpuset_free(struct diag_cpuset *s)
{
	free(s->w);
	s->w = NULL;
	s->nr_words = 0;
}

/* diag_cpuset_copy - @d (empty) becomes a copy of @s; 0 or -ENOMEM */
static int diag_cpuset_copy(struct diag_cpuset *d, const struct diag_cpuset *s)
{
	d->w = NULL;
	d->nr_words = 0;
	if (!s->nr_words)
		return 0;
	d->w = malloc(s->nr_words * sizeof(*d->w));
	if (!d->w)
		return -ENOMEM;
	memcpy(d->w, s->w, s->nr_words * sizeof(*d->w));
	d->nr_words = s->nr_words;
	return 0;
}

/* diag_cpuset_meets - whether @a and @b have a CPU in common */
static bool diag_cpuset_meets(const struct diag_cpuset *a,
			      const struct diag_cpuset *b)
{
	size_t i;

	for (i = 0; i < a->nr_words && i < b->nr_words; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

bool diag_cpuset_has(const struct diag_cpuset *s, uint32_t cpu)
{
	return cpu / 64 < s->nr_words && (s->w[cpu / 64] >> (cpu % 64)) & 1;
}

size_t diag_cpuset_weight(const struct diag_cpuset *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr_words; i++)
		n += __builtin_popcountll(s->w[i]);
	return n;
}

/* --- Processes: the trace's culprits, /proc CPU time ------------------ */

static void diag_procs_free(struct diag_procs *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		diag_cpuset_free(&p->v[i].cpus);
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

/* diag_procs_add - @ns more for (@pid, @comm), seen on @cpu; -ENOMEM */
static int diag_procs_add(struct diag_procs *p, int32_t pid, int32_t tgid,
			  const char *comm, uint64_t ns, uint32_t cpu)
{
	struct diag_proc *e = NULL;
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (p->v[i].pid == pid &&
		    !strncmp(p->v[i].comm, comm, GPULAT_COMM_LEN)) {
			e = &p->v[i];
			break;
		}
	}
	if (!e) {
		e = diag_procs_push(p);
		if (!e)
			return -ENOMEM;
		e->pid = pid;
		e->tgid = tgid;
		memcpy(e->comm, comm, GPULAT_COMM_LEN);
		e->comm[GPULAT_COMM_LEN - 1] = '\0';
	}
	e->ns += ns;
	e->count++;
	return diag_cpuset_add(&e->cpus, cpu);
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

/* diag_is_miner - whether @comm is the name of a known cryptominer */
static bool diag_is_miner(const char *comm)
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

/* diag_cpus_text - "CPU 1", "CPUs 0,2,3", "CPUs 0,1,2,3 and 4 more" */
static const char *diag_cpus_text(char *buf, size_t len,
				  const struct diag_cpuset *cpus)
{
	size_t n = diag_cpuset_weight(cpus), shown = 0, pos;
	uint32_t c;

	if (!n) {
		snprintf(buf, len, "unknown CPUs");
		return buf;
	}
	pos = snprintf(buf, len, n == 1 ? "CPU " : "CPUs ");
	for (c = 0; c < 64 * cpus->nr_words && pos < len; c++) {
		if (!diag_cpuset_has(cpus, c))
			continue;
		if (shown == 4) {
			snprintf(buf + pos, len - pos, " and %zu more",
				 n - shown);
			return buf;
		}
		pos += snprintf(buf + pos, len - pos, "%s%u", shown ? "," : "",
				c);
		shown++;
	}
	return buf;
}

/* --- Xid events ------------------------------------------------------- */

enum diag_xid_class {
	DIAG_XID_OTHER,
	DIAG_XID_STALL,		/* the GPU or its link stalls */
	DIAG_XID_RESET,		/* the GPU needs a reset */
	DIAG_XID_PROCESS,	/* one process's fault, recovered */
};

static const struct {
	uint32_t code;
	enum diag_xid_class cls;
	const char *meaning;
} diag_xid_table[] = {
	{ 13, DIAG_XID_PROCESS, "graphics engine exception" },
	{ 31, DIAG_XID_PROCESS, "GPU memory page fault" },
	{ 43, DIAG_XID_PROCESS, "GPU stopped processing" },
	{ 45, DIAG_XID_PROCESS, "preemptive cleanup after an earlier error" },
	{ 48, DIAG_XID_RESET, "double-bit ECC error" },
	{ 63, DIAG_XID_RESET, "ECC page retirement or row remapping event" },
	{ 64, DIAG_XID_RESET, "ECC page retirement or row remapping failure" },
	{ 79, DIAG_XID_STALL, "GPU has fallen off the bus" },
	{ 92, DIAG_XID_STALL, "high single-bit ECC error rate" },
	{ 94, DIAG_XID_PROCESS, "contained ECC error" },
	{ 95, DIAG_XID_RESET, "uncontained ECC error" },
	{ 119, DIAG_XID_STALL, "GSP RPC timeout" },
	{ 120, DIAG_XID_STALL, "GSP error" },
	{ 154, DIAG_XID_RESET, "GPU recovery action changed: reset needed" },
	{ 167, DIAG_XID_STALL, "PCIe bus error or timeout" },
};

static const char *diag_xid_meaning(uint32_t code, enum diag_xid_class *cls)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(diag_xid_table); i++) {
		if (diag_xid_table[i].code == code) {
			if (cls)
				*cls = diag_xid_table[i].cls;
			return diag_xid_table[i].meaning;
		}
	}
	if (cls)
		*cls = DIAG_XID_OTHER;
	return "see NVIDIA's Xid catalog";
}

static const char *const diag_xid_class_names[] = {
	[DIAG_XID_OTHER]	= "other",
	[DIAG_XID_STALL]	= "stall",
	[DIAG_XID_RESET]	= "reset",
	[DIAG_XID_PROCESS]	= "process",
};

/* diag_xid_add - remember an Xid once (the snapshot and the trace agree) */
static void diag_xid_add(struct diag_layer_res *L, uint64_t time_ns,
			 uint32_t code, const char *device, bool in_window)
{
	struct diag_xid_seen *x;
	size_t i;

	for (i = 0; i < L->nr_xids; i++)
		if (L->xids[i].time_ns == time_ns && L->xids[i].code == code)
			return;
	if (in_window)
		L->xids_in_window++;
	if (L->nr_xids == DIAG_MAX_XIDS) {
		/* keep the ones in the window, newest last */
		for (i = 0; i < L->nr_xids; i++)
			if (!L->xids[i].in_window)
				break;
		if (i == L->nr_xids)
			i = 0;
		memmove(&L->xids[i], &L->xids[i + 1],
			(L->nr_xids - i - 1) * sizeof(L->xids[0]));
		L->nr_xids--;
	}
	x = &L->xids[L->nr_xids++];
	x->time_ns = time_ns;
	x->code = code;
	x->in_window = in_window;
	memcpy(x->device, device, sizeof(x->device));
	x->device[sizeof(x->device) - 1] = '\0';
}

/* --- Text helpers ----------------------------------------------------- */

static void diag_note(struct diag_layer_res *L, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void diag_advise(struct diag_layer_res *L, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void diag_note(struct diag_layer_res *L, const char *fmt, ...)
{
	va_list ap;

	if (L->nr_notes == DIAG_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(L->notes[L->nr_notes++], DIAG_TEXT_LEN, fmt, ap);
	va_end(ap);
}

static void diag_advise(struct diag_layer_res *L, const char *fmt, ...)
{
	va_list ap;

	if (L->nr_advice == DIAG_MAX_ADVICE)
		return;
	va_start(ap, fmt);
	vsnprintf(L->advice[L->nr_advice++], DIAG_TEXT_LEN, fmt, ap);
	va_end(ap);
}

/* --- Analysis --------------------------------------------------------- */

/* diag_family_state - whether @fam had a probe attached, and if not why */
static bool diag_family_on(const struct gl_snapshot *s, uint32_t fam,
			   char *why, size_t len)
{
	size_t i, n = s ? gl_snapshot_nr_probes(s) : 0, seen = 0;
	bool missing = false, failed = false;

	for (i = 0; i < n; i++) {
		const struct gpulat_probe *p = gl_snapshot_probe(s, i);

		if (p->family != fam)
			continue;
		seen++;
		if (p->state == GPULAT_PROBE_ATTACHED)
			return true;
		missing |= p->state == GPULAT_PROBE_MISSING;
		failed |= p->state == GPULAT_PROBE_FAILED;
	}
	snprintf(why, len, "the %s family is %s", gl_family_name(fam),
		 !seen ? "not in the module" :
		 missing ? "off: tracepoints missing on this kernel" :
		 failed ? "off: its tracepoints failed to attach" :
		 "switched off (gpulat enable)");
	return false;
}

/* diag_key_name - the name of (@fam, @key) among @s's series, or "" */
static const char *diag_key_name(const struct gl_snapshot *s, uint32_t fam,
				 uint64_t key)
{
	size_t i, n = s ? gl_snapshot_nr_series(s) : 0;

	for (i = 0; i < n; i++) {
		const struct gpulat_series *sr = gl_snapshot_series(s, i);

		if (sr->family == fam && sr->key == key)
			return sr->key_name;
	}
	return "";
}

/* diag_items - judge every series of the window */
static int diag_items(struct diag_result *r, const struct watch *w)
{
	const struct gl_snapshot *win = w->window;
	size_t i, j, n = win ? gl_snapshot_nr_series(win) : 0;

	r->items = calloc(n ? n : 1, sizeof(*r->items));
	if (!r->items)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct gpulat_series *sr = gl_snapshot_series(win, i);
		struct diag_rule rule;
		bool dup = false;

		if (!diag_rule_of(sr, &rule))
			continue;
		/* the nvidia family times the same handler: keep its series */
		if (sr->family == GPULAT_FAM_IRQ && rule.layer == DIAG_DRIVER) {
			for (j = 0; j < n && !dup; j++) {
				const struct gpulat_series *o =
					gl_snapshot_series(win, j);

				dup = o->family == GPULAT_FAM_NVIDIA &&
				      o->id == GPULAT_NV_HARDIRQ &&
				      o->key == sr->key;
			}
			if (dup)
				continue;
		}
		diag_item_fill(&r->items[r->nr_items++], win, i, w->start,
			       &rule, sr->family < GPULAT_FAM_MAX ?
			       w->thresholds[sr->family] : 0);
	}
	return 0;
}

/* diag_layers_sum - score, samples and the top evidence of every layer */
static void diag_layers_sum(struct diag_result *r)
{
	size_t i, k;

	for (i = 0; i < r->nr_items; i++) {
		const struct diag_item *it = &r->items[i];
		struct diag_layer_res *L = &r->layer[it->layer];
		double ratio = diag_ratio(it->max, it->ref);

		L->samples += it->count;
		L->over += it->over;
		L->excess += it->excess;
		L->score += diag_weighted(it) / r->duration_s;
		if (it->over > 0 && ratio > L->worst_ratio)
			L->worst_ratio = ratio;
		/* keep the DIAG_MAX_EVIDENCE items of most weighted excess */
		for (k = 0; k < L->nr_top; k++) {
			const struct diag_item *o = &r->items[L->top[k]];

			if (diag_weighted(it) > diag_weighted(o) ||
			    (diag_weighted(it) == diag_weighted(o) &&
			     diag_ratio(it->p99, it->ref) >
			     diag_ratio(o->p99, o->ref)))
				break;
		}
		if (k == DIAG_MAX_EVIDENCE || !it->count)
			continue;
		if (L->nr_top < DIAG_MAX_EVIDENCE)
			L->nr_top++;
		memmove(&L->top[k + 1], &L->top[k],
			(L->nr_top - k - 1) * sizeof(L->top[0]));
		L->top[k] = i;
	}
}

/* diag_xids - the Xid events of the end snapshot and of the trace */
static void diag_xids(struct diag_result *r, const struct watch *w)
{
	struct diag_layer_res *L = &r->layer[DIAG_DRIVER];
	const struct gpulat_snap_header *h;
	uint64_t from = 0;
	size_t i, n;

	if (w->window) {
		h = gl_snapshot_header(w->window);
		from = h->reset_time_ns;
	}
	n = w->end ? gl_snapshot_nr_events(w->end) : 0;
	for (i = 0; i < n; i++) {
		const struct gpulat_event *e = gl_snapshot_event(w->end, i);

		if (e->type == GPULAT_EVENT_XID)
			diag_xid_add(L, e->time_ns, e->code, e->device,
				     e->time_ns >= from);
	}
	for (i = 0; i < w->nr_recs; i++) {
		const struct gl_trace_rec *rec = &w->recs[i];

		if (rec->type == GPULAT_REC_EVENT &&
		    rec->u.event.event.type == GPULAT_EVENT_XID)
			diag_xid_add(L, rec->u.event.event.time_ns,
				     rec->u.event.event.code,
				     rec->u.event.event.device, true);
	}
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

/* diag_culprit_set - culprit @c from process @p; 0 or -ENOMEM */
static int diag_culprit_set(struct diag_culprit *c, const struct diag_proc *p,
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
	return diag_cpuset_copy(&c->cpus, &p->cpus);
}

/*
 * diag_trace - culprits and affected tasks of every layer from the trace:
 * the tasks that held the CPU during the outlier waits, summed by (pid,
 * comm), and the tasks the outliers happened to
 */
static int diag_trace(struct diag_result *r, const struct watch *w)
{
	struct diag_procs held[DIAG_NR_LAYERS], hit[DIAG_NR_LAYERS];
	int l, ret = 0;
	size_t i, k;

	memset(held, 0, sizeof(held));
	memset(hit, 0, sizeof(hit));
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
					     s->comm, s->latency_ns, rec->cpu);
		if (ret || !(s->flags & GPULAT_REC_F_CULPRITS))
			continue;
		r->layer[layer].trace_wait_ns += s->latency_ns;
		for (k = 0; k < s->nr_culprits && k < GPULAT_NR_CULPRITS &&
			    !ret; k++) {
			const struct gpulat_culprit *c = &s->culprits[k];

			if (c->pid > 0 && c->ns)
				ret = diag_procs_add(&held[layer], c->pid,
						     c->tgid, c->comm, c->ns,
						     rec->cpu);
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
			ret = diag_culprit_set(&L->culprits[L->nr_culprits++],
					       &held[l].v[k], true, share);
		}
		diag_procs_sort(&hit[l]);
		for (k = 0; k < hit[l].n && k < DIAG_MAX_AFFECTED; k++) {
			/* their CPUs are not shown: not copied */
			L->affected[L->nr_affected] = hit[l].v[k];
			memset(&L->affected[L->nr_affected++].cpus, 0,
			       sizeof(struct diag_cpuset));
		}
	}
	for (l = 0; l < DIAG_NR_LAYERS; l++) {
		diag_procs_free(&held[l]);
		diag_procs_free(&hit[l]);
	}
	return ret;
}

/*
 * diag_slow_cpus - the CPUs with slow run-queue waits: at least
 * DIAG_CPU_SLOW of the worst CPU's weighted time beyond normal; the hot
 * ones, with DIAG_CPU_ALIKE of it; and how many CPUs have sched series
 * at all (an idle CPU has them since load, empty in the window).
 * 0 or -ENOMEM.
 */
static int diag_slow_cpus(struct diag_result *r)
{
	uint32_t nr = 0, c;
	double *per_cpu, worst = 0;
	bool *has;
	size_t i;
	int ret = 0;

	for (i = 0; i < r->nr_items; i++) {
		const struct diag_item *it = &r->items[i];

		if (it->family == GPULAT_FAM_SCHED && it->cpu < DIAG_MAX_CPUS &&
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
	for (c = 0; c < nr && worst > 0 && !ret; c++) {
		if (per_cpu[c] >= worst * DIAG_CPU_ALIKE) {
			ret = diag_cpuset_add(&r->hot, c);
			r->nr_hot++;
		}
		if (!ret && per_cpu[c] >= worst * DIAG_CPU_SLOW) {
			ret = diag_cpuset_add(&r->slow, c);
			r->nr_slow++;
		}
	}
	free(per_cpu);
	free(has);
	return ret;
}

/* diag_cause - a culprit that counts as a cause, not one listed only */
static bool diag_cause(const struct diag_culprit *c)
{
	return !c->from_trace || c->share >= DIAG_TRACE_SHARE;
}

/*
 * diag_alike - whether tasks wait on every CPU alike: two CPUs at least
 * have sched series and every one of them is hot (its waits beyond
 * normal at least DIAG_CPU_ALIKE of the worst CPU's).  Not when every
 * culprit that counts was seen on one CPU: its hogs make the contention
 * there whatever the others' waits (emulation inflates those); that CPU
 * is then where the contention is.  0 or -ENOMEM.
 */
static int diag_alike(struct diag_result *r)
{
	const struct diag_layer_res *L = &r->layer[DIAG_SCHED];
	struct diag_cpuset one = { 0 };
	size_t k, causes = 0;
	int ret = 0;

	r->alike = r->nr_seen >= 2 && r->nr_hot == r->nr_seen;
	for (k = 0; k < L->nr_culprits && !ret; k++) {
		const struct diag_culprit *c = &L->culprits[k];
		uint32_t cpu;

		if (!diag_cause(c))
			continue;
		causes++;
		for (cpu = 0; cpu < 64 * c->cpus.nr_words && !ret; cpu++)
			if (diag_cpuset_has(&c->cpus, cpu))
				ret = diag_cpuset_add(&one, cpu);
	}
	if (!ret && r->alike && causes && diag_cpuset_weight(&one) == 1) {
		r->alike = false;
		diag_cpuset_free(&r->hot);
		r->hot = one;
		r->nr_hot = 1;
		return 0;
	}
	diag_cpuset_free(&one);
	return ret;
}

static int diag_task_tgid_cmp(const void *a, const void *b)
{
	const struct diag_task *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * diag_cpu_users - culprits of the scheduler layer from /proc: processes
 * that used at least DIAG_HOG_SHARE of a CPU on the slow CPUs, most first,
 * after those the trace named.  The threads are sorted by process, so
 * each process's are summed in one pass.
 */
static int diag_cpu_users(struct diag_result *r, const struct diag_tasks *used)
{
	struct diag_layer_res *L = &r->layer[DIAG_SCHED];
	double secs = used->span_s > 0 ? used->span_s : r->duration_s;
	struct diag_procs procs = { 0 };
	struct diag_task *v;
	pid_t self = getpid();
	size_t i, j, k;
	int ret = 0;

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
			/* the process's name is its leader's */
			if (v[j].pid == v[j].tgid)
				comm = v[j].comm;
			if (!v[j].cpu_ns || v[j].tgid == self || ret)
				continue;
			if (!p) {
				p = diag_procs_push(&procs);
				if (!p) {
					ret = -ENOMEM;
					continue;
				}
				p->pid = p->tgid = v[i].tgid;
			}
			p->ns += v[j].cpu_ns;
			p->count++;
			ret = diag_cpuset_add(&p->cpus, v[j].cpu);
		}
		if (p) {
			memcpy(p->comm, comm, GPULAT_COMM_LEN);
			p->comm[GPULAT_COMM_LEN - 1] = '\0';
		}
	}
	free(v);
	if (!ret)
		diag_procs_sort(&procs);
	for (i = 0; !ret && i < procs.n; i++) {
		const struct diag_proc *p = &procs.v[i];
		double share = p->ns / (secs * 1e9);
		bool dup = false;

		if (L->nr_culprits == DIAG_MAX_CULPRITS ||
		    share < DIAG_HOG_SHARE)
			break;
		if (r->nr_slow && !diag_cpuset_meets(&p->cpus, &r->slow))
			continue;
		for (k = 0; k < L->nr_culprits; k++)
			dup |= L->culprits[k].tgid == p->tgid;
		if (!dup)
			ret = diag_culprit_set(&L->culprits[L->nr_culprits++],
					       p, false, share);
	}
	diag_procs_free(&procs);
	return ret;
}

/* diag_judge - abnormal or not, and the ranking */
static void diag_judge(struct diag_result *r)
{
	int l, i, j;

	for (l = 0; l < DIAG_NR_LAYERS; l++) {
		struct diag_layer_res *L = &r->layer[l];

		L->abnormal = L->measured &&
			      ((L->score >= DIAG_BAR_NS_PER_S &&
				(L->over >= DIAG_MIN_OVER ||
				 L->worst_ratio >= DIAG_BIG_RATIO)) ||
			       L->xids_in_window > 0);
		r->abnormal |= L->abnormal;
		r->rank[l] = l;
	}
	/* insertion sort: abnormal, then Xids, then score; stable */
	for (i = 1; i < DIAG_NR_LAYERS; i++) {
		enum diag_layer x = r->rank[i];
		const struct diag_layer_res *X = &r->layer[x];

		for (j = i; j > 0; j--) {
			const struct diag_layer_res *Y =
				&r->layer[r->rank[j - 1]];
			bool before;

			if (X->abnormal != Y->abnormal)
				before = X->abnormal;
			else if ((X->xids_in_window > 0) !=
				 (Y->xids_in_window > 0))
				before = X->xids_in_window > 0;
			else if (X->measured != Y->measured)
				before = X->measured;
			else
				before = X->score > Y->score;
			if (!before)
				break;
			r->rank[j] = r->rank[j - 1];
		}
		r->rank[j] = x;
	}
	for (i = 0; i < DIAG_NR_LAYERS; i++)
		r->layer[r->rank[i]].rank = i + 1;
}

/* diag_top_item - the evidence item @k of layer @l, or NULL */
static const struct diag_item *diag_top_item(const struct diag_result *r,
					     enum diag_layer l, size_t k)
{
	const struct diag_layer_res *L = &r->layer[l];

	return k < L->nr_top ? &r->items[L->top[k]] : NULL;
}

/* diag_culprit_doing - "held CPU 1 in 95% of the outlier waits" */
static const char *diag_culprit_doing(char *buf, size_t len,
				      const struct diag_culprit *c)
{
	char cpus[64];

	diag_cpus_text(cpus, sizeof(cpus), &c->cpus);
	if (c->from_trace)
		snprintf(buf, len, "held %s in %.0f%% of the outlier waits",
			 cpus, 100 * c->share);
	else
		snprintf(buf, len, "used %.0f%% of a CPU on %s",
			 100 * c->share, cpus);
	return buf;
}

/* diag_root - the folder read in place of / ($GPULAT_SYSROOT), or "" */
static const char *diag_root(void)
{
	const char *root = getenv("GPULAT_SYSROOT");

	return root ? root : "";
}

/*
 * diag_still_there - whether thread @c->pid of process @pid still runs
 * under the name the culprit had: /proc/PID/task/TID/comm.  A pid that
 * exited may be reused by an unrelated task by now.
 */
static bool diag_still_there(const struct diag_culprit *c, int32_t pid)
{
	char path[PATH_MAX], comm[GPULAT_COMM_LEN + 2], want[GPULAT_COMM_LEN];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/proc/%d/task/%d/comm", diag_root(),
		 (int)pid, (int)c->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return false;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	comm[GPULAT_COMM_LEN - 1] = '\0';
	memcpy(want, c->comm, sizeof(want));
	want[GPULAT_COMM_LEN - 1] = '\0';
	return !strcmp(comm, want);
}

/*
 * diag_advise_culprits - release or move the processes named as culprits;
 * none for one that exited, or whose pid another task holds now
 */
/*
 * diag_advise_pair - one advice for the two top culprits when they are
 * alike (same name, same CPUs, both still there, neither a miner): two
 * copies of one job.  True when it advised.
 */
static bool diag_advise_pair(struct diag_layer_res *L)
{
	const struct diag_culprit *a = &L->culprits[0], *b = &L->culprits[1];
	char cpus[64], cpus_b[64], comm[GPULAT_COMM_LEN], doing[160];

	if (L->nr_culprits < 2 || a->tgid <= 0 || b->tgid <= 0 ||
	    a->tgid == b->tgid || a->miner || b->miner ||
	    a->from_trace != b->from_trace || !diag_cause(a) ||
	    !diag_cause(b) || strcmp(a->comm, b->comm))
		return false;
	diag_cpus_text(cpus, sizeof(cpus), &a->cpus);
	diag_cpus_text(cpus_b, sizeof(cpus_b), &b->cpus);
	if (strcmp(cpus, cpus_b) || !diag_still_there(a, a->tgid) ||
	    !diag_still_there(b, b->tgid))
		return false;
	if (a->from_trace)
		snprintf(doing, sizeof(doing),
			 "held %s in %.0f%% and %.0f%% of the outlier waits",
			 cpus, 100 * a->share, 100 * b->share);
	else
		snprintf(doing, sizeof(doing),
			 "used %.0f%% and %.0f%% of a CPU on %s",
			 100 * a->share, 100 * b->share, cpus);
	units_printable(comm, sizeof(comm), a->comm);
	diag_advise(L,
		    "%s (pids %d and %d) %s: if they are runaway, forgotten or unknown jobs, release them (kill %d %d); if they belong here, move them off the CPUs of the GPU feeder threads (taskset -a -pc LIST PID, or a cpuset), or the feeders away from them.",
		    comm, a->tgid, b->tgid, doing, a->tgid, b->tgid);
	return true;
}

static void diag_advise_culprits(struct diag_layer_res *L)
{
	char doing[128], comm[GPULAT_COMM_LEN];
	size_t k;

	if (diag_advise_pair(L))
		return;
	for (k = 0; k < L->nr_culprits && k < 2; k++) {
		const struct diag_culprit *c = &L->culprits[k];
		int32_t pid = c->tgid > 0 ? c->tgid : c->pid;

		/* a task with a small part of the waits is not the cause */
		if (c->from_trace && c->share < DIAG_TRACE_SHARE)
			continue;

		diag_culprit_doing(doing, sizeof(doing), c);
		units_printable(comm, sizeof(comm), c->comm);
		if (c->tgid < 0) {
			diag_advise(L,
				    "%s (thread %d) %s but had exited when the trace named it: nothing to release.%s If it comes back, find it with ps -eLo tid,psr,pcpu,comm --sort=-pcpu | head -30.",
				    comm, c->pid, doing, c->miner ?
				    " It has the name of a cryptominer: treat the host as compromised and follow the security procedure." :
				    "");
			continue;
		}
		if (!diag_still_there(c, pid)) {
			diag_advise(L,
				    "%s (pid %d) %s but has exited or been replaced since (/proc/%d is no longer %s): nothing to release; do not kill that pid.%s",
				    comm, pid, doing, pid, comm, c->miner ?
				    " It had the name of a cryptominer: treat the host as compromised and follow the security procedure." :
				    "");
			continue;
		}
		if (c->miner)
			diag_advise(L,
				    "%s (pid %d) %s and has the name of a cryptominer: release it now (kill %d; kill -9 %d if it ignores that), then treat the host as compromised: find how it came, block its outbound connections, follow the security procedure.",
				    comm, pid, doing, pid, pid);
		else
			diag_advise(L,
				    "%s (pid %d) %s: if it is a runaway, forgotten or unknown job, release it (kill %d); if it belongs here, move it off the CPUs of the GPU feeder threads (taskset -a -pc LIST %d, or a cpuset), or the feeders away from it.",
				    comm, pid, doing, pid, pid);
	}
}

/*
 * diag_advise_contention - when the waits are not alike on every CPU,
 * where they are and who holds those CPUs: "The contention is on CPU 1,
 * not on every CPU: sh (pid 105) and sh (pid 106) hold it."
 */
static void diag_advise_contention(struct diag_result *r)
{
	struct diag_layer_res *L = &r->layer[DIAG_SCHED];
	char cpus[64], who[3 * (GPULAT_COMM_LEN + 32)], comm[GPULAT_COMM_LEN];
	size_t k, n = 0, done = 0, pos = 0;

	if (!L->abnormal || r->alike || !r->nr_hot || r->nr_seen < 2)
		return;
	diag_cpus_text(cpus, sizeof(cpus), &r->hot);
	who[0] = '\0';
	for (k = 0; k < L->nr_culprits; k++) {
		const struct diag_culprit *c = &L->culprits[k];

		if (diag_cause(c) && diag_cpuset_meets(&c->cpus, &r->hot))
			n++;
	}
	for (k = 0; k < L->nr_culprits && pos < sizeof(who); k++) {
		const struct diag_culprit *c = &L->culprits[k];

		if (!diag_cause(c) || !diag_cpuset_meets(&c->cpus, &r->hot))
			continue;
		done++;
		units_printable(comm, sizeof(comm), c->comm);
		pos += snprintf(who + pos, sizeof(who) - pos, "%s%s (%s %d)",
				done == 1 ? "" : done == n ? " and " : ", ",
				comm, c->tgid > 0 ? "pid" : "thread",
				c->tgid > 0 ? c->tgid : c->pid);
	}
	if (n)
		diag_advise(L,
			    "The contention is on %s, not on every CPU: %s %s it. Move %s, or the tasks that wait there, to other CPUs (below).",
			    cpus, who, n == 1 ? "holds" : "hold",
			    n == 1 ? "it" : "them");
	else
		diag_advise(L,
			    "The contention is on %s, not on every CPU: find who holds %s (below) and move it, or the tasks that wait there, to other CPUs.",
			    cpus, r->nr_hot == 1 ? "it" : "them");
}

static void diag_advise_sched(struct diag_result *r)
{
	struct diag_layer_res *L = &r->layer[DIAG_SCHED];
	bool irq = false, preempt = false, wakeup = false;
	char cpus[64];
	size_t k;

	for (k = 0; k < L->nr_top; k++) {
		const struct diag_item *it = diag_top_item(r, DIAG_SCHED, k);

		irq |= it->family != GPULAT_FAM_SCHED;
		preempt |= it->family == GPULAT_FAM_SCHED &&
			   it->id == GPULAT_SCHED_PREEMPT;
		wakeup |= it->family == GPULAT_FAM_SCHED &&
			  it->id == GPULAT_SCHED_WAKEUP;
	}
	diag_advise_contention(r);
	diag_cpus_text(cpus, sizeof(cpus), &r->slow);
	diag_advise_culprits(L);
	if (r->alike)
		diag_advise(L,
			    "Tasks wait on every CPU alike: more runnable threads than CPUs. Confirm with vmstat 1 (column r against the CPU count) and reduce the parallelism: data-loader num_workers per job times jobs per host, builds or preprocessing on the same host, monitoring agents.");
	if (!L->nr_culprits && r->nr_slow)
		diag_advise(L,
			    "Find who holds %s: ps -eLo tid,psr,pcpu,comm --sort=-pcpu | head -30 (psr is the CPU a thread last ran on), or top -H.",
			    cpus);
	if (irq)
		diag_advise(L,
			    "Interrupt handlers and softirqs take the CPU: look at /proc/interrupts and /proc/softirqs, and move busy IRQs off the CPUs of the GPU feeder threads (echo LIST > /proc/irq/N/smp_affinity_list).");
	if (preempt && !wakeup)
		diag_advise(L,
			    "CPU-bound threads take turns (sched.preempt): separate them; raise the priority (chrt, nice) only of short, known threads, never of a CPU-bound one under a real-time policy.");
	diag_advise(L,
		    "Keep the job's feeder threads and the irq/N-nvidia threads on CPUs of the GPU's NUMA node (/sys/bus/pci/devices/BDF/numa_node) with nothing else there (cpuset, taskset); for hard cases boot with isolcpus= and nohz_full= for those CPUs.");
}

static void diag_advise_driver(struct diag_result *r)
{
	struct diag_layer_res *L = &r->layer[DIAG_DRIVER];
	bool cls_done[4] = { false };
	bool wake = false, hard = false, kwake = false;
	size_t k;

	for (k = 0; k < L->nr_xids; k++) {
		const struct diag_xid_seen *x = &L->xids[k];
		enum diag_xid_class cls;
		char dev[32];

		if (!x->in_window)
			continue;
		diag_xid_meaning(x->code, &cls);
		if (cls_done[cls])
			continue;
		cls_done[cls] = true;
		units_printable(dev, sizeof(dev), x->device);
		switch (cls) {
		case DIAG_XID_STALL:
			diag_advise(L,
				    "Xid %u on %s: the GPU or its link stalls. Check the driver and its Xids (dmesg | grep -i NVRM; nvidia-smi -q), the PCIe link (lspci -vv -s %s: LnkSta against LnkCap, AER errors); if the GPU stays wedged, reload the driver (modprobe -r nvidia; modprobe nvidia) and check the driver against the CUDA version (nvcc --version).",
				    x->code, dev, dev);
			break;
		case DIAG_XID_RESET:
			diag_advise(L,
				    "Xid %u on %s: the GPU needs a reset. Drain its jobs, reset it (nvidia-smi -r -i %s) or reboot, and send the vendor a bundle (gpulat report).",
				    x->code, dev, dev);
			break;
		case DIAG_XID_PROCESS:
			diag_advise(L,
				    "Xid %u on %s: an application faulted on the GPU and the driver's recovery stalls it. Find the process in the NVRM Xid line (dmesg | grep -i xid), and release or restart it (nvidia-smi | grep python; kill PID).",
				    x->code, dev);
			break;
		default:
			diag_advise(L,
				    "Xid %u on %s: look it up in NVIDIA's Xid catalog; dmesg | grep -i NVRM has the driver's message.",
				    x->code, dev);
		}
	}
	for (k = 0; k < L->nr_top; k++) {
		const struct diag_item *it = diag_top_item(r, DIAG_DRIVER, k);

		if (!it->over)
			continue;
		wake |= it->family == GPULAT_FAM_NVIDIA &&
			it->id == GPULAT_NV_THREAD_WAKE;
		kwake |= it->family == GPULAT_FAM_NVIDIA &&
			 it->id == GPULAT_NV_KTHREAD_WAKE;
		hard |= it->family == GPULAT_FAM_IRQ ||
			(it->family == GPULAT_FAM_NVIDIA &&
			 (it->id == GPULAT_NV_HARDIRQ ||
			  it->id == GPULAT_NV_THREAD_RUN));
	}
	diag_advise_culprits(L);
	if (wake)
		diag_advise(L,
			    "The irq/N-nvidia threads wait for a CPU: move the NVIDIA IRQs to quiet CPUs of the GPU's NUMA node (grep nvidia /proc/interrupts; echo LIST > /proc/irq/N/smp_affinity_list), stop irqbalance from moving them back, and enable persistence mode first (nvidia-smi -pm 1) so that the IRQ numbers stay.");
	if (kwake)
		diag_advise(L,
			    "The driver's kthreads (nvidia, nv_queue, UVM GPU BH) wait for a CPU: keep other work off the CPUs of the GPU's NUMA node (cpuset; isolcpus= for hard cases).");
	if (hard)
		diag_advise(L,
			    "The driver's interrupt handling itself is slow: look for monitoring that polls the GPU (nvidia-smi or DCGM in a loop), GSP timeouts (dmesg | grep -i NVRM), and check the driver version against the CUDA version.");
	if (L->abnormal)
		diag_advise(L,
			    "Check the driver and its Xids: dmesg | grep -i NVRM; nvidia-smi -q -d UTILIZATION,MEMORY.");
}

static void diag_advise_network(struct diag_result *r)
{
	struct diag_layer_res *L = &r->layer[DIAG_NETWORK];
	const char *dev = NULL;
	bool softirq = false, tx = false;
	size_t k;

	for (k = 0; k < L->nr_top; k++) {
		const struct diag_item *it = diag_top_item(r, DIAG_NETWORK, k);

		if (it->family == GPULAT_FAM_NET && !dev && it->key_name[0])
			dev = it->key_name;
		tx |= it->family == GPULAT_FAM_NET && it->id == GPULAT_NET_TX;
		softirq |= it->family == GPULAT_FAM_SOFTIRQ;
	}
	if (!dev)
		dev = "eth0";
	diag_advise(L,
		    "Check the link and the NIC: ethtool %s (speed, duplex), ethtool -S %s (drops, errors), the switch port; ping -c 10 the peer.",
		    dev, dev);
	if (tx)
		diag_advise(L,
			    "Packets wait to reach the driver: the device's queue is full or shaped (tc -s qdisc show dev %s); give the training traffic priority over bulk transfers.",
			    dev);
	if (softirq)
		diag_advise(L,
			    "The network softirqs wait or run long: spread the NIC's queue IRQs over CPUs away from the GPU feeder threads (/proc/irq/N/smp_affinity_list), and keep those CPUs free of CPU hogs so that ksoftirqd gets to run.");
	diag_advise(L,
		    "For multi-GPU training, check NCCL's transport and its errors (NCCL_DEBUG=INFO) and the fabric (InfiniBand or RoCE port counters).");
}

static void diag_advise_storage(struct diag_result *r)
{
	struct diag_layer_res *L = &r->layer[DIAG_STORAGE];
	const struct diag_item *it = diag_top_item(r, DIAG_STORAGE, 0);
	char p99[UNITS_LEN];
	bool queue = false;
	size_t k;

	for (k = 0; k < L->nr_top; k++)
		queue |= diag_top_item(r, DIAG_STORAGE, k)->id % 2 ==
			 GPULAT_BLOCK_QUEUE;
	if (it && it->key_name[0])
		diag_advise(L,
			    "Disk %s: %s p99 %s. Check it: iostat -x 1 10 (r_await, w_await, %%util), its health (smartctl -a /dev/%s, or nvme smart-log for NVMe).",
			    it->key_name, it->name,
			    units_ns(p99, sizeof(p99), it->p99), it->key_name);
	else
		diag_advise(L,
			    "Check the disks: iostat -x 1 10 (r_await, w_await, %%util) and their health (smartctl -a, nvme smart-log).");
	if (queue)
		diag_advise(L,
			    "Requests wait in the I/O scheduler: the disk is saturated. Spread the load over more disks, or move the data.");
	diag_advise(L,
		    "Feed the GPUs from faster storage: cache the training data on a local SSD or a RAM disk (mount -t tmpfs -o size=64G tmpfs /mnt/ramdisk), and load with several workers and prefetching (DataLoader num_workers, prefetch_factor, pin_memory).");
}

static void diag_advise_memory(struct diag_result *r)
{
	struct diag_layer_res *L = &r->layer[DIAG_MEMORY];
	bool reclaim = false, compact = false;
	size_t k;

	for (k = 0; k < L->nr_top; k++) {
		const struct diag_item *it = diag_top_item(r, DIAG_MEMORY, k);

		reclaim |= it->id == GPULAT_MM_DIRECT_RECLAIM;
		compact |= it->id == GPULAT_MM_COMPACTION;
	}
	if (reclaim || !compact)
		diag_advise(L,
			    "Tasks reclaim memory themselves: the host runs short of free memory. Find the largest users (ps -eo pid,rss,comm --sort=-rss | head), release unneeded tasks, and keep more memory free (vm.min_free_kbytes, vm.watermark_scale_factor).");
	if (compact)
		diag_advise(L,
			    "Tasks wait for memory compaction, usually for transparent huge pages: cat /sys/kernel/mm/transparent_hugepage/defrag; 'defer' or 'madvise' keeps allocations from compacting inline.");
}

/* diag_notes - what limits the verdict: drops, lost records, off families */
static void diag_notes(struct diag_result *r, const struct watch *w)
{
	size_t i, n = w->window ? gl_snapshot_nr_counters(w->window) : 0;
	int l;

	for (i = 0; i < n; i++) {
		const struct gpulat_counter *c =
			gl_snapshot_counter(w->window, i);

		for (l = 0; l < DIAG_NR_LAYERS; l++)
			if (diag_families[l] == c->family)
				r->layer[l].drops += c->value;
	}
	for (l = 0; l < DIAG_NR_LAYERS; l++) {
		struct diag_layer_res *L = &r->layer[l];

		if (!L->measured)
			continue;
		if (L->drops && L->drops * 100 > L->samples)
			diag_note(L,
				  "%llu samples were lost (drop counters, gpulat status): the numbers are incomplete.",
				  (unsigned long long)L->drops);
	}
	if (r->layer[DIAG_DRIVER].measured &&
	    !r->layer[DIAG_DRIVER].samples && !r->layer[DIAG_DRIVER].nr_xids)
		diag_note(&r->layer[DIAG_DRIVER],
			  "No NVIDIA interrupt or driver thread was seen: the driver is not loaded, or no client holds the GPU open (persistence mode off).");
}

/* diag_score_text - "812ms" (per second watched) */
static const char *diag_score_text(char *buf, size_t len, double score)
{
	double ms = score / 1e6;

	if (ms >= 100)
		snprintf(buf, len, "%.0fms", ms);
	else if (ms >= 10)
		snprintf(buf, len, "%.1fms", ms);
	else
		snprintf(buf, len, "%.2fms", ms);
	return buf;
}

/* What no sample in a layer means. */
static const char *const diag_no_samples[DIAG_NR_LAYERS] = {
	[DIAG_DRIVER]	= "no samples during the watch",
	[DIAG_NETWORK]	= "no samples during the watch: no packet queued or received",
	[DIAG_STORAGE]	= "no samples during the watch: no disk request",
	[DIAG_SCHED]	= "no samples during the watch",
	[DIAG_MEMORY]	= "no samples during the watch: no task stalled in reclaim or compaction",
};

/*
 * diag_why_normal - why a measured layer is normal, in one line: no
 * samples; its tail within the bound ("block.read.device nullb0 p99
 * 2.10ms, within its bound 20.0ms (expected p99)"); under the bar; or
 * too few samples over the bound
 */
static void diag_why_normal(struct diag_result *r, enum diag_layer l)
{
	struct diag_layer_res *L = &r->layer[l];
	const struct diag_item *it = diag_top_item(r, l, 0);
	static const char *const from[] = {
		[DIAG_REF_EXPECTED]	= "expected p99",
		[DIAG_REF_BASELINE]	= "4x the p99 before",
		[DIAG_REF_FLOOR]	= "floor",
	};
	char where[sizeof(it->where) + 2], a[UNITS_LEN], b[UNITS_LEN];
	char score[32], bar[32], *p;

	if (!L->measured || L->abnormal)
		return;
	if (!L->samples || !it) {
		snprintf(L->why_normal, sizeof(L->why_normal), "%s",
			 diag_no_samples[l]);
		return;
	}
	snprintf(where, sizeof(where), "%s%s", it->where[0] ? " " : "",
		 it->where);
	for (p = where; *p; p++)
		if (*p == ' ')
			*p = DIAG_NBSP;
	if (L->over < 0.5)
		snprintf(L->why_normal, sizeof(L->why_normal),
			 "%s%s p99 %s, within its bound %s (%s)", it->name,
			 where, units_ns(a, sizeof(a), it->p99),
			 units_ns(b, sizeof(b), it->ref), from[it->ref_from]);
	else if (L->score < DIAG_BAR_NS_PER_S)
		snprintf(L->why_normal, sizeof(L->why_normal),
			 "%s/s beyond normal, under the bar of %s/s; most from %s%s (%.0f over %s, %s)",
			 diag_score_text(score, sizeof(score), L->score),
			 diag_score_text(bar, sizeof(bar), DIAG_BAR_NS_PER_S),
			 it->name, where, it->over,
			 units_ns(b, sizeof(b), it->ref), from[it->ref_from]);
	else
		snprintf(L->why_normal, sizeof(L->why_normal),
			 "%.0f over their bound, under %d, none %dx over; most from %s%s (max %s, bound %s, %s)",
			 L->over, DIAG_MIN_OVER, DIAG_BIG_RATIO, it->name,
			 where, units_ns(a, sizeof(a), it->max),
			 units_ns(b, sizeof(b), it->ref), from[it->ref_from]);
}

/* diag_analyze_tasks - see diagnose.h */
int diag_analyze_tasks(const struct watch *w, const struct diag_tasks *used,
		       struct diag_result **out)
{
	const struct gpulat_snap_header *h = NULL;
	struct diag_result *r;
	int l, ret;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	if (w->window)
		h = gl_snapshot_header(w->window);
	r->duration_s = w->duration_s;
	if (r->duration_s <= 0 && h && h->time_ns > h->reset_time_ns)
		r->duration_s = (h->time_ns - h->reset_time_ns) / 1e9;
	if (r->duration_s <= 0)
		r->duration_s = 1;
	if (h)
		units_printable(r->kernel, sizeof(r->kernel),
				h->kernel_release);
	r->trace_ok = w->trace_ok;
	r->interrupted = w->interrupted;
	r->trace_lost = w->lost + w->dropped;
	r->has_tasks = used != NULL;

	for (l = 0; l < DIAG_NR_LAYERS; l++) {
		struct diag_layer_res *L = &r->layer[l];

		L->measured = diag_family_on(w->end, diag_families[l],
					     L->why_not, sizeof(L->why_not));
	}
	ret = diag_items(r, w);
	if (!ret) {
		diag_layers_sum(r);
		diag_xids(r, w);
		ret = diag_trace(r, w);
	}
	if (!ret)
		ret = diag_slow_cpus(r);
	if (!ret && used)
		ret = diag_cpu_users(r, used);
	if (!ret)
		ret = diag_alike(r);
	if (ret) {
		diag_free(r);
		return ret;
	}
	diag_judge(r);
	diag_advise_driver(r);
	diag_advise_network(r);
	diag_advise_storage(r);
	diag_advise_sched(r);
	diag_advise_memory(r);
	diag_notes(r, w);
	for (l = 0; l < DIAG_NR_LAYERS; l++)
		diag_why_normal(r, l);
	*out = r;
	return 0;
}

/* diag_analyze - see diagnose.h */
int diag_analyze(const struct watch *w, struct diag_result **out)
{
	return diag_analyze_tasks(w, NULL, out);
}

void diag_free(struct diag_result *r)
{
	size_t k;
	int l;

	if (!r)
		return;
	for (l = 0; l < DIAG_NR_LAYERS; l++)
		for (k = 0; k < r->layer[l].nr_culprits; k++)
			diag_cpuset_free(&r->layer[l].culprits[k].cpus);
	diag_cpuset_free(&r->slow);
	diag_cpuset_free(&r->hot);
	free(r->items);
	free(r);
}

bool diag_abnormal(const struct diag_result *r)
{
	return r->abnormal;
}

enum diag_layer diag_ranked(const struct diag_result *r, unsigned int rank)
{
	return rank >= 1 && rank <= DIAG_NR_LAYERS ? r->rank[rank - 1] :
						     DIAG_NR_LAYERS;
}

void diag_layer_get(const struct diag_result *r, enum diag_layer l,
		    struct diag_layer_info *out)
{
	const struct diag_layer_res *L = &r->layer[l];

	memset(out, 0, sizeof(*out));
	if (l >= DIAG_NR_LAYERS)
		return;
	out->measured = L->measured;
	out->abnormal = L->abnormal;
	out->rank = L->rank;
	out->score = L->score;
	out->samples = L->samples;
	out->over = (uint64_t)(L->over + 0.5);
	out->xids = L->xids_in_window;
	out->nr_culprits = L->nr_culprits;
	out->nr_advice = L->nr_advice;
}

const struct diag_culprit *diag_culprit(const struct diag_result *r,
					enum diag_layer l, size_t i)
{
	if (l >= DIAG_NR_LAYERS || i >= r->layer[l].nr_culprits)
		return NULL;
	return &r->layer[l].culprits[i];
}

const char *diag_advice(const struct diag_result *r, enum diag_layer l,
			size_t i)
{
	if (l >= DIAG_NR_LAYERS || i >= r->layer[l].nr_advice)
		return NULL;
	return r->layer[l].advice[i];
}

/* --- Text ------------------------------------------------------------- */

/* diag_spaces - @s with its DIAG_NBSP as spaces */
static char *diag_spaces(char *s)
{
	char *p;

	for (p = s; (p = strchr(p, DIAG_NBSP)); p++)
		*p = ' ';
	return s;
}

/*
 * diag_glued - whether a line must not break after word @w of length @n
 * when a number follows: "CPU 1", "(pid 108)", "irq 45"
 */
static bool diag_glued(const char *w, size_t n, const char *next)
{
	static const char *const heads[] = {
		"CPU", "CPUs", "pid", "(pid", "thread", "(thread", "irq",
	};
	size_t i;

	if (!isdigit((unsigned char)*next))
		return false;
	for (i = 0; i < ARRAY_SIZE(heads); i++)
		if (strlen(heads[i]) == n && !strncmp(w, heads[i], n))
			return true;
	return false;
}

/* diag_wrap_words - @text after @first, wrapped by words, indented */
static void diag_wrap_words(FILE *f, const char *first, size_t indent,
			    const char *text)
{
	char word[DIAG_TEXT_LEN];
	struct wrap w;
	const char *p = text;
	bool any = false;

	wrap_begin(&w, f, first, indent);
	while (*p) {
		size_t n = strcspn(p, " "), last = 0;

		/* "CPU 1" and the like stay on one line */
		while (p[n] == ' ' && p[n + 1] != ' ' &&
		       diag_glued(p + last, n - last, p + n + 1)) {
			last = n + 1;
			n = last + strcspn(p + last, " ");
		}
		if (n) {
			if (n >= sizeof(word))
				n = sizeof(word) - 1;
			memcpy(word, p, n);
			word[n] = '\0';
			diag_spaces(word);
			wrap_add(&w, any || first[0] ? " " : "", word);
			any = true;
		}
		p += n;
		while (*p == ' ')
			p++;
	}
	wrap_end(&w);
}

/* diag_ref_text - where @it's bound comes from, in parentheses */
static const char *diag_ref_text(char *buf, size_t len,
				 const struct diag_item *it)
{
	char b[UNITS_LEN];

	if (it->ref_from == DIAG_REF_EXPECTED)
		snprintf(buf, len, "(expected p99)");
	else if (it->ref_from == DIAG_REF_BASELINE)
		snprintf(buf, len, "(%dx the p99 before the watch)",
			 DIAG_BASELINE_MULT);
	else
		snprintf(buf, len, "(floor; p99 before the watch %s)",
			 units_ns(b, sizeof(b), it->base_p99));
	return buf;
}

/* diag_print_item - "sched.wakeup CPU 1: 150 samples, p50 ..." wrapped */
static void diag_print_item(FILE *f, const struct diag_item *it)
{
	char head[192], tok[96], a[UNITS_LEN];
	struct wrap w;

	snprintf(head, sizeof(head), "  %s%s%s:", it->name,
		 it->where[0] ? " " : "", it->where);
	wrap_begin(&w, f, head, 6);
	snprintf(tok, sizeof(tok), "%llu samples,",
		 (unsigned long long)it->count);
	wrap_add(&w, " ", tok);
	snprintf(tok, sizeof(tok), "p50 %s,", units_ns(a, sizeof(a), it->p50));
	wrap_add(&w, " ", tok);
	snprintf(tok, sizeof(tok), "p99 %s,", units_ns(a, sizeof(a), it->p99));
	wrap_add(&w, " ", tok);
	snprintf(tok, sizeof(tok), "p99.9 %s,",
		 units_ns(a, sizeof(a), it->p999));
	wrap_add(&w, " ", tok);
	snprintf(tok, sizeof(tok), "max %s%s;", it->max_exact ? "" : "<=",
		 units_ns(a, sizeof(a), it->max));
	wrap_add(&w, " ", tok);
	snprintf(tok, sizeof(tok), "%.0f over %s", it->over,
		 units_ns(a, sizeof(a), it->ref));
	wrap_add(&w, " ", tok);
	wrap_add(&w, " ", diag_ref_text(tok, sizeof(tok), it));
	if (it->threshold) {
		snprintf(tok, sizeof(tok), "%.0f over the threshold %s",
			 it->over_threshold,
			 units_ns(a, sizeof(a), it->threshold));
		wrap_add(&w, ", ", tok);
	}
	wrap_end(&w);
}

/* diag_print_culprits - "  CPU held by: xmrig pid 201 ..." wrapped */
static void diag_print_culprits(FILE *f, const struct diag_layer_res *L)
{
	char tok[192], doing[128], comm[GPULAT_COMM_LEN];
	struct wrap w;
	size_t k;

	if (!L->nr_culprits)
		return;
	wrap_begin(&w, f, L->culprits[0].from_trace ? "  CPU held by:" :
			  "  CPU used by:", 4);
	for (k = 0; k < L->nr_culprits; k++) {
		const struct diag_culprit *c = &L->culprits[k];

		units_printable(comm, sizeof(comm), c->comm);
		snprintf(tok, sizeof(tok), "%s pid %d %s%s%s", comm,
			 c->tgid > 0 ? c->tgid : c->pid,
			 diag_culprit_doing(doing, sizeof(doing), c),
			 c->miner ? " (cryptominer name)" : "",
			 k + 1 < L->nr_culprits ? ";" : "");
		wrap_add(&w, " ", tok);
	}
	wrap_end(&w);
}

static void diag_print_affected(FILE *f, const struct diag_layer_res *L)
{
	char tok[128], comm[GPULAT_COMM_LEN], t[UNITS_LEN];
	struct wrap w;
	size_t k;

	if (!L->nr_affected)
		return;
	wrap_begin(&w, f, "  outliers happened to:", 4);
	for (k = 0; k < L->nr_affected; k++) {
		const struct diag_proc *p = &L->affected[k];

		units_printable(comm, sizeof(comm), p->comm);
		snprintf(tok, sizeof(tok), "%s pid %d (%llu outliers, %s)%s",
			 comm, p->pid, (unsigned long long)p->count,
			 units_ns(t, sizeof(t), p->ns),
			 k + 1 < L->nr_affected ? ";" : "");
		wrap_add(&w, " ", tok);
	}
	wrap_end(&w);
}

static void diag_print_xids(FILE *f, const struct diag_result *r,
			    const struct diag_layer_res *L)
{
	char line[DIAG_TEXT_LEN], dev[32];
	size_t k;

	(void)r;
	for (k = 0; k < L->nr_xids; k++) {
		const struct diag_xid_seen *x = &L->xids[k];

		units_printable(dev, sizeof(dev), x->device);
		snprintf(line, sizeof(line), "Xid %u on %s: %s%s", x->code,
			 dev[0] ? dev : "?", diag_xid_meaning(x->code, NULL),
			 x->in_window ? "" : " (before the watch)");
		diag_wrap_words(f, " ", 4, line);
	}
}

static void diag_print_layer(FILE *f, const struct diag_result *r,
			     enum diag_layer l)
{
	const struct diag_layer_res *L = &r->layer[l];
	char head[160], score[32];
	size_t k;

	if (!L->measured) {
		snprintf(head, sizeof(head), "#%u %s: not measured (%s)",
			 L->rank, diag_titles[l], L->why_not);
		diag_wrap_words(f, "", 4, head);
		return;
	}
	snprintf(head, sizeof(head), "#%u %s: %s", L->rank, diag_titles[l],
		 L->abnormal ? "ABNORMAL" : "normal");
	diag_wrap_words(f, "", 4, head);
	if (!L->abnormal) {
		/* why, in one line; the numbers are in the JSON */
		diag_wrap_words(f, " ", 4, L->why_normal);
		diag_print_xids(f, r, L);
		for (k = 0; k < L->nr_notes; k++)
			diag_wrap_words(f, "  note:", 4, L->notes[k]);
		return;
	}
	snprintf(head, sizeof(head),
		 "%s waited beyond normal per second; %llu samples, %.0f over their bound",
		 diag_score_text(score, sizeof(score), L->score),
		 (unsigned long long)L->samples, L->over);
	diag_wrap_words(f, " ", 4, head);
	diag_print_xids(f, r, L);
	for (k = 0; k < L->nr_top; k++) {
		const struct diag_item *it = &r->items[L->top[k]];

		/* past the first, only items that add to the verdict */
		if (k && diag_weighted(it) <= 0.01 * L->excess)
			break;
		diag_print_item(f, it);
	}
	if (!L->samples)
		fprintf(f, "  no samples\n");
	diag_print_culprits(f, L);
	diag_print_affected(f, L);
	for (k = 0; k < L->nr_notes; k++)
		diag_wrap_words(f, "  note:", 4, L->notes[k]);
	fprintf(f, "  next:\n");
	for (k = 0; k < L->nr_advice; k++)
		diag_wrap_words(f, "  -", 4, L->advice[k]);
}

/* diag_print_text - see diagnose.h */
void diag_print_text(FILE *f, const struct diag_result *r)
{
	char d[UNITS_LEN], score[32], line[DIAG_TEXT_LEN];
	const struct diag_layer_res *top = &r->layer[r->rank[0]];
	unsigned int i;

	snprintf(line, sizeof(line),
		 "gpulat diagnose: %s watched%s%s%s; outlier trace %s%s",
		 units_ns(d, sizeof(d), (uint64_t)(r->duration_s * 1e9)),
		 r->interrupted ? " (interrupted)" : "",
		 r->kernel[0] ? " on " : "", r->kernel,
		 r->trace_ok ? "on" : "not available",
		 r->trace_ok || !r->has_tasks ? "" :
		 " (CPU users from /proc instead)");
	diag_wrap_words(f, "", 4, line);
	if (r->trace_lost)
		fprintf(f, "  note: %llu trace records lost\n",
			(unsigned long long)r->trace_lost);
	fputc('\n', f);
	if (top->abnormal) {
		if (top->xids_in_window)
			snprintf(line, sizeof(line),
				 "Verdict: most likely cause: the %s (Xid events during the watch).",
				 diag_titles[r->rank[0]]);
		else
			snprintf(line, sizeof(line),
				 "Verdict: most likely cause: the %s; %s of waits beyond normal per second watched.",
				 diag_titles[r->rank[0]],
				 diag_score_text(score, sizeof(score),
						 top->score));
		diag_wrap_words(f, "", 2, line);
	} else {
		snprintf(line, sizeof(line),
			 "Verdict: nothing abnormal. No layer's waits went beyond normal by %.0f ms per second watched.",
			 DIAG_BAR_NS_PER_S / 1e6);
		diag_wrap_words(f, "", 2, line);
		diag_wrap_words(f, " ", 2,
				"If the spikes come and go, run gpulat diagnose while they happen (-d 60), or record them for later with gpulat report.");
	}
	for (i = 0; i < DIAG_NR_LAYERS; i++) {
		fputc('\n', f);
		diag_print_layer(f, r, r->rank[i]);
	}
}

/* --- JSON ------------------------------------------------------------- */

static void diag_json_item(struct json *j, const struct diag_item *it)
{
	json_object_begin(j, NULL);
	json_str(j, "series", it->name);
	if (it->cpu == GPULAT_CPU_NONE)
		json_null(j, "cpu");
	else
		json_u64(j, "cpu", it->cpu);
	if (it->family == GPULAT_FAM_SCHED || it->family == GPULAT_FAM_MM) {
		json_null(j, "key");
		json_null(j, "key_name");
	} else {
		json_u64(j, "key", it->key);
		json_str(j, "key_name", it->key_name);
	}
	json_str(j, "where", it->where);
	json_u64(j, "count", it->count);
	json_u64(j, "p50_ns", it->p50);
	json_u64(j, "p99_ns", it->p99);
	json_u64(j, "p999_ns", it->p999);
	json_u64(j, "max_ns", it->max);
	json_bool(j, "max_exact", it->max_exact);
	json_u64(j, "normal_ns", it->ref);
	json_str(j, "normal_from", diag_ref_names[it->ref_from]);
	json_u64(j, "expected_p99_ns", it->expect);
	json_u64(j, "baseline_count", it->base_count);
	json_u64(j, "baseline_p99_ns", it->base_p99);
	json_u64(j, "over", (uint64_t)(it->over + 0.5));
	if (it->threshold) {
		json_u64(j, "threshold_ns", it->threshold);
		json_u64(j, "over_threshold",
			 (uint64_t)(it->over_threshold + 0.5));
	} else {
		json_null(j, "threshold_ns");
		json_null(j, "over_threshold");
	}
	json_u64(j, "excess_ns", (uint64_t)(it->excess + 0.5));
	json_u64(j, "weight_pct", it->weight);
	json_object_end(j);
}

/* diag_json_cpus - the array @name of the CPUs in @cpus (NULL: empty) */
static void diag_json_cpus(struct json *j, const char *name,
			   const struct diag_cpuset *cpus)
{
	uint32_t c;

	json_array_begin(j, name);
	for (c = 0; cpus && c < 64 * cpus->nr_words; c++)
		if (diag_cpuset_has(cpus, c))
			json_u64(j, NULL, c);
	json_array_end(j);
}

static void diag_json_layer(struct json *j, const struct diag_result *r,
			    enum diag_layer l)
{
	const struct diag_layer_res *L = &r->layer[l];
	size_t k;

	json_object_begin(j, NULL);
	json_str(j, "layer", diag_names[l]);
	json_str(j, "title", diag_titles[l]);
	json_u64(j, "rank", L->rank);
	json_bool(j, "measured", L->measured);
	if (L->measured)
		json_null(j, "not_measured_because");
	else
		json_str(j, "not_measured_because", L->why_not);
	json_bool(j, "abnormal", L->abnormal);
	json_double(j, "score_ms_per_s", L->score / 1e6);
	json_u64(j, "samples", L->samples);
	json_u64(j, "over", (uint64_t)(L->over + 0.5));
	json_u64(j, "excess_ns", (uint64_t)(L->excess + 0.5));
	json_u64(j, "drops", L->drops);
	if (L->why_normal[0]) {
		char why[DIAG_TEXT_LEN];

		memcpy(why, L->why_normal, sizeof(why));
		json_str(j, "why_normal", diag_spaces(why));
	} else
		json_null(j, "why_normal");
	json_array_begin(j, "evidence");
	for (k = 0; k < L->nr_top; k++)
		diag_json_item(j, &r->items[L->top[k]]);
	json_array_end(j);
	json_array_begin(j, "culprits");
	for (k = 0; k < L->nr_culprits; k++) {
		const struct diag_culprit *c = &L->culprits[k];

		json_object_begin(j, NULL);
		json_str(j, "comm", c->comm);
		json_u64(j, "pid", c->pid > 0 ? (uint64_t)c->pid : 0);
		if (c->tgid > 0)
			json_u64(j, "tgid", c->tgid);
		else
			json_null(j, "tgid");
		json_str(j, "source", c->from_trace ? "trace" : "cpu-time");
		json_u64(j, "ns", c->ns);
		json_double(j, "share", c->share);
		diag_json_cpus(j, "cpus", &c->cpus);
		json_bool(j, "miner", c->miner);
		json_object_end(j);
	}
	json_array_end(j);
	json_array_begin(j, "affected");
	for (k = 0; k < L->nr_affected; k++) {
		const struct diag_proc *p = &L->affected[k];

		json_object_begin(j, NULL);
		json_str(j, "comm", p->comm);
		json_u64(j, "pid", p->pid > 0 ? (uint64_t)p->pid : 0);
		json_u64(j, "outliers", p->count);
		json_u64(j, "ns", p->ns);
		json_object_end(j);
	}
	json_array_end(j);
	json_array_begin(j, "xids");
	for (k = 0; k < L->nr_xids; k++) {
		const struct diag_xid_seen *x = &L->xids[k];
		enum diag_xid_class cls;

		json_object_begin(j, NULL);
		json_u64(j, "code", x->code);
		json_str(j, "device", x->device);
		json_u64(j, "time_ns", x->time_ns);
		json_bool(j, "in_window", x->in_window);
		json_str(j, "meaning", diag_xid_meaning(x->code, &cls));
		json_str(j, "class", diag_xid_class_names[cls]);
		json_object_end(j);
	}
	json_array_end(j);
	json_array_begin(j, "notes");
	for (k = 0; k < L->nr_notes; k++)
		json_str(j, NULL, L->notes[k]);
	json_array_end(j);
	json_array_begin(j, "advice");
	for (k = 0; L->abnormal && k < L->nr_advice; k++)
		json_str(j, NULL, L->advice[k]);
	json_array_end(j);
	json_object_end(j);
}

/* diag_print_json - see diagnose.h: one object on one line */
void diag_print_json(FILE *f, const struct diag_result *r)
{
	struct json j;
	unsigned int i;
	bool sched;

	json_begin(&j, f);
	json_object_begin(&j, NULL);
	json_double(&j, "duration_s", r->duration_s);
	if (r->kernel[0])
		json_str(&j, "kernel", r->kernel);
	else
		json_null(&j, "kernel");
	json_bool(&j, "interrupted", r->interrupted);
	json_bool(&j, "trace", r->trace_ok);
	json_u64(&j, "trace_records", r->nr_trace);
	json_u64(&j, "trace_lost", r->trace_lost);
	json_bool(&j, "cpu_time", r->has_tasks);
	json_double(&j, "bar_ms_per_s", DIAG_BAR_NS_PER_S / 1e6);
	json_bool(&j, "abnormal", r->abnormal);
	if (r->abnormal)
		json_str(&j, "verdict", diag_names[r->rank[0]]);
	else
		json_null(&j, "verdict");
	/* only where the scheduler is abnormal: otherwise no contention */
	sched = r->layer[DIAG_SCHED].abnormal;
	json_bool(&j, "waits_alike", sched && r->alike);
	diag_json_cpus(&j, "contention_cpus",
		       sched && !r->alike ? &r->hot : NULL);
	json_array_begin(&j, "layers");
	for (i = 0; i < DIAG_NR_LAYERS; i++)
		diag_json_layer(&j, r, r->rank[i]);
	json_array_end(&j);
	json_object_end(&j);
	json_end(&j);
}

/* --- /proc CPU time --------------------------------------------------- */

/* diag_task_parse - one /proc/PID/task/TID/stat line; 0 or -EINVAL */
static int diag_task_parse(const char *buf, struct diag_task *t, long hz)
{
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	unsigned long long utime = 0, stime = 0, v;
	const char *p;
	size_t n;
	int field;

	if (!open || !close || close < open || close[1] != ' ')
		return -EINVAL;
	n = close - open - 1;
	if (n >= sizeof(t->comm))
		n = sizeof(t->comm) - 1;
	memcpy(t->comm, open + 1, n);
	t->comm[n] = '\0';
	/* field 3 (state) follows ") "; utime 14, stime 15, processor 39 */
	p = close + 2;
	for (field = 3; *p && field <= 39; field++) {
		char *end;

		if (field > 3) {
			v = strtoull(p, &end, 10);
			if (end == p)
				return -EINVAL;
			if (field == 14)
				utime = v;
			else if (field == 15)
				stime = v;
			else if (field == 39)
				t->cpu = (uint32_t)v;
			p = end;
		} else {
			p += strcspn(p, " ");
		}
		while (*p == ' ')
			p++;
	}
	if (field <= 39)
		return -EINVAL;
	t->cpu_ns = (utime + stime) * (1000000000ULL / (unsigned long long)hz);
	return 0;
}

/* diag_tasks_push - room for one more task; NULL on ENOMEM */
static struct diag_task *diag_tasks_push(struct diag_tasks *t, size_t *cap)
{
	if (t->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 256;
		struct diag_task *v = realloc(t->v, ncap * sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		*cap = ncap;
	}
	return &t->v[t->n++];
}

static uint64_t diag_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* diag_tasks_read - see diagnose.h */
int diag_tasks_read(struct diag_tasks *t)
{
	long hz = sysconf(_SC_CLK_TCK);
	const char *root = diag_root();
	struct dirent *pe, *te;
	uint64_t t0 = diag_now_ns();
	char path[PATH_MAX];
	size_t cap = 0;
	DIR *proc;

	memset(t, 0, sizeof(*t));
	if (hz <= 0)
		hz = 100;
	snprintf(path, sizeof(path), "%s/proc", root);
	proc = opendir(path);
	if (!proc)
		return -errno;
	while ((pe = readdir(proc))) {
		DIR *task;
		long pid = strtol(pe->d_name, NULL, 10);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/proc/%ld/task", root, pid);
		task = opendir(path);
		if (!task)
			continue;	/* it exited */
		while ((te = readdir(task))) {
			long tid = strtol(te->d_name, NULL, 10);
			char sp[PATH_MAX], buf[1024];
			struct diag_task *e;
			ssize_t n;
			int fd;

			if (tid <= 0)
				continue;
			snprintf(sp, sizeof(sp), "%s/proc/%ld/task/%ld/stat",
				 root, pid, tid);
			fd = open(sp, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n <= 0)
				continue;
			buf[n] = '\0';
			e = diag_tasks_push(t, &cap);
			if (!e) {
				closedir(task);
				closedir(proc);
				diag_tasks_free(t);
				return -ENOMEM;
			}
			memset(e, 0, sizeof(*e));
			e->pid = (int32_t)tid;
			e->tgid = (int32_t)pid;
			if (diag_task_parse(buf, e, hz))
				t->n--;
		}
		closedir(task);
	}
	closedir(proc);
	/* the scan takes a while on a big host: its middle stands for it */
	t->time_ns = t0 + (diag_now_ns() - t0) / 2;
	return 0;
}

static int diag_task_pid_cmp(const void *a, const void *b)
{
	const struct diag_task *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* diag_tasks_delta - see diagnose.h: @before sorted by thread, searched */
int diag_tasks_delta(const struct diag_tasks *before,
		     const struct diag_tasks *after, struct diag_tasks *out)
{
	struct diag_task *sorted;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->v = calloc(after->n ? after->n : 1, sizeof(*out->v));
	sorted = malloc((before->n ? before->n : 1) * sizeof(*sorted));
	if (!out->v || !sorted) {
		free(out->v);
		free(sorted);
		out->v = NULL;
		return -ENOMEM;
	}
	if (before->n)
		memcpy(sorted, before->v, before->n * sizeof(*sorted));
	qsort(sorted, before->n, sizeof(*sorted), diag_task_pid_cmp);
	for (i = 0; i < after->n; i++) {
		const struct diag_task *a = &after->v[i], *b;
		struct diag_task *d = &out->v[out->n++];
		uint64_t prev = 0;

		*d = *a;
		b = before->n ? bsearch(a, sorted, before->n, sizeof(*sorted),
					diag_task_pid_cmp) : NULL;
		/* the same thread: a reused id has another process */
		if (b && b->tgid == a->tgid && b->cpu_ns <= a->cpu_ns)
			prev = b->cpu_ns;
		d->cpu_ns = a->cpu_ns - prev;
	}
	free(sorted);
	if (before->time_ns && after->time_ns > before->time_ns)
		out->span_s = (after->time_ns - before->time_ns) / 1e9;
	return 0;
}

void diag_tasks_free(struct diag_tasks *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* --- The command ------------------------------------------------------ */

/* diagnose_run - gpulat diagnose */
int diagnose_run(const struct gpulat_opts *o)
{
	double duration = o->has_duration ? o->duration_s :
					    GPULAT_DIAGNOSE_SECONDS;
	struct diag_tasks t0 = { 0 }, t1 = { 0 }, used = { 0 };
	struct diag_result *r = NULL;
	uint32_t major, minor;
	bool have_t0, have_used;
	struct watch w;
	int fd, ret;

	fd = gpulat_open_device(&major, &minor, stderr);
	if (fd < 0)
		return -fd;
	if (!o->json)
		fprintf(stderr, "gpulat: watching every family for %.3gs...\n",
			duration);
	watch_stop_on_signal();
	/* CPU time around the watch; a missing /proc only costs those users */
	have_t0 = !diag_tasks_read(&t0);
	ret = watch_run(fd, duration, 0, false, o->thresholds,
			o->thresholds_set, &w, NULL, NULL, stderr);
	have_used = !ret && have_t0 && !diag_tasks_read(&t1) &&
		    !diag_tasks_delta(&t0, &t1, &used);
	close(fd);
	diag_tasks_free(&t0);
	diag_tasks_free(&t1);
	if (ret)
		return ret;
	ret = diag_analyze_tasks(&w, have_used ? &used : NULL, &r);
	if (ret) {
		fprintf(stderr, "gpulat: diagnose: %s\n", strerror(-ret));
		ret = GPULAT_EXIT_ERROR;
	} else {
		if (o->json)
			diag_print_json(stdout, r);
		else
			diag_print_text(stdout, r);
		ret = fflush(stdout) ? GPULAT_EXIT_ERROR : GPULAT_EXIT_OK;
	}
	diag_free(r);
	diag_tasks_free(&used);
	watch_free(&w);
	return ret;
}
