// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: the verdict over synthetic watches.  Each case builds
 * the totals at the start of a watch (the baseline) and at its end (the
 * start plus what happened while watching) as snapshot blobs, 10 s apart,
 * and asserts the ranking, the scores and the evidence.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "text.h"

#include "blob.h"
#include "diagnose.h"
#include "gpulat.h"

#define NCPUS		4
#define T0_NS		100000000000ULL		/* start: 100 s */
#define WATCH_NS	10000000000ULL		/* 10 s */
#define MS		1000000ULL
#define US		1000ULL
#define XID_DEV		"0000:3b:00.0"

/* The series every case has, in this order. */
enum {
	S_WAKE,				/* + cpu */
	S_PREEMPT = S_WAKE + NCPUS,	/* + cpu */
	S_BLK_QUEUE = S_PREEMPT + NCPUS,
	S_BLK_READ,
	S_NET_TX,
	S_IRQ_ETH,
	S_SOFT_NETRX_WAIT,
	S_SOFT_TIMER_WAIT,
	S_NV_HARD,
	S_NV_WAKE,
	S_MM_RECLAIM,
	S_NR,
};

#define NV_KEY		(45ULL | 0x1234ULL << 32)

/* layout - the series and probes of every case, all families attached */
static void layout(struct blob *b, uint64_t time_ns, bool net_on)
{
	static const char *const fams[] = {
		NULL, "sched", "block", "net", "irq", "softirq", "nvidia", "mm",
	};
	uint32_t cpu, f;

	blob_init(b);
	b->hdr.nr_cpu_ids = NCPUS;
	b->hdr.time_ns = time_ns;
	strcpy(b->hdr.kernel_release, "6.1.0-test");
	for (cpu = 0; cpu < NCPUS; cpu++)
		blob_add_series(b, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP, cpu,
				0, "sched.wakeup", "");
	for (cpu = 0; cpu < NCPUS; cpu++)
		blob_add_series(b, GPULAT_FAM_SCHED, GPULAT_SCHED_PREEMPT, cpu,
				0, "sched.preempt", "");
	blob_add_series(b, GPULAT_FAM_BLOCK,
			GPULAT_BLOCK_SERIES(GPULAT_BLOCK_READ,
					    GPULAT_BLOCK_QUEUE),
			GPULAT_CPU_NONE, BLOB_SDA, "block.read.queue", "sda");
	blob_add_series(b, GPULAT_FAM_BLOCK,
			GPULAT_BLOCK_SERIES(GPULAT_BLOCK_READ,
					    GPULAT_BLOCK_DEVICE),
			GPULAT_CPU_NONE, BLOB_SDA, "block.read.device", "sda");
	blob_add_series(b, GPULAT_FAM_NET, GPULAT_NET_TX, GPULAT_CPU_NONE, 2,
			"net.tx", "eth0");
	blob_add_series(b, GPULAT_FAM_IRQ, GPULAT_IRQ_HANDLER, GPULAT_CPU_NONE,
			BLOB_IRQ_ETH0, "irq.handler", "eth0");
	blob_add_series(b, GPULAT_FAM_SOFTIRQ,
			GPULAT_SOFTIRQ_SERIES(3, GPULAT_SOFTIRQ_WAIT), 0, 3,
			"softirq.wait", "NET_RX");
	blob_add_series(b, GPULAT_FAM_SOFTIRQ,
			GPULAT_SOFTIRQ_SERIES(1, GPULAT_SOFTIRQ_WAIT), 0, 1,
			"softirq.wait", "TIMER");
	blob_add_series(b, GPULAT_FAM_NVIDIA, GPULAT_NV_HARDIRQ,
			GPULAT_CPU_NONE, NV_KEY, "nvidia.hardirq", "nvidia/45");
	blob_add_series(b, GPULAT_FAM_NVIDIA, GPULAT_NV_THREAD_WAKE,
			GPULAT_CPU_NONE, NV_KEY, "nvidia.thread.wake",
			"nvidia/45");
	blob_add_series(b, GPULAT_FAM_MM, GPULAT_MM_DIRECT_RECLAIM, 0, 0,
			"mm.direct_reclaim", "");
	for (f = 1; f < GPULAT_FAM_MAX; f++)
		blob_add_probe(b, f, f == GPULAT_FAM_NET && !net_on ?
			       GPULAT_PROBE_DISABLED : GPULAT_PROBE_ATTACHED,
			       0, fams[f], "some_tracepoint", 1);
}

/* healthy - @scale times the samples of a healthy host's 10 s */
static void healthy(struct blob *b, uint64_t scale, bool net)
{
	uint32_t cpu;

	for (cpu = 0; cpu < NCPUS; cpu++) {
		blob_record(b, S_WAKE + cpu, 20 * US, 1000 * scale);
		blob_record(b, S_WAKE + cpu, 200 * US, 10 * scale);
		blob_record(b, S_PREEMPT + cpu, 1 * MS, 10 * scale);
	}
	blob_record(b, S_BLK_READ, 200 * US, 100 * scale);
	if (net)
		blob_record(b, S_NET_TX, 10 * US, 100 * scale);
	blob_record(b, S_IRQ_ETH, 5 * US, 100 * scale);
	blob_record(b, S_SOFT_NETRX_WAIT, 10 * US, 100 * scale);
	blob_record(b, S_SOFT_TIMER_WAIT, 10 * US, 100 * scale);
	blob_record(b, S_NV_HARD, 10 * US, 100 * scale);
	blob_record(b, S_NV_WAKE, 30 * US, 100 * scale);
}

