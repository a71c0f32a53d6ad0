// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: the verdict over synthetic watches.  Each case builds
 * the totals at the start of a watch (the baseline) and at its end (the
 * start plus what happened while watching) as snapshot blobs, 10 s apart,
 * and asserts the ranking, the scores and the evidence.  Many CPUs,
 * exited culprits and where the waits are: test_diag_cpus.c.
 */
#include <sys/wait.h>

#include "diag_cases.h"

TEST_F(diag, quiet_host_nothing_abnormal)
{
	enum diag_layer l;

	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_FALSE(diag_abnormal(self->r));
	for (l = 0; l < DIAG_NR_LAYERS; l++) {
		struct diag_layer_info li;

		diag_layer_get(self->r, l, &li);
		EXPECT_TRUE(li.measured);
		EXPECT_FALSE(li.abnormal);
	}
	/* within a bucket width (12.5%) below the true 0.4 ms/s */
	EXPECT_LE(0.35, score_ms(self->r, DIAG_SCHED));
	EXPECT_GE(0.40, score_ms(self->r, DIAG_SCHED));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	EXPECT_NE(NULL, strstr(self->text, "Verdict: nothing abnormal."));
	EXPECT_NE(NULL, strstr(self->json, "\"abnormal\":false,\"verdict\":null"));
	/* no advice for a normal layer */
	EXPECT_EQ(NULL, strstr(self->text, "next:"));
}

/*
 * Two CPU hogs on CPU 1: 200 wakeups of 20 ms and 300 preemptions of
 * 10 ms there.  The wakeups' bound is the floor, 100 us (the baseline's
 * p99 was 20 us); the preemptions' the expected 5 ms (their baseline is
 * too thin).  Beyond normal: 200 x 19.9 ms + 50% x 300 x 5 ms = 4.73 s
 * in 10 s, 473 ms/s, plus the healthy 0.4 ms/s (the estimate takes each
 * slot's samples as spread below their maximum: up to 12.5% less).  The
 * CPU users name the hogs, the first with a miner's name.
 */
TEST_F(diag, hogs_rank_scheduler_first)
{
	struct diag_task tasks[] = {
		{ 4242, 4242, 1, 4900 * MS, "xmrig", 0 },
		{ 4243, 4243, 1, 4800 * MS, "diaghog", 0 },
		{ 100, 100, 0, 100 * MS, "bash", 0 },
		{ 555, 555, 3, 3000 * MS, "elsewhere", 0 },
	};
	struct diag_tasks used = { .v = tasks, .n = ARRAY_SIZE(tasks) };
	const struct diag_culprit *c;
	struct diag_layer_info li;

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	blob_record(&self->end, S_PREEMPT + 1, 10 * MS, 300);
	ASSERT_EQ(0, run(self, _metadata, &used));

	EXPECT_TRUE(diag_abnormal(self->r));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	diag_layer_get(self->r, DIAG_SCHED, &li);
	EXPECT_EQ(1, li.rank);
	EXPECT_LE(473.4 * 0.875, li.score / 1e6);
	EXPECT_GE(473.4, li.score / 1e6);
	/* 200 + 300 over their bounds, plus the 40 healthy ones */
	EXPECT_EQ(540, li.over);
	EXPECT_FALSE(abnormal(self->r, DIAG_STORAGE));

	/* CPU 1's users; CPU 3 had no slow waits, bash used 1% */
	ASSERT_EQ(2, li.nr_culprits);
	c = diag_culprit(self->r, DIAG_SCHED, 0);
	EXPECT_STREQ("xmrig", c->comm);
	EXPECT_EQ(4242, c->pid);
	EXPECT_EQ(1, cpuset_weight(&c->cpus));
	EXPECT_TRUE(cpuset_has(&c->cpus, 1));
	EXPECT_FALSE(c->from_trace);
	EXPECT_TRUE(c->miner);
	EXPECT_LE(0.489, c->share);
	EXPECT_GE(0.491, c->share);
	c = diag_culprit(self->r, DIAG_SCHED, 1);
	EXPECT_STREQ("diaghog", c->comm);
	EXPECT_FALSE(c->miner);
	EXPECT_EQ(NULL, diag_culprit(self->r, DIAG_SCHED, 2));

	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "kill 4242"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "cryptominer"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "kill 4243"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "isolcpus="));
	EXPECT_NE(NULL, strstr(self->text,
			       "Verdict: most likely cause: the scheduler (waits for a CPU);"));
	EXPECT_NE(NULL, strstr(self->text, "xmrig pid 4242 used 49% of a CPU on CPU 1"));
	EXPECT_NE(NULL, strstr(self->text, "sched.wakeup CPU 1: 1210 samples"));
	EXPECT_NE(NULL, strstr(self->json, "\"verdict\":\"scheduler\""));
	EXPECT_NE(NULL, strstr(self->json,
			       "{\"comm\":\"xmrig\",\"pid\":4242,\"tgid\":4242,\"source\":\"cpu-time\""));
}

