// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: the root cause ranks above its effect.  The
 * scheduler's waits are another layer's doing when most of the outlier
 * time went to tasks doing that abnormal layer's work: its kernel
 * threads, the tasks its own outliers happened to, or (storage) the
 * processes that moved most of its I/O.  Neither alone is
 * enough: a holder of no layer, or of a normal one, leaves the ranking.
 */
#include "diag_cases.h"

/* the scheduler's waits on CPU 1: 200 of 20 ms (400 ms/s); memory 150 */
static void storm(FIXTURE_DATA(diag) *self, struct gl_trace_rec *recs,
		  size_t nr, int32_t pid, const char *comm, bool reclaims)
{
	size_t i;

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	blob_record(&self->end, S_MM_MEMCG, 50 * MS, 30);
	memset(recs, 0, nr * sizeof(*recs));
	for (i = 0; i < 10; i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		add_culprit(s, pid, pid, 14 * MS, comm);
		add_culprit(s, 4243, 4243, 4 * MS, "diaghog");
	}
	/* the memory layer's outliers: the holder itself, or another task */
	for (i = 10; i < nr; i++) {
		struct gpulat_rec_sample *s = &recs[i].u.sample;

		recs[i].type = GPULAT_REC_SAMPLE;
		s->family = GPULAT_FAM_MM;
		s->series = GPULAT_MM_MEMCG_RECLAIM;
		s->latency_ns = 50 * MS;
		s->pid = s->tgid = reclaims ? pid : 4300;
		strcpy(s->comm, reclaims ? comm : "other");
	}
	self->w.recs = recs;
	self->w.nr_recs = nr;
	self->w.trace_ok = true;
}

/* tasks reclaiming at their cgroup's limit held the CPU: memory first */
TEST_F(diag, reclaiming_holders_rank_memory_first)
{
	struct gl_trace_rec recs[14];

	put_comm(self->root, 5000, 5000, "stress");
	storm(self, recs, ARRAY_SIZE(recs), 5000, "stress", true);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_MEMORY, diag_ranked(self->r, 1));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 2));
	EXPECT_NE(NULL, strstr(joined(self->text), "and the cause of waits elsewhere (below)"));
	EXPECT_NE(NULL, strstr(joined(self->text), "the cause of the scheduler's waits too: its tasks held the CPU in 70% of their waits' outlier time, stress (pid 5000) the most"));
	EXPECT_NE(NULL, strstr(joined(self->text), "an effect of the memory (#1): its tasks held the CPU in 70% of these waits' outlier time, stress (pid 5000) the most"));
	EXPECT_NE(NULL, strstr(self->json, "\"effect_of\":\"memory\""));
}

/* kswapd held the CPU: memory first, with no task of its outliers */
TEST_F(diag, kswapd_holding_ranks_memory_first)
{
	struct gl_trace_rec recs[14];

	storm(self, recs, ARRAY_SIZE(recs), 45, "kswapd0", false);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_MEMORY, diag_ranked(self->r, 1));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 2));
}

/* a plain hog beside a reclaiming task: the scheduler stays first */
TEST_F(diag, unrelated_holder_leaves_the_ranking)
{
	struct gl_trace_rec recs[14];

	storm(self, recs, ARRAY_SIZE(recs), 4242, "xmrig", false);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	EXPECT_EQ(NULL, strstr(self->text, "an effect of"));
	EXPECT_NE(NULL, strstr(self->json, "\"effect_of\":null"));
}

/* kswapd held the CPU, but memory is normal: nothing is claimed */
TEST_F(diag, holder_of_a_normal_layer_claims_nothing)
{
	struct gl_trace_rec recs[10];

	storm(self, recs, ARRAY_SIZE(recs), 45, "kswapd0", false);
	/* no memory outliers at all in this window */
	blob_release(&self->end);
	layout(&self->end, T0_NS + WATCH_NS, true);
	healthy(&self->end, 10, true);
	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	EXPECT_EQ(NULL, strstr(self->text, "an effect of"));
}

/* the disk's outliers and the memcg reclaim of one task: the limit's */
static void thrash(FIXTURE_DATA(diag) *self, struct gl_trace_rec *recs,
		   size_t nr, int32_t reader)
{
	size_t i;

	blob_record(&self->end, S_BLK_READ, 60 * MS, 40);
	blob_record(&self->end, S_MM_MEMCG, 40 * MS, 30);
	memset(recs, 0, nr * sizeof(*recs));
	for (i = 0; i < nr; i++) {
		struct gpulat_rec_sample *s = &recs[i].u.sample;
		bool disk = i % 2;

		recs[i].type = GPULAT_REC_SAMPLE;
		s->family = disk ? GPULAT_FAM_BLOCK : GPULAT_FAM_MM;
		s->series = disk ? GPULAT_BLOCK_SERIES(GPULAT_BLOCK_READ,
						       GPULAT_BLOCK_DEVICE) :
			    GPULAT_MM_MEMCG_RECLAIM;
		s->key = disk ? BLOB_SDA : 0;
		s->latency_ns = disk ? 60 * MS : 40 * MS;
		s->pid = s->tgid = disk ? reader : 5000;
		strcpy(s->comm, disk && reader != 5000 ? "backup" : "memreader");
	}
	self->w.recs = recs;
	self->w.nr_recs = nr;
	self->w.trace_ok = true;
}

