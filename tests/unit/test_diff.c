// SPDX-License-Identifier: GPL-2.0
/* gl_snapshot_diff: subtraction, resets, new series, the interval max. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "blob.h"
#include "gpulat_hist.h"
#include "lib/gpulat_user.h"

FIXTURE(pair) {
	struct blob old, new;
	size_t w0, w1;		/* sched.wakeup CPU 0, 1 */
};

/* old: CPU 0 has 10 x 2000 ns, max 2000; CPU 1 has 5 x 1 ms */
FIXTURE_SETUP(pair)
{
	struct blob *b[] = { &self->old, &self->new };
	int i;

	for (i = 0; i < 2; i++) {
		blob_init(b[i]);
		self->w0 = blob_add_series(b[i], GPULAT_FAM_SCHED,
					   GPULAT_SCHED_WAKEUP, 0, 0,
					   "sched.wakeup", "");
		self->w1 = blob_add_series(b[i], GPULAT_FAM_SCHED,
					   GPULAT_SCHED_WAKEUP, 1, 0,
					   "sched.wakeup", "");
		blob_record(b[i], self->w0, 2000, 10);
		blob_record(b[i], self->w1, 1000000, 5);
		blob_add_counter(b[i], GPULAT_FAM_SCHED, GPULAT_SCHED_NO_START,
				 "sched.no_start", 7);
		blob_add_probe(b[i], GPULAT_FAM_SCHED, GPULAT_PROBE_ATTACHED,
			       0, "sched", "sched_switch", 1000);
	}
	self->new.hdr.time_ns = self->old.hdr.time_ns + 1000000000ULL;
}

FIXTURE_TEARDOWN(pair)
{
	blob_release(&self->old);
	blob_release(&self->new);
}

/* Counts subtract per series; counters and probe hits too. */
TEST_F(pair, counts_subtract)
{
	struct gl_snapshot *o, *n, *d;
	const struct gpulat_series *sr;
	struct gl_hist h;
	uint64_t v;

	blob_record(&self->new, self->w0, 2000, 3);
	blob_record(&self->new, self->w0, 600, 4);
	self->new.counters[0].value = 9;
	self->new.probes[0].hits = 1500;
	o = blob_parse(&self->old);
	n = blob_parse(&self->new);
	ASSERT_NE(NULL, o);
	ASSERT_NE(NULL, n);
	ASSERT_EQ(0, gl_snapshot_diff(o, n, &d));
	sr = gl_snapshot_series(d, 0);
	ASSERT_EQ(0, sr->cpu);
	ASSERT_EQ(7, sr->count);
	ASSERT_EQ(3 * 2000 + 4 * 600, sr->sum_ns);
	ASSERT_EQ(3, sr->buckets[gpulat_hist_slot(2000)]);
	ASSERT_EQ(4, sr->buckets[gpulat_hist_slot(600)]);
	sr = gl_snapshot_series(d, 1);
	ASSERT_EQ(0, sr->count);
	ASSERT_EQ(0, sr->max_ns);
	ASSERT_EQ(0, gl_counter(d, GPULAT_FAM_SCHED, GPULAT_SCHED_NO_START,
				&v));
	ASSERT_EQ(2, v);
	ASSERT_EQ(500, gl_snapshot_probe(d, 0)->hits);
	/* the interval starts at old's time */
	ASSERT_EQ(gl_snapshot_header(o)->time_ns,
		  gl_snapshot_header(d)->reset_time_ns);
	ASSERT_EQ(gl_snapshot_header(n)->time_ns,
		  gl_snapshot_header(d)->time_ns);
	ASSERT_EQ(2, gl_hist_merge(d, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP,
				   GPULAT_CPU_NONE, &h));
	ASSERT_EQ(7, h.count);
	ASSERT_EQ(7, gl_hist_total(&h));
	gl_snapshot_free(d);
	/* a snapshot minus itself is empty */
	ASSERT_EQ(0, gl_snapshot_diff(n, n, &d));
	gl_hist_merge(d, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP,
		      GPULAT_CPU_NONE, &h);
	ASSERT_EQ(0, gl_hist_total(&h));
	ASSERT_EQ(0, h.count);
	ASSERT_EQ(0, h.max_ns);
	gl_snapshot_free(d);
	gl_snapshot_free(o);
	gl_snapshot_free(n);
}