/*
 * With the outlier trace, the culprits are the tasks that held the CPU
 * during the slow waits: xmrig held it for 19 ms of each 20 ms wait (95%).
 */
TEST_F(diag, trace_names_who_held_the_cpu)
{
	struct gl_trace_rec recs[12];
	const struct diag_culprit *c;
	struct diag_layer_info li;
	size_t i;

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < 10; i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		recs[i].time_ns = T0_NS + i * MS;
		/* named before it renamed itself: one task, its last name */
		add_culprit(s, 4242, 4242, 19 * MS, i < 2 ? "python3" : "xmrig");
		add_culprit(s, 50, 50, MS / 2, "kworker/1:1");
	}
	recs[10].type = GPULAT_REC_LOST;
	recs[10].u.lost.lost = 5;
	/* a block outlier without culprits: a device, no task */
	recs[11].type = GPULAT_REC_SAMPLE;
	recs[11].u.sample.family = GPULAT_FAM_BLOCK;
	recs[11].u.sample.series = 1;
	recs[11].u.sample.latency_ns = 30 * MS;
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	self->w.thresholds[GPULAT_FAM_SCHED] = 10 * MS;
	ASSERT_EQ(0, run(self, _metadata, NULL));

	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	diag_layer_get(self->r, DIAG_SCHED, &li);
	ASSERT_EQ(2, li.nr_culprits);
	c = diag_culprit(self->r, DIAG_SCHED, 0);
	EXPECT_STREQ("xmrig", c->comm);
	EXPECT_TRUE(c->from_trace);
	EXPECT_EQ(190 * MS, c->ns);
	EXPECT_LE(0.9499, c->share);
	EXPECT_GE(0.9501, c->share);
	EXPECT_EQ(1, cpuset_weight(&c->cpus));
	EXPECT_TRUE(cpuset_has(&c->cpus, 1));
	c = diag_culprit(self->r, DIAG_SCHED, 1);
	EXPECT_STREQ("kworker/1:1", c->comm);
	EXPECT_EQ(5 * MS, c->ns);
	EXPECT_NE(NULL, strstr(self->text,
			       "xmrig pid 4242 held CPU 1 in 95% of the outlier waits"));
	EXPECT_NE(NULL, strstr(self->text, "feeder pid 777 (10 outliers, 200ms)"));
	EXPECT_NE(NULL, strstr(self->text, "note: 5 trace records lost"));
	/* 200 waits at or over the 10 ms threshold */
	EXPECT_NE(NULL, strstr(self->json,
			       "\"threshold_ns\":10000000,\"over_threshold\":200"));
	EXPECT_NE(NULL, strstr(self->json,
			       "\"trace\":true,\"trace_records\":11,\"trace_lost\":5"));
}

/*
 * A slow disk: 400 reads of 100 ms on sda.  Its reads took 200 us before,
 * so its bound is the floor, a tenth of the expected 20 ms: 2 ms.  98 ms
 * each beyond it: 39.2 s in 10 s, 3920 ms/s.
 */
