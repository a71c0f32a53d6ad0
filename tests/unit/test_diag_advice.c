// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: each advice only where its precondition holds on the
 * host it runs on (a fake /proc under GPULAT_SYSROOT): host shortage
 * only with reclaim for the host and said against MemAvailable, memcg
 * reclaim told apart, queue advice only where queue time dominates,
 * every miner-named process first and with all its pids, drop notes that
 * name their counters.
 */
#include "diag_cases.h"

/* put_meminfo - @root/proc/meminfo with @total and @avail (kB) */
static void put_meminfo(const char *root, uint64_t total, uint64_t avail)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	f = fopen(path, "w");
	if (!f)
		abort();
	fprintf(f, "MemTotal:       %llu kB\nMemFree:        %llu kB\nMemAvailable:   %llu kB\n",
		(unsigned long long)total, (unsigned long long)avail / 2,
		(unsigned long long)avail);
	fclose(f);
}

#define GIB_KB	(1024ULL * 1024)

/*
 * held_by - 200 waits of 20 ms on CPU 1 whose 10 outlier records name
 * task @pid @comm as holding the CPU for @ns of each
 */
static void held_by(FIXTURE_DATA(diag) *self, struct gl_trace_rec *recs,
		    size_t nr, int32_t pid, uint64_t ns, const char *comm)
{
	size_t i;

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, nr * sizeof(*recs));
	for (i = 0; i < nr; i++)
		add_culprit(wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP,
				     20 * MS, 777, 770, "feeder"),
			    pid, pid, ns, comm);
	self->w.recs = recs;
	self->w.nr_recs = nr;
	self->w.trace_ok = true;
}

/* reclaim at a cgroup's limit with 22 of 24 GiB available: no shortage */
TEST_F(diag, memcg_reclaim_is_not_host_shortage)
{
	put_meminfo(self->root, 24 * GIB_KB, 22 * GIB_KB);
	blob_record(&self->end, S_MM_MEMCG, 100 * MS, 30);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_MEMORY, diag_ranked(self->r, 1));
	EXPECT_TRUE(advice_has(self->r, DIAG_MEMORY,
			       "Tasks reclaim at their memory cgroup's limit (mm.memcg_reclaim), not for want of host memory (MemAvailable now 22.0 GiB of 24.0 GiB)"));
	EXPECT_FALSE(advice_has(self->r, DIAG_MEMORY, "runs short"));
	EXPECT_FALSE(advice_has(self->r, DIAG_MEMORY, "vm.min_free_kbytes"));
	EXPECT_FALSE(advice_has(self->r, DIAG_MEMORY, "compaction"));
}

/* reclaim for the host while most memory is available: said so */
TEST_F(diag, direct_reclaim_with_memory_available)
{
	put_meminfo(self->root, 24 * GIB_KB, 22 * GIB_KB);
	blob_record(&self->end, S_MM_RECLAIM, 100 * MS, 30);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_MEMORY, diag_ranked(self->r, 1));
	EXPECT_TRUE(advice_has(self->r, DIAG_MEMORY,
			       "yet a fifth or more of the memory is available (MemAvailable now 22.0 GiB of 24.0 GiB)"));
	EXPECT_FALSE(advice_has(self->r, DIAG_MEMORY, "runs short"));
	EXPECT_FALSE(advice_has(self->r, DIAG_MEMORY, "memory cgroup"));
}

/* reclaim for the host with 512 MiB of 24 GiB available: a shortage */
TEST_F(diag, direct_reclaim_short_of_memory)
{
	put_meminfo(self->root, 24 * GIB_KB, 512 * 1024);
	blob_record(&self->end, S_MM_RECLAIM, 100 * MS, 30);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_TRUE(advice_has(self->r, DIAG_MEMORY,
			       "the host runs short of free memory (MemAvailable now 512 MiB of 24.0 GiB)"));
	EXPECT_FALSE(advice_has(self->r, DIAG_MEMORY, "yet a fifth"));
}

/* device time the cause, a little queue time beside it: no queue advice */
TEST_F(diag, queue_advice_only_where_queue_time_dominates)
{
	blob_record(&self->end, S_BLK_READ, 60 * MS, 40);
	blob_record(&self->end, S_BLK_QUEUE, 3 * MS, 40);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_STORAGE, diag_ranked(self->r, 1));
	EXPECT_FALSE(advice_has(self->r, DIAG_STORAGE, "I/O scheduler"));
	EXPECT_TRUE(advice_has(self->r, DIAG_STORAGE, "Disk sda"));
}

TEST_F(diag, queue_advice_where_queue_time_dominates)
{
	blob_record(&self->end, S_BLK_READ, 3 * MS, 40);
	blob_record(&self->end, S_BLK_QUEUE, 60 * MS, 40);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_STORAGE, diag_ranked(self->r, 1));
	EXPECT_TRUE(advice_has(self->r, DIAG_STORAGE,
			       "Requests wait in the I/O scheduler longer than the disk takes to serve them"));
}

/*
 * A miner-named process with two pids, one a small share of the waits:
 * both named, first in the layer's advice, in one kill line; a task of
 * another name keeps its own advice after it.
 */
