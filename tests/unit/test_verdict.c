// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat serve's rolling verdict: the diagnosis of the snapshots and
 * records of its window, its metrics, the window kept as it moves, the
 * snapshots it keeps and the CPU share it keeps to.
 */
#include "diag_cases.h"
#include "engine/verdict/verdict.h"

static char *prom_text(const struct verdict *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	verdict_prom(f, v);
	fclose(f);
	return buf;
}

/* two hogs' waits on CPU 1 in the window: the scheduler, xmrig first */
TEST_F(diag, verdict_names_the_layer_and_who)
{
	struct gl_snapshot *a, *b;
	struct gl_trace_rec rec;
	struct verdict v;
	char *text, line[256];
	size_t i;

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	a = blob_parse(&self->start);
	b = blob_parse(&self->end);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, verdict_init(&v, 10));
	v.trace_ok = true;
	v.thresholds[GPULAT_FAM_SCHED] = 10 * MS;
	verdict_add_snap(&v, a);
	for (i = 0; i < 10; i++) {
		memset(&rec, 0, sizeof(rec));
		add_culprit(wait_rec(&rec, 1, GPULAT_SCHED_WAKEUP, 20 * MS,
				     777, 770, "feeder"),
			    4242, 4242, 19 * MS, "xmrig");
		rec.time_ns = T0_NS + (i + 1) * 100 * MS;
		verdict_add_rec(&v, &rec);
	}
	/* one from before the window: not the window's */
	rec.time_ns = T0_NS - MS;
	verdict_add_rec(&v, &rec);
	verdict_add_snap(&v, b);
	ASSERT_EQ(0, verdict_compute(&v));
	EXPECT_TRUE(v.res.abnormal);
	EXPECT_EQ(DIAG_SCHED, v.res.first);
	EXPECT_EQ(4242, v.res.culprit_pid);
	EXPECT_STREQ("xmrig", v.res.culprit);
	EXPECT_LT(380, v.res.score_ms[DIAG_SCHED]);
	EXPECT_STREQ("scheduler 387.1ms/s over the last 10 s, xmrig (pid 4242) first",
		     verdict_text(line, sizeof(line), &v));
	text = prom_text(&v);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "\ngpulat_verdict_first{layer=\"scheduler\",culprit=\"xmrig\",cgroup=\"\"} 1\n"));
	EXPECT_NE(NULL, strstr(text, "\ngpulat_verdict_score_ratio{layer=\"scheduler\"} 0.38"));
	EXPECT_NE(NULL, strstr(text, "\ngpulat_verdict_window_seconds 10.000\n"));
	EXPECT_NE(NULL, strstr(text, "\ngpulat_verdicts_total{result=\"made\"} 1\n"));
	free(text);
	verdict_free(&v);
	gl_snapshot_free(a);
	gl_snapshot_free(b);
}

/* a quiet window: "none", and no verdict before two snapshots */
TEST_F(diag, verdict_none_when_quiet)
{
	struct gl_snapshot *a, *b;
	struct verdict v;
	char *text;

	a = blob_parse(&self->start);
	b = blob_parse(&self->end);
	ASSERT_EQ(0, verdict_init(&v, 10));
	verdict_add_snap(&v, a);
	EXPECT_EQ(-ENODATA, verdict_compute(&v));
	text = prom_text(&v);
	EXPECT_EQ(NULL, strstr(text, "gpulat_verdict_first"));
	free(text);
	verdict_add_snap(&v, b);
	ASSERT_EQ(0, verdict_compute(&v));
	EXPECT_FALSE(v.res.abnormal);
	text = prom_text(&v);
	EXPECT_NE(NULL, strstr(text, "\ngpulat_verdict_first{layer=\"none\",culprit=\"\",cgroup=\"\"} 1\n"));
	free(text);
	verdict_free(&v);
	gl_snapshot_free(a);
	gl_snapshot_free(b);
}

/*
 * The window moves: of snapshots at 0, 10 and 25 s with a 10 s window,
 * the newest at or before its start (10 s) and the newest are kept.
 */
TEST_F(diag, verdict_window_moves)
{
	struct gl_snapshot *a, *b, *c;
	struct blob late;
	struct verdict v;

	layout(&late, T0_NS + 25 * 1000 * MS, true);
	healthy(&late, 20, true);
	a = blob_parse(&self->start);
	b = blob_parse(&self->end);
	c = blob_parse(&late);
	ASSERT_EQ(0, verdict_init(&v, 10));
	verdict_add_snap(&v, a);
	verdict_add_snap(&v, b);
	EXPECT_EQ(2, v.nr_snaps);
	verdict_add_snap(&v, c);
	EXPECT_EQ(2, v.nr_snaps);
	ASSERT_EQ(0, verdict_compute(&v));
	EXPECT_EQ(15, (int)(v.res.window_s + 0.5));
	verdict_free(&v);
	gl_snapshot_free(a);
	gl_snapshot_free(b);
	gl_snapshot_free(c);
	blob_release(&late);
}