TEST_F(diag, slow_disk_ranks_storage_first)
{
	struct diag_layer_info li;

	blob_record(&self->end, S_BLK_READ, 100 * MS, 400);
	ASSERT_EQ(0, run(self, _metadata, NULL));

	EXPECT_EQ(DIAG_STORAGE, diag_ranked(self->r, 1));
	diag_layer_get(self->r, DIAG_STORAGE, &li);
	EXPECT_TRUE(li.abnormal);
	EXPECT_EQ(400, li.over);
	EXPECT_LE(3920 * 0.875, li.score / 1e6);
	EXPECT_GE(3920, li.score / 1e6);
	EXPECT_NE(NULL, strstr(self->text, "Verdict: most likely cause: the storage;"));
	EXPECT_FALSE(abnormal(self->r, DIAG_SCHED));
	EXPECT_TRUE(advice_has(self->r, DIAG_STORAGE, "Disk sda:"));
	EXPECT_TRUE(advice_has(self->r, DIAG_STORAGE, "iostat -x 1 10"));
	EXPECT_TRUE(advice_has(self->r, DIAG_STORAGE, "tmpfs"));
	EXPECT_NE(NULL, strstr(self->text, "block.read.device sda: 500 samples"));
	EXPECT_NE(NULL, strstr(self->json, "\"verdict\":\"storage\""));
	EXPECT_NE(NULL, strstr(self->json, "\"key_name\":\"sda\""));
}

/*
 * An Xid during the watch puts the driver first even above a scheduler
 * far over the bar; an Xid from before the watch is only mentioned.
 */
TEST_F(diag, xid_ranks_driver_first)
{
	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	blob_add_event(&self->end, T0_NS - 5000 * MS, GPULAT_EVENT_XID, 13,
		       0, XID_DEV);
	blob_add_event(&self->end, T0_NS + 3000 * MS, GPULAT_EVENT_XID, 79,
		       2, XID_DEV);
	ASSERT_EQ(0, run(self, _metadata, NULL));

	EXPECT_EQ(DIAG_DRIVER, diag_ranked(self->r, 1));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 2));
	EXPECT_TRUE(abnormal(self->r, DIAG_DRIVER));
	EXPECT_TRUE(abnormal(self->r, DIAG_SCHED));
	EXPECT_NE(NULL, strstr(self->text,
			       "Xid 79 on " XID_DEV ": GPU has fallen off the bus"));
	EXPECT_NE(NULL, strstr(self->text,
			       "Xid 13 on " XID_DEV ": graphics engine exception (before the watch)"));
	EXPECT_TRUE(advice_has(self->r, DIAG_DRIVER, "modprobe -r nvidia"));
	EXPECT_TRUE(advice_has(self->r, DIAG_DRIVER, "dmesg | grep -i NVRM"));
	/* the old Xid's class gets no advice of its own */
	EXPECT_FALSE(advice_has(self->r, DIAG_DRIVER, "Xid 13"));
	EXPECT_NE(NULL, strstr(self->json, "\"code\":79,\"device\":\"" XID_DEV
			       "\",\"time_ns\":103000000000,\"in_window\":true,"
			       "\"meaning\":\"GPU has fallen off the bus\",\"class\":\"stall\""));
}

TEST_F(diag, old_xid_alone_is_normal)
{
	blob_add_event(&self->end, T0_NS - 5000 * MS, GPULAT_EVENT_XID, 13,
		       0, XID_DEV);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_FALSE(diag_abnormal(self->r));
	EXPECT_NE(NULL, strstr(self->json, "\"in_window\":false"));
}

/*
 * The driver's IRQ thread waits 5 ms to run, 300 times.  Its wakeups took
 * 30 us before: the bound is 4 x 30 us = 120 us (above the floor of
 * 50 us), and 300 x 4.88 ms in 10 s is 146 ms/s.  The advice is IRQ
 * affinity.
 */
TEST_F(diag, irq_thread_waits_rank_driver_first)
{
	struct diag_layer_info li;

	blob_record(&self->end, S_NV_WAKE, 5 * MS, 300);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_DRIVER, diag_ranked(self->r, 1));
	diag_layer_get(self->r, DIAG_DRIVER, &li);
	EXPECT_TRUE(li.abnormal);
	EXPECT_EQ(0, li.xids);
	EXPECT_LE(146.4 * 0.875, li.score / 1e6);
	EXPECT_GE(146.4, li.score / 1e6);
	EXPECT_TRUE(advice_has(self->r, DIAG_DRIVER, "smp_affinity_list"));
	EXPECT_TRUE(advice_has(self->r, DIAG_DRIVER, "nvidia-smi -pm 1"));
	EXPECT_NE(NULL, strstr(self->text, "nvidia.thread.wake irq 45 nvidia/45: 400 samples"));
}

/*
 * The baseline lowers the bound: net.tx had a p99 of 50 us over 900
 * packets, so the bound is 4 x 50 us = 200 us, and 500 packets at 600 us
 * are 400 us beyond it: 200 ms in 10 s, 20 ms/s.  Without that baseline
 * the bound is the expected 1 ms and the same packets are normal.
 */
