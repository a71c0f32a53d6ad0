// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat trace's Xids from NVML (trace_nvml.c) with the NVML double's
 * scripted Xids: one the tracepoint also reported prints once, as the
 * tracepoint's, whichever came first; one of NVML alone prints after its
 * hold; nothing is lost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "engine/gpusample/gpusample.h"
#include "nvml_double.h"

struct got {
	uint32_t code[8];
	char dev[8][32];
	size_t n;
};

static void got_one(uint64_t time_ns, uint32_t code, const char *device,
		    void *arg)
{
	struct got *g = arg;

	(void)time_ns;
	if (g->n < 8) {
		g->code[g->n] = code;
		snprintf(g->dev[g->n], sizeof(g->dev[0]), "%s", device);
	}
	g->n++;
}

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* run - tick every 50 ms for @s seconds */
static void run(struct trace_nvml *t, double s)
{
	uint64_t end = mono() + (uint64_t)(s * 1e9);
	struct timespec step = { 0, 50 * 1000 * 1000 };

	while (mono() < end) {
		tn_tick(t, mono());
		nanosleep(&step, NULL);
	}
}

/* start - the waiter on the double playing @text; its script in @script */
static int start(struct trace_nvml *t, struct got *g, char *script,
		 const char *text)
{
	char lib[4096];
	FILE *f;
	int fd;

	if (!nvml_double_path(lib, sizeof(lib), "nvml"))
		return -1;
	fd = mkstemp(script);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	setenv("GPULAT_NVML_LIB", lib, 1);
	setenv("FAKE_NVML_SCRIPT", script, 1);
	return tn_start(t, got_one, g);
}

TEST(merged_with_the_tracepoint)
{
	char script[] = "/tmp/gpulat-tn-XXXXXX";
	struct trace_nvml t;
	struct gs_timeline tl;
	struct got g = { 0 };
	uint64_t t0;

	t0 = mono();
	/* 79 on GPU 0 also seen by the tracepoint; 48 on GPU 1 by NVML alone */
	ASSERT_EQ(0, start(&t, &g, script,
			   "at 0.3 xid 0 79\nat 0.6 xid 1 48\nat 1.5 xid 0 13\n"));
	run(&t, 1.0);
	/* the tracepoint's 79 comes after NVML's: NVML's was held */
	tn_kernel_xid(&t, t0 + 350000000ULL, 79, "0000:3b:00.0");
	/* a tracepoint Xid before NVML's 13 comes: NVML's joins it */
	tn_kernel_xid(&t, t0 + 1500000000ULL, 13, "0000:3b:00.0");
	EXPECT_EQ(0U, g.n);	/* 48 is still held */
	run(&t, 2.8);
	tn_stop(&t, &tl);
	ASSERT_EQ(1U, g.n);
	EXPECT_EQ(48U, g.code[0]);
	EXPECT_STREQ("0000:86:00.0", g.dev[0]);
	EXPECT_EQ(1U, t.printed);
	EXPECT_EQ(2U, t.merged);
	EXPECT_EQ(0U, t.lost);
	EXPECT_TRUE(tl.present);
	EXPECT_TRUE(tl.events);
	/* no GPU was polled */
	EXPECT_EQ(0U, tl.nr_samples);
	gs_timeline_free(&tl);
	unlink(script);
}

TEST(held_ones_print_at_the_end)
{
	char script[] = "/tmp/gpulat-tn-XXXXXX";
	struct trace_nvml t;
	struct gs_timeline tl;
	struct got g = { 0 };

	ASSERT_EQ(0, start(&t, &g, script, "at 0.2 xid 1 94\n"));
	run(&t, 0.6);
	EXPECT_EQ(0U, g.n);
	tn_stop(&t, &tl);
	ASSERT_EQ(1U, g.n);
	EXPECT_EQ(94U, g.code[0]);
	gs_timeline_free(&tl);
	unlink(script);
}

TEST(no_nvml_no_output)
{
	struct trace_nvml t;
	struct gs_timeline tl;
	struct got g = { 0 };

	setenv("GPULAT_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
	unsetenv("FAKE_NVML_SCRIPT");
	ASSERT_EQ(0, tn_start(&t, got_one, &g));
	run(&t, 0.3);
	tn_kernel_xid(&t, mono(), 79, "0000:3b:00.0");
	tn_stop(&t, &tl);
	EXPECT_EQ(0U, g.n);
	EXPECT_FALSE(tl.present);
	EXPECT_NE(NULL, strstr(tl.absent, "not loadable"));
}

TEST_HARNESS_MAIN
