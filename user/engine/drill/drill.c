// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat drill: the run.  Check, lower the family's trace threshold,
 * snapshot and start reading the trace, inject, watch, stop the
 * workload, snapshot, remove what was made, diagnose the window, judge.
 * Nothing returns early: every path goes through the cleanup stack, and
 * SIGINT/SIGTERM only set the flag the loop looks at (watch.c's).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/drill/drill.h"
#include "engine/watch/watch.h"

static const char *const drill_names[DRILL_NR_KINDS + 1] = {
	[DRILL_CPU] = "cpu", [DRILL_DISK] = "disk", [DRILL_NET] = "net",
	[DRILL_IRQ] = "irq", [DRILL_CLEAN] = "clean",
};

static const struct drill_ops *const drill_ops_of[DRILL_NR_KINDS] = {
	[DRILL_CPU] = &drill_cpu_ops, [DRILL_DISK] = &drill_disk_ops,
	[DRILL_NET] = &drill_net_ops, [DRILL_IRQ] = &drill_irq_ops,
};

int drill_kind_lookup(const char *s)
{
	int k;

	for (k = 0; k <= DRILL_CLEAN; k++)
		if (!strcmp(s, drill_names[k]))
			return k;
	return -1;
}

const char *drill_kind_name(enum drill_kind k)
{
	return (unsigned int)k <= DRILL_CLEAN ? drill_names[k] : "?";
}

const char *drill_verdict_name(enum drill_verdict v)
{
	return v == DRILL_PASS ? "pass" : v == DRILL_FAIL ? "fail" : "skipped";
}

int drill_exit_of(enum drill_verdict v)
{
	return v == DRILL_PASS ? DRILL_EXIT_PASS :
	       v == DRILL_SKIP ? DRILL_EXIT_SKIP : DRILL_EXIT_FAIL;
}

int drill_check(struct drill *d)
{
	const struct drill_ops *ops = drill_ops_of[d->kind];

	snprintf(d->name, sizeof(d->name), DRILL_PREFIX "-%d", (int)getpid());
	d->expect.family = ops->family;
	d->expect.layer = ops->layer;
	d->expect.threshold_ns = ops->threshold_ns;
	d->verdict = DRILL_PASS;
	if (geteuid() != 0 && d->kind != DRILL_IRQ)
		return drill_set(d, DRILL_SKIP,
				 "needs root (it makes devices, links and pinned tasks)");
	return ops->check(d);
}

/* the threshold put back by the cleanup stack */
static struct {
	struct gl_source *src;
	uint32_t family;
	uint64_t old, ours;
} drill_thr;

/* drill_undo_threshold - put it back, unless somebody changed it since */
static int drill_undo_threshold(struct drill_undo *u)
{
	uint64_t now = 0;
	int ret;

	(void)u;
	ret = gl_source_threshold(drill_thr.src, drill_thr.family, false, &now);
	if (ret || now != drill_thr.ours)
		return ret;
	return gl_source_threshold(drill_thr.src, drill_thr.family, true,
				   &drill_thr.old);
}

/*
 * drill_lower - the thresholds in effect (a family the source does not
 * know, an older module's, counts as off), the drill's family's lowered
 * to what the drill needs
 */
static int drill_lower(struct drill *d, struct gl_source *src,
		       struct watch *w)
{
	uint32_t f = d->expect.family;
	uint64_t ns;
	int ret;

	for (ns = 1; ns < GPULAT_FAM_MAX; ns++) {
		ret = gl_source_threshold(src, ns, false, &w->thresholds[ns]);
		if (ret == -ENOTTY)
			return 0;	/* no trace: judged so */
		if (ret)
			w->thresholds[ns] = 0;
	}
	w->trace_ok = true;
	ns = w->thresholds[f];
	if (ns && ns <= d->expect.threshold_ns)
		return 0;
	drill_thr = (typeof(drill_thr)){ .src = src, .family = f, .old = ns,
					 .ours = d->expect.threshold_ns };
	/* a source that outlives the drill keeps it lowered if killed */
	if ((gl_source_kind(src) == GL_SOURCE_KMOD || gl_source_pinned(src)) &&
	    drill_journal(d, "threshold %s %llu %llu %s", gl_family_name(f),
			  (unsigned long long)ns,
			  (unsigned long long)drill_thr.ours,
			  gl_source_pinned(src) ? "pinned" : "kmod"))
		return -1;
	ret = gl_source_threshold(src, f, true, &drill_thr.ours);
	if (ret)
		return drill_set(d, DRILL_FAIL, "cannot set the %s threshold: %s",
				 gl_family_name(f), strerror(-ret));
	w->thresholds[f] = drill_thr.ours;
	if (!drill_push(&d->undo, drill_undo_threshold, NULL,
			"%s trace threshold lowered to %.0f ms",
			gl_family_name(f), drill_thr.ours / 1e6))
		return drill_set(d, DRILL_FAIL, "too many things to undo");
	return 0;
}

static void drill_keep(const struct gl_trace_rec *r, void *arg)
{
	struct watch *w = arg;
	struct gl_trace_rec *n;

	if (w->nr_recs >= WATCH_MAX_RECS) {
		w->dropped++;
		return;
	}
	if (!(w->nr_recs & (w->nr_recs - 1))) {
		n = realloc(w->recs, (w->nr_recs ? w->nr_recs * 2 : 64) *
				     sizeof(*n));
		if (!n) {
			w->dropped++;
			return;
		}
		w->recs = n;
	}
	w->recs[w->nr_recs++] = *r;
}

/*
 * drill_analyze - diagnose @w (its end and window taken), the tasks' CPU
 * time counted from @t0; what it says of the drill into @seen.  0, or
 * -errno
 */
static int drill_analyze(struct drill *d, struct watch *w,
			 const struct diag_tasks *t0, struct drill_seen *seen)
{
	struct diag_tasks t1 = { 0 }, used = { 0 };
	struct diag_result *r = NULL;
	bool have_used;
	int ret;

	w->duration_s = (drill_now_ns() - d->inject_ns) / 1e9;
	have_used = !diag_tasks_read(&t1) && !diag_tasks_delta(t0, &t1, &used);
	ret = diag_analyze_tasks(w, have_used ? &used : NULL, &r);
	diag_tasks_free(&t1);
	diag_tasks_free(&used);
	if (ret)
		return ret;
	drill_observe(seen, &d->expect, r);
	diag_free(r);
	return 0;
}

/*
 * drill_step - the verdict over the window so far, the diagnosis a user
 * would get now: when it is first right, the time from the injection
 */
static void drill_step(struct drill *d, struct gl_source *src,
		       const struct watch *w, const struct diag_tasks *t0)
{
	struct drill_seen seen = d->seen;
	struct watch now = *w;	/* the records and start are shared */
	char msg[160];

	d->seen.nr_steps++;
	now.end = now.window = NULL;
	if (!gl_source_snapshot(src, &now.end, msg, sizeof(msg)) &&
	    !gl_snapshot_diff(w->start, now.end, &now.window) &&
	    !drill_analyze(d, &now, t0, &seen) &&
	    drill_right(&seen, &d->expect))
		d->seen.right_ns = drill_now_ns() - d->inject_ns;
	gl_snapshot_free(now.window);
	gl_snapshot_free(now.end);
}

/*
 * drill_watch - read the trace until the duration is over or a signal;
 * every DRILL_STEP_NS, the verdict so far until it is right
 */
static void drill_watch(struct drill *d, struct gl_source *src,
			struct watch *w, const struct diag_tasks *t0)
{
	uint64_t end = d->inject_ns + (uint64_t)(d->duration_s * 1e9), now;
	uint64_t step = d->inject_ns + DRILL_STEP_NS;
	struct pollfd p;
	int ms;

	while (!watch_stopped() && (now = drill_now_ns()) < end) {
		if (now >= step && !d->seen.right_ns) {
			watch_read_trace(src, w, drill_keep, w, stderr);
			drill_step(d, src, w, t0);
			step = now + DRILL_STEP_NS;
			continue;
		}
		ms = ((d->seen.right_ns || end < step ? end : step) - now) /
		     1000000 + 1;
		p.fd = gl_source_poll_fd(src);
		p.events = POLLIN;
		p.revents = 0;
		if ((poll(&p, 1, ms < 200 ? ms : 200) > 0 && p.revents) ||
		    gl_source_trace_pending(src))
			watch_read_trace(src, w, drill_keep, w, stderr);
	}
}

/* drill_diagnose - the window, the verdict over it, what it says */
static void drill_diagnose(struct drill *d, struct gl_source *src,
			   struct watch *w, struct diag_tasks *t0)
{
	char msg[160];
	int ret;

	ret = gl_source_snapshot(src, &w->end, msg, sizeof(msg));
	if (!ret)
		ret = gl_snapshot_diff(w->start, w->end, &w->window);
	if (ret) {
		drill_set(d, DRILL_FAIL, "the final snapshot failed: %s",
			  strerror(-ret));
		return;
	}
	ret = drill_analyze(d, w, t0, &d->seen);
	if (ret) {
		drill_set(d, DRILL_FAIL, "diagnose: %s", strerror(-ret));
		return;
	}
	drill_scan(&d->seen, &d->expect, w->recs, w->nr_recs, d->inject_ns);
}

void drill_run(struct drill *d, struct gl_source *src)
{
	const struct drill_ops *ops = drill_ops_of[d->kind];
	struct diag_tasks t0 = { 0 };
	struct watch w;
	char msg[160];
	bool ran = false;
	int ret;

	memset(&w, 0, sizeof(w));
	gl_source_describe(src, d->source, sizeof(d->source));
	watch_stop_on_signal();
	if (drill_lower(d, src, &w))
		goto out;
	d->seen.trace_ok = w.trace_ok;
	ret = gl_source_snapshot(src, &w.start, msg, sizeof(msg));
	if (ret) {
		drill_set(d, DRILL_FAIL, "snapshot failed: %s", msg);
		goto out;
	}
	/* decided before anything is injected */
	d->seen.family_on = drill_family_on(w.start, d->expect.family);
	if (!d->seen.family_on || !w.trace_ok) {
		drill_judge(d);
		goto out;
	}
	diag_tasks_read(&t0);
	/* the first read makes this process a reader: records from now on */
	watch_read_trace(src, &w, drill_keep, &w, stderr);
	d->inject_ns = drill_now_ns();
	if (ops->inject(d))
		goto out;
	drill_pause_point();	/* the fault in place */
	drill_watch(d, src, &w, &t0);
	drill_unwind(&d->undo, true);
	watch_read_trace(src, &w, drill_keep, &w, stderr);
	d->fault_s = (drill_now_ns() - d->inject_ns) / 1e9;
	ran = !watch_stopped();
	if (!ran)
		drill_set(d, DRILL_FAIL, "interrupted by a signal");
	else
		drill_diagnose(d, src, &w, &t0);
out:
	if (!d->fault_s && d->inject_ns)
		d->fault_s = (drill_now_ns() - d->inject_ns) / 1e9;
	drill_unwind(&d->undo, false);
	drill_journal_end(d);
	if (ran && d->verdict == DRILL_PASS)
		drill_judge(d);
	else if (d->verdict == DRILL_PASS)
		drill_set(d, DRILL_FAIL, "the drill did not run to its end");
	diag_tasks_free(&t0);
	watch_free(&w);
}