TEST_F(diag, baseline_lowers_the_bound)
{
	struct blob start2;

	blob_release(&self->start);
	blob_release(&self->end);
	layout(&self->start, T0_NS, true);
	healthy(&self->start, 9, false);
	blob_record(&self->start, S_NET_TX, 50 * US, 900);
	layout(&self->end, T0_NS + WATCH_NS, true);
	healthy(&self->end, 10, false);
	blob_record(&self->end, S_NET_TX, 50 * US, 900);
	blob_record(&self->end, S_NET_TX, 600 * US, 500);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_NETWORK, diag_ranked(self->r, 1));
	EXPECT_TRUE(abnormal(self->r, DIAG_NETWORK));
	EXPECT_LE(20 * 0.875, score_ms(self->r, DIAG_NETWORK));
	EXPECT_GE(20, score_ms(self->r, DIAG_NETWORK));
	EXPECT_NE(NULL, strstr(self->json, "\"normal_from\":\"baseline\""));
	EXPECT_NE(NULL, strstr(self->text, "(4x the p99 before the watch)"));
	EXPECT_TRUE(advice_has(self->r, DIAG_NETWORK, "ethtool eth0"));
	EXPECT_TRUE(advice_has(self->r, DIAG_NETWORK, "tc -s qdisc show dev eth0"));

	/* the same window with no net samples before it */
	diag_free(self->r);
	self->r = NULL;
	gl_snapshot_free(self->w.start);
	gl_snapshot_free(self->w.end);
	gl_snapshot_free(self->w.window);
	free(self->text);
	free(self->json);
	layout(&start2, T0_NS, true);
	healthy(&start2, 9, false);
	blob_release(&self->start);
	self->start = start2;
	blob_release(&self->end);
	layout(&self->end, T0_NS + WATCH_NS, true);
	healthy(&self->end, 10, false);
	blob_record(&self->end, S_NET_TX, 600 * US, 500);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_FALSE(abnormal(self->r, DIAG_NETWORK));
	EXPECT_EQ(0, score_ms(self->r, DIAG_NETWORK));
	EXPECT_NE(NULL, strstr(self->json, "\"normal_from\":\"expected\""));
}

/*
 * One direct reclaim of 2 s: fewer than three samples over the bound, but
 * one 2000 times over it is enough.  2 s - 1 ms in 10 s: 200 ms/s.
 */
TEST_F(diag, one_long_reclaim_ranks_memory_first)
{
	struct diag_layer_info li;

	blob_record(&self->end, S_MM_RECLAIM, 2000 * MS, 1);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_MEMORY, diag_ranked(self->r, 1));
	diag_layer_get(self->r, DIAG_MEMORY, &li);
	EXPECT_TRUE(li.abnormal);
	EXPECT_EQ(1, li.over);
	EXPECT_LE(200 * 0.875, li.score / 1e6);
	EXPECT_GE(200, li.score / 1e6);
	EXPECT_TRUE(advice_has(self->r, DIAG_MEMORY, "vm.min_free_kbytes"));
}

/* A few waits over the bound and under the bar stay normal. */
TEST_F(diag, below_the_bar_is_normal)
{
	/* 2 waits of 20 ms: 38 ms in 10 s, 3.8 ms/s */
	blob_record(&self->end, S_WAKE + 2, 20 * MS, 2);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_FALSE(diag_abnormal(self->r));
	EXPECT_LT(3.3, score_ms(self->r, DIAG_SCHED));
	EXPECT_GT(DIAG_BAR_NS_PER_S / 1e6, score_ms(self->r, DIAG_SCHED));
}

/* A family that is off is "not measured", never "normal". */
TEST_F(diag, family_off_is_not_measured)
{
	struct diag_layer_info li;

	blob_release(&self->start);
	blob_release(&self->end);
	layout(&self->start, T0_NS, false);
	healthy(&self->start, 9, false);
	layout(&self->end, T0_NS + WATCH_NS, false);
	healthy(&self->end, 10, false);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	diag_layer_get(self->r, DIAG_NETWORK, &li);
	EXPECT_FALSE(li.measured);
	EXPECT_FALSE(li.abnormal);
	EXPECT_EQ(5, li.rank);
	EXPECT_NE(NULL, strstr(self->text,
			       "#5 network: not measured (the net family is switched off"));
	EXPECT_NE(NULL, strstr(self->json,
			       "\"measured\":false,\"not_measured_because\":\"the net family is switched off (gpulat enable)\""));
}

