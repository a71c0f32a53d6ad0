// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat serve's rolling verdict (verdict.h): the snapshots of the last
 * window_s seconds (shared, and thinned to one per VERDICT_STEP of the
 * window, so that a large host's keeps few) and the trace records between
 * them; at each snapshot, the diagnosis of the oldest against the newest,
 * as gpulat diagnose would judge that window, unless the verdicts have
 * spent their share of CPU (VERDICT_CPU_SHARE): then a later one judges
 * all since the last made.  Nothing here reads the source.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/verdict/verdict.h"
#include "engine/watch/watch.h"

int verdict_init(struct verdict *v, double window_s)
{
	memset(v, 0, sizeof(*v));
	v->window_s = window_s;
	v->res.first = DIAG_NR_LAYERS;
	v->recs = calloc(VERDICT_MAX_RECS, sizeof(*v->recs));
	return v->recs ? 0 : -ENOMEM;
}

void verdict_free(struct verdict *v)
{
	size_t i;

	for (i = 0; i < v->nr_snaps; i++)
		gl_snapshot_free(v->snaps[i]);
	free(v->snaps);
	free(v->recs);
	memset(v, 0, sizeof(*v));
}

static uint64_t verdict_time(const struct gl_snapshot *s)
{
	return gl_snapshot_header(s)->time_ns;
}

void verdict_add_snap(struct verdict *v, const struct gl_snapshot *s)
{
	uint64_t now = verdict_time(s), span = (uint64_t)(v->window_s * 1e9);
	struct gl_snapshot *copy, **n;

	if (!v->nr_snaps && !v->first_ns)
		v->first_ns = now;
	/* the newest gives way when too close to the one before it */
	if (v->nr_snaps >= 2 &&
	    verdict_time(v->snaps[v->nr_snaps - 1]) -
	    verdict_time(v->snaps[v->nr_snaps - 2]) < span / VERDICT_STEP)
		gl_snapshot_free(v->snaps[--v->nr_snaps]);
	/* shared, not copied: at 224 CPUs a copy is 11 MB */
	copy = gl_snapshot_ref(s);
	if (v->nr_snaps == v->cap_snaps) {
		size_t cap = v->cap_snaps ? 2 * v->cap_snaps : 16;

		n = realloc(v->snaps, cap * sizeof(*n));
		if (!n) {
			gl_snapshot_free(copy);
			return;
		}
		v->snaps = n;
		v->cap_snaps = cap;
	}
	v->snaps[v->nr_snaps++] = copy;
	/*
	 * keep the newest at or before the window's start, and after it;
	 * after verdicts put off, from the end of the last one made (up to
	 * VERDICT_MAX_SPANS windows back): no second goes unjudged
	 */
	while (v->nr_snaps > 2) {
		uint64_t t1 = verdict_time(v->snaps[1]);

		if (now - t1 < span)
			break;
		if (v->computed && t1 > v->judged_ns &&
		    now - t1 < VERDICT_MAX_SPANS * span)
			break;
		gl_snapshot_free(v->snaps[0]);
		memmove(v->snaps, v->snaps + 1,
			--v->nr_snaps * sizeof(*v->snaps));
	}
}

void verdict_add_rec(struct verdict *v, const struct gl_trace_rec *r)
{
	if (r->type == GPULAT_REC_LOST)
		v->lost += r->u.lost.lost;
	if (v->nr_recs == VERDICT_MAX_RECS) {
		v->rec_head = (v->rec_head + 1) % VERDICT_MAX_RECS;
		v->nr_recs--;
		v->recs_dropped++;
	}
	v->recs[(v->rec_head + v->nr_recs++) % VERDICT_MAX_RECS] = *r;
}

/* the watch of the window: borrowed snapshots, records copied */
static int verdict_watch(struct verdict *v, struct watch *w)
{
	const struct gl_trace_rec *rec;
	uint64_t t0, t1;
	size_t i;

	memset(w, 0, sizeof(*w));
	if (v->nr_snaps < 2)
		return -ENODATA;
	w->start = v->snaps[0];
	w->end = v->snaps[v->nr_snaps - 1];
	if (gl_snapshot_diff(w->start, w->end, &w->window))
		return -ENOMEM;
	t0 = verdict_time(w->start);
	t1 = verdict_time(w->end);
	w->duration_s = (t1 - t0) / 1e9;
	w->recs = calloc(v->nr_recs ? v->nr_recs : 1, sizeof(*w->recs));
	if (!w->recs)
		return -ENOMEM;
	for (i = 0; i < v->nr_recs; i++) {
		rec = &v->recs[(v->rec_head + i) % VERDICT_MAX_RECS];
		if (rec->time_ns >= t0 && rec->time_ns <= t1)
			w->recs[w->nr_recs++] = *rec;
	}
	w->lost = v->lost;
	w->dropped = v->recs_dropped;
	w->trace_ok = v->trace_ok;
	memcpy(w->thresholds, v->thresholds, sizeof(w->thresholds));
	return 0;
}

static double verdict_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int verdict_compute(struct verdict *v)
{
	struct verdict_result *res = &v->res;
	struct diag_layer_info li;
	struct diag_result *d = NULL;
	double t = verdict_cpu_s(), ran_s;
	const char *cg;
	struct watch w;
	int ret, l;

	/* past its share of the CPU since the first snapshot: not this time */
	ran_s = v->nr_snaps ?
		(verdict_time(v->snaps[v->nr_snaps - 1]) - v->first_ns) / 1e9 : 0;
	if (v->computed && v->cost_s > VERDICT_CPU_SHARE * ran_s) {
		v->deferred++;
		return -EBUSY;
	}
	ret = verdict_watch(v, &w);
	if (!ret)
		ret = diag_analyze(&w, &d);
	free(w.recs);
	gl_snapshot_free(w.window);
	if (ret) {
		v->failed += ret != -ENODATA;
		return ret;
	}
	v->judged_ns = verdict_time(v->snaps[v->nr_snaps - 1]);
	memset(res, 0, sizeof(*res));
	res->valid = true;
	res->window_s = w.duration_s;
	res->abnormal = diag_abnormal(d);
	res->first = res->abnormal ? diag_ranked(d, 1) : DIAG_NR_LAYERS;
	for (l = 0; l < DIAG_NR_LAYERS; l++) {
		diag_layer_get(d, l, &li);
		res->measured[l] = li.measured;
		res->score_ms[l] = li.score / 1e6;
		res->rank[l] = li.rank;
	}
	if (res->abnormal) {
		res->culprit_pid = diag_first_task(d, res->first, res->culprit,
						   sizeof(res->culprit));
		cg = diag_first_cgroup(d, res->first);
		snprintf(res->cgroup, sizeof(res->cgroup), "%s", cg ? cg : "");
	}
	diag_free(d);
	v->computed++;
	v->cost_s += verdict_cpu_s() - t;
	return 0;
}

const char *verdict_text(char *buf, size_t len, const struct verdict *v)
{
	const struct verdict_result *res = &v->res;
	int n;

	if (!res->valid) {
		snprintf(buf, len, "no verdict yet");
		return buf;
	}
	if (!res->abnormal) {
		snprintf(buf, len, "nothing abnormal over the last %.0f s",
			 res->window_s);
		return buf;
	}
	n = snprintf(buf, len, "%s %.1fms/s over the last %.0f s",
		     diag_layer_name(res->first), res->score_ms[res->first],
		     res->window_s);
	if (res->culprit_pid > 0 && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, ", %s (pid %d) first",
			      res->culprit, res->culprit_pid);
	if (res->cgroup[0] && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, ", cgroup %s", res->cgroup);
	return buf;
}

/* a label value as the exposition format wants it */
static void verdict_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
}

