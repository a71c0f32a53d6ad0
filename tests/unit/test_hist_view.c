// SPDX-License-Identifier: GPL-2.0
/*
 * The hist view (user/engine/hist_*.c) as text and JSON: grouping, keys,
 * CPUs, summaries, line widths, hostile names, JSON shape.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "gpulat_hist.h"
#include "views.h"

TEST_F(view, hist_text)
{
	char *t = render(self->s, &self->v, VIEW_HIST_TEXT);

	ASSERT_NE(NULL, t);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "sched.wakeup  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "sched.preempt  (all CPUs)"));
	ASSERT_EQ(NULL, strstr(t, "(CPU "));
	/* 400 samples near 3 us, 46 at 40 us: p50 in [3072, 3328) */
	ASSERT_TRUE(has_line(t, "count 446  p50 3.18us  p90 37.0us  p99 39.7us  p99.9 40.0us  max 40.0us"));
	ASSERT_TRUE(has_line(t, "  36.9us - 41.0us :    46 |******                                  |"));
	ASSERT_TRUE(has_line(t, "  3.07us - 3.33us :   300 |****************************************|"));
	ASSERT_TRUE(has_line(t, "  2.82us - 3.07us :   100 |*************                           |"));
	/* rows run from the first to the last non-empty slot; a run of
	 * empty slots shares one row that spans them */
	ASSERT_TRUE(has_line(t, "  3.33us - 36.9us :     0 |                                        |"));
	ASSERT_EQ(NULL, strstr(t, "  3.58us - 3.84us"));
	/* all at 1 ms in [983040, 1048576), interpolation capped at max */
	ASSERT_TRUE(has_line(t, "count 15  p50 992us  p90 999us  p99 1.00ms  p99.9 1.00ms  max 1.00ms"));
	ASSERT_TRUE(has_line(t, "   983us - 1.05ms :    15 |****************************************|"));
	ASSERT_TRUE(has_line(t, "drops: sched.evicted 1, sched.negative 2"));
	ASSERT_TRUE(has_line(t, "totals since load or reset, 9.00s  (generation 1)"));
	free(t);
}

TEST_F(view, hist_text_per_cpu_and_filter)
{
	char *t;

	self->v.per_cpu = true;
	t = render(self->s, &self->v, VIEW_HIST_TEXT);
	ASSERT_TRUE(has_line(t, "sched.wakeup  (CPU 3)"));
	ASSERT_TRUE(has_line(t, "count 113  p50 3.22us  p90 37.3us  p99 39.8us  p99.9 40.0us  max 40.0us"));
	ASSERT_TRUE(has_line(t, "sched.preempt  (CPU 0)"));
	/* CPU 1 has no preempt samples: skipped */
	ASSERT_FALSE(has_line(t, "sched.preempt  (CPU 1)"));
	ASSERT_LT(longest_line(t), 80);
	free(t);
	/* a family filter that matches nothing */
	self->v.families = 1ULL << 5;
	t = render(self->s, &self->v, VIEW_HIST_TEXT);
	ASSERT_TRUE(has_line(t, "no series"));
	ASSERT_TRUE(has_line(t, "drops: none"));
	free(t);
}

TEST_F(view, hist_json_shape)
{
	char *t = render(self->s, &self->v, VIEW_HIST_JSON);

	ASSERT_NE(NULL, strstr(t, "\"interval_s\":null"));
	ASSERT_NE(NULL, strstr(t, "\"drops\":{\"sched.no_start\":0,\"sched.evicted\":1,\"sched.negative\":2}"));
	ASSERT_EQ(0, check_json(t, "hist", 2));
	free(t);
	self->v.per_cpu = true;
	self->v.is_interval = true;
	self->v.interval_s = 0.5;
	t = render(self->s, &self->v, VIEW_HIST_JSON);
	ASSERT_NE(NULL, strstr(t, "\"interval_s\":0.5"));
	ASSERT_NE(NULL, strstr(t, "\"cpu\":3"));
	ASSERT_EQ(0, check_json(t, "hist", 9));
	/* the checker can fail: a wrong series count is caught */
	ASSERT_EQ(1, check_json(t, "hist", 8));
	free(t);
}

