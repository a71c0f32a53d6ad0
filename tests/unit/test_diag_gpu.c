// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose, the GPU side: NVML timelines made by hand beside the
 * watches of diag_cases.h, and the verdict the triage rule gives.
 */
#include "diag_cases.h"
#include "engine/diagnose/diagnose_int.h"

#define GIB		(1024ULL * 1024 * 1024)
#define NR_SAMPLES	10

/* tl - a timeline of @nr_gpus GPUs, one sample a second over the watch */
static struct gs_timeline *tl(uint32_t nr_gpus)
{
	struct gs_timeline *t = calloc(1, sizeof(*t));
	size_t k;
	uint32_t i;

	if (!t)
		abort();
	t->started = t->present = true;
	strcpy(t->lib, "libnvidia-ml.so.1");
	strcpy(t->driver, "595.45.04");
	t->events = true;
	t->interval_s = 1;
	t->start_ns = T0_NS;
	t->end_ns = T0_NS + WATCH_NS;
	t->nr_gpus = t->nr_sampled = nr_gpus;
	for (i = 0; i < nr_gpus; i++) {
		strcpy(t->info[i].name, "NVIDIA H100 80GB HBM3");
		snprintf(t->info[i].bus_id, sizeof(t->info[i].bus_id),
			 "00000000:%02X:00.0", i ? 0x86 : 0x3B);
	}
	t->samples = calloc(NR_SAMPLES, sizeof(*t->samples));
	if (!t->samples)
		abort();
	t->nr_samples = NR_SAMPLES;
	for (k = 0; k < NR_SAMPLES; k++) {
		t->samples[k].time_ns = T0_NS + k * 1000 * MS;
		t->samples[k].nr_gpus = nr_gpus;
		for (i = 0; i < nr_gpus; i++) {
			struct gs_gpu_sample *g = &t->samples[k].gpu[i];

			g->ok = GS_F_UTIL | GS_F_MEM | GS_F_REASONS |
				GS_F_LINK | GS_F_MAXLINK | GS_F_REPLAY |
				GS_F_PERSIST | GS_F_PROCS | GS_F_PUTIL;
			g->util_gpu = 5;
			g->util_mem = 2;
			g->mem_used = 2 * GIB;
			g->mem_total = 80 * GIB;
			g->reasons = 0x1;	/* gpu idle: not a throttle */
			g->cur_gen = 1;		/* an idle link slows down */
			g->cur_width = 16;
			g->max_gen = 5;
			g->max_width = 16;
			g->replays = 7;
			g->persistence = 1;
		}
	}
	return t;
}

static void tl_free(struct gs_timeline *t)
{
	gs_timeline_free(t);
	free(t);
}

/* set - field @f of every sample of GPU @i from sample @from on */
#define set(t, i, from, f, v)						\
	do {								\
		size_t __k;						\
		for (__k = (from); __k < (t)->nr_samples; __k++)	\
			(t)->samples[__k].gpu[i].f = (v);		\
	} while (0)

/* gpu_fd - @root/proc/@pid/fd/3 -> /dev/nvidia0: the GPU open there */
static void gpu_fd(const char *root, int pid)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/proc/%d/fd", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/%d/fd/3", root, pid);
	if (symlink("/dev/nvidia0", path))
		abort();
}

/* cause - the first cause of @kind, or NULL */
static const struct diag_gpu_cause *cause(const struct diag_result *r,
					  enum diag_gpu_cause_kind kind)
{
	size_t k;

	for (k = 0; r->gpu && k < r->gpu->nr_causes; k++)
		if (r->gpu->causes[k].kind == kind)
			return &r->gpu->causes[k];
	return NULL;
}

/* the run-queue waits of a hog on CPU 1: the scheduler is abnormal */
static void host_spike(FIXTURE_DATA(diag) *self)
{
	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	blob_record(&self->end, S_PREEMPT + 1, 10 * MS, 300);
}

