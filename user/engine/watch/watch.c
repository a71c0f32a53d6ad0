// SPDX-License-Identifier: GPL-2.0
/*
 * Watching the module for a while: snapshots and the outlier trace.
 *
 * One file descriptor does both: ioctls for snapshots and thresholds,
 * poll() and read() for the trace (the first poll() makes it a reader,
 * which sees records from then on).  Records are handed on as soon as
 * poll() says they are there.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/watch/watch.h"

/* Longest sleep in poll(): how late a Ctrl-C or a deadline may be seen. */
#define WATCH_TICK_MS	200
/* read() calls per drain: a flood of records cannot hold the loop. */
#define WATCH_DRAIN_READS	16

static volatile sig_atomic_t watch_stop;
static void (*watch_tick_fn)(void *);
static void *watch_tick_arg;

/* watch_set_tick - see watch.h */
void watch_set_tick(void (*fn)(void *arg), void *arg)
{
	watch_tick_fn = fn;
	watch_tick_arg = arg;
}

static void watch_on_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
}

/*
 * watch_stop_on_signal - SIGINT, SIGTERM and SIGHUP end the watch, not the
 * tool, so that thresholds are put back; a closed pipe is seen as a write
 * error (SIGPIPE ignored), which ends it too
 */
void watch_stop_on_signal(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watch_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* watch_request_stop - end the watch at its next step (output failed...) */
void watch_request_stop(void)
{
	watch_stop = 1;
}

bool watch_stopped(void)
{
	return watch_stop;
}

static double watch_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int watch_snapshot(struct gl_source *src, struct gl_snapshot **out,
			  FILE *err)
{
	char msg[256];
	int ret;

	ret = gl_source_snapshot(src, out, msg, sizeof(msg));
	if (ret)
		fprintf(err, "gpulat: snapshot failed: %s\n", msg);
	return ret;
}

static int watch_keep_interval(struct watch *w, struct gl_snapshot *s)
{
	struct gl_snapshot **n;

	n = realloc(w->intervals, (w->nr_intervals + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	w->intervals = n;
	w->intervals[w->nr_intervals++] = s;
	return 0;
}

/* watch_rec - file one record: count, keep, hand on */
static void watch_rec(struct watch *w, const struct gl_trace_rec *r,
		      bool keep, void (*on_rec)(const struct gl_trace_rec *,
						void *), void *arg)
{
	struct gl_trace_rec *n;
	size_t cap;

	if (r->type == GPULAT_REC_LOST)
		w->lost += r->u.lost.lost;
	if (on_rec)
		on_rec(r, arg);
	if (!keep)
		return;
	if (w->nr_recs >= WATCH_MAX_RECS) {
		w->dropped++;
		return;
	}
	/* grow by doubling: nr_recs is a power of two when full */
	if (!(w->nr_recs & (w->nr_recs - 1))) {
		cap = w->nr_recs ? w->nr_recs * 2 : 64;
		n = realloc(w->recs, cap * sizeof(*n));
		if (!n) {
			w->dropped++;
			return;
		}
		w->recs = n;
	}
	w->recs[w->nr_recs++] = *r;
}

/*
 * watch_drain - read what the trace holds now; -errno on a read error
 * other than "nothing there"
 */
static int watch_drain(struct gl_source *src, struct watch *w, bool keep,
		       void (*on_rec)(const struct gl_trace_rec *, void *),
		       void *arg, FILE *err)
{
	static unsigned char buf[GL_TRACE_BUF];
	struct pollfd p = { .fd = gl_source_poll_fd(src), .events = POLLIN };
	struct gl_trace_rec r;
	int ret, reads = 0;
	size_t off;
	ssize_t n;

	/* no descriptor to wait on: the read says why (a fifth BPF reader) */
	if (p.fd < 0) {
		n = gl_source_trace_read(src, buf, sizeof(buf));
		if (n < 0 && n != -EAGAIN && n != -EINTR) {
			fprintf(err, "gpulat: reading the trace: %s%s\n",
				strerror(-n), n == -EBUSY ?
				" (the BPF source serves 4 readers of its trace at once)" :
				"");
			return n;
		}
		p.fd = gl_source_poll_fd(src);
	}
	while (!watch_stop && reads++ < WATCH_DRAIN_READS &&
	       (gl_source_trace_pending(src) || poll(&p, 1, 0) == 1)) {
		if (p.revents & (POLLERR | POLLNVAL)) {
			fprintf(err, "gpulat: the trace cannot be read (out of memory in the module?)\n");
			return -EIO;
		}
		if (!(p.revents & POLLIN) && !gl_source_trace_pending(src))
			return 0;
		p.revents = 0;
		n = gl_source_trace_read(src, buf, sizeof(buf));
		if (n == -EAGAIN || n == -EINTR)
			return 0;
		if (n < 0) {
			fprintf(err, "gpulat: reading the trace: %s\n",
				strerror(-n));
			return n;
		}
		for (off = 0; (ret = gl_trace_parse(buf, n, &off, &r)) > 0;)
			watch_rec(w, &r, keep, on_rec, arg);
		if (ret < 0) {
			fprintf(err, "gpulat: malformed trace record at byte %zu\n",
				off);
			return ret;
		}
	}
	return 0;
}

/* watch_thresholds - apply @given, remember the module's in @old */
static int watch_thresholds(struct gl_source *src, struct watch *w, const uint64_t *given,
			    uint64_t set, uint64_t *old, FILE *err)
{
	uint32_t f;
	int ret;

	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		ret = gl_source_threshold(src, f, false, &old[f]);
		if (ret == -ENOTTY)
			return 0;	/* a module without the trace */
		if (ret) {
			fprintf(err, "gpulat: threshold of %s: %s\n",
				gl_family_name(f), strerror(-ret));
			return ret;
		}
		w->thresholds[f] = old[f];
	}
	w->trace_ok = true;
	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		if (!(set & (1ULL << f)))
			continue;
		w->thresholds[f] = given[f];
		ret = gl_source_threshold(src, f, true, &w->thresholds[f]);
		if (ret) {
			fprintf(err, "gpulat: setting the threshold of %s: %s\n",
				gl_family_name(f), strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/*
 * watch_restore - put back the thresholds this watch changed, unless
 * somebody changed them again meanwhile (another gpulat, a parameter
 * write): the last writer's value stays
 */
static void watch_restore(struct gl_source *src, const struct watch *w, uint64_t set,
			  uint64_t *old)
{
	uint64_t now;
	uint32_t f;

	if (!w->trace_ok)
		return;
	for (f = 1; f < GPULAT_FAM_MAX; f++)
		if ((set & (1ULL << f)) &&
		    !gl_source_threshold(src, f, false, &now) && now == w->thresholds[f])
			gl_source_threshold(src, f, true, &old[f]);
}

/* what watch_run()'s turns of the interval loop need */
struct watch_loop {
	struct gl_source *src;
	struct watch *w;
	bool keep;
	void (*on_rec)(const struct gl_trace_rec *rec, void *arg);
	void *arg;
	FILE *err;
};

static int watch_on_interval(double seconds, void *arg)
{
	struct watch_loop *x = arg;
	struct gl_snapshot *s;
	int ret;

	(void)seconds;
	ret = watch_snapshot(x->src, &s, x->err);
	if (ret)
		return ret;
	ret = watch_keep_interval(x->w, s);
	if (ret) {
		gl_snapshot_free(s);
		fprintf(x->err, "gpulat: out of memory\n");
	}
	return ret;
}

static int watch_poll_fd(void *arg)
{
	struct watch_loop *x = arg;

	return x->w->trace_ok ? gl_source_poll_fd(x->src) : -1;
}

static bool watch_pending(void *arg)
{
	return gl_source_trace_pending(((struct watch_loop *)arg)->src);
}

static int watch_on_ready(void *arg)
{
	struct watch_loop *x = arg;

	return watch_drain(x->src, x->w, x->keep, x->on_rec, x->arg, x->err);
}

static void watch_on_tick(void *arg)
{
	(void)arg;
	if (watch_tick_fn)
		watch_tick_fn(watch_tick_arg);
}

int watch_run(struct gl_source *src, double duration_s, double interval_s,
	      bool keep_intervals, const uint64_t *thresholds,
	      uint64_t thresholds_set, struct watch *w,
	      void (*on_rec)(const struct gl_trace_rec *rec, void *arg),
	      void *arg, FILE *err)
{
	uint64_t old[GPULAT_FAM_MAX] = { 0 };
	struct watch_loop x = {
		.src = src, .w = w, .keep = duration_s > 0 && !on_rec,
		.on_rec = on_rec, .arg = arg, .err = err,
	};
	struct interval_clock c = {
		.interval_s = keep_intervals && interval_s > 0 ? interval_s : 0,
		.duration_s = duration_s > 0 ? duration_s : 0,
		.tick_ms = WATCH_TICK_MS,
		.stopped = watch_stopped,
		.on_interval = watch_on_interval,
		.poll_fd = watch_poll_fd,
		.pending = watch_pending,
		.on_ready = watch_on_ready,
		.on_tick = watch_on_tick,
		.arg = &x,
	};
	double t0;
	uint32_t f;
	int ret;

	memset(w, 0, sizeof(*w));
	for (f = 1; f < GPULAT_FAM_MAX; f++)
		gl_source_family_held(src, f, w->held[f], sizeof(w->held[f]));
	ret = watch_thresholds(src, w, thresholds, thresholds_set, old, err);
	if (ret)
		goto out;
	ret = watch_snapshot(src, &w->start, err);
	if (ret)
		goto out;
	t0 = watch_now();
	/* the first poll makes this file a reader: records from now on */
	if (w->trace_ok) {
		ret = watch_drain(src, w, x.keep, on_rec, arg, err);
		if (ret)
			goto out;	/* no reader: said why */
	}
	ret = interval_clock_run(&c);
	if (ret)
		goto out;
	w->interrupted = watch_stop;
	ret = watch_snapshot(src, &w->end, err);
	if (ret)
		goto out;
	w->duration_s = watch_now() - t0;
	if (w->trace_ok)
		watch_drain(src, w, x.keep, on_rec, arg, err);
	watch_on_tick(NULL);
	ret = gl_snapshot_diff(w->start, w->end, &w->window);
	if (ret)
		fprintf(err, "gpulat: cannot compare the snapshots\n");
out:
	watch_restore(src, w, thresholds_set, old);
	if (ret)
		watch_free(w);
	return ret;
}

void watch_free(struct watch *w)
{
	size_t i;

	gl_snapshot_free(w->start);
	gl_snapshot_free(w->end);
	gl_snapshot_free(w->window);
	for (i = 0; i < w->nr_intervals; i++)
		gl_snapshot_free(w->intervals[i]);
	free(w->intervals);
	free(w->recs);
	memset(w, 0, sizeof(*w));
}

int watch_read_trace(struct gl_source *src, struct watch *w,
		     void (*on_rec)(const struct gl_trace_rec *rec, void *arg),
		     void *arg, FILE *err)
{
	return watch_drain(src, w, false, on_rec, arg, err);
}

int watch_begin_thresholds(struct gl_source *src, struct watch *w,
			   const uint64_t *given, uint64_t set, uint64_t *old,
			   FILE *err)
{
	return watch_thresholds(src, w, given, set, old, err);
}

void watch_end_thresholds(struct gl_source *src, const struct watch *w,
			  uint64_t set, uint64_t *old)
{
	watch_restore(src, w, set, old);
}