/* Names from the kernel are untrusted; huge numbers stay under 80 cols. */
/* a family no table knows, past every id the ABI may give */
#define UNKNOWN_FAM	60
#define UNKNOWN_FAM_STR	"60"

TEST(hostile_series)
{
	struct gl_snapshot *s;
	struct view v = { 0 };
	struct blob b;
	size_t i;
	char *t;

	blob_init(&b);
	i = blob_add_series(&b, UNKNOWN_FAM, 1, 0, 7, "x\"y\\z\n\x7f\xff 0123456789ab",
			    "k\x01\"0123456789012345678901234567");
	blob_series(&b, i)->buckets[0] = UINT64_MAX / 4;
	blob_series(&b, i)->buckets[100] = UINT64_MAX / 4;
	blob_series(&b, i)->buckets[GPULAT_HIST_OVERFLOW] = UINT64_MAX / 4;
	blob_series(&b, i)->max_ns = UINT64_MAX;
	blob_series(&b, i)->count = UINT64_MAX;
	blob_add_counter(&b, UNKNOWN_FAM, 0, "d\"rop\n", UINT64_MAX);
	blob_add_probe(&b, UNKNOWN_FAM, 77, 5000, "f\xfe", "t\"p", UINT64_MAX);
	s = blob_parse(&b);
	ASSERT_NE(NULL, s);
	v.per_cpu = true;
	t = render(s, &v, VIEW_HIST_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_NE(NULL, strstr(t, "x\"y\\z???"));
	free(t);
	t = render(s, &v, VIEW_STATUS_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_NE(NULL, strstr(t, "state 77"));
	free(t);
	t = render(s, &v, VIEW_HIST_JSON);
	ASSERT_EQ(0, check_json(t, "hist", 2));
	ASSERT_NE(NULL, strstr(t, "\"family\":\"family" UNKNOWN_FAM_STR "\""));
	free(t);
	t = render(s, &v, VIEW_STATUS_JSON);
	/* every family of the ABI, and the unknown one */
	ASSERT_EQ(0, check_json(t, "status", GPULAT_FAM_MAX));
	free(t);
	gl_snapshot_free(s);
	blob_release(&b);
}

/* Without -D or -C: one histogram per (family, id), empty ones skipped. */
TEST_F(fam, hist_text_merged)
{
	char *t = render(self->s, &self->v, VIEW_HIST_TEXT);

	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "block.read.queue  sda  (all CPUs)"));
	/* sda 10 x 100 us and nullb0 4 x 1 ms */
	ASSERT_TRUE(has_line(t, "block.read.device  (all CPUs, 2 keys)"));
	ASSERT_TRUE(has_line(t, "count 14  p50 104us  p90 996us  p99 1.00ms  p99.9 1.00ms  max 1.00ms"));
	ASSERT_TRUE(has_line(t, "  98.3us - 106us  :    10 |****************************************|"));
	ASSERT_TRUE(has_line(t, "   983us - 1.05ms :     4 |****************                        |"));
	/* eth0 has samples, lo none: still two keys merged */
	ASSERT_TRUE(has_line(t, "net.tx  (all CPUs, 2 keys)"));
	ASSERT_TRUE(has_line(t, "irq.handler  (all CPUs, 2 keys)"));
	ASSERT_TRUE(has_line(t, "count 7  p50 3.02us  p90 8.00us  p99 8.00us  p99.9 8.00us  max 8.00us"));
	/* a softirq series has one vector: the heading names it */
	ASSERT_TRUE(has_line(t, "softirq.run  NET_RX  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "count 10  p50 9.95us  p90 19.5us  p99 20.0us  p99.9 20.0us  max 20.0us"));
	ASSERT_TRUE(has_line(t, "softirq.wait  NET_RX  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "softirq.run  TIMER  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "nvidia.hardirq  irq 45 nvidia  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "nvidia.kthread.wake  pid 123 nv_queue  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "mm.direct_reclaim  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "count 1  p50 2.00ms  p90 2.00ms  p99 2.00ms  p99.9 2.00ms  max 2.00ms"));
	/* block.write.device has no sample: skipped */
	ASSERT_EQ(NULL, strstr(t, "block.write"));
	ASSERT_EQ(NULL, strstr(t, "(CPU "));
	ASSERT_EQ(NULL, strstr(t, "count 0"));
	ASSERT_EQ(11, count_str(t, "(all CPUs"));
	ASSERT_TRUE(has_line(t, "drops: block.no_start 1, net.expired 2, nvidia.xid_lost 3"));
	free(t);
}

/* -D: one histogram per disk, netdev, IRQ handler, thread. */
TEST_F(fam, hist_text_per_key)
{
	char *t;

	self->v.per_key = true;
	t = render(self->s, &self->v, VIEW_HIST_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "block.read.device  sda  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "count 10  p50 99.2us  p90 99.8us  p99 100us  p99.9 100us  max 100us"));
	ASSERT_TRUE(has_line(t, "block.read.device  nullb0  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "count 4  p50 992us  p90 1.00ms  p99 1.00ms  p99.9 1.00ms  max 1.00ms"));
	ASSERT_TRUE(has_line(t, "net.tx  eth0  (all CPUs)"));
	ASSERT_EQ(NULL, strstr(t, "net.tx  lo"));	/* empty */
	/* the IRQ number is the low 32 bits of the key */
	ASSERT_TRUE(has_line(t, "irq.handler  irq 11 eth0  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "count 5  p50 2.93us  p90 3.00us  p99 3.00us  p99.9 3.00us  max 3.00us"));
	ASSERT_TRUE(has_line(t, "irq.handler  irq 24 nvme0q1  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "nvidia.kthread.wake  pid 123 nv_queue  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "softirq.run  NET_RX  (all CPUs)"));
	ASSERT_EQ(NULL, strstr(t, "keys)"));
	ASSERT_EQ(NULL, strstr(t, "(CPU "));
	ASSERT_EQ(13, count_str(t, "(all CPUs)"));
	free(t);
}

/* -C: per-CPU series split by CPU, keyed ones (no CPU) stay whole. */
TEST_F(fam, hist_text_per_cpu)
{
	char *t;

	self->v.per_cpu = true;
	t = render(self->s, &self->v, VIEW_HIST_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "softirq.run  NET_RX  (CPU 0)"));
	ASSERT_TRUE(has_line(t, "count 7  p50 9.66us  p90 10.0us  p99 10.0us  p99.9 10.0us  max 10.0us"));
	ASSERT_TRUE(has_line(t, "softirq.run  NET_RX  (CPU 1)"));
	ASSERT_TRUE(has_line(t, "count 3  p50 19.5us  p90 20.0us  p99 20.0us  p99.9 20.0us  max 20.0us"));
	ASSERT_TRUE(has_line(t, "mm.direct_reclaim  (CPU 1)"));
	ASSERT_FALSE(has_line(t, "mm.direct_reclaim  (CPU 0)"));
	ASSERT_TRUE(has_line(t, "block.read.device  (all CPUs, 2 keys)"));
	ASSERT_EQ(6, count_str(t, "(CPU "));
	free(t);
	/* both: per key and per CPU */
	self->v.per_key = true;
	t = render(self->s, &self->v, VIEW_HIST_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "block.read.device  nullb0  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "softirq.run  NET_RX  (CPU 1)"));
	ASSERT_EQ(6, count_str(t, "(CPU "));
	ASSERT_EQ(13, count_str(t, "(all CPUs)"));
	free(t);
}

/* hist net: the net family and the NET_RX, NET_TX softirqs. */
TEST_F(fam, hist_net_adds_softirqs)
{
	char *t;

	self->v.families = 1ULL << GPULAT_FAM_NET;
	t = render(self->s, &self->v, VIEW_HIST_TEXT);
	ASSERT_TRUE(has_line(t, "net.tx  (all CPUs, 2 keys)"));
	ASSERT_TRUE(has_line(t, "softirq.run  NET_RX  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "softirq.wait  NET_RX  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "softirq.run  NET_TX  (all CPUs)"));
	ASSERT_EQ(NULL, strstr(t, "TIMER"));
	ASSERT_EQ(NULL, strstr(t, "block"));
	ASSERT_EQ(NULL, strstr(t, "irq.handler"));
	ASSERT_TRUE(has_line(t, "drops: net.expired 2"));
	free(t);
	t = render(self->s, &self->v, VIEW_HIST_JSON);
	ASSERT_EQ(0, check_json(t, "hist", 4));
	free(t);
	/* softirq alone: every vector, TIMER too */
	self->v.families = 1ULL << GPULAT_FAM_SOFTIRQ;
	t = render(self->s, &self->v, VIEW_HIST_TEXT);
	ASSERT_TRUE(has_line(t, "softirq.run  TIMER  (all CPUs)"));
	ASSERT_EQ(NULL, strstr(t, "net.tx"));
	free(t);
}

/* JSON: family, name, cpu, key and key_name on every series. */
TEST_F(fam, hist_json_keys)
{
	char *t = render(self->s, &self->v, VIEW_HIST_JSON);

	/* empty histograms stay in JSON: 12 (family, id) */
	ASSERT_EQ(0, check_json(t, "hist", 12));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"block\",\"name\":\"block.read.device\",\"cpu\":null,\"key\":null,\"key_name\":null,\"count\":14,"));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"block\",\"name\":\"block.read.queue\",\"cpu\":null,\"key\":8388608,\"key_name\":\"sda\",\"count\":10,"));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"block\",\"name\":\"block.write.device\",\"cpu\":null,\"key\":263192576,\"key_name\":\"nullb0\",\"count\":0,"));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"softirq\",\"name\":\"softirq.run\",\"cpu\":null,\"key\":3,\"key_name\":\"NET_RX\",\"count\":10,"));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"mm\",\"name\":\"mm.direct_reclaim\",\"cpu\":null,\"key\":null,\"key_name\":null,\"count\":1,"));
	free(t);
	self->v.per_key = true;
	t = render(self->s, &self->v, VIEW_HIST_JSON);
	ASSERT_EQ(0, check_json(t, "hist", 15));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"block\",\"name\":\"block.read.device\",\"cpu\":null,\"key\":263192576,\"key_name\":\"nullb0\",\"count\":4,"));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"irq\",\"name\":\"irq.handler\",\"cpu\":null,\"key\":188896956645387,\"key_name\":\"eth0\",\"count\":5,"));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"net\",\"name\":\"net.tx\",\"cpu\":null,\"key\":1,\"key_name\":\"lo\",\"count\":0,"));
	free(t);
	self->v.per_cpu = true;
	t = render(self->s, &self->v, VIEW_HIST_JSON);
	/* 15 and 6 non-empty per-CPU ones */
	ASSERT_EQ(0, check_json(t, "hist", 21));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"softirq\",\"name\":\"softirq.run\",\"cpu\":1,\"key\":3,\"key_name\":\"NET_RX\",\"count\":3,"));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"mm\",\"name\":\"mm.direct_reclaim\",\"cpu\":1,\"key\":null,\"key_name\":null,\"count\":1,"));
	free(t);
}