TEST_F(diag, gpu_idle_during_host_spike_points_at_the_host)
{
	struct gs_timeline *t = tl(2);

	host_spike(self);
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	ASSERT_NE(NULL, self->r->gpu);
	EXPECT_EQ(DIAG_TRIAGE_HOST, self->r->gpu->triage);
	EXPECT_EQ(5, (int)self->r->gpu->gpu[0].util_mean);
	EXPECT_EQ(10U, self->r->gpu->gpu[1].samples);
	EXPECT_NE(NULL, strstr(self->r->gpu->triage_text,
			       "the scheduler (waits for a CPU) first"));
	EXPECT_NE(NULL, strstr(self->json, "\"triage\":\"host\""));
	EXPECT_NE(NULL, strstr(self->text, "triage: the GPUs were mostly idle (5% mean)"));
	/* an idle GPU's slow link, its idle bit and old replays are no cause */
	EXPECT_EQ(0U, self->r->gpu->nr_causes);
	tl_free(t);
}

TEST_F(diag, gpu_idle_and_quiet_host)
{
	struct gs_timeline *t = tl(1);

	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_FALSE(diag_abnormal(self->r));
	EXPECT_EQ(DIAG_TRIAGE_IDLE, self->r->gpu->triage);
	tl_free(t);
}

TEST_F(diag, gpu_busy_with_full_memory_is_the_job)
{
	struct gs_timeline *t = tl(2);
	const struct diag_gpu_cause *c;

	host_spike(self);
	set(t, 1, 0, util_gpu, 99);
	set(t, 1, 0, mem_used, 79 * GIB);
	set(t, 1, 0, cur_gen, 5);
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_TRIAGE_JOB, self->r->gpu->triage);
	c = cause(self->r, DIAG_GC_MEMORY);
	ASSERT_NE(NULL, c);
	EXPECT_NE(NULL, strstr(c->text, "GPU 1 was busy (99% mean) with its memory full (79.0 of 80.0 GiB) while latency was abnormal"));
	EXPECT_NE(NULL, strstr(self->json, "\"triage\":\"job\""));
	tl_free(t);
}

TEST_F(diag, gpu_full_memory_without_latency_is_not_a_cause)
{
	struct gs_timeline *t = tl(1);

	/* a framework that preallocates, on a quiet host */
	set(t, 0, 0, util_gpu, 99);
	set(t, 0, 0, mem_used, 79 * GIB);
	set(t, 0, 0, cur_gen, 5);
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_FALSE(diag_abnormal(self->r));
	EXPECT_EQ(DIAG_TRIAGE_BUSY, self->r->gpu->triage);
	EXPECT_NE(NULL, strstr(self->r->gpu->triage_text, "its memory full"));
	EXPECT_EQ(0U, self->r->gpu->nr_causes);
	EXPECT_NE(NULL, strstr(self->text, "Verdict: nothing abnormal."));
	tl_free(t);
}

TEST_F(diag, gpu_healthy_busy_job_has_no_cause)
{
	struct gs_timeline *t = tl(1);
	size_t i;

	/* one job alone on its GPU, at its power cap: how it should run */
	gpu_fd(self->root, 4243);
	set(t, 0, 0, util_gpu, 97);
	set(t, 0, 0, mem_used, 60 * GIB);
	set(t, 0, 0, cur_gen, 5);
	set(t, 0, 0, reasons, 0x4ULL);
	for (i = 0; i < t->nr_samples; i++) {
		struct gs_gpu_sample *g = &t->samples[i].gpu[0];

		g->nr_procs = g->procs_total = 1;
		g->procs[0] = (struct gs_proc){ 4243, 96, 60 * GIB };
	}
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_TRIAGE_BUSY, self->r->gpu->triage);
	EXPECT_EQ(0U, self->r->gpu->nr_causes);
	ASSERT_EQ(1U, self->r->gpu->nr_procs);
	EXPECT_FALSE(self->r->gpu->procs[0].hog);
	EXPECT_EQ(10U, self->r->gpu->gpu[0].power_capped);
	EXPECT_NE(NULL, strstr(self->text, "at its power cap in 10 samples"));
	EXPECT_NE(NULL, strstr(self->text, "Verdict: nothing abnormal."));
	EXPECT_EQ(NULL, strstr(self->text, "kill"));
	tl_free(t);
}

