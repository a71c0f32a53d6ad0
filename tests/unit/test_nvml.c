// SPDX-License-Identifier: GPL-2.0
/*
 * NVML through the test double (build/unit/nvml/libnvidia-ml.so.1 and
 * nvml-old/, from tests/nvml/fake_nvml.c) by file name, an absent library
 * or driver, and the clock event reasons as text.  test_report's tool
 * runs find it by its soname.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "engine/nvml/nvml.h"
#include "nvml_double.h"

static char *nvml_text(const struct nvml_info *n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	nvml_print_text(f, n);
	fclose(f);
	return buf;
}

TEST(nvml_double)
{
	int (*inits)(void), (*shutdowns)(void);
	struct nvml_info *n = calloc(1, sizeof(*n));
	char lib[PATH_MAX], *t;
	void *keep;

	ASSERT_NE(NULL, n);
	ASSERT_NE(NULL, nvml_double_path(lib, sizeof(lib), "nvml"))
		TH_LOG("the NVML test double is not built (make unit builds it)");
	ASSERT_EQ(0, setenv("GPULAT_NVML_LIB", lib, 1));
	/* Held open here too, so its call counters outlive nvml_close(). */
	keep = dlopen(lib, RTLD_NOW);
	ASSERT_NE(NULL, keep);
	*(void **)&inits = dlsym(keep, "fake_nvml_inits");
	*(void **)&shutdowns = dlsym(keep, "fake_nvml_shutdowns");
	ASSERT_NE(NULL, inits);
	ASSERT_NE(NULL, shutdowns);

	nvml_collect(n);
	ASSERT_TRUE(n->present) TH_LOG("%s", n->absent);
	EXPECT_STREQ("", n->missing);
	EXPECT_STREQ("595.45.04", n->driver);
	ASSERT_EQ(2, n->nr_gpus);
	EXPECT_STREQ("NVIDIA H100 80GB HBM3", n->gpu[0].name);
	EXPECT_STREQ("00000000:3B:00.0", n->gpu[0].bus_id);
	EXPECT_EQ(0x8, n->gpu[0].reasons);
	EXPECT_EQ(3, n->gpu[0].cur_gen);
	EXPECT_EQ(8, n->gpu[0].cur_width);
	EXPECT_EQ(5, n->gpu[0].max_gen);
	EXPECT_EQ(16, n->gpu[0].max_width);
	EXPECT_EQ(0, n->gpu[0].persistence);
	EXPECT_EQ(97, n->gpu[0].util.gpu);
	EXPECT_EQ(41, n->gpu[0].util.memory);
	EXPECT_EQ(12, n->gpu[0].replays);
	EXPECT_EQ(0x41, n->gpu[1].reasons);
	EXPECT_EQ(1, n->gpu[1].persistence);
	EXPECT_EQ(NVML_ERROR_NOT_SUPPORTED, n->gpu[1].replay_ret);
	t = nvml_text(n);
	EXPECT_NE(NULL, strstr(t, "driver:       595.45.04\ngpus:         2\n"));
	EXPECT_NE(NULL, strstr(t, "\ngpu 0\n  name:         NVIDIA H100 80GB HBM3\n  pci:          00000000:3B:00.0\n"));
	EXPECT_NE(NULL, strstr(t, "  clock events: 0x8 (hw slowdown)\n"));
	EXPECT_NE(NULL, strstr(t, "  pcie link:    gen 3 x8 of max gen 5 x16  (width below maximum)\n"));
	EXPECT_NE(NULL, strstr(t, "  pcie replays: 12\n"));
	EXPECT_NE(NULL, strstr(t, "  persistence:  disabled"));
	EXPECT_NE(NULL, strstr(t, "  utilisation:  gpu 97%, memory 41%\n"));
	EXPECT_NE(NULL, strstr(t, "  clock events: 0x41 (gpu idle, hw thermal slowdown)\n"));
	EXPECT_NE(NULL, strstr(t, "  pcie link:    gen 5 x16 of max gen 5 x16\n"));
	EXPECT_NE(NULL, strstr(t, "  pcie replays: absent: not supported\n"));
	EXPECT_NE(NULL, strstr(t, "  persistence:  enabled\n"));
	free(t);
	nvml_close(n);
	EXPECT_EQ(NULL, n->handle);
	EXPECT_EQ(1, inits());
	EXPECT_EQ(1, shutdowns());
	nvml_close(n);		/* twice is harmless */
	EXPECT_EQ(1, shutdowns());
	dlclose(keep);
	free(n);
}