void verdict_prom(FILE *f, const struct verdict *v)
{
	const struct verdict_result *res = &v->res;
	int l;

	fprintf(f, "# HELP gpulat_verdict_window_seconds The span the rolling verdict judged: its oldest snapshot to its newest.\n"
		"# TYPE gpulat_verdict_window_seconds gauge\n"
		"gpulat_verdict_window_seconds %.3f\n", res->window_s);
	fprintf(f, "# HELP gpulat_verdicts_total Rolling verdicts made; not made for want of memory; put off because the verdicts had spent their share of CPU.\n"
		"# TYPE gpulat_verdicts_total counter\n"
		"gpulat_verdicts_total{result=\"made\"} %llu\n"
		"gpulat_verdicts_total{result=\"failed\"} %llu\n"
		"gpulat_verdicts_total{result=\"deferred\"} %llu\n",
		(unsigned long long)v->computed, (unsigned long long)v->failed,
		(unsigned long long)v->deferred);
	fprintf(f, "# HELP gpulat_verdict_cpu_seconds_total CPU time the rolling verdicts took.\n"
		"# TYPE gpulat_verdict_cpu_seconds_total counter\n"
		"gpulat_verdict_cpu_seconds_total %.6f\n", v->cost_s);
	if (!res->valid)
		return;
	fprintf(f, "# HELP gpulat_verdict_score_ratio Each measured layer's score over the verdict's window, as gpulat diagnose scores it: seconds waited beyond normal per second.\n"
		"# TYPE gpulat_verdict_score_ratio gauge\n");
	for (l = 0; l < DIAG_NR_LAYERS; l++)
		if (res->measured[l])
			fprintf(f, "gpulat_verdict_score_ratio{layer=\"%s\"} %.6f\n",
				diag_layer_name(l), res->score_ms[l] / 1e3);
	fprintf(f, "# HELP gpulat_verdict_first The layer ranked first over the verdict's window (\"none\": nothing abnormal), with who it names first and that one's cgroup; one series, 1.\n"
		"# TYPE gpulat_verdict_first gauge\n"
		"gpulat_verdict_first{layer=\"%s\",culprit=\"",
		res->abnormal ? diag_layer_name(res->first) : "none");
	verdict_label(f, res->culprit);
	fprintf(f, "\",cgroup=\"");
	verdict_label(f, res->cgroup);
	fprintf(f, "\"} 1\n");
}
