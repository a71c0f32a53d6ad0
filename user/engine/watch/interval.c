// SPDX-License-Identifier: GPL-2.0
/* The tool's one interval loop (interval.h). */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "engine/watch/watch.h"

static uint64_t interval_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * interval_wait - wait until @until at most: on the file when there is
 * one (and read it when it is ready), else asleep; 0 or -errno
 */
static int interval_wait(const struct interval_clock *c, uint64_t now,
			 uint64_t until)
{
	struct pollfd p = { .fd = -1 };
	struct timespec ts;

	if (!c->on_ready) {
		ts.tv_sec = until / 1000000000ULL;
		ts.tv_nsec = until % 1000000000ULL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		return 0;
	}
	p.fd = c->poll_fd(c->arg);
	p.events = POLLIN;
	/* rounded up: woken before the deadline would only wait again */
	if ((poll(&p, 1, (until - now + 999999) / 1000000) > 0 && p.revents) ||
	    (c->pending && c->pending(c->arg)))
		return c->on_ready(c->arg);
	return 0;
}

int interval_clock_run(const struct interval_clock *c)
{
	uint64_t step = c->interval_s * 1e9, tick = c->tick_ms * 1000000ULL;
	uint64_t t0 = interval_now(), now, wake, next = 0, last = t0, end = 0;
	unsigned long n = 0;
	int ret;

	if (c->duration_s > 0)
		end = t0 + (uint64_t)(c->duration_s * 1e9);
	if (c->on_interval && (step || c->first_at_once))
		next = c->first_at_once ? t0 : t0 + step;
	if (!step)
		step = 1;
	if (next && end && next >= end)
		next = c->cut_last ? end : 0;
	while (!c->stopped()) {
		now = interval_now();
		if (next && now >= next) {
			ret = c->on_interval((next - last) / 1e9, c->arg);
			if (ret)
				return ret;
			n++;
			if ((c->count && n >= c->count) || (end && next >= end))
				break;
			last = next;
			next += step;
			if (c->no_burst && next <= now)
				next = now + step;
			if (end && next >= end)
				next = c->cut_last ? end : 0;
			continue;
		}
		if (end && now >= end)
			break;
		if (c->on_tick)
			c->on_tick(c->arg);
		wake = now + tick;
		if (next && next < wake)
			wake = next;
		if (end && end < wake)
			wake = end;
		ret = interval_wait(c, now, wake);
		if (ret)
			return ret;
	}
	return 0;
}

struct interval_diff {
	struct gl_source *src;
	const struct interval_loop *l;
	struct gl_snapshot *prev;
	char msg[256];
};

/* interval_on - an interval ended: its difference to the loop's @on */
static int interval_on(double seconds, void *arg)
{
	struct interval_diff *x = arg;
	struct gl_snapshot *cur = NULL, *d = NULL;
	int ret;

	ret = gl_source_snapshot(x->src, &cur, x->msg, sizeof(x->msg));
	if (ret)
		return ret;
	ret = gl_snapshot_diff(x->prev, cur, &d);
	if (ret) {
		snprintf(x->msg, sizeof(x->msg), "%s", strerror(-ret));
		gl_snapshot_free(cur);
		return ret;
	}
	x->l->on(d, seconds, x->l->arg);
	gl_snapshot_free(d);
	gl_snapshot_free(x->prev);
	x->prev = cur;
	return 0;
}

int interval_run(struct gl_source *src, const struct interval_loop *l,
		 FILE *err)
{
	struct interval_diff x = { .src = src, .l = l };
	struct interval_clock c = {
		/* no zero-length interval: that would be no interval at all */
		.interval_s = l->interval_s > 0 ? l->interval_s : 1e-9,
		.duration_s = l->duration_s,
		.count = l->count,
		.cut_last = true,
		.tick_ms = 200,
		.stopped = l->stopped,
		.on_interval = interval_on,
		.arg = &x,
	};
	int ret;

	ret = gl_source_snapshot(src, &x.prev, x.msg, sizeof(x.msg));
	if (!ret)
		ret = interval_clock_run(&c);
	if (ret)
		fprintf(err, "gpulat: %s\n", x.msg);
	gl_snapshot_free(x.prev);
	return ret;
}
