// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose on many CPUs: a slow CPU past the 64th, culprits that
 * have exited, waits alike on every CPU or on one alone, shares over the
 * scan's span and the /proc time delta by thread (cases of
 * diag_cases.h, as in test_diagnose.c).
 */
#include "diag_cases.h"

/* --- Many CPUs, exited culprits, waits alike, /proc time --------------- */

#define MANY_CPUS	130

/*
 * cpus_layout - sched.wakeup (series cpu) on each of @ncpus CPUs, with
 * @preempt sched.preempt too (series @ncpus + cpu), every family on,
 * @scale times a healthy 10 s on each
 */
static void cpus_layout(struct blob *b, uint64_t time_ns, uint32_t ncpus,
			uint64_t scale, bool preempt)
{
	uint32_t cpu, f;

	blob_init(b);
	b->hdr.nr_cpu_ids = ncpus;
	b->hdr.time_ns = time_ns;
	strcpy(b->hdr.kernel_release, "6.1.0-test");
	for (cpu = 0; cpu < ncpus; cpu++)
		blob_add_series(b, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP, cpu,
				0, "sched.wakeup", "");
	for (cpu = 0; preempt && cpu < ncpus; cpu++)
		blob_add_series(b, GPULAT_FAM_SCHED, GPULAT_SCHED_PREEMPT, cpu,
				0, "sched.preempt", "");
	for (f = 1; f < GPULAT_FAM_MAX; f++)
		blob_add_probe(b, f, GPULAT_PROBE_ATTACHED, 0, gl_family_name(f),
			       "some_tracepoint", 1);
	for (cpu = 0; cpu < ncpus; cpu++) {
		blob_record(b, cpu, 20 * US, 1000 * scale);
		if (preempt)
			blob_record(b, ncpus + cpu, 1 * MS, 10 * scale);
	}
}

/* many_layout - sched.wakeup on each of MANY_CPUS CPUs, every family on */
static void many_layout(struct blob *b, uint64_t time_ns, uint64_t scale)
{
	cpus_layout(b, time_ns, MANY_CPUS, scale, false);
}

/*
 * A host of 130 CPUs whose CPU 100 has the slow waits (200 wakeups of
 * 20 ms): the process that used CPU 100 is named, the one on CPU 3 (no
 * slow waits) is not, and the waits are not "alike on every CPU".
 */
TEST_F(diag, many_cpus_slow_one_past_64)
{
	struct diag_task tasks[] = {
		{ 9100, 9100, 100, 4900 * MS, "bighog", 0 },
		{ 9101, 9100, 100, 100 * MS, "bighog-io", 0 },
		{ 9003, 9003, 3, 3000 * MS, "elsewhere", 0 },
	};
	struct diag_tasks used = { .v = tasks, .n = ARRAY_SIZE(tasks) };
	const struct diag_culprit *c;

	blob_release(&self->start);
	blob_release(&self->end);
	many_layout(&self->start, T0_NS, 9);
	many_layout(&self->end, T0_NS + WATCH_NS, 10);
	blob_record(&self->end, 100, 20 * MS, 200);
	put_comm(self->root, 9100, 9100, "bighog");
	ASSERT_EQ(0, run(self, _metadata, &used));

	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	c = diag_culprit(self->r, DIAG_SCHED, 0);
	ASSERT_NE(NULL, c);
	EXPECT_STREQ("bighog", c->comm);
	EXPECT_EQ(9100, c->pid);
	EXPECT_EQ(5000 * MS, c->ns);
	EXPECT_EQ(1, cpuset_weight(&c->cpus));
	EXPECT_TRUE(cpuset_has(&c->cpus, 100));
	EXPECT_FALSE(cpuset_has(&c->cpus, 100 - 64));
	EXPECT_EQ(NULL, diag_culprit(self->r, DIAG_SCHED, 1));
	EXPECT_NE(NULL, strstr(self->text, "bighog pid 9100 used 50% of a CPU on CPU 100"));
	EXPECT_NE(NULL, strstr(self->text, "sched.wakeup CPU 100: "));
	EXPECT_NE(NULL, strstr(self->json, "\"cpus\":[100]"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "kill 9100"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "every CPU alike"));
}

/*
 * Kill advice only for a task that still runs under its name: a trace
 * culprit that had exited (tgid -1) and a process whose pid another task
 * holds now get none.
 */
