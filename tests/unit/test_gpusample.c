// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU sampler against the NVML test double playing scripted
 * timelines ($FAKE_NVML_SCRIPT): what it samples and when, Xids through
 * the event API, both process tables, a call that never returns and a
 * library that crashes, each bounded in time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "engine/gpusample/gpusample.h"
#include "nvml_double.h"

#define MIB	(1024ULL * 1024)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts))
		;
}

FIXTURE(gs) {
	char script[64];
	char lib[4096];
	struct gs_timeline t;
	double stop_s;		/* how long gs_stop() took */
};

FIXTURE_SETUP(gs)
{
	int fd;

	memset(&self->t, 0, sizeof(self->t));
	strcpy(self->script, "/tmp/gpulat-gs-XXXXXX");
	fd = mkstemp(self->script);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_NE(NULL, nvml_double_path(self->lib, sizeof(self->lib), "nvml"));
	setenv("GPULAT_NVML_LIB", self->lib, 1);
	setenv("FAKE_NVML_SCRIPT", self->script, 1);
	unsetenv("FAKE_NVML_INIT_HANG");
	unsetenv("FAKE_NVML_INIT_CRASH");
	unsetenv("GPULAT_NVML_TIMEOUT");
}

FIXTURE_TEARDOWN(gs)
{
	gs_timeline_free(&self->t);
	unlink(self->script);
}

