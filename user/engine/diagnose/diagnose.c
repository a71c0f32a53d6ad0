// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: watch every family for a while, then rank the layers
 * (GPU driver interrupt path, network, storage, scheduler, memory) by
 * how likely each one causes the latency spikes, with the evidence and
 * the next steps of the operators' runbook (Documentation/runbook.rst,
 * section "gpulat diagnose", states the rule).
 *
 * This is the analysis core: every series judged against its rule
 * (diagnose_rules.c), the layers summed, judged and ranked.
 * diag_analyze() is a pure function of a finished watch: the window (what
 * happened while watching), the totals at its start (the baseline), the
 * outlier trace records and, optionally, the CPU time every thread used
 * meanwhile.  Who held the CPUs is diagnose_culprits.c, the next steps
 * diagnose_advice.c, the printing diagnose_print.c, /proc
 * diagnose_tasks.c; the watching is the command's, cmd/diagnose.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/diagnose/diagnose_int.h"
#include "engine/view/view.h"	/* hist_key_text() */
#include "gpulat_hist.h"
#include "lib/units.h"


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

/*
 * diag_xid_add - see diagnose_int.h.  The snapshot and the trace give
 * one kernel Xid the same time; NVML's comes a little later, from the
 * same device: it joins a kernel Xid that no NVML one joined yet.
 */
void diag_xid_add(struct diag_layer_res *L, uint64_t lo_ns, uint64_t time_ns,
		  uint32_t code, const char *device, bool in_window,
		  uint32_t from)
{
	struct diag_xid_seen *x;
	size_t i;

	for (i = 0; i < L->nr_xids; i++) {
		x = &L->xids[i];
		if (x->code != code)
			continue;
		if (x->time_ns == time_ns && (x->from & from))
			return;
		/* NVML's Xids are the watch's: never one from before it */
		if (!(x->from & from) &&
		    (from != DIAG_XID_FROM_NVML || x->in_window) &&
		    gs_xid_same(x->code, x->device, x->lo_ns, x->time_ns, code,
				device, lo_ns, time_ns)) {
			/* the tracepoint's time and device are the precise ones */
			if (from == DIAG_XID_FROM_KERNEL) {
				x->lo_ns = x->time_ns = time_ns;
				strncpy(x->device, device, sizeof(x->device));
				x->device[sizeof(x->device) - 1] = '\0';
			}
			x->from |= from;
			return;
		}
	}
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
	x->lo_ns = lo_ns;
	x->time_ns = time_ns;
	x->code = code;
	x->in_window = in_window;
	x->from = from;
	strncpy(x->device, device, sizeof(x->device));
	x->device[sizeof(x->device) - 1] = '\0';
}
/* --- Analysis --------------------------------------------------------- */

/*
 * diag_family_state - whether @fam had a probe attached, and if not why
 * (@held: the source's word when the family waited for its driver)
 */
static bool diag_family_on(const struct gl_snapshot *s, uint32_t fam,
			   const char *held, char *why, size_t len)
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
	if (held && held[0]) {
		snprintf(why, len, "the %s family is off, %s",
			 gl_family_name(fam), held);
		return false;
	}
	snprintf(why, len, "the %s family is %s", gl_family_name(fam),
		 !seen ? "not in the source" :
		 missing ? "off: tracepoints missing on this kernel" :
		 failed ? "off: its tracepoints failed to attach" :
		 "switched off (gpulat enable)");
	return false;
}

/* diag_key_name - the name of (@fam, @key) among @s's series, or "" */
const char *diag_key_name(const struct gl_snapshot *s, uint32_t fam,
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
			diag_xid_add(L, e->time_ns, e->time_ns, e->code,
				     e->device, e->time_ns >= from,
				     DIAG_XID_FROM_KERNEL);
	}
	for (i = 0; i < w->nr_recs; i++) {
		const struct gl_trace_rec *rec = &w->recs[i];

		if (rec->type == GPULAT_REC_EVENT &&
		    rec->u.event.event.type == GPULAT_EVENT_XID)
			diag_xid_add(L, rec->u.event.event.time_ns,
				     rec->u.event.event.time_ns,
				     rec->u.event.event.code,
				     rec->u.event.event.device, true,
				     DIAG_XID_FROM_KERNEL);
	}
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

