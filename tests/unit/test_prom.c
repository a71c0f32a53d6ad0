// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus exposition of gpulat serve (engine/prom.c): le bounds
 * exact for gpulat's buckets at every coarseness, cumulative buckets
 * equal to the slots' sums, series summed over CPUs and over keys past
 * the bound (stably), labels escaped, Xids counted once each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "blob.h"
#include "cgroup.h"
#include "gpulat_hist.h"
#include "gpulat_user.h"
#include "prom.h"

/* render - the exposition of @b under @p, malloc'd */
static char *render(struct prom_state *p, const struct blob *b)
{
	struct gl_snapshot *s = b ? blob_parse(b) : NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (prom_write(p, s, f))
		abort();
	fclose(f);
	gl_snapshot_free(s);
	return buf;
}

/* value - the number on the line that starts with @series + " ", or -1 */
static double value(const char *text, const char *series)
{
	size_t n = strlen(series);
	const char *at = text;

	while ((at = strstr(at, series))) {
		if ((at == text || at[-1] == '\n') && at[n] == ' ')
			return strtod(at + n + 1, NULL);
		at += n;
	}
	return -1;
}

/* le_ns - an le string back to integer nanoseconds, exactly */
static uint64_t le_ns(const char *le)
{
	uint64_t sec = 0, frac = 0;
	int digits = 0;
	const char *c = le;

	for (; *c && *c != '.'; c++)
		sec = sec * 10 + (*c - '0');
	if (*c == '.')
		for (c++; *c; c++, digits++)
			frac = frac * 10 + (*c - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	return sec * 1000000000ULL + frac;
}

TEST(le_is_the_upper_bound_less_one_ns)
{
	char le[32];
	uint32_t i;

	for (i = 0; i < GPULAT_HIST_OVERFLOW; i++) {
		prom_le(le, sizeof(le), i);
		ASSERT_EQ(gpulat_hist_upper(i) - 1, le_ns(le));
		/* a sample at the bound is in the bucket, one above is not */
		ASSERT_EQ(i, gpulat_hist_slot(le_ns(le)));
		ASSERT_EQ(i + 1, gpulat_hist_slot(le_ns(le) + 1));
		ASSERT_NE('0', le[strlen(le) - 1]);
	}
	ASSERT_STREQ("0.000000511", prom_le(le, sizeof(le), 0));
	ASSERT_STREQ("0.000001023", prom_le(le, sizeof(le), 8));
}

TEST(coarse_bounds_nest_in_the_fine_ones)
{
	static const unsigned int per[] = { 4, 2, 1 };
	unsigned int k, n;
	uint32_t i;
	char le[32];

	for (k = 0; k < 3; k++) {
		n = 0;
		for (i = 0; i < GPULAT_HIST_NR_BUCKETS; i++) {
			if (!prom_bucket_kept(i, per[k]))
				continue;
			ASSERT_TRUE(prom_bucket_kept(i, 8));
			n++;
		}
		/* the underflow, then per[k] per power of two */
		ASSERT_EQ(1 + per[k] * (GPULAT_HIST_MAX_SHIFT -
					GPULAT_HIST_MIN_SHIFT), n);
	}
	/* one per power of two: 2^k - 1 ns */
	for (i = 0; i < GPULAT_HIST_OVERFLOW; i++)
		if (i && prom_bucket_kept(i, 1)) {
			uint64_t ns = le_ns(prom_le(le, sizeof(le), i)) + 1;

			ASSERT_EQ(0, ns & (ns - 1));
		}
	ASSERT_FALSE(prom_bucket_kept(GPULAT_HIST_OVERFLOW, 8));
	ASSERT_TRUE(prom_valid_per_octave(4));
	ASSERT_FALSE(prom_valid_per_octave(3));
}

TEST(a_histogram_sums_cpus_and_its_buckets_are_cumulative)
{
	struct prom_state p;
	struct blob b;
	size_t a, c;
	char *t;

	prom_init(&p);
	blob_init(&b);
	a = blob_add_series(&b, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP, 0, 0,
			    NULL, "");
	c = blob_add_series(&b, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP, 1, 0,
			    NULL, "");
	blob_record(&b, a, 1000, 10);		/* [896, 1024): le 1023 ns */
	blob_record(&b, c, 1023, 5);
	blob_record(&b, c, 1024, 1);		/* next bucket */
	blob_record(&b, a, 3000000, 4);		/* 3 ms */
	t = render(&p, &b);
	ASSERT_EQ(15, value(t, "gpulat_runqueue_latency_seconds_bucket{kind=\"wakeup\",le=\"0.000001023\"}"));
	ASSERT_EQ(16, value(t, "gpulat_runqueue_latency_seconds_bucket{kind=\"wakeup\",le=\"0.000001151\"}"));
	ASSERT_EQ(16, value(t, "gpulat_runqueue_latency_seconds_bucket{kind=\"wakeup\",le=\"0.002883583\"}"));
	ASSERT_EQ(20, value(t, "gpulat_runqueue_latency_seconds_bucket{kind=\"wakeup\",le=\"0.003145727\"}"));
	ASSERT_EQ(20, value(t, "gpulat_runqueue_latency_seconds_bucket{kind=\"wakeup\",le=\"+Inf\"}"));
	ASSERT_EQ(20, value(t, "gpulat_runqueue_latency_seconds_count{kind=\"wakeup\"}"));
	/* 10 x 1000 + 5 x 1023 + 1024 + 4 x 3 ms, in seconds */
	ASSERT_NE(NULL, strstr(t, "gpulat_runqueue_latency_seconds_sum{kind=\"wakeup\"} 0.012016139\n"));
	ASSERT_NE(NULL, strstr(t, "# TYPE gpulat_runqueue_latency_seconds histogram\n"));
	ASSERT_EQ(NULL, strstr(t, "cpu=\""));
	free(t);
	/* --per-cpu: one histogram per CPU */
	p.per_cpu = true;
	t = render(&p, &b);
	ASSERT_EQ(4, value(t, "gpulat_runqueue_latency_seconds_bucket{kind=\"wakeup\",cpu=\"0\",le=\"+Inf\"}") - 10);
	ASSERT_EQ(6, value(t, "gpulat_runqueue_latency_seconds_count{kind=\"wakeup\",cpu=\"1\"}"));
	free(t);
	/* --buckets 1: still cumulative, at 2^k - 1 ns */
	p.per_cpu = false;
	p.per_octave = 1;
	t = render(&p, &b);
	ASSERT_EQ(16, value(t, "gpulat_runqueue_latency_seconds_bucket{kind=\"wakeup\",le=\"0.000002047\"}"));
	ASSERT_EQ(15, value(t, "gpulat_runqueue_latency_seconds_bucket{kind=\"wakeup\",le=\"0.000001023\"}"));
	ASSERT_EQ(-1, value(t, "gpulat_runqueue_latency_seconds_bucket{kind=\"wakeup\",le=\"0.000001151\"}"));
	free(t);
	prom_free(&p);
	blob_release(&b);
}

TEST(keys_past_the_bound_are_summed_as_other_and_stay_there)
{
	struct prom_state p;
	struct blob b;
	size_t i;
	char *t;

	prom_init(&p);
	p.max_keys = 2;
	blob_init(&b);
	i = blob_add_series(&b, GPULAT_FAM_BLOCK,
			    GPULAT_BLOCK_SERIES(GPULAT_BLOCK_READ,
						GPULAT_BLOCK_DEVICE),
			    GPULAT_CPU_NONE, 8 << 20, NULL, "sda");
	blob_record(&b, i, 100000, 3);
	i = blob_add_series(&b, GPULAT_FAM_BLOCK,
			    GPULAT_BLOCK_SERIES(GPULAT_BLOCK_READ,
						GPULAT_BLOCK_DEVICE),
			    GPULAT_CPU_NONE, 8 << 20 | 16, NULL, "sdb");
	blob_record(&b, i, 100000, 5);
	i = blob_add_series(&b, GPULAT_FAM_BLOCK,
			    GPULAT_BLOCK_SERIES(GPULAT_BLOCK_READ,
						GPULAT_BLOCK_DEVICE),
			    GPULAT_CPU_NONE, 251 << 20, NULL, "nullb0");
	blob_record(&b, i, 100000, 7);
	t = render(&p, &b);
	/* in key order: sda and sdb first seen, nullb0 is the third */
	ASSERT_EQ(3, value(t, "gpulat_block_latency_seconds_count{op=\"read\",stage=\"device\",device=\"sda\"}"));
	ASSERT_EQ(5, value(t, "gpulat_block_latency_seconds_count{op=\"read\",stage=\"device\",device=\"sdb\"}"));
	ASSERT_EQ(7, value(t, "gpulat_block_latency_seconds_count{op=\"read\",stage=\"device\",device=\"_other\"}"));
	ASSERT_EQ(-1, value(t, "gpulat_block_latency_seconds_count{op=\"read\",stage=\"device\",device=\"nullb0\"}"));
	ASSERT_EQ(1, value(t, "gpulat_exporter_other_keys{metric=\"gpulat_block_latency_seconds\"}"));
	free(t);
	/* a fourth key, first in key order, joins _other: names stay */
	i = blob_add_series(&b, GPULAT_FAM_BLOCK,
			    GPULAT_BLOCK_SERIES(GPULAT_BLOCK_READ,
						GPULAT_BLOCK_DEVICE),
			    GPULAT_CPU_NONE, 7 << 20, NULL, "loop0");
	blob_record(&b, i, 100000, 11);
	t = render(&p, &b);
	ASSERT_EQ(18, value(t, "gpulat_block_latency_seconds_count{op=\"read\",stage=\"device\",device=\"_other\"}"));
	ASSERT_EQ(3, value(t, "gpulat_block_latency_seconds_count{op=\"read\",stage=\"device\",device=\"sda\"}"));
	ASSERT_EQ(-1, value(t, "gpulat_block_latency_seconds_count{op=\"read\",stage=\"device\",device=\"loop0\"}"));
	ASSERT_EQ(2, value(t, "gpulat_exporter_other_keys{metric=\"gpulat_block_latency_seconds\"}"));
	free(t);
	prom_free(&p);
	blob_release(&b);
}

/* The cgroup family: a cgroup label, the path; unknown ids by number. */
TEST(cgroups_are_labelled_by_path_and_bounded)
{
	char tree[] = "/tmp/gpulat-pcg-XXXXXX", p1[64], p2[64];
	struct prom_state p;
	struct stat st1, st2;
	struct blob b;
	size_t i;
	char *t;

	ASSERT_NE(NULL, mkdtemp(tree));
	snprintf(p1, sizeof(p1), "%s/web.service", tree);
	snprintf(p2, sizeof(p2), "%s/db\"x", tree);
	ASSERT_EQ(0, mkdir(p1, 0755));
	ASSERT_EQ(0, mkdir(p2, 0755));
	ASSERT_EQ(0, stat(p1, &st1));
	ASSERT_EQ(0, stat(p2, &st2));
	gl_cg_set_root(tree);
	prom_init(&p);
	p.max_keys = 2;
	blob_init(&b);
	i = blob_add_series(&b, GPULAT_FAM_CGROUP, GPULAT_CG_WAKEUP,
			    GPULAT_CPU_NONE, st1.st_ino, NULL, "web.service");
	blob_record(&b, i, 100000, 3);
	i = blob_add_series(&b, GPULAT_FAM_CGROUP, GPULAT_CG_WAKEUP,
			    GPULAT_CPU_NONE, st2.st_ino, NULL, "db");
	blob_record(&b, i, 100000, 4);
	i = blob_add_series(&b, GPULAT_FAM_CGROUP, GPULAT_CG_BLOCK,
			    GPULAT_CPU_NONE, 1, NULL, "gone");
	blob_record(&b, i, 100000, 5);
	t = render(&p, &b);
	EXPECT_EQ(3, value(t, "gpulat_cgroup_latency_seconds_count{kind=\"wakeup\",cgroup=\"/web.service\"}"));
	EXPECT_EQ(4, value(t, "gpulat_cgroup_latency_seconds_count{kind=\"wakeup\",cgroup=\"/db\\\"x\"}"));
	/* the third cgroup is past --max-keys 2 */
	EXPECT_EQ(5, value(t, "gpulat_cgroup_latency_seconds_count{kind=\"block\",cgroup=\"_other\"}"));
	EXPECT_EQ(1, value(t, "gpulat_exporter_other_keys{metric=\"gpulat_cgroup_latency_seconds\"}"));
	free(t);
	/* unknown here: by id */
	p.max_keys = 8;
	prom_free(&p);
	prom_init(&p);
	t = render(&p, &b);
	EXPECT_EQ(5, value(t, "gpulat_cgroup_latency_seconds_count{kind=\"block\",cgroup=\"cgroup 1\"}"));
	free(t);
	prom_free(&p);
	blob_release(&b);
	gl_cg_set_root(NULL);
	rmdir(p1);
	rmdir(p2);
	rmdir(tree);
}

TEST(same_names_are_one_series_and_labels_are_escaped)
{
	struct prom_state p;
	struct blob b;
	size_t i;
	char *t;

	prom_init(&p);
	blob_init(&b);
	/* a device deleted and made again: new ifindex, same name */
	i = blob_add_series(&b, GPULAT_FAM_NET, GPULAT_NET_TX, GPULAT_CPU_NONE,
			    4, NULL, "veth0");
	blob_record(&b, i, 5000, 2);
	i = blob_add_series(&b, GPULAT_FAM_NET, GPULAT_NET_TX, GPULAT_CPU_NONE,
			    9, NULL, "veth0");
	blob_record(&b, i, 5000, 3);
	i = blob_add_series(&b, GPULAT_FAM_IRQ, GPULAT_IRQ_HANDLER,
			    GPULAT_CPU_NONE, 11, NULL, "a\"b\\c");
	blob_record(&b, i, 5000, 1);
	t = render(&p, &b);
	ASSERT_EQ(5, value(t, "gpulat_net_latency_seconds_count{stage=\"tx\",device=\"veth0\"}"));
	ASSERT_EQ(1, value(t, "gpulat_irq_handler_seconds_count{irq=\"11\",handler=\"a\\\"b\\\\c\"}"));
	free(t);
	prom_free(&p);
	blob_release(&b);
}

TEST(xids_are_counters_counted_once)
{
	struct prom_state p;
	struct gl_snapshot *s;
	struct blob b;
	char *t;

	prom_init(&p);
	blob_families(&b);	/* Xid 79 at 8 s, 13 at 9.5 s on another GPU */
	s = blob_parse(&b);
	prom_count_events(&p, s);
	prom_count_events(&p, s);	/* the same events again: no change */
	gl_snapshot_free(s);
	blob_add_event(&b, 9700000000ULL, GPULAT_EVENT_XID, 79, 0,
		       "0000:3b:00.0");
	s = blob_parse(&b);
	prom_count_events(&p, s);
	gl_snapshot_free(s);
	t = render(&p, NULL);
	ASSERT_EQ(2, value(t, "gpulat_nvidia_xid_total{gpu=\"0000:3b:00.0\",xid=\"79\"}"));
	ASSERT_EQ(1, value(t, "gpulat_nvidia_xid_total{gpu=\"0000:86:00.0\",xid=\"13\"}"));
	ASSERT_NE(NULL, strstr(t, "# TYPE gpulat_nvidia_xid_total counter\n"));
	ASSERT_NE(NULL, strstr(t, "gpulat_build_info{version=\"unknown\""));
	free(t);
	prom_free(&p);
	/* a daemon started at 9 s: the Xid of 8 s is history */
	prom_init(&p);
	p.xid_from_ns = 9000000000ULL;
	s = blob_parse(&b);
	prom_count_events(&p, s);
	gl_snapshot_free(s);
	t = render(&p, NULL);
	ASSERT_EQ(1, value(t, "gpulat_nvidia_xid_total{gpu=\"0000:3b:00.0\",xid=\"79\"}"));
	ASSERT_EQ(1, value(t, "gpulat_nvidia_xid_total{gpu=\"0000:86:00.0\",xid=\"13\"}"));
	free(t);
	prom_free(&p);
	blob_release(&b);
}

TEST(every_family_renders_with_drops_and_probes)
{
	struct prom_state p;
	struct blob b;
	char *t;

	prom_init(&p);
	blob_families(&b);
	t = render(&p, &b);
	ASSERT_NE(NULL, strstr(t, "gpulat_block_latency_seconds_count{op=\""));
	ASSERT_NE(NULL, strstr(t, "gpulat_nvidia_irq_latency_seconds_count{path=\""));
	ASSERT_NE(NULL, strstr(t, "gpulat_softirq_latency_seconds_count{stage=\""));
	ASSERT_NE(NULL, strstr(t, "gpulat_dropped_total{family=\"nvidia\",reason=\"xid_lost\"} 3"));
	ASSERT_NE(NULL, strstr(t, "gpulat_probe_up{family=\""));
	free(t);
	prom_free(&p);
	blob_release(&b);
}

TEST_HARNESS_MAIN