/* The max rose in the interval: it is the interval's max, exact. */
TEST_F(pair, max_rose_is_exact)
{
	struct gl_snapshot *o, *n, *d;

	blob_record(&self->new, self->w0, 2500, 1);
	o = blob_parse(&self->old);
	n = blob_parse(&self->new);
	ASSERT_EQ(0, gl_snapshot_diff(o, n, &d));
	ASSERT_EQ(2500, gl_snapshot_series(d, 0)->max_ns);
	ASSERT_TRUE(gl_snapshot_max_exact(d, 0));
	gl_snapshot_free(d);
	gl_snapshot_free(o);
	gl_snapshot_free(n);
}

/*
 * The max did not rise: bounded by the last value of the highest slot with
 * new samples, capped by the cumulative max, and inexact.
 */
TEST_F(pair, max_bound_inexact)
{
	struct gl_snapshot *o, *n, *d;
	struct gl_hist h;

	blob_record(&self->new, self->w1, 600, 2);	/* [576, 640) */
	blob_record(&self->new, self->w0, 1999, 1);	/* [1792, 2048) */
	o = blob_parse(&self->old);
	n = blob_parse(&self->new);
	ASSERT_EQ(0, gl_snapshot_diff(o, n, &d));
	ASSERT_EQ(639, gl_snapshot_series(d, 1)->max_ns);
	ASSERT_FALSE(gl_snapshot_max_exact(d, 1));
	/* slot bound 2047 is above the cumulative max 2000: capped */
	ASSERT_EQ(2000, gl_snapshot_series(d, 0)->max_ns);
	ASSERT_FALSE(gl_snapshot_max_exact(d, 0));
	gl_hist_merge(d, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP,
		      GPULAT_CPU_NONE, &h);
	ASSERT_EQ(2000, h.max_ns);
	ASSERT_FALSE(h.max_exact);
	ASSERT_EQ(3, h.count);
	gl_snapshot_free(d);
	gl_snapshot_free(o);
	gl_snapshot_free(n);
}

/* Overflow slot with no rise: the cumulative max is the bound. */
TEST_F(pair, max_bound_overflow)
{
	struct gl_snapshot *o, *n, *d;

	blob_record(&self->old, self->w1, (1ULL << 38), 1);
	blob_record(&self->new, self->w1, (1ULL << 38), 1);
	blob_record(&self->new, self->w1, (1ULL << 37) + 5, 1);
	o = blob_parse(&self->old);
	n = blob_parse(&self->new);
	ASSERT_EQ(0, gl_snapshot_diff(o, n, &d));
	ASSERT_EQ(1, gl_snapshot_series(d, 1)->count);
	ASSERT_EQ(1ULL << 38, gl_snapshot_series(d, 1)->max_ns);
	ASSERT_FALSE(gl_snapshot_max_exact(d, 1));
	gl_snapshot_free(d);
	gl_snapshot_free(o);
	gl_snapshot_free(n);
}

