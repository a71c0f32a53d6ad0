// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder of gpulat serve (engine/serve/flight.c): which snapshots
 * and records a bundle holds, the rate limit, the folder's bound, the
 * memory bound, and what triggers it.  Bundles are real report archives,
 * unpacked here with tar.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "blob.h"
#include "engine/serve/flight.h"
#include "engine/serve/serve.h"
#include "lib/gpulat_user.h"
#include "shell.h"

#define S	1000000000ULL

FIXTURE(fl) {
	char dir[64];
	struct flight f;
	struct flight_opts o;
};

FIXTURE_SETUP(fl)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/gl-flight.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	self->o.dir = self->dir;
	self->o.before_s = 5;
	self->o.after_s = 2;
	self->o.gap_s = 100;
	self->o.keep = 2;
	self->o.dir_bytes = 1ULL << 30;
	self->o.mode = 0600;
	self->o.max_bytes = 1 << 30;
	self->o.root = "";
	self->o.trigger_ns[GPULAT_FAM_SCHED] = 50000000;	/* 50 ms */
	setenv("GPULAT_NVML_LIB", "/nonexistent", 1);
	ASSERT_EQ(0, flight_init(&self->f, &self->o));
}

FIXTURE_TEARDOWN(fl)
{
	flight_free(&self->f);
	sh("rm -rf %s", self->dir);
}

/* snap - a snapshot taken at @t_s seconds, with @n wakeups so far */
static void snap(struct flight *f, uint64_t t_s, uint64_t n)
{
	struct gl_snapshot *s;
	struct blob b;
	size_t i;

	blob_init(&b);
	b.hdr.time_ns = t_s * S;
	i = blob_add_series(&b, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP, 0, 0,
			    NULL, "");
	blob_record(&b, i, 20000, n);
	s = blob_parse(&b);
	if (!s)
		abort();
	flight_add_snap(f, s);
	gl_snapshot_free(s);
	blob_release(&b);
}

/* sample - a sched.wakeup record of @ns at @t_ns; what it triggers */
static enum prom_cause sample(struct flight *f, uint64_t t_ns, uint64_t ns)
{
	struct gl_trace_rec r = { .type = GPULAT_REC_SAMPLE, .cpu = 1,
				  .time_ns = t_ns };

	r.u.sample.family = GPULAT_FAM_SCHED;
	r.u.sample.series = GPULAT_SCHED_WAKEUP;
	r.u.sample.latency_ns = ns;
	r.u.sample.pid = 42;
	memcpy(r.u.sample.comm, "victim", 7);
	return flight_add_rec(f, &r);
}

/* bundles - how many bundles the folder holds */
static int bundles(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, "gpulat-flight-", 14);
	if (d)
		closedir(d);
	return n;
}

TEST_F(fl, the_window_around_the_trigger_and_the_rate_limit)
{
	uint64_t t;

	for (t = 1; t <= 10; t++)
		snap(&self->f, t, t * 10);
	/* over the bound, before the window: it triggers, is not kept */
	ASSERT_EQ(PROM_CAUSE_OUTLIER, sample(&self->f, 3 * S, 60000000));
	ASSERT_EQ(PROM_CAUSE_OUTLIER, sample(&self->f, 9 * S, 70000000));
	ASSERT_EQ(PROM_NR_CAUSES, sample(&self->f, 9 * S + 1, 1000000));
	ASSERT_TRUE(flight_trigger(&self->f, 10 * S, "test trigger"));
	/* one pending: another is suppressed */
	ASSERT_FALSE(flight_trigger(&self->f, 10 * S + S / 2, "again"));
	snap(&self->f, 11, 110);
	ASSERT_EQ(0, flight_tick(&self->f, 11 * S));	/* not due */
	snap(&self->f, 12, 120);
	/* a writer packs it; the loop waits for nothing */
	ASSERT_EQ(1, flight_tick(&self->f, 12 * S));
	ASSERT_EQ(1, flight_reap(&self->f, true));
	ASSERT_EQ(1, self->f.written);
	ASSERT_EQ(1, bundles(self->dir));
	ASSERT_EQ(0, sh("test $(stat -c %%a %s/gpulat-flight-*.tar.gz) = 600",
			self->dir));
	/* the window: 5 s before the trigger to the last snapshot */
	ASSERT_EQ(0, sh("cd %s && tar -xzf gpulat-flight-*.tar.gz && cd gpulat-flight-*/ && "
			"grep -q '^trigger:   test trigger$' MANIFEST && "
			"grep -q '^window:    7.0 s' MANIFEST && "
			"test $(ls snapshots/interval-*.bin | wc -l) = 6 && "
			"test $(grep -c latency_ns trace.jsonl) = 2 && "
			"grep -q '^# 2 records' trace.txt",
			self->dir));
	/* within the gap: counted, not written; after it: written */
	ASSERT_FALSE(flight_trigger(&self->f, 50 * S, "in the gap"));
	ASSERT_TRUE(flight_trigger(&self->f, 111 * S, "after the gap"));
}

