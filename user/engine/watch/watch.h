/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Watching the module for a while: snapshots at the start, per interval
 * and at the end, and the outlier trace meanwhile.  diagnose and report
 * are built on it.
 */
#ifndef _GPULAT_USER_WATCH_H
#define _GPULAT_USER_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/gpulat_user.h"

/* Most trace records a watch keeps; the rest are counted in dropped. */
#define WATCH_MAX_RECS	100000

struct watch {
	struct gl_snapshot *start;	/* totals when the watch began */
	struct gl_snapshot *end;	/* totals when it ended */
	struct gl_snapshot *window;	/* end - start */
	/* totals at the end of every interval (with keep_intervals) */
	struct gl_snapshot **intervals;
	size_t nr_intervals;
	double duration_s;		/* measured */
	/* outlier trace records (samples, Xid events, losses), in order */
	struct gl_trace_rec *recs;
	size_t nr_recs;
	uint64_t lost;			/* records the module lost for us */
	uint64_t dropped;		/* records over WATCH_MAX_RECS */
	bool interrupted;		/* Ctrl-C ended it early */
	bool trace_ok;			/* the module has the trace (ABI >= 1.2) */
	/* thresholds in effect during the watch, ns by family (0: off) */
	uint64_t thresholds[GPULAT_FAM_MAX];
	/* why a family waited for its driver at the start ("": it did not) */
	char held[GPULAT_FAM_MAX][160];
};

/*
 * watch_run - watch @src for @duration_s seconds (snapshot every
 * @interval_s when @keep_intervals), with the thresholds of @o (those
 * given on the command line; the module's own for the rest), put back
 * when done.  @on_rec, when not NULL, sees every record as it arrives.
 * @duration_s == 0 watches until a signal (watch_stop_on_signal()).
 * Records are kept in @w only when there is a duration and no @on_rec
 * (which consumes them).  The thresholds set are put back at the end
 * unless somebody changed them again meanwhile.  A module without the trace
 * (ABI < 1.2) is watched without records: trace_ok tells.
 * 0, or -errno after a message on @err.
 */
int watch_run(struct gl_source *src, double duration_s, double interval_s,
	      bool keep_intervals, const uint64_t *thresholds,
	      uint64_t thresholds_set, struct watch *w,
	      void (*on_rec)(const struct gl_trace_rec *rec, void *arg),
	      void *arg, FILE *err);
void watch_free(struct watch *w);

/*
 * For a loop of its own (gpulat serve): watch_read_trace() hands what
 * the trace holds now to @on_rec (losses counted in w->lost), -errno on
 * a read error; watch_begin_thresholds() applies @given (families in
 * @set), keeping the source's in @old and the ones in effect in @w
 * (trace_ok: the source has a trace); watch_end_thresholds() puts back
 * what the begin changed.
 */
int watch_read_trace(struct gl_source *src, struct watch *w,
		     void (*on_rec)(const struct gl_trace_rec *rec, void *arg),
		     void *arg, FILE *err);
int watch_begin_thresholds(struct gl_source *src, struct watch *w,
			   const uint64_t *given, uint64_t set, uint64_t *old,
			   FILE *err);
void watch_end_thresholds(struct gl_source *src, const struct watch *w,
			  uint64_t set, uint64_t *old);

/*
 * watch_set_tick - @fn(@arg) on every turn of watch_run()'s loop (at
 * least every 200 ms) and once at its end; NULL: none
 */
void watch_set_tick(void (*fn)(void *arg), void *arg);

/* watch_stop_on_signal - SIGINT/SIGTERM end a watch early (and gpulat trace) */
void watch_stop_on_signal(void);
void watch_request_stop(void);
bool watch_stopped(void);

/*
 * The tool's one interval loop.  interval_clock_run() waits for the end
 * of each interval and of the duration, and meanwhile for a file (the
 * trace) and a tick; watch_run(), serve_loop() and interval_run() (gpulat
 * hist INTERVAL, watch-cgroup) are built on it.
 */
struct interval_clock {
	double interval_s;	/* each interval's length; 0: no intervals */
	double duration_s;	/* in all; 0: until stopped (or count) */
	unsigned long count;	/* intervals at most; 0: no bound */
	bool first_at_once;	/* the first interval ends at the start */
	bool no_burst;		/* after a stall, the next one is an interval on */
	/* an interval that reaches the duration's end ends with it, cut to
	 * fit; else it is left to the end's own snapshot */
	bool cut_last;
	int tick_ms;		/* the longest wait, so a stop is seen (> 0) */
	/* whether to stop (a signal); checked before every wait */
	bool (*stopped)(void);
	/* an interval ended; its nominal length; 0, or -errno to end */
	int (*on_interval)(double seconds, void *arg);
	/* optional: a file to poll meanwhile (< 0: none) ... */
	int (*poll_fd)(void *arg);
	/* ... records held besides it ... */
	bool (*pending)(void *arg);
	/* ... and reading them when either says so; 0, or -errno to end */
	int (*on_ready)(void *arg);
	/* optional: every turn of the loop, before its wait */
	void (*on_tick)(void *arg);
	void *arg;
};

/*
 * interval_clock_run - the loop @c from now on CLOCK_MONOTONIC, intervals
 * on a fixed grid (no drift); 0 when the duration, the count or a stop
 * ended it, or the first callback's -errno
 */
int interval_clock_run(const struct interval_clock *c);

struct interval_loop {
	double interval_s;	/* each interval's length (> 0) */
	double duration_s;	/* in all, the last cut to fit; 0: no bound */
	unsigned long count;	/* intervals at most; 0: no bound */
	/* whether to stop (a signal); checked around every sleep */
	bool (*stopped)(void);
	/* an interval's difference and its length in seconds */
	void (*on)(const struct gl_snapshot *d, double seconds, void *arg);
	void *arg;
};

/*
 * interval_run - @l's differences on @src: a snapshot, then one at the
 * end of each interval; 0, or -errno after a message on @err
 */
int interval_run(struct gl_source *src, const struct interval_loop *l,
		 FILE *err);

#endif /* _GPULAT_USER_WATCH_H */