/* A library from before driver 535: the old name, no replay counter. */
TEST(nvml_old_library)
{
	struct nvml_info *n = calloc(1, sizeof(*n));
	char lib[PATH_MAX], *t;

	ASSERT_NE(NULL, n);
	ASSERT_NE(NULL, nvml_double_path(lib, sizeof(lib), "nvml-old"));
	ASSERT_EQ(0, setenv("GPULAT_NVML_LIB", lib, 1));
	nvml_collect(n);
	ASSERT_TRUE(n->present) TH_LOG("%s", n->absent);
	EXPECT_STREQ("nvmlDeviceGetPcieReplayCounter", n->missing);
	EXPECT_EQ(0, n->gpu[0].reasons_ret);
	EXPECT_EQ(0x8, n->gpu[0].reasons);
	t = nvml_text(n);
	EXPECT_NE(NULL, strstr(t, "missing:      nvmlDeviceGetPcieReplayCounter (older library"));
	EXPECT_NE(NULL, strstr(t, "  pcie replays: absent: the library lacks the function\n"));
	EXPECT_NE(NULL, strstr(t, "  clock events: 0x8 (hw slowdown)\n"));
	free(t);
	nvml_close(n);
	free(n);
}

TEST(nvml_absent)
{
	struct nvml_info *n = calloc(1, sizeof(*n));
	char lib[PATH_MAX], *t;

	ASSERT_NE(NULL, n);
	ASSERT_EQ(0, setenv("GPULAT_NVML_LIB", "/nonexistent/" NVML_SONAME, 1));
	nvml_collect(n);
	EXPECT_FALSE(n->present);
	EXPECT_EQ(NULL, n->handle);
	EXPECT_EQ(0, strncmp(n->absent, "/nonexistent/libnvidia-ml.so.1 not loadable: ",
			     strlen("/nonexistent/libnvidia-ml.so.1 not loadable: ")))
		TH_LOG("%s", n->absent);
	t = nvml_text(n);
	EXPECT_NE(NULL, strstr(t, "\nabsent: /nonexistent/libnvidia-ml.so.1 not loadable"));
	free(t);
	nvml_close(n);

	/* The driver is not loaded: nvmlInit says so, and that is stated. */
	ASSERT_NE(NULL, nvml_double_path(lib, sizeof(lib), "nvml"));
	ASSERT_EQ(0, setenv("GPULAT_NVML_LIB", lib, 1));
	ASSERT_EQ(0, setenv("FAKE_NVML_INIT_FAIL", "9", 1));
	nvml_collect(n);
	EXPECT_FALSE(n->present);
	EXPECT_EQ(NULL, n->handle);
	EXPECT_STREQ("nvmlInit failed: Driver Not Loaded (NVML error 9)", n->absent);
	nvml_close(n);
	free(n);
}

TEST(nvml_reasons)
{
	char buf[256];

	EXPECT_STREQ("none", nvml_reasons_text(buf, sizeof(buf), 0));
	EXPECT_STREQ("gpu idle, applications clocks setting, sw power cap, hw slowdown, sync boost, sw thermal slowdown, hw thermal slowdown, hw power brake slowdown, display clock setting",
		     nvml_reasons_text(buf, sizeof(buf), 0x1ff));
	/* Each bit as NVML's nvml.h defines it. */
	EXPECT_STREQ("sync boost", nvml_reasons_text(buf, sizeof(buf), 0x10));
	EXPECT_STREQ("sw thermal slowdown",
		     nvml_reasons_text(buf, sizeof(buf), 0x20));
	EXPECT_STREQ("hw thermal slowdown",
		     nvml_reasons_text(buf, sizeof(buf), 0x40));
	EXPECT_STREQ("hw power brake slowdown",
		     nvml_reasons_text(buf, sizeof(buf), 0x80));
	EXPECT_STREQ("display clock setting",
		     nvml_reasons_text(buf, sizeof(buf), 0x100));
	EXPECT_STREQ("gpu idle, hw thermal slowdown",
		     nvml_reasons_text(buf, sizeof(buf), 0x41));
	EXPECT_STREQ("hw slowdown, unknown 0x10200",
		     nvml_reasons_text(buf, sizeof(buf), 0x10208));
	EXPECT_STREQ("hw s", nvml_reasons_text(buf, 5, 0x8));
}

TEST_HARNESS_MAIN
