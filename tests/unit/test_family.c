// SPDX-License-Identifier: GPL-2.0
/* The family table (user/lib/family.c): rows, names, keys, rules. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "cmd/cmd.h"
#include "lib/cgroup.h"
#include "lib/family.h"

/* Every family of the ABI has a row, a name and named series. */
TEST(every_family_has_a_row)
{
	const struct gl_family_info *fi;
	char prefix[GPULAT_NAME_LEN];
	uint32_t f, id, named;

	ASSERT_EQ(NULL, gl_family(0));
	ASSERT_EQ(NULL, gl_family(GPULAT_FAM_MAX));
	ASSERT_EQ(GPULAT_FAM_MAX - 1, gl_family_count());
	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		fi = gl_family(f);
		ASSERT_NE(NULL, fi);
		ASSERT_EQ(f, fi->id);
		ASSERT_NE(NULL, fi->name);
		ASSERT_EQ((int)f, gl_family_lookup(fi->name));
		ASSERT_NE(0, fi->nr_series);
		snprintf(prefix, sizeof(prefix), "%s.", fi->name);
		named = 0;
		for (id = 0; id < fi->nr_series; id++) {
			const struct gl_series_info *si = gl_series_info(f, id);

			if (!si)
				continue;
			named++;
			/* the module's names: "FAMILY.what" */
			ASSERT_EQ(0, strncmp(si->name, prefix, strlen(prefix)));
			ASSERT_LT(si->layer, GL_NR_LAYERS);
			/* copies of other series have no rule of their own */
			if (fi->copies) {
				ASSERT_FALSE(si->judged);
				ASSERT_EQ(0, si->expect_p99_ns);
				continue;
			}
			ASSERT_GT(si->expect_p99_ns, 0);
			ASSERT_GT(si->weight, 0);
		}
		ASSERT_EQ(fi->nr_series, named);
	}
}

TEST(series_names)
{
	char b[GPULAT_NAME_LEN + 16];

	ASSERT_STREQ("sched.wakeup", gl_series_name(b, sizeof(b),
						    GPULAT_FAM_SCHED,
						    GPULAT_SCHED_WAKEUP));
	ASSERT_STREQ("block.flush.device",
		     gl_series_name(b, sizeof(b), GPULAT_FAM_BLOCK,
				    GPULAT_BLOCK_SERIES(GPULAT_BLOCK_FLUSH,
							GPULAT_BLOCK_DEVICE)));
	ASSERT_STREQ("softirq.run",
		     gl_series_name(b, sizeof(b), GPULAT_FAM_SOFTIRQ,
				    GPULAT_SOFTIRQ_SERIES(9,
							  GPULAT_SOFTIRQ_RUN)));
	ASSERT_STREQ("nvidia.kthread.wake",
		     gl_series_name(b, sizeof(b), GPULAT_FAM_NVIDIA,
				    GPULAT_NV_KTHREAD_WAKE));
	ASSERT_STREQ("family6.series4",
		     gl_series_name(b, sizeof(b), GPULAT_FAM_NVIDIA, 4));
	ASSERT_STREQ("family99.series0",
		     gl_series_name(b, sizeof(b), 99, 0));
	ASSERT_STREQ("family5.series20",
		     gl_series_name(b, sizeof(b), GPULAT_FAM_SOFTIRQ, 20));
}

TEST(key_kinds)
{
	ASSERT_EQ(GL_KEY_NONE, gl_key_kind(GPULAT_FAM_SCHED, 0));
	ASSERT_EQ(GL_KEY_DISK, gl_key_kind(GPULAT_FAM_BLOCK, 99));
	ASSERT_EQ(GL_KEY_NETDEV, gl_key_kind(GPULAT_FAM_NET, GPULAT_NET_TX));
	ASSERT_EQ(GL_KEY_IRQ, gl_key_kind(GPULAT_FAM_IRQ, 7));
	ASSERT_EQ(GL_KEY_VECTOR, gl_key_kind(GPULAT_FAM_SOFTIRQ, 0));
	ASSERT_EQ(GL_KEY_IRQ, gl_key_kind(GPULAT_FAM_NVIDIA,
					  GPULAT_NV_THREAD_RUN));
	ASSERT_EQ(GL_KEY_PID, gl_key_kind(GPULAT_FAM_NVIDIA,
					  GPULAT_NV_KTHREAD_WAKE));
	ASSERT_EQ(GL_KEY_NONE, gl_key_kind(GPULAT_FAM_NVIDIA, 4));
	ASSERT_EQ(GL_KEY_PROCESS, gl_key_kind(GPULAT_FAM_CUDA,
					      GPULAT_CUDA_OTHER));
	ASSERT_EQ(GL_KEY_NONE, gl_key_kind(99, 0));
	ASSERT_STREQ("NET_RX", gl_vector_info(3)->name);
	ASSERT_EQ(GPULAT_FAM_NET, gl_vector_info(2)->also_family);
	ASSERT_EQ(0, gl_vector_info(1)->also_family);
	ASSERT_EQ(NULL, gl_vector_info(GPULAT_SOFTIRQ_NR_VECS));
}

