// SPDX-License-Identifier: GPL-2.0
/*
 * The tool's one interval loop (engine interval.c): the intervals' count
 * and nominal lengths for each way of ending, a stop, a file read when
 * it is ready, and a callback's error.  Lengths are the grid's, so the
 * answers hold on a loaded host; only "at least" bounds are timed.
 */
#include <errno.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "engine/watch/watch.h"

struct seen {
	int n;
	double len[16];
	int ready, ticks, fail_at, stop_at;
	int fds[2];
};

static struct seen *cur;

static bool stop_when(void)
{
	return cur->stop_at && cur->n >= cur->stop_at;
}

static int on_iv(double s, void *arg)
{
	struct seen *x = arg;

	if (x->n < 16)
		x->len[x->n] = s;
	x->n++;
	return x->fail_at && x->n >= x->fail_at ? -EIO : 0;
}

static int fd_of(void *arg)
{
	return ((struct seen *)arg)->fds[0];
}

static int on_ready(void *arg)
{
	struct seen *x = arg;
	char c;

	if (read(x->fds[0], &c, 1) == 1)
		x->ready++;
	return 0;
}

static void on_tick(void *arg)
{
	((struct seen *)arg)->ticks++;
}

static struct interval_clock clock_of(struct seen *x, double iv, double dur)
{
	struct interval_clock c = {
		.interval_s = iv, .duration_s = dur, .tick_ms = 5,
		.stopped = stop_when, .on_interval = on_iv, .arg = x,
	};

	cur = x;
	return c;
}

/* hist INTERVAL -d: the last interval cut to the duration */
TEST(cut_last)
{
	struct seen x = { 0 };
	struct interval_clock c = clock_of(&x, 0.02, 0.05);

	c.cut_last = true;
	ASSERT_EQ(0, interval_clock_run(&c));
	ASSERT_EQ(3, x.n);
	EXPECT_EQ(20, (int)(x.len[0] * 1000 + 0.5));
	EXPECT_EQ(20, (int)(x.len[1] * 1000 + 0.5));
	EXPECT_EQ(10, (int)(x.len[2] * 1000 + 0.5));
}

/* a watch: the end's snapshot, not an interval, closes the duration */
TEST(end_is_not_an_interval)
{
	struct seen x = { 0 };
	struct interval_clock c = clock_of(&x, 0.02, 0.04);

	ASSERT_EQ(0, interval_clock_run(&c));
	ASSERT_EQ(1, x.n);
	c = clock_of(&x, 0.02, 0.05);
	x.n = 0;
	ASSERT_EQ(0, interval_clock_run(&c));
	ASSERT_EQ(2, x.n);
}

/* serve: the first tick at once, a count, and no burst after a stall */
TEST(first_at_once_count)
{
	struct seen x = { 0 };
	struct interval_clock c = clock_of(&x, 0.01, 0);

	c.first_at_once = true;
	c.count = 4;
	ASSERT_EQ(0, interval_clock_run(&c));
	ASSERT_EQ(4, x.n);
	EXPECT_EQ(0, (int)(x.len[0] * 1000 + 0.5));
	EXPECT_EQ(10, (int)(x.len[3] * 1000 + 0.5));
}

static int on_iv_stall(double s, void *arg)
{
	struct seen *x = arg;

	if (x->n == 0)
		usleep(100 * 1000);	/* ten intervals missed */
	return on_iv(s, arg);
}

TEST(no_burst)
{
	struct seen x = { 0 };
	struct interval_clock c = clock_of(&x, 0.01, 0.15);

	c.on_interval = on_iv_stall;
	c.first_at_once = true;
	c.no_burst = true;
	ASSERT_EQ(0, interval_clock_run(&c));
	/* a grid that caught up would fire 16 times */
	EXPECT_GE(6, x.n);
	EXPECT_LE(2, x.n);
}

/* a stop ends it before its duration; a callback's error is returned */
TEST(stop_and_error)
{
	struct seen x = { .stop_at = 2 };
	struct interval_clock c = clock_of(&x, 0.01, 10);

	ASSERT_EQ(0, interval_clock_run(&c));
	ASSERT_EQ(2, x.n);
	x = (struct seen){ .fail_at = 3 };
	c = clock_of(&x, 0.01, 10);
	ASSERT_EQ(-EIO, interval_clock_run(&c));
	ASSERT_EQ(3, x.n);
}

/* the trace: read when its file is ready, not otherwise; ticks meanwhile */
TEST(ready_file)
{
	struct seen x = { 0 };
	struct interval_clock c = clock_of(&x, 0, 0.05);

	ASSERT_EQ(0, pipe(x.fds));
	c.poll_fd = fd_of;
	c.on_ready = on_ready;
	c.on_tick = on_tick;
	ASSERT_EQ(3, write(x.fds[1], "abc", 3));
	ASSERT_EQ(0, interval_clock_run(&c));
	EXPECT_EQ(3, x.ready);
	EXPECT_EQ(0, x.n);
	EXPECT_LE(3, x.ticks);
	close(x.fds[0]);
	close(x.fds[1]);
}

TEST_HARNESS_MAIN