/*
 * --summary: one line per histogram with samples (count, p50, p99, max),
 * the same numbers as the full view, no buckets; -C adds one per CPU.
 */
TEST_F(view, hist_summary)
{
	char *t;

	self->v.summary = true;
	t = render(self->s, &self->v, VIEW_HIST_TEXT);
	ASSERT_NE(NULL, t);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "totals since load or reset, 9.00s  (generation 1)"));
	ASSERT_TRUE(has_line(t, "series         where     count     p50     p99     max"));
	ASSERT_TRUE(has_line(t, "sched.wakeup   all CPUs    446  3.18us  39.7us  40.0us"));
	ASSERT_TRUE(has_line(t, "sched.preempt  all CPUs     15   992us  1.00ms  1.00ms"));
	ASSERT_TRUE(has_line(t, "drops: sched.evicted 1, sched.negative 2"));
	ASSERT_EQ(NULL, strstr(t, "|"));	/* no bars */
	ASSERT_EQ(NULL, strstr(t, "CPU 0"));
	free(t);
	self->v.per_cpu = true;
	t = render(self->s, &self->v, VIEW_HIST_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "sched.wakeup   CPU 3       113  3.22us  39.8us  40.0us"));
	ASSERT_TRUE(has_line(t, "sched.preempt  CPU 0         5   993us  1.00ms  1.00ms"));
	/* CPU 1 has no preempt samples: no line */
	ASSERT_EQ(NULL, strstr(t, "sched.preempt  CPU 1"));
	/* 2 merged, 4 + 3 CPUs */
	ASSERT_EQ(9, count_lines(t, "sched."));
	free(t);
}