/* Today's diagnosis rules, as diagnose.c has them. */
TEST(diagnosis_rules)
{
	const struct gl_series_info *si;

	si = gl_series_info(GPULAT_FAM_SCHED, GPULAT_SCHED_PREEMPT);
	ASSERT_TRUE(si->judged);
	ASSERT_EQ(GL_LAYER_SCHED, si->layer);
	ASSERT_EQ(5000000, si->expect_p99_ns);
	ASSERT_EQ(50, si->weight);
	si = gl_series_info(GPULAT_FAM_BLOCK,
			    GPULAT_BLOCK_SERIES(GPULAT_BLOCK_DISCARD,
						GPULAT_BLOCK_QUEUE));
	ASSERT_EQ(50000000, si->expect_p99_ns);
	ASSERT_EQ(GL_LAYER_STORAGE, si->layer);
	si = gl_series_info(GPULAT_FAM_BLOCK,
			    GPULAT_BLOCK_SERIES(GPULAT_BLOCK_OTHER,
						GPULAT_BLOCK_DEVICE));
	ASSERT_EQ(20000000, si->expect_p99_ns);
	si = gl_series_info(GPULAT_FAM_IRQ, GPULAT_IRQ_HANDLER);
	ASSERT_EQ(100000, si->expect_p99_ns);
	ASSERT_EQ(GL_LAYER_SCHED, gl_series_layer(si, "eth0"));
	ASSERT_EQ(GL_LAYER_DRIVER, gl_series_layer(si, "nvidia"));
	ASSERT_EQ(GL_LAYER_SCHED, gl_series_layer(si, ""));
	si = gl_series_info(GPULAT_FAM_SOFTIRQ,
			    GPULAT_SOFTIRQ_SERIES(3, GPULAT_SOFTIRQ_WAIT));
	ASSERT_EQ(GL_LAYER_NETWORK, gl_series_layer(si, "NET_RX"));
	ASSERT_EQ(100, si->weight);
	ASSERT_EQ(2000000, si->expect_p99_ns);
	si = gl_series_info(GPULAT_FAM_SOFTIRQ,
			    GPULAT_SOFTIRQ_SERIES(1, GPULAT_SOFTIRQ_RUN));
	ASSERT_EQ(GL_LAYER_SCHED, si->layer);
	ASSERT_EQ(50, si->weight);
	si = gl_series_info(GPULAT_FAM_NVIDIA, GPULAT_NV_THREAD_WAKE);
	ASSERT_EQ(500000, si->expect_p99_ns);
	ASSERT_EQ(GL_LAYER_DRIVER, si->layer);
	si = gl_series_info(GPULAT_FAM_MM, GPULAT_MM_COMPACTION_BG);
	ASSERT_FALSE(si->judged);
	ASSERT_TRUE(gl_series_info(GPULAT_FAM_MM,
				   GPULAT_MM_COMPACTION)->judged);
	si = gl_series_info(GPULAT_FAM_MM, GPULAT_MM_MEMCG_RECLAIM);
	ASSERT_TRUE(si->judged);
	ASSERT_EQ(GL_LAYER_MEMORY, si->layer);
	ASSERT_EQ(1000000, si->expect_p99_ns);
	/* per-cgroup copies: no rule of their own */
	ASSERT_TRUE(gl_family(GPULAT_FAM_CGROUP)->copies);
	ASSERT_FALSE(gl_family(GPULAT_FAM_SCHED)->copies);
	si = gl_series_info(GPULAT_FAM_CGROUP, GPULAT_CG_BLOCK);
	ASSERT_FALSE(si->judged);
	ASSERT_EQ(GL_LAYER_STORAGE, si->layer);
	ASSERT_EQ(GL_KEY_CGROUP, si->key);
	ASSERT_EQ(NULL, gl_series_info(GPULAT_FAM_SCHED, 2));
	ASSERT_EQ(GL_LAYER_NONE, gl_series_layer(NULL, ""));

	ASSERT_EQ(GPULAT_FAM_NVIDIA, gl_layer_family(GL_LAYER_DRIVER));
	ASSERT_EQ(GPULAT_FAM_NET, gl_layer_family(GL_LAYER_NETWORK));
	ASSERT_EQ(GPULAT_FAM_BLOCK, gl_layer_family(GL_LAYER_STORAGE));
	ASSERT_EQ(GPULAT_FAM_SCHED, gl_layer_family(GL_LAYER_SCHED));
	ASSERT_EQ(GPULAT_FAM_MM, gl_layer_family(GL_LAYER_MEMORY));
	ASSERT_EQ(0, gl_layer_family(GL_LAYER_NONE));
}