/*
 * wait_rec - @r as a run-queue wait record of @lat on @cpu of task
 * @pid/@tgid @comm, with no culprit yet
 */
static struct gpulat_rec_sample *wait_rec(struct gl_trace_rec *r,
					  uint32_t cpu, uint32_t series,
					  uint64_t lat, int32_t pid,
					  int32_t tgid, const char *comm)
{
	struct gpulat_rec_sample *s = &r->u.sample;

	r->type = GPULAT_REC_SAMPLE;
	r->cpu = cpu;
	s->family = GPULAT_FAM_SCHED;
	s->series = series;
	s->latency_ns = lat;
	s->pid = pid;
	s->tgid = tgid;
	strcpy(s->comm, comm);
	s->flags = GPULAT_REC_F_CULPRITS;
	return s;
}

/* add_culprit - one more task that held the CPU during @s's wait */
static void add_culprit(struct gpulat_rec_sample *s, int32_t pid,
			int32_t tgid, uint64_t ns, const char *comm)
{
	s->culprits[s->nr_culprits].pid = pid;
	s->culprits[s->nr_culprits].tgid = tgid;
	s->culprits[s->nr_culprits].ns = ns;
	strcpy(s->culprits[s->nr_culprits].comm, comm);
	s->nr_culprits++;
}

/* put_comm - @root/proc/@pid/task/@tid/comm holding @comm */
static void put_comm(const char *root, int pid, int tid, const char *comm)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/%d", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/%d/task", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/%d/task/%d", root, pid, tid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/%d/task/%d/comm", root, pid, tid);
	f = fopen(path, "w");
	if (!f)
		abort();
	fprintf(f, "%s\n", comm);
	fclose(f);
}

FIXTURE(diag) {
	struct blob start, end;
	struct watch w;
	struct diag_result *r;
	char *text, *json;
	char root[64];
};

FIXTURE_SETUP(diag)
{
	/*
	 * The culprits' /proc/PID/task/TID/comm, read before advising to
	 * release one: a fake tree where the cases' tasks still run.
	 */
	snprintf(self->root, sizeof(self->root), "/tmp/gpulat-diag.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	put_comm(self->root, 4242, 4242, "xmrig");
	put_comm(self->root, 4243, 4243, "diaghog");
	put_comm(self->root, 50, 50, "kworker/1:1");
	ASSERT_EQ(0, setenv("GPULAT_SYSROOT", self->root, 1));
	memset(&self->w, 0, sizeof(self->w));
	self->r = NULL;
	self->text = NULL;
	self->json = NULL;
	/* the totals at the start: 90 s of a healthy host */
	layout(&self->start, T0_NS, true);
	healthy(&self->start, 9, true);
	/* the end: the same plus a healthy 10 s; each case adds its own */
	layout(&self->end, T0_NS + WATCH_NS, true);
	healthy(&self->end, 10, true);
}

FIXTURE_TEARDOWN(diag)
{
	diag_free(self->r);
	gl_snapshot_free(self->w.start);
	gl_snapshot_free(self->w.end);
	gl_snapshot_free(self->w.window);
	blob_release(&self->start);
	blob_release(&self->end);
	free(self->text);
	free(self->json);
	if (self->root[0]) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", self->root);
		if (system(cmd))
			TH_LOG("cannot remove %s", self->root);
	}
}

/* render - a printer's output into a malloc'd string */
static char *render(const struct diag_result *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (json)
		diag_print_json(f, r);
	else
		diag_print_text(f, r);
	fclose(f);
	return buf;
}

/*
 * check_json - parse @text with Python's json module and check its shape:
 * one object, five layers ranked 1-5, each with its fields
 */