TEST_F(diag, gpu_jobs_one_after_another_do_not_share)
{
	struct gs_timeline *t = tl(1);
	size_t i;

	/* one job ends, the next starts: never two on the GPU at once */
	gpu_fd(self->root, 4243);
	gpu_fd(self->root, 50);
	host_spike(self);
	for (i = 0; i < t->nr_samples; i++) {
		struct gs_gpu_sample *g = &t->samples[i].gpu[0];

		g->nr_procs = g->procs_total = 1;
		g->procs[0] = (struct gs_proc){ i < 5 ? 4243 : 50, 95,
						40 * GIB };
	}
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	ASSERT_EQ(2U, self->r->gpu->nr_procs);
	EXPECT_EQ(1U, self->r->gpu->procs[0].sharing);
	EXPECT_FALSE(self->r->gpu->procs[0].hog);
	EXPECT_FALSE(self->r->gpu->procs[1].hog);
	EXPECT_EQ(NULL, cause(self->r, DIAG_GC_HOG));
	tl_free(t);
}

TEST_F(diag, gpu_pid_of_another_namespace_is_not_named)
{
	struct gs_timeline *t = tl(1);
	size_t i;

	/* pid 4242 here is an xmrig without the GPU open: not NVML's 4242 */
	host_spike(self);
	for (i = 0; i < t->nr_samples; i++) {
		struct gs_gpu_sample *g = &t->samples[i].gpu[0];

		g->nr_procs = g->procs_total = 2;
		g->procs[0] = (struct gs_proc){ 4242, 99, 70 * GIB };
		g->procs[1] = (struct gs_proc){ 31337, 1, GIB };
	}
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	ASSERT_EQ(2U, self->r->gpu->nr_procs);
	EXPECT_FALSE(self->r->gpu->procs[0].ours);
	EXPECT_FALSE(self->r->gpu->procs[0].hog);
	EXPECT_FALSE(self->r->gpu->procs[0].miner);
	EXPECT_EQ(NULL, cause(self->r, DIAG_GC_HOG));
	EXPECT_NE(NULL, strstr(self->text, "process 4242 (not this pid namespace's"));
	EXPECT_EQ(NULL, strstr(self->text, "kill 4242"));
	tl_free(t);
}

TEST_F(diag, gpu_mean_over_the_gpus_that_answered)
{
	struct gs_timeline *t = tl(2);
	size_t k;

	host_spike(self);
	set(t, 0, 0, util_gpu, 20);
	/* GPU 1 gives no utilisation (a MIG instance, say) */
	for (k = 0; k < t->nr_samples; k++)
		t->samples[k].gpu[1].ok &= ~GS_F_UTIL;
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_TRIAGE_HOST, self->r->gpu->triage);
	EXPECT_NE(NULL, strstr(self->r->gpu->triage_text, "(20% mean)"));
	EXPECT_NE(NULL, strstr(self->text, "GPU 1 NVIDIA H100 80GB HBM3 00000000:86:00.0: no utilisation sampled"));
	tl_free(t);
}

TEST_F(diag, gpu_busy_with_memory_to_spare)
{
	struct gs_timeline *t = tl(1);

	set(t, 0, 0, util_gpu, 95);
	set(t, 0, 0, mem_used, 70 * GIB);	/* 87.5%: below 95% */
	set(t, 0, 0, cur_gen, 5);
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(DIAG_TRIAGE_BUSY, self->r->gpu->triage);
	EXPECT_EQ(NULL, cause(self->r, DIAG_GC_MEMORY));
	tl_free(t);
}

