// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose's lines on the GPU jobs' own waits (the cuda family),
 * from windows whose answers are known: per process its calls, what the
 * GPU took and what the host added per call, part by part, the host's
 * share per second watched, most host first; none without calls.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"

#include "diag_cases.h"

/* @text with its wrapped lines joined: "a\n    b" is "a b" */
static const char *flat(const char *text)
{
	static char buf[1 << 16];
	size_t o = 0;

	for (; *text && o < sizeof(buf) - 1; text++) {
		if (*text == '\n') {
			while (text[1] == ' ')
				text++;
			buf[o++] = ' ';
			continue;
		}
		buf[o++] = *text;
	}
	buf[o] = '\0';
	return buf;
}

/* @n calls of process @pid split on the driver's path, per part, ns */
static void job_woken(struct blob *b, uint64_t pid, const char *comm,
		      uint64_t n, uint64_t gpu, uint64_t drv, uint64_t rq,
		      uint64_t ret)
{
	const uint64_t ns[] = {
		[GPULAT_CUDA_CALL] = gpu + drv + rq + ret,
		[GPULAT_CUDA_GPU] = gpu, [GPULAT_CUDA_DRIVER] = drv,
		[GPULAT_CUDA_RUNQ] = rq, [GPULAT_CUDA_PREEMPTED] = 0,
		[GPULAT_CUDA_RETURN] = ret,
	};
	unsigned int id;

	for (id = 0; id <= GPULAT_CUDA_RETURN; id++)
		blob_record(b, blob_add_series(b, GPULAT_FAM_CUDA, id,
					       GPULAT_CPU_NONE, pid, NULL,
					       comm), ns[id], n);
}

/* one job behind a slow driver path: its line, its share */
TEST_F(diag, job_driver_path_is_the_hosts_share)
{
	job_woken(&self->end, 777, "train", 100, 3 * MS, 6 * MS, MS / 2,
		  MS / 2);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_NE(NULL, strstr(self->text, "The GPU jobs' waits"));
	EXPECT_NE(NULL, strstr(self->text, "pid 777 train: 100 calls"));
	EXPECT_NE(NULL, strstr(flat(self->text), "the GPU took 3.00ms and the host added 7.00ms"));
	EXPECT_NE(NULL, strstr(flat(self->text), "driver path 6.00ms"));
	/* 100 x 7 ms in 10 s */
	EXPECT_NE(NULL, strstr(flat(self->text), "the host's share: 70.0ms per second"));
	EXPECT_NE(NULL, strstr(self->json, "\"pid\":777,\"comm\":\"train\""));
	EXPECT_NE(NULL, strstr(self->json, "\"host_ms_per_s\":70"));
}

/* the container the job runs in, from its /proc/PID/cgroup */
TEST_F(diag, job_in_its_container)
{
	char path[PATH_MAX];
	FILE *f;

	put_comm(self->root, 778, 778, "infer");
	snprintf(path, sizeof(path), "%s/proc/778/cgroup", self->root);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "0::/system.slice/docker-%s.scope\n",
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	fclose(f);
	job_woken(&self->end, 778, "infer", 20, 3 * MS, MS, MS, MS);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_NE(NULL, strstr(flat(self->text),
			       "pid 778 infer in docker 0123456789ab: 20 calls"));
	EXPECT_NE(NULL, strstr(self->json,
			       "\"container\":\"docker 0123456789ab\""));
}

/* two jobs: the one the host delayed more comes first */
TEST_F(diag, jobs_most_host_first)
{
	job_woken(&self->end, 100, "light", 100, 3 * MS, 10 * US, 10 * US,
		  10 * US);
	job_woken(&self->end, 200, "heavy", 50, 3 * MS, MS, 4 * MS, MS);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	ASSERT_NE(NULL, strstr(self->text, "pid 100 light"));
	EXPECT_LT(strstr(self->text, "pid 200 heavy"),
		  strstr(self->text, "pid 100 light"));
	EXPECT_NE(NULL, strstr(self->json, "\"gpu_jobs_seen\":2"));
}

/* a spinning job: on CPU, no GPU part claimed */
TEST_F(diag, spinning_job_is_on_cpu)
{
	size_t i;

	i = blob_add_series(&self->end, GPULAT_FAM_CUDA, GPULAT_CUDA_CALL,
			    GPULAT_CPU_NONE, 300, NULL, "spin");
	blob_record(&self->end, i, 2 * MS, 40);
	i = blob_add_series(&self->end, GPULAT_FAM_CUDA, GPULAT_CUDA_ONCPU,
			    GPULAT_CPU_NONE, 300, NULL, "spin");
	blob_record(&self->end, i, 2 * MS, 40);
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_NE(NULL, strstr(self->text, "40 not woken by the driver"));
	EXPECT_NE(NULL, strstr(flat(self->text), "on CPU 2.00ms"));
	EXPECT_EQ(NULL, strstr(self->text, "woken by the driver: per call"));
}

/* no calls in the window: no section, an empty list */
TEST_F(diag, no_jobs_no_lines)
{
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(NULL, strstr(self->text, "GPU jobs"));
	EXPECT_NE(NULL, strstr(self->json, "\"gpu_jobs\":[]"));
}

TEST_HARNESS_MAIN
