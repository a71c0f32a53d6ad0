/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tool's one interval loop.  interval_clock_run() waits for the end
 * of each interval and of the duration, and meanwhile for a file (the
 * trace) and a tick; watch_run(), serve_loop() and interval_run() (gpulat
 * hist INTERVAL, watch-cgroup) are built on it.
 */
#ifndef _GPULAT_USER_INTERVAL_H
#define _GPULAT_USER_INTERVAL_H

#include <stdbool.h>
#include <stdio.h>

#include "gpulat_user.h"

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

#endif /* _GPULAT_USER_INTERVAL_H */