TEST_F(diag, gpu_hog_joined_with_cpu_culprit)
{
	struct gs_timeline *t = tl(1);
	struct gl_trace_rec recs[10];
	const struct diag_gpu_proc *p;
	const struct diag_gpu_cause *c;
	size_t i;

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < 10; i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		recs[i].time_ns = T0_NS + i * MS;
		add_culprit(s, 4242, 4242, 19 * MS, "xmrig");
	}
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	self->w.thresholds[GPULAT_FAM_SCHED] = 10 * MS;
	gpu_fd(self->root, 4242);
	gpu_fd(self->root, 4243);
	/* the miner holds the GPU; a small process beside it does not */
	for (i = 0; i < t->nr_samples; i++) {
		struct gs_gpu_sample *g = &t->samples[i].gpu[0];

		g->util_gpu = 60;
		g->nr_procs = g->procs_total = 2;
		g->procs[0] = (struct gs_proc){ 4242, i < 5 ? 90 : 100,
						40 * GIB };
		g->procs[1] = (struct gs_proc){ 4243, 1, GIB };
	}
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	ASSERT_EQ(2U, self->r->gpu->nr_procs);
	p = &self->r->gpu->procs[0];
	EXPECT_EQ(4242, p->pid);
	EXPECT_STREQ("xmrig", p->comm);
	EXPECT_TRUE(p->alive);
	EXPECT_EQ(95, (int)p->sm_mean);
	EXPECT_EQ(40 * GIB, p->mem_max);
	EXPECT_TRUE(p->hog);
	EXPECT_TRUE(p->miner);
	EXPECT_TRUE(p->cpu_culprit);
	EXPECT_FALSE(self->r->gpu->procs[1].hog);
	EXPECT_STREQ("diaghog", self->r->gpu->procs[1].comm);
	c = cause(self->r, DIAG_GC_HOG);
	ASSERT_NE(NULL, c);
	EXPECT_NE(NULL, strstr(c->text, "process 4242 (xmrig) holds GPU 0: 95% of its SMs, 40.0 GiB; its name is a cryptominer's"));
	EXPECT_NE(NULL, strstr(c->text, "holds both the GPU and a feeder's CPU"));
	EXPECT_NE(NULL, strstr(c->text, "Stop it (kill 4242)"));
	EXPECT_NE(NULL, strstr(self->json, "\"pid\":4242,\"comm\":\"xmrig\",\"gpu\":0,\"alive\":true,\"ours\":true,\"sharing\":2,\"sm_mean\":95,"));
	tl_free(t);
}

TEST_F(diag, gpu_thermal_throttle_is_a_cause)
{
	struct gs_timeline *t = tl(1);
	const struct diag_gpu_cause *c;

	set(t, 0, 3, reasons, 0x40ULL | 0x1ULL);
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(7U, self->r->gpu->gpu[0].throttled);
	c = cause(self->r, DIAG_GC_THROTTLE);
	ASSERT_NE(NULL, c);
	EXPECT_NE(NULL, strstr(c->text, "held down in 7 of 10 samples, from 3.0 s into the watch: hw thermal slowdown;"));
	EXPECT_EQ(NULL, strstr(c->text, "gpu idle"));
	EXPECT_NE(NULL, strstr(self->text, "Verdict: no host layer is abnormal"));
	EXPECT_NE(NULL, strstr(self->text, "the GPU side has 1 cause of its own"));
	tl_free(t);
}

TEST_F(diag, gpu_downtrained_link_is_a_cause)
{
	struct gs_timeline *t = tl(1);
	const struct diag_gpu_cause *c;

	set(t, 0, 0, cur_gen, 3);
	set(t, 0, 0, cur_width, 8);
	set(t, 0, 2, replays, 19);
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	c = cause(self->r, DIAG_GC_LINK);
	ASSERT_NE(NULL, c);
	EXPECT_NE(NULL, strstr(c->text, "ran at x8 of x16 (gen 3 of 5) in 10 of 10 samples"));
	EXPECT_NE(NULL, strstr(c->text, "lspci -vv -s 0000:3b:00.0"));
	c = cause(self->r, DIAG_GC_REPLAY);
	ASSERT_NE(NULL, c);
	EXPECT_NE(NULL, strstr(c->text, "replayed 12 packets"));
	tl_free(t);
}