/* diag_analyze_gpu - see diagnose.h */
int diag_analyze_gpu(const struct watch *w, const struct diag_tasks *used,
		     const struct gs_timeline *gpu, struct diag_result **out)
{
	const struct gpulat_snap_header *h = NULL;
	struct diag_result *r;
	uint32_t f;
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

		L->effect_of = DIAG_NR_LAYERS;
		f = diag_layer_family(l);
		L->measured = diag_family_on(w->end, f,
					     f < GPULAT_FAM_MAX ? w->held[f] :
					     NULL, L->why_not,
					     sizeof(L->why_not));
	}
	ret = diag_items(r, w);
	if (!ret) {
		diag_layers_sum(r);
		diag_xids(r, w);
		if (gpu)
			diag_gpu_xids(r, gpu);
		ret = diag_trace(r, w);
	}
	if (!ret)
		ret = diag_slow_cpus(r);
	if (!ret && used)
		ret = diag_cpu_users(r, used);
	if (!ret && used)
		ret = diag_io_users(r, used);
	if (ret) {
		diag_free(r);
		return ret;
	}
	diag_alike(r);
	diag_judge(r);
	diag_root_cause(r);
	diag_advise_all(r, w);
	ret = diag_cgroups(r, w);
	if (!ret)
		ret = diag_jobs(r, w);
	if (!ret && gpu)
		ret = diag_gpu(r, gpu);
	if (ret) {
		diag_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

static size_t diag_pid_add(int32_t *out, size_t n, size_t max, int32_t pid)
{
	size_t i;

	if (pid <= 0 || n == max)
		return n;
	for (i = 0; i < n; i++)
		if (out[i] == pid)
			return n;
	out[n] = pid;
	return n + 1;
}

/* diag_named_pids - see diagnose.h */
size_t diag_named_pids(const struct diag_result *r, int32_t *out, size_t max)
{
	size_t n = 0, k, i;
	int l;

	for (l = 0; l < DIAG_NR_LAYERS; l++) {
		const struct diag_layer_res *L = &r->layer[l];

		for (k = 0; k < L->nr_miners; k++)
			n = diag_pid_add(out, n, max, L->miners[k].tgid);
		for (k = 0; k < L->nr_culprits; k++)
			n = diag_pid_add(out, n, max, L->culprits[k].tgid);
		for (k = 0; k < L->nr_affected; k++)
			n = diag_pid_add(out, n, max, L->affected[k].tgid);
		for (k = 0; r->cg && k < r->cg[l].nr_rows; k++)
			for (i = 0; i < r->cg[l].rows[k].nr_pids; i++)
				n = diag_pid_add(out, n, max,
						 r->cg[l].rows[k].pids[i]);
	}
	return n;
}

/* diag_first_task - see diagnose.h */
int32_t diag_first_task(const struct diag_result *r, enum diag_layer l,
			char *comm, size_t len)
{
	const struct diag_layer_res *L;

	if (l >= DIAG_NR_LAYERS)
		return 0;
	L = &r->layer[l];
	if (L->nr_culprits) {
		units_printable(comm, len, L->culprits[0].comm);
		return L->culprits[0].tgid > 0 ? L->culprits[0].tgid :
		       L->culprits[0].pid;
	}
	if (L->nr_affected) {
		units_printable(comm, len, L->affected[0].comm);
		return L->affected[0].tgid > 0 ? L->affected[0].tgid :
		       L->affected[0].pid;
	}
	return 0;
}

/* diag_first_cgroup - see diagnose.h */
const char *diag_first_cgroup(const struct diag_result *r, enum diag_layer l)
{
	const struct diag_cg_row *row;

	if (l >= DIAG_NR_LAYERS || !r->cg || !r->cg[l].nr_rows)
		return NULL;
	row = &r->cg[l].rows[0];
	if (l == DIAG_SCHED)
		return row->by.path[0] ? row->by.path : NULL;
	return row->who.path[0] ? row->who.path : NULL;
}

/* diag_analyze_tasks - see diagnose.h */
int diag_analyze_tasks(const struct watch *w, const struct diag_tasks *used,
		       struct diag_result **out)
{
	return diag_analyze_gpu(w, used, NULL, out);
}

/* diag_analyze - see diagnose.h */
int diag_analyze(const struct watch *w, struct diag_result **out)
{
	return diag_analyze_tasks(w, NULL, out);
}

void diag_set_source(struct diag_result *r, const char *kind,
		     const char *detail)
{
	snprintf(r->source, sizeof(r->source), "%s", kind);
	snprintf(r->source_detail, sizeof(r->source_detail), "%s", detail);
}

void diag_free(struct diag_result *r)
{
	if (!r)
		return;
	free(r->items);
	free(r->cg);
	free(r->gpu);
	free(r);
}

/* diag_top_item - the evidence item @k of layer @l, or NULL */
const struct diag_item *diag_top_item(const struct diag_result *r,
				      enum diag_layer l, size_t k)
{
	const struct diag_layer_res *L = &r->layer[l];

	return k < L->nr_top ? &r->items[L->top[k]] : NULL;
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
