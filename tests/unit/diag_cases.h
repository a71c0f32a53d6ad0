/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cases of gpulat diagnose's tests (test_diagnose.c,
 * test_diag_cpus.c): the series every case has, a healthy host, the
 * fixture that watches from a start blob to an end blob and analyzes,
 * and the checks on a verdict.  Included by each of those files alone.
 */
#ifndef _GPULAT_TEST_DIAG_CASES_H
#define _GPULAT_TEST_DIAG_CASES_H

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
#include "cmd/cmd.h"
#include "engine/diagnose/diagnose.h"
#include "engine/gpusample/gpusample.h"

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
	S_MM_MEMCG,
	S_NR,
};

#define NV_KEY		(45ULL | 0x1234ULL << 32)

/* layout - the series and probes of every case, all families attached */
static inline void layout(struct blob *b, uint64_t time_ns, bool net_on)
{
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
	blob_add_series(b, GPULAT_FAM_MM, GPULAT_MM_MEMCG_RECLAIM, 0, 0,
			"mm.memcg_reclaim", "");
	for (f = 1; f < GPULAT_FAM_MAX; f++)
		blob_add_probe(b, f, f == GPULAT_FAM_NET && !net_on ?
			       GPULAT_PROBE_DISABLED : GPULAT_PROBE_ATTACHED,
			       0, gl_family_name(f), "some_tracepoint", 1);
}

/* healthy - @scale times the samples of a healthy host's 10 s */
static inline void healthy(struct blob *b, uint64_t scale, bool net)
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
static inline struct gpulat_rec_sample *wait_rec(struct gl_trace_rec *r,
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
static inline void add_culprit(struct gpulat_rec_sample *s, int32_t pid,
			       int32_t tgid, uint64_t ns, const char *comm)
{
	s->culprits[s->nr_culprits].pid = pid;
	s->culprits[s->nr_culprits].tgid = tgid;
	s->culprits[s->nr_culprits].ns = ns;
	strcpy(s->culprits[s->nr_culprits].comm, comm);
	s->nr_culprits++;
}

/* joined - @text with each line break and the indent after it one space */
static inline char *joined(const char *text)
{
	static char out[65536];
	size_t o = 0;

	for (; *text && o + 1 < sizeof(out); text++) {
		if (*text == '\n') {
			while (text[1] == ' ')
				text++;
			out[o++] = ' ';
		} else {
			out[o++] = *text;
		}
	}
	out[o] = '\0';
	return out;
}

/* put_comm - @root/proc/@pid/task/@tid/comm holding @comm */
static inline void put_comm(const char *root, int pid, int tid,
			    const char *comm)
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
	const struct gs_timeline *gpu;	/* NVML over the watch; NULL none */
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
	self->gpu = NULL;
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
static inline char *render(const struct diag_result *r, bool json)
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
static inline int check_json(const char *text)
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
static inline int run(FIXTURE_DATA(diag) *self,
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
	ret = diag_analyze_gpu(&self->w, used, self->gpu, &self->r);
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
static inline double score_ms(const struct diag_result *r, enum diag_layer l)
{
	struct diag_layer_info li;

	diag_layer_get(r, l, &li);
	return li.score / 1e6;
}

static inline bool abnormal(const struct diag_result *r, enum diag_layer l)
{
	struct diag_layer_info li;

	diag_layer_get(r, l, &li);
	return li.abnormal;
}

/* advice_has - whether a next step of @l contains @s */
static inline bool advice_has(const struct diag_result *r, enum diag_layer l,
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

#endif /* _GPULAT_TEST_DIAG_CASES_H */