TEST_F(diag, every_miner_pid_leads_the_advice)
{
	struct gl_trace_rec recs[10];
	const char *a;
	size_t i;

	put_comm(self->root, 4244, 4244, "xmrig");
	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < ARRAY_SIZE(recs); i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		add_culprit(s, 4243, 4243, 15 * MS, "diaghog");
		add_culprit(s, 4242, 4242, 4 * MS, "xmrig");
		/* 1 of 200 ms: under every share a culprit needs */
		if (!i)
			add_culprit(s, 4244, 4244, MS / 2, "xmrig");
	}
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	a = diag_advice(self->r, DIAG_SCHED, 0);
	ASSERT_NE(NULL, a);
	EXPECT_NE(NULL, strstr(a, "xmrig (pid 4242), xmrig (pid 4244) have the name of a cryptominer"));
	EXPECT_NE(NULL, strstr(a, "(kill 4242 4244;"));
	EXPECT_NE(NULL, strstr(a, "treat the host as compromised"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "diaghog (pid 4243)"));
	/* once: not again as a culprit of its own */
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "release it now (kill 4242"));
}

/* No miner: no such advice. */
TEST_F(diag, no_miner_no_miner_advice)
{
	struct gl_trace_rec recs[10];

	held_by(self, recs, ARRAY_SIZE(recs), 4243, 19 * MS, "diaghog");
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "cryptominer"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "diaghog (pid 4243)"));
}

/* A drop note names each counter; a queue's drops are told as such. */
TEST_F(diag, drop_notes_name_their_counters)
{
	blob_add_counter(&self->start, GPULAT_FAM_BLOCK,
			 GPULAT_BLOCK_NO_START, "block.no_start", 0);
	blob_add_counter(&self->end, GPULAT_FAM_BLOCK, GPULAT_BLOCK_NO_START,
			 "block.no_start", 500);
	blob_add_counter(&self->start, GPULAT_FAM_NET, GPULAT_NET_EXPIRED,
			 "net.expired", 0);
	blob_add_counter(&self->end, GPULAT_FAM_NET, GPULAT_NET_EXPIRED,
			 "net.expired", 400);
	blob_record(&self->end, S_NET_TX, 30 * MS, 40);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_NE(NULL, strstr(self->text, "(block.no_start 500; gpulat"));
	EXPECT_NE(NULL, strstr(self->text, "(net.expired 400)"));
	EXPECT_NE(NULL, strstr(self->text, "tc -s qdisc show"));
}

/* A kernel thread holding the CPU: never "kill", what keeps it busy. */
TEST_F(diag, kernel_thread_is_not_killed)
{
	struct gl_trace_rec recs[10];
	char path[PATH_MAX];
	FILE *f;

	put_comm(self->root, 45, 45, "kdamond.0");
	snprintf(path, sizeof(path), "%s/proc/45/stat", self->root);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	/* flags 0x208040: PF_KTHREAD among them; a ')' in the name */
	fprintf(f, "45 (kdamond.0) S 2 0 0 0 -1 2129984 0 0 0 0 0 0\n");
	fclose(f);
	held_by(self, recs, ARRAY_SIZE(recs), 45, 19 * MS, "kdamond.0");
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "it is a kernel thread, which no signal ends: find what keeps it busy (cat /proc/45/stack"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "kill 45"));
}

/*
 * Two hogs the trace names with a tenth of the outlier wait each (the
 * rest beyond the switch history), and /proc says each used half of the
 * slow CPU: causes, released by pid.
 */
TEST_F(diag, trace_and_cpu_time_agree_on_a_cause)
{
	struct diag_task tasks[] = {
		{ 4242, 4242, 1, 5000 * MS, "xhog", 0 },
		{ 4243, 4243, 1, 5000 * MS, "diaghog", 0 },
	};
	struct diag_tasks used = { .v = tasks, .n = ARRAY_SIZE(tasks) };
	struct gl_trace_rec recs[10];
	size_t i;

	put_comm(self->root, 4242, 4242, "xhog");
	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < ARRAY_SIZE(recs); i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		add_culprit(s, 4242, 4242, 1900 * 1000, "xhog");
		add_culprit(s, 4243, 4243, 1900 * 1000, "diaghog");
	}
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	ASSERT_EQ(0, run(self, _metadata, &used));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "held CPU 1 in 10% of the outlier waits, used 50% of a CPU"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "kill 4243"));
	EXPECT_NE(NULL, strstr(self->json, "\"cpu_share\":0.5"));
}

/* the same shares without /proc: not named as causes */
TEST_F(diag, a_tenth_of_the_wait_alone_is_no_cause)
{
	struct gl_trace_rec recs[10];

	held_by(self, recs, ARRAY_SIZE(recs), 4243, 1500 * 1000, "diaghog");
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "kill 4243"));
}

/* The pid namespace's init holding the CPU: never "kill 1". */
TEST_F(diag, init_is_not_killed)
{
	struct gl_trace_rec recs[10];

	put_comm(self->root, 1, 1, "systemd");
	held_by(self, recs, ARRAY_SIZE(recs), 1, 19 * MS, "systemd");
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "it is the init of this pid namespace, which takes the host or the container down with it: never kill it"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "kill 1)"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "release it (kill 1"));
}

TEST_HARNESS_MAIN