TEST_F(fl, the_folder_keeps_the_newest_bundles)
{
	uint64_t t;
	int i;

	self->f.o.gap_s = 0;
	for (t = 1; t <= 3; t++)
		snap(&self->f, t, t);
	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(flight_trigger(&self->f, 3 * S, "one"));
		ASSERT_EQ(1, flight_flush(&self->f));
		if (!i)
			ASSERT_EQ(0, sh("ls %s > %s.first", self->dir,
					self->dir));
	}
	/* three (in one second, they get -2, -3): the oldest removed */
	ASSERT_EQ(2, bundles(self->dir));
	ASSERT_NE(0, sh("test -e %s/$(cat %s.first)", self->dir, self->dir));
	sh("rm -f %s.first", self->dir);
}

TEST_F(fl, the_folder_is_bounded_in_bytes)
{
	uint64_t t, one;
	int i;

	self->f.o.gap_s = 0;
	self->f.o.keep = 100;
	for (t = 1; t <= 3; t++)
		snap(&self->f, t, t);
	ASSERT_TRUE(flight_trigger(&self->f, 3 * S, "one"));
	ASSERT_EQ(1, flight_flush(&self->f));
	one = self->f.dir_bytes;
	ASSERT_LT(0, one);
	/* room for two and a half: the oldest give way to the newest */
	self->f.o.dir_bytes = one * 5 / 2;
	for (i = 0; i < 4; i++) {
		ASSERT_TRUE(flight_trigger(&self->f, 3 * S, "more"));
		ASSERT_EQ(1, flight_flush(&self->f));
	}
	ASSERT_EQ(5, self->f.written);
	ASSERT_EQ(2, bundles(self->dir));
	ASSERT_GE(self->f.o.dir_bytes, self->f.dir_bytes);
	/* one that does not fit at all: counted, the others kept */
	self->f.o.dir_bytes = one / 2;
	ASSERT_TRUE(flight_trigger(&self->f, 3 * S, "too big"));
	ASSERT_EQ(1, flight_flush(&self->f));
	ASSERT_EQ(1, self->f.failed[PROM_FAIL_TOO_BIG]);
	ASSERT_EQ(2, bundles(self->dir));
	ASSERT_EQ(0, sh("! ls -A %s | grep -q gpulat-tmp", self->dir));
}

TEST_F(fl, memory_and_records_are_bounded)
{
	struct gl_trace_rec r = { .type = GPULAT_REC_LOST, .cpu = 0 };
	uint64_t t;
	size_t i;

	self->f.o.max_bytes = 1;	/* two snapshots at least stay */
	for (t = 1; t <= 10; t++)
		snap(&self->f, t, t);
	ASSERT_EQ(2, self->f.nr_snaps);
	ASSERT_EQ(8, self->f.snaps_dropped);
	r.u.lost.lost = 3;
	for (i = 0; i < FLIGHT_MAX_RECS + 5; i++)
		flight_add_rec(&self->f, &r);
	ASSERT_EQ(FLIGHT_MAX_RECS, self->f.nr_recs);
	ASSERT_EQ(5, self->f.recs_dropped);
	ASSERT_EQ(3ULL * (FLIGHT_MAX_RECS + 5), self->f.lost);
	/* without the window's before, no bundle is made up */
	self->f.o.max_bytes = 1 << 30;
	ASSERT_TRUE(flight_trigger(&self->f, 10 * S, "x"));
	ASSERT_EQ(1, flight_flush(&self->f));
}

TEST_F(fl, an_xid_triggers)
{
	struct gl_trace_rec r = { .type = GPULAT_REC_EVENT, .cpu = 0 };

	r.u.event.event.type = GPULAT_EVENT_XID;
	r.u.event.event.code = 79;
	ASSERT_EQ(PROM_CAUSE_XID, flight_add_rec(&self->f, &r));
	r.u.event.event.type = 99;	/* an event of a later ABI */
	ASSERT_EQ(PROM_NR_CAUSES, flight_add_rec(&self->f, &r));
	self->f.o.trigger_ns[GPULAT_FAM_SCHED] = 0;	/* no bound: none */
	ASSERT_EQ(PROM_NR_CAUSES, sample(&self->f, S, 999 * S));
}

/* a serve that fails before its HTTP starts stops what it has: nothing */
TEST(serve_http_stop_takes_null)
{
	serve_http_stop(NULL);
}

TEST(a_folder_that_cannot_be_written_is_refused)
{
	struct flight_opts o = { .dir = "/nonexistent/x", .keep = 1 };
	struct flight f;

	ASSERT_GT(0, flight_init(&f, &o));
}

TEST_HARNESS_MAIN