/*
 * A snapshot a second for 40 s, a 10 s window: at most one kept per 2.5 s
 * and the newest (6, not 11), and the span judged is 10 to 13.5 s.
 */
TEST_F(diag, verdict_keeps_few_snapshots)
{
	struct gl_snapshot *s;
	struct verdict v;
	struct blob b;
	size_t most = 0;
	int i;

	ASSERT_EQ(0, verdict_init(&v, 10));
	for (i = 0; i <= 40; i++) {
		layout(&b, T0_NS + (uint64_t)i * 1000 * MS, true);
		healthy(&b, 20 + i, true);
		s = blob_parse(&b);
		ASSERT_NE(NULL, s);
		verdict_add_snap(&v, s);
		gl_snapshot_free(s);	/* the verdict's own reference stays */
		blob_release(&b);
		if (v.nr_snaps > most)
			most = v.nr_snaps;
		if (i < 10)
			continue;
		v.cost_s = 0;	/* the share is another test's */
		ASSERT_EQ(0, verdict_compute(&v));
		EXPECT_LE(10.0, v.res.window_s);
		EXPECT_GE(13.5, v.res.window_s);
	}
	EXPECT_GE(6, most);
	EXPECT_LE(5, most);
	verdict_free(&v);
}

/*
 * Over its CPU share (VERDICT_CPU_SHARE of the time since the first
 * snapshot), a verdict is put off and counted; the last one stays.  Once
 * the time has caught up, the next is made, and it judges all since the
 * end of the last one made: no second goes unjudged.
 */
TEST_F(diag, verdict_put_off_over_its_share)
{
	struct gl_snapshot *a, *b, *c, *d;
	struct blob late, later;
	struct verdict v;
	char *text;

	layout(&late, T0_NS + 15 * 1000 * MS, true);
	healthy(&late, 20, true);
	layout(&later, T0_NS + 40 * 1000 * MS, true);
	healthy(&later, 20, true);
	a = blob_parse(&self->start);
	b = blob_parse(&self->end);
	c = blob_parse(&late);
	d = blob_parse(&later);
	ASSERT_EQ(0, verdict_init(&v, 10));
	verdict_add_snap(&v, a);
	verdict_add_snap(&v, b);
	ASSERT_EQ(0, verdict_compute(&v));
	/* as if it had taken the share of 20 s */
	v.cost_s = VERDICT_CPU_SHARE * 20;
	verdict_add_snap(&v, c);
	EXPECT_EQ(-EBUSY, verdict_compute(&v));
	EXPECT_EQ(1, v.computed);
	EXPECT_EQ(1, v.deferred);
	EXPECT_EQ(10, (int)(v.res.window_s + 0.5));
	text = prom_text(&v);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "\ngpulat_verdicts_total{result=\"deferred\"} 1\n"));
	free(text);
	/* 40 s on: made, from the last one's end (10 s) */
	verdict_add_snap(&v, d);
	ASSERT_EQ(0, verdict_compute(&v));
	EXPECT_EQ(2, v.computed);
	EXPECT_EQ(30, (int)(v.res.window_s + 0.5));
	verdict_free(&v);
	gl_snapshot_free(a);
	gl_snapshot_free(b);
	gl_snapshot_free(c);
	gl_snapshot_free(d);
	blob_release(&late);
	blob_release(&later);
}

/*
 * Verdicts never made (always put off) keep no more than
 * VERDICT_MAX_SPANS windows of snapshots.
 */
TEST_F(diag, verdict_put_off_keeps_a_bound)
{
	struct gl_snapshot *s;
	struct verdict v;
	struct blob bl;
	int i;

	ASSERT_EQ(0, verdict_init(&v, 10));
	for (i = 0; i <= 100; i++) {
		layout(&bl, T0_NS + (uint64_t)i * 1000 * MS, true);
		healthy(&bl, 20 + i, true);
		s = blob_parse(&bl);
		ASSERT_NE(NULL, s);
		verdict_add_snap(&v, s);
		gl_snapshot_free(s);
		blob_release(&bl);
		if (i == 1)
			ASSERT_EQ(0, verdict_compute(&v));
		v.cost_s = 1e6;		/* never again */
		if (i > 1)
			ASSERT_EQ(-EBUSY, verdict_compute(&v));
		ASSERT_GE(VERDICT_MAX_SPANS * VERDICT_STEP + 2, v.nr_snaps);
	}
	EXPECT_EQ(99, v.deferred);
	verdict_free(&v);
}

TEST_HARNESS_MAIN