/* A reset in between (generation differs): the result is new itself. */
TEST_F(pair, reset_generation)
{
	struct gl_snapshot *o, *n, *d;
	const void *a, *b;
	size_t la, lb;

	blob_release(&self->new);
	blob_init(&self->new);
	self->new.hdr.generation = 2;
	self->new.hdr.reset_time_ns = self->old.hdr.time_ns + 5;
	blob_add_series(&self->new, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP,
			0, 0, "sched.wakeup", "");
	blob_record(&self->new, 0, 800, 2);
	blob_add_counter(&self->new, GPULAT_FAM_SCHED, GPULAT_SCHED_NO_START,
			 "sched.no_start", 1);
	o = blob_parse(&self->old);
	n = blob_parse(&self->new);
	ASSERT_EQ(0, gl_snapshot_diff(o, n, &d));
	ASSERT_EQ(1, gl_snapshot_nr_series(d));
	ASSERT_EQ(2, gl_snapshot_series(d, 0)->count);
	ASSERT_EQ(800, gl_snapshot_series(d, 0)->max_ns);
	ASSERT_TRUE(gl_snapshot_max_exact(d, 0));
	ASSERT_EQ(1, gl_snapshot_counter(d, 0)->value);
	ASSERT_EQ(self->new.hdr.reset_time_ns,
		  gl_snapshot_header(d)->reset_time_ns);
	/* same content as new: the rebuilt blob equals new's blob */
	a = gl_snapshot_blob(n, &la);
	b = gl_snapshot_blob(d, &lb);
	ASSERT_EQ(la, lb);
	ASSERT_EQ(0, memcmp(a, b, la));
	gl_snapshot_free(d);
	gl_snapshot_free(o);
	gl_snapshot_free(n);
}

/* A reload restarts the generation at 0: the reset time tells. */
TEST_F(pair, reload_same_generation)
{
	struct gl_snapshot *o, *n, *d;

	self->new.hdr.generation = self->old.hdr.generation;
	self->new.hdr.reset_time_ns = self->old.hdr.time_ns + 5;
	o = blob_parse(&self->old);
	n = blob_parse(&self->new);
	ASSERT_EQ(0, gl_snapshot_diff(o, n, &d));
	ASSERT_EQ(gl_snapshot_nr_series(n), gl_snapshot_nr_series(d));
	ASSERT_EQ(gl_snapshot_series(n, 0)->count,
		  gl_snapshot_series(d, 0)->count);
	ASSERT_EQ(self->new.hdr.reset_time_ns,
		  gl_snapshot_header(d)->reset_time_ns);
	gl_snapshot_free(d);
	gl_snapshot_free(o);
	gl_snapshot_free(n);
}

/* A series absent from old counts from zero; one gone from new is gone. */
TEST_F(pair, new_series)
{
	struct gl_snapshot *o, *n, *d;
	size_t p;

	p = blob_add_series(&self->new, GPULAT_FAM_SCHED,
			    GPULAT_SCHED_PREEMPT, 3, 0, "sched.preempt", "");
	blob_record(&self->new, p, 70000, 6);
	blob_add_counter(&self->new, GPULAT_FAM_SCHED, GPULAT_SCHED_EVICTED,
			 "sched.evicted", 4);
	o = blob_parse(&self->old);
	n = blob_parse(&self->new);
	ASSERT_EQ(0, gl_snapshot_diff(o, n, &d));
	ASSERT_EQ(3, gl_snapshot_nr_series(d));
	ASSERT_STREQ("sched.preempt", gl_snapshot_series(d, 2)->name);
	ASSERT_EQ(6, gl_snapshot_series(d, 2)->count);
	ASSERT_EQ(70000, gl_snapshot_series(d, 2)->max_ns);
	ASSERT_TRUE(gl_snapshot_max_exact(d, 2));
	ASSERT_EQ(4, gl_snapshot_counter(d, 1)->value);
	gl_snapshot_free(d);
	/* reversed: old has a series new lacks */
	ASSERT_EQ(0, gl_snapshot_diff(n, o, &d));
	ASSERT_EQ(2, gl_snapshot_nr_series(d));
	gl_snapshot_free(d);
	gl_snapshot_free(o);
	gl_snapshot_free(n);
}

/* A diff is a snapshot: its blob parses back to the same numbers. */
TEST_F(pair, diff_blob_reparses)
{
	struct gl_snapshot *o, *n, *d, *r;
	char err[256];
	const void *buf;
	size_t len;

	blob_record(&self->new, self->w0, 4000, 2);
	o = blob_parse(&self->old);
	n = blob_parse(&self->new);
	ASSERT_EQ(0, gl_snapshot_diff(o, n, &d));
	buf = gl_snapshot_blob(d, &len);
	ASSERT_EQ(0, gl_snapshot_parse(buf, len, &r, err, sizeof(err)));
	ASSERT_EQ(2, gl_snapshot_series(r, 0)->count);
	ASSERT_EQ(4000, gl_snapshot_series(r, 0)->max_ns);
	gl_snapshot_free(r);
	gl_snapshot_free(d);
	gl_snapshot_free(o);
	gl_snapshot_free(n);
}