/* Keys in the where column: one key by name, several counted; -D -C. */
TEST_F(fam, hist_summary_keys)
{
	char *t;

	self->v.summary = true;
	t = render(self->s, &self->v, VIEW_HIST_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "series               where             count     p50     p99     max"));
	ASSERT_TRUE(has_line(t, "block.read.queue     sda                  10  4.80us  5.00us  5.00us"));
	ASSERT_TRUE(has_line(t, "block.read.device    2 keys               14   104us  1.00ms  1.00ms"));
	ASSERT_TRUE(has_line(t, "nvidia.kthread.wake  pid 123 nv_queue      2  29.3us  30.0us  30.0us"));
	ASSERT_TRUE(has_line(t, "mm.direct_reclaim    all CPUs              1  2.00ms  2.00ms  2.00ms"));
	/* empty histograms have no line */
	ASSERT_EQ(NULL, strstr(t, "block.write"));
	free(t);
	self->v.per_cpu = true;
	self->v.per_key = true;
	t = render(self->s, &self->v, VIEW_HIST_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "block.read.device    nullb0                4   992us  1.00ms  1.00ms"));
	ASSERT_TRUE(has_line(t, "irq.handler          irq 11 eth0           5  2.93us  3.00us  3.00us"));
	ASSERT_TRUE(has_line(t, "softirq.run          NET_RX CPU 1          3  19.5us  20.0us  20.0us"));
	ASSERT_TRUE(has_line(t, "mm.direct_reclaim    CPU 1                 1  2.00ms  2.00ms  2.00ms"));
	free(t);
}