static int check_json(const char *text)
{
	static const char script[] =
		"import json, sys\n"
		"lines = open(sys.argv[1]).read().splitlines()\n"
		"assert len(lines) == 1, 'one line'\n"
		"d = json.loads(lines[0])\n"
		"for k in ('duration_s', 'kernel', 'trace', 'trace_lost',\n"
		"          'abnormal', 'verdict', 'layers', 'bar_ms_per_s',\n"
		"          'waits_alike', 'contention_cpus'):\n"
		"    assert k in d, k\n"
		"L = d['layers']\n"
		"assert len(L) == 5\n"
		"assert [l['rank'] for l in L] == [1, 2, 3, 4, 5]\n"
		"assert sorted(l['layer'] for l in L) == sorted(['driver',\n"
		"    'network', 'storage', 'scheduler', 'memory'])\n"
		"assert (d['verdict'] is None) == (not d['abnormal'])\n"
		"if d['abnormal']:\n"
		"    assert d['verdict'] == L[0]['layer'] and L[0]['abnormal']\n"
		"for l in L:\n"
		"    for k in ('measured', 'abnormal', 'score_ms_per_s',\n"
		"              'samples', 'over', 'evidence', 'culprits',\n"
		"              'affected', 'xids', 'notes', 'advice',\n"
		"              'why_normal'):\n"
		"        assert k in l, k\n"
		"    normal = l['measured'] and not l['abnormal']\n"
		"    assert (l['why_normal'] is not None) == normal\n"
		"    for e in l['evidence']:\n"
		"        assert e['p50_ns'] <= e['p99_ns'] <= e['p999_ns']\n"
		"        assert e['p999_ns'] <= e['max_ns']\n"
		"        assert e['normal_from'] in ('expected', 'baseline',\n"
		"                                    'floor')\n"
		"    for c in l['culprits']:\n"
		"        assert c['source'] in ('trace', 'cpu-time')\n"
		"        assert isinstance(c['miner'], bool)\n";
	char path[] = "/tmp/gpulat-diag-XXXXXX", cmd[768], *py;
	int fd, ret;

	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	py = getenv("GPULAT_PYTHON");
	snprintf(cmd, sizeof(cmd), "%s -c \"$GPULAT_DIAG_CHECK\" %s",
		 py ? py : "python3", path);
	setenv("GPULAT_DIAG_CHECK", script, 1);
	ret = system(cmd);
	unlink(path);
	return WIFEXITED(ret) ? WEXITSTATUS(ret) : 128;
}

/*
 * run - parse both blobs, difference them, analyze (with @used when not
 * NULL), render both views and check them
 */
static int run(FIXTURE_DATA(diag) *self,
	       struct __test_metadata *_metadata,
	       const struct diag_tasks *used)
{
	int ret;

	self->w.start = blob_parse(&self->start);
	self->w.end = blob_parse(&self->end);
	if (!self->w.start || !self->w.end)
		return -1;
	ret = gl_snapshot_diff(self->w.start, self->w.end, &self->w.window);
	if (ret)
		return ret;
	self->w.duration_s = WATCH_NS / 1e9;
	ret = diag_analyze_tasks(&self->w, used, &self->r);
	if (ret)
		return ret;
	self->text = render(self->r, false);
	self->json = render(self->r, true);
	if (!self->text || !self->json)
		return -1;
	TH_LOG("\n%s", self->text);
	EXPECT_LT(longest_line(self->text), 80);
	EXPECT_EQ(0, check_json(self->json));
	return 0;
}

/* score_ms - score of layer @l, ms per s */
static double score_ms(const struct diag_result *r, enum diag_layer l)
{
	struct diag_layer_info li;

	diag_layer_get(r, l, &li);
	return li.score / 1e6;
}

static bool abnormal(const struct diag_result *r, enum diag_layer l)
{
	struct diag_layer_info li;

	diag_layer_get(r, l, &li);
	return li.abnormal;
}

/* advice_has - whether a next step of @l contains @s */
static bool advice_has(const struct diag_result *r, enum diag_layer l,
		       const char *s)
{
	const char *a;
	size_t i;

	for (i = 0; (a = diag_advice(r, l, i)); i++)
		if (strstr(a, s))
			return true;
	return false;
}

/*
 * A healthy host: 40 of 40,040 wakeups at 200 us exceed the floor of the
 * normal bound (100 us: the baseline's p99 is 20 us, and the bound is
 * never below a tenth of the expected 1 ms) by 100 us each: 4 ms in 10 s,
 * 0.4 ms/s, far below the bar of 5 ms/s.  Nothing abnormal.
 */
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
		{ 4242, 4242, 1, 4900 * MS, "xmrig" },
		{ 4243, 4243, 1, 4800 * MS, "diaghog" },
		{ 100, 100, 0, 100 * MS, "bash" },
		{ 555, 555, 3, 3000 * MS, "elsewhere" },
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
		add_culprit(s, 4242, 4242, 19 * MS, "xmrig");
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
	static const char *const fams[] = {
		NULL, "sched", "block", "net", "irq", "softirq", "nvidia", "mm",
	};
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
		blob_add_probe(b, f, GPULAT_PROBE_ATTACHED, 0, fams[f],
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
		{ 9100, 9100, 100, 4900 * MS, "bighog" },
		{ 9101, 9100, 100, 100 * MS, "bighog-io" },
		{ 9003, 9003, 3, 3000 * MS, "elsewhere" },
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
		{ 4243, 4243, 1, 4800 * MS, "diaghog" },
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
		{ 4242, 4242, 1, 4900 * MS, "xmrig" },
		{ 4243, 4243, 1, 6000 * MS, "diaghog" },
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
		{ 4242, 4242, 1, 4900 * MS, "xmrig" },
		{ 4243, 4243, 1, 4800 * MS, "hog" },
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
		{ 4242, 4242, 1, 4900 * MS, "hog" },
		{ 4243, 4243, 1, 4800 * MS, "hog" },
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
		{ 5000, 5000, 0, 9000 * MS, "loader" },
		{ 5001, 5001, 3, 8900 * MS, "loader" },
		{ 5002, 5002, 6, 8800 * MS, "loader" },
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
