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

#include "gpulat_user.h"

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

#endif /* _GPULAT_USER_WATCH_H */