static void script(FIXTURE_DATA(gs) *self, const char *text)
{
	FILE *f = fopen(self->script, "w");

	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

/* sample - run the sampler every @every s for @run_s, then stop it */
static int sample(FIXTURE_DATA(gs) *self, double every, double window,
		  double run_s)
{
	struct gs_sampler s;
	double t0;
	int ret;

	ret = gs_start(&s, every, window);
	if (ret)
		return ret;
	nap(run_s);
	t0 = now_s();
	ret = gs_stop(&s, &self->t);
	self->stop_s = now_s() - t0;
	return ret;
}

/* at - seconds into the window of sample @k */
static double at(const struct gs_timeline *t, size_t k)
{
	return (t->samples[k].time_ns - t->start_ns) / 1e9;
}

TEST_F(gs, timeline_follows_the_script)
{
	const struct gs_gpu_sample *g;
	bool before = false, after = false;
	size_t k;

	script(self,
	       "gpus 2\n"
	       "at 0 gpu 0 util 10 5\n"
	       "at 0 gpu 0 mem 1024 81920\n"
	       "at 0 gpu 0 procs 4242:70000:95 100:10:-\n"
	       "at 1.2 gpu 0 reasons 0x40\n"
	       "at 1.2 gpu 1 util 99 80\n"
	       "at 1.5 xid 0 79\n");
	ASSERT_EQ(0, sample(self, 0.25, 0, 2.4));
	ASSERT_TRUE(self->t.started);
	ASSERT_TRUE(self->t.present);
	EXPECT_FALSE(self->t.hung);
	EXPECT_TRUE(self->t.events);
	EXPECT_STREQ("595.45.04", self->t.driver);
	EXPECT_EQ(2U, self->t.nr_gpus);
	EXPECT_STREQ("00000000:3B:00.0", self->t.info[0].bus_id);
	/* one every 0.25 s over 2.4 s: 9 or 10, late ones not made up */
	EXPECT_LE(8U, self->t.nr_samples);
	EXPECT_GE(11U, self->t.nr_samples);
	EXPECT_LT(self->stop_s, 0.5);
	for (k = 0; k < self->t.nr_samples; k++) {
		g = &self->t.samples[k].gpu[0];
		ASSERT_EQ(2U, self->t.samples[k].nr_gpus);
		ASSERT_TRUE(g->ok & GS_F_UTIL);
		EXPECT_EQ(10U, g->util_gpu);
		EXPECT_EQ(1024 * MIB, g->mem_used);
		EXPECT_EQ(81920 * MIB, g->mem_total);
		if (at(&self->t, k) < 1.1) {
			before = true;
			EXPECT_EQ(0x8ULL, g->reasons);
			EXPECT_EQ(0U, self->t.samples[k].gpu[1].util_gpu);
		} else if (at(&self->t, k) > 1.3) {
			after = true;
			EXPECT_EQ(0x40ULL, g->reasons);
			EXPECT_EQ(99U, self->t.samples[k].gpu[1].util_gpu);
		}
		/* the processes, the most memory first, SMs where sampled */
		ASSERT_TRUE(g->ok & GS_F_PROCS);
		ASSERT_EQ(2U, g->nr_procs);
		EXPECT_EQ(4242, g->procs[0].pid);
		EXPECT_EQ(70000 * MIB, g->procs[0].mem);
		EXPECT_EQ(95U, g->procs[0].sm);
		EXPECT_EQ(100, g->procs[1].pid);
		/* supported, and no sample of it: it used no SM */
		EXPECT_EQ(0U, g->procs[1].sm);
		/* the link and replays of the double's fixed GPU 0 */
		EXPECT_EQ(3U, g->cur_gen);
		EXPECT_EQ(8U, g->cur_width);
		EXPECT_EQ(16U, g->max_width);
		EXPECT_EQ(12U, g->replays);
	}
	EXPECT_TRUE(before);
	EXPECT_TRUE(after);
	/* the Xid, once, on GPU 0, when it came */
	ASSERT_EQ(1U, self->t.nr_xids);
	EXPECT_EQ(79U, self->t.xids[0].code);
	EXPECT_EQ(0U, self->t.xids[0].gpu);
	EXPECT_LT(1.45, (self->t.xids[0].time_ns - self->t.start_ns) / 1e9);
	EXPECT_GT(1.9, (self->t.xids[0].time_ns - self->t.start_ns) / 1e9);
	/* what it cost was measured */
	EXPECT_LT(0U, self->t.cost[GS_CALL_UTIL].count);
	EXPECT_LT(0U, self->t.cpu_ns);
}

TEST_F(gs, hung_call_is_named_and_bounded)
{
	script(self, "at 0.6 hang nvmlDeviceGetUtilizationRates\n");
	ASSERT_EQ(0, sample(self, 0.25, 0, 1.6));
	ASSERT_TRUE(self->t.present);
	ASSERT_TRUE(self->t.hung);
	EXPECT_NE(NULL, strstr(self->t.hung_why,
			       "nvmlDeviceGetUtilizationRates on GPU 0 had not returned after "));
	/* the samples before it, none after; gs_stop waited a second */
	EXPECT_LE(2U, self->t.nr_samples);
	EXPECT_GE(4U, self->t.nr_samples);
	EXPECT_LT(self->stop_s, 2.5);
	EXPECT_GT(self->stop_s, 0.9);
}

TEST_F(gs, init_hang_crash_and_absence)
{
	script(self, "");
	setenv("FAKE_NVML_INIT_HANG", "1", 1);
	/* nvmlInit's bound is $GPULAT_NVML_TIMEOUT: past it, hung */
	setenv("GPULAT_NVML_TIMEOUT", "0.5", 1);
	ASSERT_EQ(0, sample(self, 0.5, 0, 0.3));
	EXPECT_FALSE(self->t.present);
	EXPECT_TRUE(self->t.hung);
	EXPECT_NE(NULL, strstr(self->t.absent,
			       "nvmlInit and the first reading had not returned after"));
	EXPECT_LT(self->stop_s, 2.5);
	gs_timeline_free(&self->t);
	/* under it (10 s by default), a slow start: not hung, said so */
	unsetenv("GPULAT_NVML_TIMEOUT");
	ASSERT_EQ(0, sample(self, 0.5, 0, 0.3));
	unsetenv("FAKE_NVML_INIT_HANG");
	EXPECT_FALSE(self->t.present);
	EXPECT_FALSE(self->t.hung);
	EXPECT_NE(NULL, strstr(self->t.absent,
			       "nvmlInit and the first reading had run "));
	EXPECT_NE(NULL, strstr(self->t.absent, "under its bound of 10 s"));
	EXPECT_LT(self->stop_s, 2.5);
	gs_timeline_free(&self->t);

	setenv("FAKE_NVML_INIT_CRASH", "1", 1);
	ASSERT_EQ(0, sample(self, 0.5, 0, 0.3));
	unsetenv("FAKE_NVML_INIT_CRASH");
	EXPECT_FALSE(self->t.present);
	EXPECT_TRUE(self->t.hung);
	EXPECT_NE(NULL, strstr(self->t.hung_why,
			       "NVML crashed the process sampling it: signal 6"));
	gs_timeline_free(&self->t);

	setenv("GPULAT_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
	ASSERT_EQ(0, sample(self, 0.5, 0, 0.3));
	EXPECT_FALSE(self->t.present);
	EXPECT_FALSE(self->t.hung);
	EXPECT_NE(NULL, strstr(self->t.absent, "not loadable"));
	EXPECT_LT(self->stop_s, 0.5);
}

TEST_F(gs, old_library_names_and_tables)
{
	char old[4096];

	ASSERT_NE(NULL, nvml_double_path(old, sizeof(old), "nvml-old"));
	setenv("GPULAT_NVML_LIB", old, 1);
	script(self, "at 0 gpu 1 procs 77:512:40 78:256:- 79:1024:1\n"
		     "at 0.3 xid 1 48\n");
	ASSERT_EQ(0, sample(self, 0.25, 0, 1.0));
	ASSERT_TRUE(self->t.present);
	ASSERT_LE(3U, self->t.nr_samples);
	/* the v1 table, read with its own 16-byte stride; no SMs */
	ASSERT_EQ(3U, self->t.samples[1].gpu[1].nr_procs);
	EXPECT_EQ(79, self->t.samples[1].gpu[1].procs[0].pid);
	EXPECT_EQ(1024 * MIB, self->t.samples[1].gpu[1].procs[0].mem);
	EXPECT_EQ(77, self->t.samples[1].gpu[1].procs[1].pid);
	EXPECT_EQ(512 * MIB, self->t.samples[1].gpu[1].procs[1].mem);
	EXPECT_EQ(78, self->t.samples[1].gpu[1].procs[2].pid);
	EXPECT_EQ(256 * MIB, self->t.samples[1].gpu[1].procs[2].mem);
	EXPECT_EQ(GS_NA, self->t.samples[1].gpu[1].procs[0].sm);
	EXPECT_FALSE(self->t.samples[1].gpu[1].ok & GS_F_PUTIL);
	EXPECT_FALSE(self->t.samples[1].gpu[0].ok & GS_F_REPLAY);
	/* nvmlEventSetWait, the older name, still brings Xids */
	EXPECT_TRUE(self->t.events);
	ASSERT_EQ(1U, self->t.nr_xids);
	EXPECT_EQ(48U, self->t.xids[0].code);
	EXPECT_EQ(1U, self->t.xids[0].gpu);
	EXPECT_EQ(NULL, strstr(self->t.missing, "ComputeRunningProcesses"));
}

TEST_F(gs, hung_event_wait_is_named)
{
	script(self, "at 0.4 hang nvmlEventSetWait_v2\n");
	ASSERT_EQ(0, sample(self, 0.25, 0, 1.6));
	ASSERT_TRUE(self->t.hung);
	EXPECT_NE(NULL, strstr(self->t.hung_why,
			       "nvmlEventSetWait had not returned after "));
	EXPECT_LT(self->stop_s, 2.5);
}

TEST_F(gs, failing_event_wait_stops_waiting_without_spinning)
{
	size_t k, late = 0;

	script(self, "at 0.3 fail nvmlEventSetWait_v2 15\n");
	ASSERT_EQ(0, sample(self, 0.25, 0, 2.0));
	EXPECT_FALSE(self->t.hung);
	EXPECT_FALSE(self->t.events);
	EXPECT_NE(NULL, strstr(self->t.events_why,
			       "nvmlEventSetWait failed 3 times in a row ("));
	/* it sleeps between samples instead: on time, and no CPU burnt */
	EXPECT_LE(7U, self->t.nr_samples);
	EXPECT_GT(300e6, (double)self->t.cpu_ns);
	for (k = 1; k < self->t.nr_samples; k++)
		late += at(&self->t, k) - at(&self->t, k - 1) > 0.4;
	EXPECT_EQ(0U, late);
}

TEST_F(gs, killed_mid_ring_keeps_whole_samples_in_order)
{
	size_t k;

	/* the ring of 6 wraps; the sampler is killed inside a round */
	script(self, "at 1.6 hang nvmlDeviceGetMemoryInfo\n");
	ASSERT_EQ(0, sample(self, 0.2, 0.4, 2.0));
	ASSERT_TRUE(self->t.hung);
	/* the slot being written when it hung is not kept */
	EXPECT_EQ(5U, self->t.nr_samples);
	for (k = 1; k < self->t.nr_samples; k++)
		EXPECT_LT(at(&self->t, k - 1), at(&self->t, k));
	for (k = 0; k < self->t.nr_samples; k++)
		EXPECT_TRUE(self->t.samples[k].gpu[1].ok & GS_F_MEM);
}

TEST_F(gs, no_xid_events_says_why)
{
	script(self, "events off\n");
	ASSERT_EQ(0, sample(self, 0.25, 0, 0.6));
	ASSERT_TRUE(self->t.present);
	EXPECT_FALSE(self->t.events);
	EXPECT_NE(NULL, strstr(self->t.events_why, "nvmlDeviceRegisterEvents"));
	/* without events it sleeps between samples: still on time */
	EXPECT_LE(2U, self->t.nr_samples);
}

TEST_F(gs, the_ring_keeps_the_newest_and_counts_the_rest)
{
	script(self, "");
	/* a 0.5 s window holds 0.5 / 0.25 + 4 = 6 samples */
	ASSERT_EQ(0, sample(self, 0.25, 0.5, 2.6));
	EXPECT_EQ(6U, self->t.nr_samples);
	EXPECT_LE(4U, self->t.samples_lost);
	EXPECT_LT(at(&self->t, 0), at(&self->t, 5));
	EXPECT_LT(1.0, at(&self->t, 0));
}

TEST_F(gs, printed_timeline)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	script(self, "at 0 gpu 0 procs 4242:70000:95\nat 0.2 xid 0 79\n");
	ASSERT_EQ(0, sample(self, 0.25, 0, 0.7));
	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	gs_print_text(f, &self->t);
	fclose(f);
	EXPECT_NE(NULL, strstr(buf, "driver:    595.45.04\n"));
	EXPECT_NE(NULL, strstr(buf, "   97%   41%"));
	EXPECT_NE(NULL, strstr(buf, "0x8 (hw slowdown)  procs 4242:68.4GiB:95%"));
	EXPECT_NE(NULL, strstr(buf, " Xid 79\n"));
	EXPECT_NE(NULL, strstr(buf, "cost:      NVML's calls took "));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	gs_print_json(f, &self->t);
	fclose(f);
	EXPECT_NE(NULL, strstr(buf, "\"procs\":[{\"pid\":4242,\"mem\":73400320000,\"sm\":95}]"));
	EXPECT_NE(NULL, strstr(buf, "\"code\":79}"));
	free(buf);
}

TEST(interval_choice)
{
	char why[160];

	unsetenv("GPULAT_NVML_INTERVAL");
	EXPECT_EQ(GS_INTERVAL_S, gs_interval(-1, why, sizeof(why)));
	EXPECT_EQ(0.5, gs_interval(0.5, why, sizeof(why)));
	EXPECT_EQ(0, gs_interval(0, why, sizeof(why)));
	setenv("GPULAT_NVML_INTERVAL", "2.5", 1);
	EXPECT_EQ(2.5, gs_interval(-1, why, sizeof(why)));
	EXPECT_EQ(0.5, gs_interval(0.5, why, sizeof(why)));
	setenv("GPULAT_NVML_INTERVAL", "0", 1);
	EXPECT_EQ(0, gs_interval(-1, why, sizeof(why)));
	setenv("GPULAT_NVML_INTERVAL", "0.1", 1);
	EXPECT_EQ(-1, gs_interval(-1, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "GPULAT_NVML_INTERVAL=0.1: not 0 (off)"));
	setenv("GPULAT_NVML_INTERVAL", "1x", 1);
	EXPECT_EQ(-1, gs_interval(-1, why, sizeof(why)));
	unsetenv("GPULAT_NVML_INTERVAL");
}

TEST_HARNESS_MAIN