TEST_F(diag, no_kill_advice_for_gone_tasks)
{
	struct diag_task tasks[] = {
		{ 4243, 4243, 1, 4800 * MS, "diaghog", 0 },
	};
	struct diag_tasks used = { .v = tasks, .n = ARRAY_SIZE(tasks) };
	struct gl_trace_rec recs[10];
	const struct diag_culprit *c;
	size_t i;

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < ARRAY_SIZE(recs); i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		/* tgid -1: it had exited */
		add_culprit(s, 4300, -1, 19 * MS, "xmrig");
	}
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	/* pid 4243 is another program now */
	put_comm(self->root, 4243, 4243, "bash");
	/* and a thread 4300 of another process lives (the id was reused) */
	put_comm(self->root, 4300, 4300, "sshd");
	ASSERT_EQ(0, run(self, _metadata, &used));

	c = diag_culprit(self->r, DIAG_SCHED, 0);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(4300, c->pid);
	EXPECT_EQ(-1, c->tgid);
	c = diag_culprit(self->r, DIAG_SCHED, 1);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(4243, c->pid);
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "kill 4300"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "kill 4243"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "taskset -a -pc LIST 4243"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "xmrig (thread 4300) held CPU 1 in 95% of the outlier waits but had exited when the trace named it: nothing to release."));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "treat the host as compromised"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "diaghog (pid 4243) used 48% of a CPU on CPU 1 but has exited or been replaced since (/proc/4243 is no longer diaghog)"));
}

/*
 * "Tasks wait on every CPU alike" only when they do: all four CPUs with
 * the same slow waits; not when three have a sixth of the worst CPU's
 * (each still "slow" enough to look for users there).
 */
TEST_F(diag, waits_alike_only_when_alike)
{
	uint32_t cpu;

	for (cpu = 0; cpu < NCPUS; cpu++)
		blob_record(&self->end, S_WAKE + cpu, 20 * MS, cpu == 1 ? 600 : 100);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "every CPU alike"));
	/* no culprit known: where to look, all four CPUs being slow */
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "Find who holds CPUs 0,1,2,3:"));
}

TEST_F(diag, waits_alike_on_every_cpu)
{
	uint32_t cpu;

	for (cpu = 0; cpu < NCPUS; cpu++)
		blob_record(&self->end, S_WAKE + cpu, 20 * MS,
			    cpu == 1 ? 230 : 200);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "every CPU alike"));
}

/*
 * CPU shares divide by the time between the two /proc scans, which span
 * more than the watch: 4.9 s of CPU over 20 s between the scans is 24.5%
 * of a CPU, under the quarter that names a process.
 */
TEST_F(diag, shares_over_the_scans_span)
{
	struct diag_task tasks[] = {
		{ 4242, 4242, 1, 4900 * MS, "xmrig", 0 },
		{ 4243, 4243, 1, 6000 * MS, "diaghog", 0 },
	};
	struct diag_tasks used = { .v = tasks, .n = ARRAY_SIZE(tasks),
				   .span_s = 20 };
	const struct diag_culprit *c;

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	ASSERT_EQ(0, run(self, _metadata, &used));
	c = diag_culprit(self->r, DIAG_SCHED, 0);
	ASSERT_NE(NULL, c);
	EXPECT_STREQ("diaghog", c->comm);
	EXPECT_LE(0.2999, c->share);
	EXPECT_GE(0.3001, c->share);
	EXPECT_EQ(NULL, diag_culprit(self->r, DIAG_SCHED, 1));
}

/*
 * diag_tasks_delta matches threads by id in any order (sorted, searched),
 * a reused id (another process) counts from zero, and the span is the
 * time between the scans.
 */
TEST(tasks_delta_matches_by_thread)
{
	enum { N = 5000 };
	struct diag_tasks a = { 0 }, b = { 0 }, d = { 0 };
	size_t i;

	a.v = calloc(N, sizeof(*a.v));
	b.v = calloc(N, sizeof(*b.v));
	ASSERT_NE(NULL, a.v);
	ASSERT_NE(NULL, b.v);
	a.n = b.n = N;
	for (i = 0; i < N; i++) {
		/* before: descending ids; after: ascending */
		a.v[i].pid = a.v[i].tgid = (int32_t)(N - i);
		a.v[i].cpu_ns = (N - i) * MS;
		b.v[i].pid = b.v[i].tgid = (int32_t)(i + 1);
		b.v[i].cpu_ns = (i + 1) * MS + (i + 1) * US;
	}
	b.v[9].tgid = 99999;		/* id 10 reused by another process */
	a.time_ns = 5 * 1000000000ULL;
	b.time_ns = 17500000000ULL;
	ASSERT_EQ(0, diag_tasks_delta(&a, &b, &d));
	ASSERT_EQ(N, d.n);
	for (i = 0; i < N; i++) {
		uint64_t want = i == 9 ? 10 * MS + 10 * US : (i + 1) * US;

		EXPECT_EQ(b.v[i].pid, d.v[i].pid);
		EXPECT_EQ(want, d.v[i].cpu_ns);
	}
	EXPECT_LE(12.4999, d.span_s);
	EXPECT_GE(12.5001, d.span_s);
	diag_tasks_free(&a);
	diag_tasks_free(&b);
	diag_tasks_free(&d);
}