/* Events are the last ones the module kept, not counts: new's are kept. */
TEST_F(pair, events_from_new)
{
	struct gl_snapshot *o, *n, *d, *r;
	const struct gpulat_event *e;
	char err[256];
	const void *buf;
	size_t len;

	blob_add_event(&self->old, 5000000000ULL, GPULAT_EVENT_XID, 31, 0,
		       "0000:3b:00.0");
	blob_add_event(&self->new, 5000000000ULL, GPULAT_EVENT_XID, 31, 0,
		       "0000:3b:00.0");
	blob_add_event(&self->new, 10500000000ULL, GPULAT_EVENT_XID, 79, 1,
		       "0000:86:00.0");
	o = blob_parse(&self->old);
	n = blob_parse(&self->new);
	ASSERT_EQ(0, gl_snapshot_diff(o, n, &d));
	ASSERT_EQ(2, gl_snapshot_nr_events(d));
	e = gl_snapshot_event(d, 1);
	ASSERT_EQ(79, e->code);
	ASSERT_EQ(10500000000ULL, e->time_ns);
	ASSERT_STREQ("0000:86:00.0", e->device);
	ASSERT_EQ(NULL, gl_snapshot_event(d, 2));
	/* the rebuilt blob is VER1 and carries them */
	buf = gl_snapshot_blob(d, &len);
	ASSERT_EQ(GPULAT_SNAP_HEADER_SIZE_VER1,
		  ((const struct gpulat_snap_header *)buf)->header_size);
	ASSERT_EQ(0, gl_snapshot_parse(buf, len, &r, err, sizeof(err)));
	ASSERT_EQ(2, gl_snapshot_nr_events(r));
	ASSERT_EQ(31, gl_snapshot_event(r, 0)->code);
	ASSERT_STREQ("0000:3b:00.0", gl_snapshot_event(r, 0)->device);
	gl_snapshot_free(r);
	gl_snapshot_free(d);
	/* reversed: old's events, whatever new had before */
	ASSERT_EQ(0, gl_snapshot_diff(n, o, &d));
	ASSERT_EQ(1, gl_snapshot_nr_events(d));
	gl_snapshot_free(d);
	gl_snapshot_free(o);
	gl_snapshot_free(n);
}

/* An ABI 1.0 snapshot (no events) against a 1.1 one, both ways. */
TEST_F(pair, events_ver0_and_ver1)
{
	struct gl_snapshot *o, *n, *d;

	self->old.ver0 = true;
	blob_add_event(&self->old, 1, GPULAT_EVENT_XID, 1, 0, "ignored");
	blob_add_event(&self->new, 9000000000ULL, GPULAT_EVENT_XID, 48, 0,
		       "0000:3b:00.0");
	blob_record(&self->new, self->w0, 2000, 1);
	o = blob_parse(&self->old);
	n = blob_parse(&self->new);
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, gl_snapshot_nr_events(o));
	ASSERT_EQ(0, gl_snapshot_header(o)->abi_minor);
	ASSERT_EQ(0, gl_snapshot_diff(o, n, &d));
	ASSERT_EQ(1, gl_snapshot_series(d, 0)->count);
	ASSERT_EQ(1, gl_snapshot_nr_events(d));
	ASSERT_EQ(48, gl_snapshot_event(d, 0)->code);
	gl_snapshot_free(d);
	ASSERT_EQ(0, gl_snapshot_diff(n, o, &d));
	ASSERT_EQ(0, gl_snapshot_nr_events(d));
	gl_snapshot_free(d);
	gl_snapshot_free(o);
	gl_snapshot_free(n);
}

TEST_HARNESS_MAIN