/* A key too long for the line is clipped in the where column. */
TEST(hist_summary_long_key)
{
	char name[GPULAT_NAME_LEN];
	struct gl_snapshot *s;
	struct view v = { .summary = true };
	struct blob b;
	char *t;

	memset(name, 'k', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	blob_init(&b);
	blob_add_series(&b, GPULAT_FAM_NVIDIA, GPULAT_NV_KTHREAD_WAKE,
			GPULAT_CPU_NONE, 4000000000ULL, "nvidia.kthread.wake",
			name);
	blob_record(&b, 0, 1234567890ULL, 1234567890ULL);
	s = blob_parse(&b);
	ASSERT_NE(NULL, s);
	t = render(s, &v, VIEW_HIST_TEXT);
	TH_LOG("\n%s", t);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_NE(NULL, strstr(t, "nvidia.kthread.wake  pid 4000000000 kkk"));
	free(t);
	gl_snapshot_free(s);
	blob_release(&b);
}

TEST(hist_text_all_empty)
{
	struct gl_snapshot *s;
	struct view v = { 0 };
	struct blob b;
	char *t;

	blob_init(&b);
	blob_add_series(&b, GPULAT_FAM_BLOCK, 1, GPULAT_CPU_NONE, BLOB_SDA,
			"block.read.device", "sda");
	blob_add_series(&b, GPULAT_FAM_MM, 0, 2, 0, "mm.direct_reclaim", "");
	s = blob_parse(&b);
	ASSERT_NE(NULL, s);
	t = render(s, &v, VIEW_HIST_TEXT);
	ASSERT_TRUE(has_line(t, "no samples: all 2 histograms are empty"));
	ASSERT_EQ(NULL, strstr(t, "block.read.device"));
	free(t);
	v.per_key = true;
	v.per_cpu = true;
	v.families = 1ULL << GPULAT_FAM_MM;
	t = render(s, &v, VIEW_HIST_TEXT);
	ASSERT_TRUE(has_line(t, "no samples: all 1 histograms are empty"));
	free(t);
	v.families = 1ULL << GPULAT_FAM_NET;
	t = render(s, &v, VIEW_HIST_TEXT);
	ASSERT_TRUE(has_line(t, "no series"));
	free(t);
	v.summary = true;
	t = render(s, &v, VIEW_HIST_TEXT);
	ASSERT_TRUE(has_line(t, "no series"));
	free(t);
	v.families = 0;
	t = render(s, &v, VIEW_HIST_TEXT);
	ASSERT_TRUE(has_line(t, "no samples: all 2 histograms are empty"));
	ASSERT_EQ(NULL, strstr(t, "series  "));
	free(t);
	gl_snapshot_free(s);
	blob_release(&b);
}

/* Longest kernel names and keys: headings clipped below 80 columns. */
TEST(hostile_keys)
{
	struct gl_snapshot *s;
	struct view v = { .per_key = true, .per_cpu = true };
	struct blob b;
	size_t i;
	char *t;

	blob_init(&b);
	b.hdr.nr_cpu_ids = 4000000000U;
	i = blob_add_series(&b, GPULAT_FAM_IRQ, 0, GPULAT_CPU_NONE,
			    UINT64_MAX, "irq.handler.0123456789abcdefghi",
			    "\x1b[31m-0123456789012345678901234567");
	blob_record(&b, i, 5000, 1);
	i = blob_add_series(&b, GPULAT_FAM_SOFTIRQ, 1, 3999999999U,
			    UINT64_MAX, "softirq.run.0123456789abcdefghi",
			    "NET_RX0123456789012345678901234");
	blob_record(&b, i, 5000, 1);
	i = blob_add_series(&b, GPULAT_FAM_SOFTIRQ, 1, 3999999998U,
			    UINT64_MAX - 1, "softirq.run.0123456789abcdefghi",
			    "NET_RX0123456789012345678901234");
	blob_record(&b, i, 5000, 1);
	s = blob_parse(&b);
	ASSERT_NE(NULL, s);
	t = render(s, &v, VIEW_HIST_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_NE(NULL, strstr(t, "irq.handler.0123456789abcdefghi  irq 4294967295 ?[31m-01234567"));
	ASSERT_NE(NULL, strstr(t, "  (CPU 3999999999)\n"));
	ASSERT_EQ(NULL, strstr(t, "\x1b"));
	free(t);
	v.per_key = false;
	t = render(s, &v, VIEW_HIST_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "softirq.run.0123456789abcdefghi  (all CPUs, 2 keys)"));
	free(t);
	t = render(s, &v, VIEW_HIST_JSON);
	ASSERT_EQ(0, check_json(t, "hist", 4));
	free(t);
	gl_snapshot_free(s);
	blob_release(&b);
}

TEST_HARNESS_MAIN