/* A watch with no snapshots at all: nothing measured, no crash. */
TEST(empty_watch)
{
	struct diag_result *r = NULL;
	struct diag_layer_info li;
	struct watch w;
	char *text;

	memset(&w, 0, sizeof(w));
	ASSERT_EQ(0, diag_analyze(&w, &r));
	EXPECT_FALSE(diag_abnormal(r));
	diag_layer_get(r, DIAG_SCHED, &li);
	EXPECT_FALSE(li.measured);
	EXPECT_EQ(DIAG_NR_LAYERS, diag_ranked(r, 0));
	EXPECT_EQ(DIAG_NR_LAYERS, diag_ranked(r, 6));
	text = render(r, true);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(0, check_json(text));
	free(text);
	diag_free(r);
}

/* /proc: this process is there with its name, and its CPU time grows. */
TEST(proc_cpu_time)
{
	struct diag_tasks a, b, d;
	struct timespec t0, t1;
	volatile unsigned long spin = 0;
	bool found = false;
	size_t i;

	ASSERT_EQ(0, diag_tasks_read(&a));
	/* 300 ms of this thread's CPU time, however busy the host is */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		spin++;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	} while ((t1.tv_sec - t0.tv_sec) * 1000000000L +
		 (t1.tv_nsec - t0.tv_nsec) < 300000000L);
	ASSERT_EQ(0, diag_tasks_read(&b));
	ASSERT_EQ(0, diag_tasks_delta(&a, &b, &d));
	EXPECT_EQ(b.n, d.n);
	for (i = 0; i < d.n; i++) {
		if (d.v[i].pid != getpid())
			continue;
		found = true;
		EXPECT_EQ(getpid(), d.v[i].tgid);
		EXPECT_EQ(0, strncmp(d.v[i].comm, "test_diagnose", 13));
		/* 300 ms, counted in clock ticks of 10 ms or less */
		EXPECT_LE(200 * MS, d.v[i].cpu_ns);
		EXPECT_GE(400 * MS, d.v[i].cpu_ns);
	}
	EXPECT_TRUE(found);
	/* the scans are timestamped: at least the 300 ms apart */
	EXPECT_LE(0.3, d.span_s);
	diag_tasks_free(&a);
	diag_tasks_free(&b);
	diag_tasks_free(&d);
}

/*
 * /proc through a watch: a child that uses 1.2 s of CPU and exits before
 * the watch ends still counts, from the scan a second in (two scans
 * around the watch would never see it)
 */
TEST(proc_scan_keeps_the_gone)
{
	struct diag_tasks used;
	struct diag_scan scan;
	struct timespec t0, t1;
	bool found = false;
	pid_t child;
	size_t i;

	ASSERT_EQ(0, diag_scan_begin(&scan));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		volatile unsigned long spin = 0;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		do {
			spin++;
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
		} while ((t1.tv_sec - t0.tv_sec) * 1000000000L +
			 (t1.tv_nsec - t0.tv_nsec) < 1200000000L);
		_exit(0);
	}
	/* ticks until the child is gone: at least one scan meanwhile */
	while (waitpid(child, NULL, WNOHANG) == 0) {
		diag_scan_tick(&scan);
		usleep(50000);
	}
	ASSERT_EQ(0, diag_scan_end(&scan, &used));
	for (i = 0; i < used.n; i++) {
		if (used.v[i].pid != child)
			continue;
		found = true;
		/*
		 * what it used until the last scan that saw it: at most a
		 * second of its run after that scan is lost, 1.2 s minus
		 * what it got of a CPU in that second, whatever the load
		 */
		EXPECT_LE(150 * MS, used.v[i].cpu_ns);
		EXPECT_GE(1300 * MS, used.v[i].cpu_ns);
	}
	EXPECT_TRUE(found);
	EXPECT_LE(1.0, used.span_s);
	diag_tasks_free(&used);
}

/* --- Why a layer is normal, in one line -------------------------------- */