/* a working set over its memcg limit, read again: memory over storage */
TEST_F(diag, memcg_thrash_ranks_memory_over_storage)
{
	struct gl_trace_rec recs[20];

	thrash(self, recs, ARRAY_SIZE(recs), 5000);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_MEMORY, diag_ranked(self->r, 1));
	EXPECT_EQ(DIAG_STORAGE, diag_ranked(self->r, 2));
	EXPECT_NE(NULL, strstr(joined(self->text), "an effect of the memory (#1): its tasks issued 100% of these requests' outlier time, memreader (pid 5000) the most"));
	EXPECT_NE(NULL, strstr(self->json, "\"caused\":[\"storage\"]"));
}

/* another task's reads beside a reclaiming one: the disk stays first */
TEST_F(diag, other_reads_leave_storage_first)
{
	struct gl_trace_rec recs[20];

	thrash(self, recs, ARRAY_SIZE(recs), 6000);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_STORAGE, diag_ranked(self->r, 1));
	EXPECT_EQ(NULL, strstr(self->text, "an effect of"));
}

/*
 * An I/O storm whose reader keeps the CPU busy too: the scheduler's waits
 * on CPU 1 (400 ms/s) held by pid 5000 "loader", the disk slow (40 reads
 * of 60 ms, none traced), and /proc says whose the I/O was: @io_pid's.
 */
static void io_storm(FIXTURE_DATA(diag) *self, struct gl_trace_rec *recs,
		     size_t nr, struct diag_task *tasks, int32_t io_pid)
{
	size_t i;

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	blob_record(&self->end, S_BLK_READ, 60 * MS, 40);
	memset(recs, 0, nr * sizeof(*recs));
	for (i = 0; i < nr; i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		add_culprit(s, 5000, 5000, 14 * MS, "loader");
		add_culprit(s, 4243, 4243, 4 * MS, "diaghog");
	}
	self->w.recs = recs;
	self->w.nr_recs = nr;
	self->w.trace_ok = true;
	put_comm(self->root, 5000, 5000, "loader");
	put_comm(self->root, 6000, 6000, "backup");
	tasks[0] = (struct diag_task){ 5000, 5000, 1, 7000 * MS, "loader",
				       io_pid == 5000 ? 900ULL << 20 : 0 };
	tasks[1] = (struct diag_task){ 6000, 6000, 0, 100 * MS, "backup",
				       io_pid == 6000 ? 900ULL << 20 : 0 };
	tasks[2] = (struct diag_task){ 6001, 6001, 0, 100 * MS, "sshd",
				       10ULL << 20 };
}

/* the reader's own I/O keeps the CPU busy: storage first, then its effect */
TEST_F(diag, io_storm_ranks_storage_first)
{
	struct diag_task tasks[3];
	struct diag_tasks used = { .v = tasks, .n = ARRAY_SIZE(tasks) };
	struct gl_trace_rec recs[10];

	io_storm(self, recs, ARRAY_SIZE(recs), tasks, 5000);
	ASSERT_EQ(0, run(self, _metadata, &used));
	EXPECT_EQ(DIAG_STORAGE, diag_ranked(self->r, 1));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 2));
	EXPECT_NE(NULL, strstr(joined(self->text), "I/O by: loader pid 5000 (900.0 MiB, 99% of all)"));
	EXPECT_NE(NULL, strstr(joined(self->text), "an effect of the storage (#1): its tasks held the CPU in 70% of these waits' outlier time, loader (pid 5000) the most"));
	EXPECT_TRUE(advice_has(self->r, DIAG_STORAGE,
			       "loader (pid 5000, 99%) moved 99% of the storage I/O in the watch: if that is not the job's own loading (a backup, a copy, a scan), stop it (kill 5000)"));
	EXPECT_NE(NULL, strstr(self->json, "\"io_users\":[{\"comm\":\"loader\",\"pid\":5000,\"bytes\":943718400,"));
}

/* another process's I/O: the CPU hog is no storage work, nothing moves */
TEST_F(diag, io_of_another_leaves_the_ranking)
{
	struct diag_task tasks[3];
	struct diag_tasks used = { .v = tasks, .n = ARRAY_SIZE(tasks) };
	struct gl_trace_rec recs[10];

	io_storm(self, recs, ARRAY_SIZE(recs), tasks, 6000);
	ASSERT_EQ(0, run(self, _metadata, &used));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	EXPECT_EQ(NULL, strstr(self->text, "an effect of"));
	EXPECT_NE(NULL, strstr(joined(self->text), "I/O by: backup pid 6000 (900.0 MiB, 99% of all)"));
	EXPECT_TRUE(advice_has(self->r, DIAG_STORAGE, "backup (pid 6000, 99%) moved 99% of the storage I/O"));
	/* the small readers are not named: under a tenth of the bytes */
	EXPECT_EQ(NULL, strstr(self->text, "sshd pid 6001"));
}

TEST_HARNESS_MAIN
