// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: many short-lived processes of one name are one
 * culprit.  A loop starting a program without pause holds the CPU
 * through children that live a moment: none is named alone, each is
 * gone when the advice is read.  Summed by name (the records' own names
 * for a pid gone before the tool read its name), they are named, with
 * the process that starts them when /proc shows one alive.
 */
#include "diag_cases.h"

/* put_stat - @root/proc/@pid/stat of @comm, child of @ppid, started @start */
static void put_stat(const char *root, int pid, const char *comm, int ppid,
		     unsigned long long start)
{
	char path[PATH_MAX];
	FILE *f;

	put_comm(root, pid, pid, comm);
	snprintf(path, sizeof(path), "%s/proc/%d/stat", root, pid);
	f = fopen(path, "w");
	if (!f)
		abort();
	fprintf(f, "%d (%s) R %d 1 1 0 -1 4194304 100 0 0 0 1 1 0 0 20 0 1 0 %llu 1000 100\n",
		pid, comm, ppid, start);
	fclose(f);
	snprintf(path, sizeof(path), "%s/proc/%d/comm", root, pid);
	f = fopen(path, "w");
	if (!f)
		abort();
	fprintf(f, "%s\n", comm);
	fclose(f);
}

/* put_uptime - @root/proc/uptime of @secs */
static void put_uptime(const char *root, double secs)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/uptime", root);
	f = fopen(path, "w");
	if (!f)
		abort();
	fprintf(f, "%.2f 1.00\n", secs);
	fclose(f);
}

/*
 * 10 waits of 20 ms on CPU 1, each held by three children of 5 ms (30
 * pids): a third without a name of their own (gone before the tool read
 * it), named by the record where they waited themselves, or not at all
 */
static void storm(FIXTURE_DATA(diag) *self, struct gl_trace_rec *recs,
		  size_t nr, bool named)
{
	size_t i, k;

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, nr * sizeof(*recs));
	for (i = 0; i < 10; i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		for (k = 0; k < 3; k++) {
			int32_t pid = 6000 + 3 * i + k;

			add_culprit(s, pid, pid, 5 * MS,
				    named && k ? "true" : "");
		}
	}
	/* the unnamed children's own waits, with their names */
	for (i = 10; i < nr; i++) {
		struct gpulat_rec_sample *s;
		int32_t pid = 6000 + 3 * (i - 10);

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_PREEMPT, 2 * MS, pid,
			     pid, named ? "true" : "");
		s->flags &= ~GPULAT_REC_F_CULPRITS;
	}
	self->w.recs = recs;
	self->w.nr_recs = nr;
	self->w.trace_ok = true;
}

/* the storm's children are one culprit, and the loop starting them named */
TEST_F(diag, short_lived_children_are_one_culprit)
{
	struct gl_trace_rec recs[20];
	const struct diag_culprit *c;

	/* one child alive now, started 10 ms ago by pid 5000 */
	put_uptime(self->root, 1000.0);
	put_stat(self->root, 5000, "forkloop", 4000, 90000);
	put_stat(self->root, 6100, "true", 5000, 99999);
	storm(self, recs, ARRAY_SIZE(recs), true);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	c = diag_culprit(self->r, DIAG_SCHED, 0);
	ASSERT_NE(NULL, c);
	EXPECT_STREQ("true", c->comm);
	EXPECT_EQ(30U, c->nr_procs);
	EXPECT_EQ(-1, c->tgid);
	EXPECT_NE(NULL, strstr(joined(self->text), "CPU held by: 30 processes named true held CPU 1 in 75% of the outlier waits"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "true: 30 short-lived processes held CPU 1 in 75% of the outlier waits, none for long: forkloop (pid 5000) starts them; if it is a runaway, forgotten or unknown job, stop it (kill 5000)"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "30 short-lived processes named true hold it. Move them"));
	/* no kill for a pid of the group: each is gone */
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "kill 60"));
	EXPECT_NE(NULL, strstr(self->json, "\"processes\":30}"));
}