/* why - the why_normal line of layer @l in @text: the line after its head */
static const char *why(const char *text, const char *head)
{
	const char *p = strstr(text, head);

	p = p ? strchr(p, '\n') : NULL;
	return p ? p + 1 : "";
}

/*
 * A quiet host: each normal layer says why: its nearest series within its
 * bound, the waits beyond normal under the bar, or no samples at all.
 */
TEST_F(diag, why_normal_quiet_host)
{
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_FALSE(diag_abnormal(self->r));
	EXPECT_EQ(why(self->text, "storage: normal\n"),
		  strstr(self->text, "  block.read.device sda p99 200us, within its bound 2.00ms (floor)\n"));
	EXPECT_EQ(why(self->text, "network: normal\n"),
		  strstr(self->text, "  net.tx eth0 p99 9.99us, within its bound 100us (floor)\n"));
	EXPECT_EQ(why(self->text, "memory (reclaim and compaction stalls): normal\n"),
		  strstr(self->text, "  no samples during the watch: no task stalled in reclaim or compaction\n"));
	/* 40 wakeups over the floor, 0.4 ms/s: under the bar */
	EXPECT_EQ(why(self->text, "scheduler (waits for a CPU): normal\n"),
		  strstr(self->text, "  0.3"));
	EXPECT_NE(NULL, strstr(self->text,
			       "ms/s beyond normal, under the bar of 5.00ms/s; most from\n    sched.wakeup CPU 0 (10 over 100us, floor)\n"));
	/* the normal layers' lines only: no score line, no evidence */
	EXPECT_EQ(NULL, strstr(self->text, "waited beyond normal per second"));
	EXPECT_NE(NULL, strstr(self->json,
			       "\"why_normal\":\"block.read.device sda p99 200us, within its bound 2.00ms (floor)\""));
}

/*
 * A disk of 9 ms reads, before and during the watch: four times its p99
 * is above the expected 20 ms, so that is its bound, and it is within it.
 * An abnormal layer has no why_normal.
 */
TEST_F(diag, why_normal_disk_within_expected)
{
	blob_record(&self->start, S_BLK_READ, 9 * MS, 900);
	blob_record(&self->end, S_BLK_READ, 9 * MS, 1400);
	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_TRUE(abnormal(self->r, DIAG_SCHED));
	EXPECT_FALSE(abnormal(self->r, DIAG_STORAGE));
	EXPECT_NE(NULL, strstr(self->text,
			       "storage: normal\n  block.read.device sda p99 8.99ms, within its bound 20.0ms (expected p99)\n"));
	EXPECT_NE(NULL, strstr(self->json,
			       "\"abnormal\":true,\"score_ms_per_s\":"));
	EXPECT_NE(NULL, strstr(self->json, "\"why_normal\":null"));
}

/* Waits beyond normal on one CPU, under the bar: no contention to name. */
TEST_F(diag, no_contention_when_scheduler_normal)
{
	blob_record(&self->end, S_WAKE + 2, 20 * MS, 2);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_FALSE(abnormal(self->r, DIAG_SCHED));
	EXPECT_NE(NULL, strstr(self->json,
			       "\"waits_alike\":false,\"contention_cpus\":[]"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "The contention is on"));
}

/*
 * Two reads of 150 ms on that disk: 34 ms/s beyond the bound of 20 ms,
 * over the bar, but two samples over it are fewer than three and neither
 * is ten times over: normal, and it says so.
 */
TEST_F(diag, why_normal_too_few_over)
{
	blob_record(&self->start, S_BLK_READ, 9 * MS, 900);
	blob_record(&self->end, S_BLK_READ, 9 * MS, 900);
	blob_record(&self->end, S_BLK_READ, 150 * MS, 2);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_FALSE(abnormal(self->r, DIAG_STORAGE));
	EXPECT_LE(DIAG_BAR_NS_PER_S / 1e6, score_ms(self->r, DIAG_STORAGE));
	EXPECT_NE(NULL, strstr(self->text,
			       "#1 storage: normal\n  2 over their bound, under 3, none 10x over; most from block.read.device sda\n    (max 150ms, bound 20.0ms, expected p99)\n"));
}

/* Every family of the ABI has its rules: none is left out silently. */
TEST(rules_cover_every_family)
{
	char why[128] = "";

	EXPECT_EQ(0, diag_rules_check(why, sizeof(why))) TH_LOG("%s", why);
}

TEST_HARNESS_MAIN
