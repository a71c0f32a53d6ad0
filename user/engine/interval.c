// SPDX-License-Identifier: GPL-2.0
/* The interval loop (interval.h): gpulat hist INTERVAL, watch-cgroup. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "interval.h"

/* interval_sleep - sleep to @deadline; false when @l says stop */
static bool interval_sleep(const struct interval_loop *l,
			   const struct timespec *deadline)
{
	int ret;

	do {
		/* a signal outside the sleep is seen before it, not after */
		if (l->stopped())
			return false;
		ret = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
				      deadline, NULL);
	} while (ret == EINTR);
	return !l->stopped();
}

int interval_run(struct gl_source *src, const struct interval_loop *l,
		 FILE *err)
{
	struct gl_snapshot *prev = NULL, *cur = NULL, *d = NULL;
	uint64_t step = l->interval_s * 1e9, left = l->duration_s * 1e9;
	struct timespec deadline;
	unsigned long i;
	char msg[256];
	int ret;

	if (!step)
		step = 1;
	ret = gl_source_snapshot(src, &prev, msg, sizeof(msg));
	if (ret)
		goto fail;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (i = 0; !l->count || i < l->count; i++) {
		uint64_t s = step;

		if (l->duration_s > 0) {
			if (!left)
				break;
			s = left < step ? left : step;
			left -= s;
		}
		deadline.tv_sec += (deadline.tv_nsec + s) / 1000000000ULL;
		deadline.tv_nsec = (deadline.tv_nsec + s) % 1000000000ULL;
		if (!interval_sleep(l, &deadline))
			break;
		ret = gl_source_snapshot(src, &cur, msg, sizeof(msg));
		if (ret)
			goto fail;
		ret = gl_snapshot_diff(prev, cur, &d);
		if (ret) {
			snprintf(msg, sizeof(msg), "%s", strerror(-ret));
			goto fail;
		}
		l->on(d, s / 1e9, l->arg);
		gl_snapshot_free(d);
		d = NULL;
		gl_snapshot_free(prev);
		prev = cur;
		cur = NULL;
	}
	gl_snapshot_free(prev);
	return 0;
fail:
	fprintf(err, "gpulat: %s\n", msg);
	gl_snapshot_free(prev);
	gl_snapshot_free(cur);
	return ret;
}