TEST_F(diag, gpu_slow_link_counts_only_when_busy)
{
	struct gs_timeline *t = tl(1);

	set(t, 0, 5, util_gpu, 80);
	set(t, 0, 0, cur_gen, 4);
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(5U, self->r->gpu->gpu[0].gen_low_busy);
	ASSERT_NE(NULL, cause(self->r, DIAG_GC_LINK));
	EXPECT_NE(NULL, strstr(cause(self->r, DIAG_GC_LINK)->text,
			       "gen 4 of 5 while the GPU was busy (5 of 10 samples)"));
	tl_free(t);
}

TEST_F(diag, gpu_xids_merged_with_the_tracepoints_once)
{
	struct gs_timeline *t = tl(2);
	struct gs_xid x[3] = {
		/*
		 * the tracepoint's Xid 79 (at 3 s), received by NVML's wait
		 * 3.5 s late behind a slow round: it happened after 2.9 s
		 */
		{ T0_NS + 2900 * MS, T0_NS + 6500 * MS, 0, 79 },
		/* one the tracepoint did not see (older driver) */
		{ T0_NS + 4900 * MS, T0_NS + 5000 * MS, 1, 48 },
		/* Xid 79 again, long after: another one */
		{ T0_NS + 8900 * MS, T0_NS + 9000 * MS, 0, 79 },
	};
	struct diag_layer_info li;

	blob_add_event(&self->end, T0_NS + 3000 * MS, GPULAT_EVENT_XID, 79,
		       2, XID_DEV);
	t->xids = x;
	t->nr_xids = 3;
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	diag_layer_get(self->r, DIAG_DRIVER, &li);
	EXPECT_EQ(3U, li.xids);
	EXPECT_TRUE(li.abnormal);
	EXPECT_EQ(DIAG_DRIVER, diag_ranked(self->r, 1));
	EXPECT_EQ(3U, self->r->gpu->xids_nvml);
	EXPECT_EQ(1U, self->r->gpu->xids_both);
	EXPECT_NE(NULL, strstr(self->json, "\"code\":79,\"device\":\"" XID_DEV "\",\"time_ns\":103000000000,"));
	EXPECT_NE(NULL, strstr(self->json, "\"seen_by\":\"both\""));
	EXPECT_NE(NULL, strstr(self->text, "Xid 48 on 0000:86:00.0: "));
	EXPECT_NE(NULL, strstr(self->text, "(from NVML)"));
	/* idle GPUs behind a driver in trouble: not the host's layers */
	EXPECT_EQ(DIAG_TRIAGE_DRIVER, self->r->gpu->triage);
	t->xids = NULL;
	t->nr_xids = 0;
	tl_free(t);
}

TEST_F(diag, gpu_hung_call_is_a_cause)
{
	struct gs_timeline *t = tl(1);
	const struct diag_gpu_cause *c;

	t->hung = true;
	strcpy(t->hung_why, "nvmlDeviceGetUtilizationRates on GPU 0 had not returned after 1.0 s");
	t->nr_samples = 2;
	self->gpu = t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	c = cause(self->r, DIAG_GC_HUNG);
	ASSERT_NE(NULL, c);
	EXPECT_NE(NULL, strstr(c->text, "NVML: nvmlDeviceGetUtilizationRates on GPU 0 had not returned"));
	EXPECT_NE(NULL, strstr(self->json, "\"hung\":\"nvmlDeviceGetUtilizationRates"));
	tl_free(t);
}

TEST_F(diag, gpu_absent_says_why)
{
	struct gs_timeline t = { .started = true };

	strcpy(t.absent, "libnvidia-ml.so.1 not loadable: no such file");
	self->gpu = &t;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_NE(NULL, strstr(self->text, "GPU (NVML): not sampled: libnvidia-ml.so.1 not loadable"));
	EXPECT_NE(NULL, strstr(self->json, "\"gpu\":{\"present\":false,\"absent\":\"libnvidia-ml.so.1 not loadable"));
}

TEST_F(diag, gpu_not_asked_is_null)
{
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_NE(NULL, strstr(self->json, "\"gpu\":null"));
}

TEST_HARNESS_MAIN
