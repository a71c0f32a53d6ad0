/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interval loop of gpulat hist INTERVAL and watch-cgroup: a snapshot,
 * then one every interval, each interval's difference handed on.  (A
 * watch that reads the trace meanwhile is watch.c's.)
 */
#ifndef _GPULAT_USER_INTERVAL_H
#define _GPULAT_USER_INTERVAL_H

#include <stdbool.h>
#include <stdio.h>

#include "gpulat_user.h"

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
 * interval_run - the loop @l on @src, intervals timed from the first
 * snapshot on CLOCK_MONOTONIC (no drift); 0, or -errno after a message
 * on @err
 */
int interval_run(struct gl_source *src, const struct interval_loop *l,
		 FILE *err);

#endif /* _GPULAT_USER_INTERVAL_H */