/* --- Where the waits are: one CPU, or every CPU alike ------------------ */

/* cpus_watch - the fixture's start and end replaced by cpus_layout()'s */
static void cpus_watch(FIXTURE_DATA(diag) *self, uint32_t ncpus)
{
	blob_release(&self->start);
	blob_release(&self->end);
	cpus_layout(&self->start, T0_NS, ncpus, 9, true);
	cpus_layout(&self->end, T0_NS + WATCH_NS, ncpus, 10, true);
}

/*
 * two_hogs_on_cpu1 - what two CPU hogs pinned to CPU 1 do there in 10 s:
 * 200 wakeups of 20 ms (19.9 ms each beyond the floor of 100 us) and 300
 * preemptions of 10 ms (5 ms beyond 5 ms, counted half): 4.73 s
 */
static void two_hogs_on_cpu1(struct blob *end, uint32_t ncpus)
{
	blob_record(end, 1, 20 * MS, 200);
	blob_record(end, ncpus + 1, 10 * MS, 300);
}

/*
 * other_cpus_waits - on every CPU but 1, 580 wakeups of 5 ms: 4.9 ms each
 * beyond the floor, 2.84 s, 60% of CPU 1's.  Half of the worst CPU's was
 * the old bar of "alike": these waits passed it, and the diagnosis said
 * to reduce the parallelism while the hogs sat on CPU 1.
 */
static void other_cpus_waits(struct blob *end, uint32_t ncpus)
{
	uint32_t cpu;

	for (cpu = 0; cpu < ncpus; cpu++)
		if (cpu != 1)
			blob_record(end, cpu, 5 * MS, 580);
}

/*
 * Two hogs pinned to CPU 1 of 2, CPU 0 with 60% of its waits (emulation,
 * a busy CPU 0): the contention is on CPU 1, where the hogs are, and not
 * "on every CPU alike".
 */
TEST_F(diag, hogs_pinned_one_cpu_of_two)
{
	struct diag_task tasks[] = {
		{ 4242, 4242, 1, 4900 * MS, "xmrig", 0 },
		{ 4243, 4243, 1, 4800 * MS, "hog", 0 },
	};
	struct diag_tasks used = { .v = tasks, .n = ARRAY_SIZE(tasks) };

	put_comm(self->root, 4243, 4243, "hog");
	cpus_watch(self, 2);
	two_hogs_on_cpu1(&self->end, 2);
	other_cpus_waits(&self->end, 2);
	ASSERT_EQ(0, run(self, _metadata, &used));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "every CPU alike"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "parallelism"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "The contention is on CPU 1, not on every CPU: xmrig (pid 4242) and hog (pid 4243) hold it."));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "kill 4243"));
	EXPECT_NE(NULL, strstr(self->json,
			       "\"waits_alike\":false,\"contention_cpus\":[1]"));
	/* "(pid 4243)" would end a line at "(pid": it stays whole */
	EXPECT_NE(NULL, strstr(self->text, "and hog\n    (pid 4243) hold it."));
	EXPECT_EQ(NULL, strstr(self->text, "(pid\n"));
	EXPECT_EQ(NULL, strstr(self->text, " CPU\n"));
}

/*
 * Two copies of one job on one CPU get one advice, naming both pids; a
 * third task of another name still gets its own (the demo's two "hog"s).
 */
TEST_F(diag, two_alike_hogs_one_advice)
{
	struct diag_task tasks[] = {
		{ 4242, 4242, 1, 4900 * MS, "hog", 0 },
		{ 4243, 4243, 1, 4800 * MS, "hog", 0 },
	};
	struct diag_tasks used = { .v = tasks, .n = ARRAY_SIZE(tasks) };

	put_comm(self->root, 4242, 4242, "hog");
	put_comm(self->root, 4243, 4243, "hog");
	cpus_watch(self, 2);
	two_hogs_on_cpu1(&self->end, 2);
	ASSERT_EQ(0, run(self, _metadata, &used));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "hog (pids 4242 and 4243) used 49% and 48% of a CPU on CPU 1: if they are runaway, forgotten or unknown jobs, release them (kill 4242 4243)"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "hog (pid 4242) used"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "hog (pid 4243) used"));
}