/* nobody alive to ask: how to find what starts them */
TEST_F(diag, short_lived_children_without_a_parent_in_sight)
{
	struct gl_trace_rec recs[20];

	put_uptime(self->root, 1000.0);
	storm(self, recs, ARRAY_SIZE(recs), true);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "true: 30 short-lived processes held CPU 1 in 75% of the outlier waits, none for long, each gone by now: find what starts them (ps -eo pid,ppid,comm | grep -w true while it runs, or execsnoop)"));
}

/*
 * never named by any record: the name of what is starting now (a young
 * process of /proc), or none
 */
TEST_F(diag, unnamed_children_named_by_what_starts_now)
{
	struct gl_trace_rec recs[20];
	const struct diag_culprit *c;

	put_uptime(self->root, 1000.0);
	put_stat(self->root, 5000, "forkloop", 4000, 90000);
	put_stat(self->root, 6100, "true", 5000, 99999);
	/* an old process of another name: not what starts now */
	put_stat(self->root, 300, "sshd", 1, 500);
	storm(self, recs, ARRAY_SIZE(recs), false);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	c = diag_culprit(self->r, DIAG_SCHED, 0);
	ASSERT_NE(NULL, c);
	EXPECT_STREQ("true", c->comm);
	EXPECT_EQ(30U, c->nr_procs);
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "forkloop (pid 5000) starts them"));
}

TEST_F(diag, unnamed_children_nothing_starting)
{
	struct gl_trace_rec recs[20];

	put_uptime(self->root, 1000.0);
	storm(self, recs, ARRAY_SIZE(recs), false);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_NE(NULL, strstr(joined(self->text), "30 processes named unnamed held CPU 1"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "30 short-lived processes, gone before they could be named, held CPU 1 in 75% of the outlier waits: find what starts them"));
}

/* two of one name are no group: a pair is named alone, or not at all */
TEST_F(diag, two_of_a_name_are_no_group)
{
	struct gl_trace_rec recs[10];
	size_t i;

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < 10; i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		add_culprit(s, 4242, 4242, 19 * MS, "xmrig");
	}
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(0U, diag_culprit(self->r, DIAG_SCHED, 0)->nr_procs);
	EXPECT_EQ(NULL, strstr(self->text, "short-lived"));
}

/* three long-lived workers of one name, each under a cause's share: no group */
TEST_F(diag, live_workers_are_no_group)
{
	struct gl_trace_rec recs[10];
	size_t i, k;

	put_uptime(self->root, 1000.0);
	for (k = 0; k < 3; k++)
		put_stat(self->root, 4250 + k, "worker", 1, 500);
	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < 10; i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		for (k = 0; k < 3; k++)
			add_culprit(s, 4250 + k, 4250 + k, 3 * MS / 2, "worker");
	}
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(NULL, strstr(self->text, "short-lived"));
	EXPECT_EQ(0U, diag_culprit(self->r, DIAG_SCHED, 0)->nr_procs);
	EXPECT_NE(NULL, strstr(joined(self->text), "worker pid 4250 held CPU 1 in 8%"));
}

/*
 * a process's threads are one culprit: one advice, its pid once; named
 * by the thread first seen (a worker thread's name may not be the
 * process's), which /proc says is still there
 */
TEST_F(diag, threads_of_a_process_are_one_culprit)
{
	struct gl_trace_rec recs[10];
	const struct diag_culprit *c;
	size_t i, k;

	put_comm(self->root, 5000, 5000, "python3");
	for (k = 0; k < 3; k++)
		put_comm(self->root, 5000, 5001 + k, "ompjob");
	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < 10; i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		for (k = 0; k < 3; k++)
			add_culprit(s, 5001 + k, 5000, 6 * MS, "ompjob");
	}
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	c = diag_culprit(self->r, DIAG_SCHED, 0);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(5001, c->pid);
	EXPECT_EQ(5000, c->tgid);
	EXPECT_EQ(0U, c->nr_procs);
	EXPECT_EQ(NULL, diag_culprit(self->r, DIAG_SCHED, 1));
	EXPECT_NE(NULL, strstr(joined(self->text), "CPU held by: ompjob pid 5000 held CPU 1 in 90% of the outlier waits"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "(kill 5000)"));
}

TEST_HARNESS_MAIN