/* hist_key_text for each family, with and without a key name. */
TEST(key_text)
{
	struct gpulat_series sr;
	char buf[80];

	memset(&sr, 0, sizeof(sr));
	ASSERT_STREQ("", hist_key_text(buf, sizeof(buf), &sr));
	sr.family = GPULAT_FAM_BLOCK;
	sr.key = 8ULL << 20 | 16;
	ASSERT_STREQ("dev 8:16", hist_key_text(buf, sizeof(buf), &sr));
	strcpy(sr.key_name, "sdb");
	ASSERT_STREQ("sdb", hist_key_text(buf, sizeof(buf), &sr));
	memset(&sr, 0, sizeof(sr));
	sr.family = GPULAT_FAM_NET;
	sr.key = 4;
	ASSERT_STREQ("ifindex 4", hist_key_text(buf, sizeof(buf), &sr));
	sr.family = GPULAT_FAM_IRQ;
	sr.key = 0xffffffffULL << 32 | 130;
	ASSERT_STREQ("irq 130", hist_key_text(buf, sizeof(buf), &sr));
	strcpy(sr.key_name, "nvme0q\n");
	ASSERT_STREQ("irq 130 nvme0q?", hist_key_text(buf, sizeof(buf), &sr));
	sr.family = GPULAT_FAM_NVIDIA;
	sr.id = GPULAT_NV_HARDIRQ;
	ASSERT_STREQ("irq 130 nvme0q?", hist_key_text(buf, sizeof(buf), &sr));
	sr.id = GPULAT_NV_KTHREAD_WAKE;
	sr.key = 4242;
	strcpy(sr.key_name, "nv_queue");
	ASSERT_STREQ("pid 4242 nv_queue", hist_key_text(buf, sizeof(buf), &sr));
	/* a cgroup: its path from the mount where this host has it */
	memset(&sr, 0, sizeof(sr));
	sr.family = GPULAT_FAM_CGROUP;
	sr.id = GPULAT_CG_WAKEUP;
	sr.key = 1;
	strcpy(sr.key_name, "web.service");
	gl_cg_set_root("/nonexistent-gpulat");
	ASSERT_STREQ("cgroup 1 web.service", hist_key_text(buf, sizeof(buf), &sr));
	{
		char tree[] = "/tmp/gpulat-fcg-XXXXXX", p[64];
		struct stat st;

		ASSERT_NE(NULL, mkdtemp(tree));
		snprintf(p, sizeof(p), "%s/web.service", tree);
		ASSERT_EQ(0, mkdir(p, 0755));
		ASSERT_EQ(0, stat(p, &st));
		gl_cg_set_root(tree);
		sr.key = st.st_ino;
		ASSERT_STREQ("/web.service", hist_key_text(buf, sizeof(buf), &sr));
		rmdir(p);
		rmdir(tree);
	}
	gl_cg_set_root(NULL);
	memset(&sr, 0, sizeof(sr));
	sr.family = GPULAT_FAM_SOFTIRQ;
	sr.key = 9;
	ASSERT_STREQ("vector 9", hist_key_text(buf, sizeof(buf), &sr));
	sr.family = 42;
	ASSERT_STREQ("key 9", hist_key_text(buf, sizeof(buf), &sr));
	/* clipped to the buffer */
	sr.family = GPULAT_FAM_NVIDIA;
	sr.id = GPULAT_NV_KTHREAD_WAKE;
	ASSERT_STREQ("pid", hist_key_text(buf, 4, &sr));
}

TEST_HARNESS_MAIN