/* Three copies of one job (a container's workers): all three pids, one line. */
TEST_F(diag, three_alike_hogs_one_advice)
{
	struct diag_task tasks[] = {
		{ 4242, 4242, 1, 3300 * MS, "worker", 0 },
		{ 4243, 4243, 1, 3200 * MS, "worker", 0 },
		{ 4244, 4244, 1, 3100 * MS, "worker", 0 },
	};
	struct diag_tasks used = { .v = tasks, .n = ARRAY_SIZE(tasks) };

	put_comm(self->root, 4242, 4242, "worker");
	put_comm(self->root, 4243, 4243, "worker");
	put_comm(self->root, 4244, 4244, "worker");
	cpus_watch(self, 2);
	two_hogs_on_cpu1(&self->end, 2);
	ASSERT_EQ(0, run(self, _metadata, &used));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "worker (pids 4242, 4243 and 4244) used 33%, 32% and 31% of a CPU on CPU 1: if they are runaway, forgotten or unknown jobs, release them (kill 4242 4243 4244)"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "worker (pid 4244) used"));
}

/* One of the three gone: the two still there, the third said gone. */
TEST_F(diag, alike_hogs_one_gone)
{
	struct diag_task tasks[] = {
		{ 4242, 4242, 1, 3300 * MS, "worker", 0 },
		{ 4243, 4243, 1, 3200 * MS, "worker", 0 },
		{ 4244, 4244, 1, 3100 * MS, "worker", 0 },
	};
	struct diag_tasks used = { .v = tasks, .n = ARRAY_SIZE(tasks) };

	put_comm(self->root, 4242, 4242, "worker");
	put_comm(self->root, 4243, 4243, "worker");
	cpus_watch(self, 2);
	two_hogs_on_cpu1(&self->end, 2);
	ASSERT_EQ(0, run(self, _metadata, &used));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "worker (pids 4242 and 4243) used 33% and 32% of a CPU on CPU 1"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "kill 4242 4243 4244"));
}

/* The same on CPU 1 of 8, the other seven at 60%, culprits from the trace. */
TEST_F(diag, hogs_pinned_one_cpu_of_eight)
{
	struct gl_trace_rec recs[20];
	size_t i;

	cpus_watch(self, 8);
	two_hogs_on_cpu1(&self->end, 8);
	other_cpus_waits(&self->end, 8);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < ARRAY_SIZE(recs); i++) {
		int32_t me = i % 2 ? 4242 : 4243, other = i % 2 ? 4243 : 4242;
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_PREEMPT, 10 * MS, me, me,
			     i % 2 ? "xmrig" : "diaghog");
		add_culprit(s, other, other, 10 * MS,
			    i % 2 ? "diaghog" : "xmrig");
	}
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "every CPU alike"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "The contention is on CPU 1, not on every CPU: xmrig (pid 4242) and diaghog (pid 4243) hold it."));
	EXPECT_NE(NULL, strstr(self->text,
			       "xmrig pid 4242 held CPU 1 in 50% of the outlier waits"));
	EXPECT_NE(NULL, strstr(self->json, "\"contention_cpus\":[1]"));
}

/*
 * More runnable threads than CPUs on all 8: every CPU within 87% of the
 * worst, the busiest processes on different CPUs.  Alike: reduce the
 * parallelism, and no single CPU is named.
 */
TEST_F(diag, uniform_overload_is_alike)
{
	struct diag_task tasks[] = {
		{ 5000, 5000, 0, 9000 * MS, "loader", 0 },
		{ 5001, 5001, 3, 8900 * MS, "loader", 0 },
		{ 5002, 5002, 6, 8800 * MS, "loader", 0 },
	};
	struct diag_tasks used = { .v = tasks, .n = ARRAY_SIZE(tasks) };
	uint32_t cpu;

	cpus_watch(self, 8);
	for (cpu = 0; cpu < 8; cpu++)
		blob_record(&self->end, cpu, 20 * MS, cpu == 5 ? 230 : 200);
	ASSERT_EQ(0, run(self, _metadata, &used));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "Tasks wait on every CPU alike"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "reduce the parallelism"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "The contention is on"));
	EXPECT_NE(NULL, strstr(self->json,
			       "\"waits_alike\":true,\"contention_cpus\":[]"));
}

/*
 * Waits alike by the numbers (CPU 0 at 90% of CPU 1), but every task the
 * trace names as holding the CPU held CPU 1: the contention is there.
 */
TEST_F(diag, culprits_on_one_cpu_are_not_alike)
{
	struct gl_trace_rec recs[10];
	size_t i;

	cpus_watch(self, 2);
	blob_record(&self->end, 1, 20 * MS, 200);
	blob_record(&self->end, 0, 20 * MS, 180);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < ARRAY_SIZE(recs); i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     777, "feeder");
		add_culprit(s, 4243, 4243, 19 * MS, "diaghog");
	}
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "every CPU alike"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "The contention is on CPU 1, not on every CPU: diaghog (pid 4243) holds it. Move it,"));
	EXPECT_NE(NULL, strstr(self->json, "\"contention_cpus\":[1]"));
}

TEST_HARNESS_MAIN
