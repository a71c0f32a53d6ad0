// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus exposition of gpulat serve (engine/serve/prom.c): le bounds
 * exact for gpulat's buckets at every coarseness, cumulative buckets
 * equal to the slots' sums, series summed over CPUs and over keys past
 * the bound (stably), labels escaped, Xids counted once each; empty
 * buckets left out without changing a quantile Prometheus computes, of
 * an instant or of rate() (its histogram_quantile() and rate() are
 * written out below, from promql/quantile.go and promql/functions.go).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "blob.h"
#include "engine/serve/prom.h"
#include "gpulat_hist.h"
#include "lib/cgroup.h"
#include "lib/gpulat_user.h"

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

/* --- Prometheus' histogram_quantile() and rate() ----------------------- */

/* the buckets of gpulat_runqueue_latency_seconds{kind="wakeup"} */
#define QMETRIC		"gpulat_runqueue_latency_seconds"
#define QLABELS		"kind=\"wakeup\""
#define QMAX		(GPULAT_HIST_NR_BUCKETS + 1)

struct pbucket {
	double le, count;
};

static int pbucket_cmp(const void *a, const void *b)
{
	const struct pbucket *x = a, *y = b;

	return x->le < y->le ? -1 : x->le > y->le;
}

/* util/almost.Equal */
static bool almost_equal(double a, double b, double eps)
{
	const double min_normal = 2.2250738585072014e-308;
	double sum = fabs(a) + fabs(b), diff = fabs(a - b);

	if (isnan(a) && isnan(b))
		return true;
	if (a == b)
		return true;
	if (a == 0 || b == 0 || sum < min_normal)
		return diff < eps * min_normal;
	return diff / fmin(sum, DBL_MAX) < eps;
}

/*
 * pq_prepare - what bucketQuantile() does to its @n buckets before it
 * looks at q: sorted by le, NaN (0 here) unless the last is +Inf,
 * coalesced, made monotonic: Prometheus 3's envelope, which also
 * ignores relative differences under 1e-12
 * (ensureMonotonicAndIgnoreSmallDeltas), with @v3, else Prometheus 2's
 * (ensureMonotonic).  The buckets left.
 */
static size_t pq_prepare(struct pbucket *b, size_t n, bool v3)
{
	double prev;
	size_t i, j;

	if (!n)
		return 0;
	qsort(b, n, sizeof(*b), pbucket_cmp);
	if (!(isinf(b[n - 1].le) && b[n - 1].le > 0))
		return 0;
	for (i = 1, j = 0; i < n; i++) {	/* coalesceBuckets */
		if (b[i].le == b[j].le)
			b[j].count += b[i].count;
		else
			b[++j] = b[i];
	}
	n = j + 1;
	prev = b[0].count;
	for (i = 1; i < n; i++) {
		if (!v3) {
			if (b[i].count > prev)
				prev = b[i].count;
			else if (b[i].count < prev)
				b[i].count = prev;
			continue;
		}
		if (b[i].count == prev)
			continue;
		if (almost_equal(prev, b[i].count, 1e-12) || b[i].count < prev) {
			b[i].count = prev;
			continue;
		}
		prev = b[i].count;
	}
	return n;
}

/* pq_quantile - the rest of bucketQuantile(): q of the prepared buckets */
static double pq_quantile(double q, const struct pbucket *b, size_t n)
{
	double rank, start = 0, end, count;
	size_t lo = 0, hi, m;

	if (isnan(q))
		return NAN;
	if (q < 0)
		return -INFINITY;
	if (q > 1)
		return INFINITY;
	if (n < 2 || b[n - 1].count == 0)
		return NAN;
	rank = q * b[n - 1].count;
	/* sort.Search(n - 1, func(i) { return b[i].count >= rank }) */
	for (hi = n - 1; lo < hi;) {
		m = (lo + hi) >> 1;
		if (!(b[m].count >= rank))
			lo = m + 1;
		else
			hi = m;
	}
	if (lo == n - 1)
		return b[n - 2].le;
	if (lo == 0 && b[0].le <= 0)
		return b[0].le;
	end = b[lo].le;
	count = b[lo].count;
	if (lo > 0) {
		start = b[lo - 1].le;
		count -= b[lo - 1].count;
		rank -= b[lo - 1].count;
	}
	return start + (end - start) * (rank / count);
}

/*
 * buckets_of - the buckets of QMETRIC{QLABELS} in @text as Prometheus
 * reads them (le and value by strtod, correctly rounded like Go's
 * ParseFloat); their number
 */
static size_t buckets_of(const char *text, struct pbucket *out)
{
	static const char head[] = QMETRIC "_bucket{" QLABELS ",le=\"";
	const char *at, *c;
	size_t n = 0;

	/* line by line: strstr() over the whole page would be quadratic */
	for (at = text; at && *at && n < QMAX; at = strchr(at, '\n'), at += !!at) {
		if (strncmp(at, head, sizeof(head) - 1))
			continue;
		c = at + sizeof(head) - 1;
		out[n].le = strtod(c, NULL);	/* "+Inf" too */
		out[n].count = strtod(strchr(c, '}') + 1, NULL);
		n++;
	}
	return n;
}

/* same_bits - equal doubles, NaN equal to NaN */
static bool same_bits(double a, double b)
{
	return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(a));
}

/*
 * same_quantiles - whether buckets @a and @b give the same quantile, to
 * the bit, under both envelopes, for q on a grid of 1/@grid and just at
 * and around each cumulative fraction of @a; the first difference into
 * @why
 */
static bool same_quantiles(const struct pbucket *a, size_t na,
			   const struct pbucket *b, size_t nb,
			   unsigned int grid, char *why, size_t len)
{
	struct pbucket pa[QMAX], pb[QMAX];
	double qs[QMAX * 3 + 4096], obs, x, y;
	size_t i, nq = 0, ma, mb;
	int v3;

	for (i = 0; i <= grid; i++)
		qs[nq++] = (double)i / grid;
	qs[nq++] = 1e-12;
	qs[nq++] = nextafter(1, 0);
	obs = 0;
	for (i = 0; i < na; i++)
		if (isinf(a[i].le))
			obs = a[i].count;
	for (i = 0; obs > 0 && i < na; i++) {
		qs[nq++] = a[i].count / obs;
		qs[nq++] = nextafter(a[i].count / obs, 0);
		qs[nq++] = nextafter(a[i].count / obs, 1);
	}
	for (v3 = 0; v3 < 2; v3++) {
		memcpy(pa, a, na * sizeof(*a));
		memcpy(pb, b, nb * sizeof(*b));
		ma = pq_prepare(pa, na, v3);
		mb = pq_prepare(pb, nb, v3);
		for (i = 0; i < nq; i++) {
			x = pq_quantile(qs[i], pa, ma);
			y = pq_quantile(qs[i], pb, mb);
			if (!same_bits(x, y)) {
				snprintf(why, len, "q %.17g (Prometheus %d): %.17g, %.17g",
					 qs[i], v3 ? 3 : 2, x, y);
				return false;
			}
		}
	}
	return true;
}

/* expo - the exposition of a wakeup histogram of @slots under @p */
static char *expo(struct prom_state *p, const uint64_t *slots)
{
	struct gpulat_series *sr;
	struct blob b;
	size_t i;
	char *t;

	blob_init(&b);
	i = blob_add_series(&b, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP, 0, 0,
			    NULL, "");
	sr = blob_series(&b, i);
	for (i = 0; i < GPULAT_HIST_NR_BUCKETS; i++) {
		sr->buckets[i] = slots[i];
		sr->count += slots[i];
		sr->sum_ns += slots[i] * gpulat_hist_lower(i);
	}
	t = render(p, &b);
	blob_release(&b);
	return t;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* rnd_count - 1 to 2^k, k up to 40: ones, hundreds and billions */
static uint64_t rnd_count(uint64_t *s)
{
	return 1 + rnd(s) % (1ULL << (rnd(s) % 41));
}

/*
 * some_hist - the histogram of case @c: empty, one sample, all in the
 * first bucket, all in the last, all over it, gaps, a dense run, two
 * far clusters, counts near 2^50 a few apart (the 1e-12 of Prometheus
 * 3's envelope), with or without samples over the last bound
 */
static void some_hist(unsigned int c, uint64_t *s, uint64_t *slots)
{
	uint32_t a, b, i, k;

	memset(slots, 0, GPULAT_HIST_NR_BUCKETS * sizeof(*slots));
	switch (c % 10) {
	case 0:
		break;
	case 1:
		slots[rnd(s) % GPULAT_HIST_NR_BUCKETS] = 1;
		break;
	case 2:
		slots[0] = rnd_count(s);
		break;
	case 3:
		slots[GPULAT_HIST_OVERFLOW - 1] = rnd_count(s);
		break;
	case 4:
		slots[GPULAT_HIST_OVERFLOW] = rnd_count(s);
		break;
	case 5:
	case 7:
		for (k = 1 + rnd(s) % 6; k; k--)
			slots[rnd(s) % GPULAT_HIST_OVERFLOW] += rnd_count(s);
		if (c % 10 == 7)
			slots[GPULAT_HIST_OVERFLOW] = rnd_count(s);
		break;
	case 6:
		a = rnd(s) % GPULAT_HIST_OVERFLOW;
		b = a + rnd(s) % (GPULAT_HIST_OVERFLOW - a);
		for (i = a; i <= b; i++)
			slots[i] = rnd(s) % 1000;
		break;
	case 8:
		a = rnd(s) % 40;
		b = 150 + rnd(s) % (GPULAT_HIST_OVERFLOW - 150);
		for (i = 0; i < 4; i++) {
			slots[a + i] = rnd_count(s);
			slots[b - i] = 1;
		}
		break;
	case 9:
		a = rnd(s) % (GPULAT_HIST_OVERFLOW - 8);
		for (i = 0; i < 8; i++)
			slots[a + i] = (i & 1) ? rnd(s) % 4 : (1ULL << 50);
		if (rnd(s) & 1)
			slots[GPULAT_HIST_OVERFLOW] = 1;
		break;
	}
}

TEST(the_buckets_kept_are_the_multiples_of_the_step)
{
	static const unsigned int per[] = { 8, 4, 2, 1 };
	unsigned int k, step;
	uint32_t i;

	for (k = 0; k < 4; k++) {
		step = GPULAT_HIST_SUBS / per[k];
		for (i = 0; i < GPULAT_HIST_OVERFLOW; i++)
			ASSERT_EQ(i % step == 0, prom_bucket_kept(i, per[k]));
	}
	ASSERT_EQ(0, (GPULAT_HIST_OVERFLOW - 1) % GPULAT_HIST_SUBS);
}

/*
 * Of an instant: the trimmed buckets (a fresh daemon's, and one that
 * wrote the histogram at half its counts before) give every quantile
 * of the full ones, to the bit, at every coarseness.
 */
TEST(trimmed_buckets_give_prometheus_the_same_quantiles)
{
	static const unsigned int per[] = { 8, 4, 2, 1 };
	uint64_t slots[GPULAT_HIST_NR_BUCKETS], half[GPULAT_HIST_NR_BUCKETS];
	struct pbucket full[QMAX], trim[QMAX];
	struct prom_state pf, pt, ps;
	static struct gl_hist h;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t nf, nt, written = 0, all = 0, i;
	uint32_t lo, hi, step;
	unsigned int c, k;
	char why[160];
	char *t;

	for (c = 0; c < 300; c++) {
		some_hist(c, &seed, slots);
		for (i = 0; i < GPULAT_HIST_NR_BUCKETS; i++)
			half[i] = slots[i] / 2;
		for (k = 0; k < 4; k++) {
			prom_init(&pf);
			prom_init(&pt);
			prom_init(&ps);
			pf.all_buckets = true;
			pt.all_buckets = ps.all_buckets = false;
			pf.per_octave = pt.per_octave = ps.per_octave = per[k];
			step = GPULAT_HIST_SUBS / per[k];
			t = expo(&pf, slots);
			nf = buckets_of(t, full);
			ASSERT_EQ(1 + (GPULAT_HIST_OVERFLOW - 1) / step + 1, nf);
			free(t);
			t = expo(&pt, slots);
			nt = buckets_of(t, trim);
			/* +Inf, _sum and _count always */
			ASSERT_TRUE(isinf(trim[nt - 1].le));
			ASSERT_NE(NULL, strstr(t, QMETRIC "_sum{" QLABELS "} "));
			ASSERT_NE(NULL, strstr(t, QMETRIC "_count{" QLABELS "} "));
			free(t);
			/*
			 * the range and a bucket's margin each side, then
			 * the octaves' bounds above it, no more
			 */
			memcpy(h.slots, slots, sizeof(h.slots));
			if (prom_bucket_range(&h, per[k], &lo, &hi)) {
				size_t tail = 0;

				lo = lo >= step ? lo - step : 0;
				hi = hi + step < GPULAT_HIST_OVERFLOW ?
				     hi + step : GPULAT_HIST_OVERFLOW - 1;
				for (i = hi + 1; i < GPULAT_HIST_OVERFLOW; i++)
					tail += i % GPULAT_HIST_SUBS == 0;
				ASSERT_EQ((hi - lo) / step + 1 + tail, nt - 1);
			} else {
				ASSERT_EQ(1, nt);
			}
			written += nt;
			all += nf;
			if (!same_quantiles(full, nf, trim, nt, 1000, why,
					    sizeof(why))) {
				TH_LOG("case %u, %u per octave: %s", c, per[k],
				       why);
				ASSERT_TRUE(false);
			}
			/* a daemon that wrote it at half the counts first */
			free(expo(&ps, half));
			t = expo(&ps, slots);
			nt = buckets_of(t, trim);
			free(t);
			if (!same_quantiles(full, nf, trim, nt, 1000, why,
					    sizeof(why))) {
				TH_LOG("case %u, %u per octave, after half: %s",
				       c, per[k], why);
				ASSERT_TRUE(false);
			}
			prom_free(&pf);
			prom_free(&pt);
			prom_free(&ps);
		}
	}
	TH_LOG("%zu buckets written of %zu (+Inf included)", written, all);
	ASSERT_LT(written * 2, all);
}

/* --- rate() over scrapes of a growing histogram ------------------------ */

#define SCRAPES		40
#define INTERVAL	15.0	/* seconds between scrapes */
#define INF_SLOT	GPULAT_HIST_OVERFLOW	/* +Inf's index below */

/* a scrape: each bucket's value by its slot (+Inf at INF_SLOT), NaN: absent */
struct scrape {
	double full[GPULAT_HIST_NR_BUCKETS], trim[GPULAT_HIST_NR_BUCKETS];
};

/* le_of - the le of slot @s as Prometheus reads it */
static double le_of(uint32_t s)
{
	static double le[GPULAT_HIST_OVERFLOW];
	char buf[32];

	if (s >= GPULAT_HIST_OVERFLOW)
		return INFINITY;
	if (!le[s])
		le[s] = strtod(prom_le(buf, sizeof(buf), s), NULL);
	return le[s];
}

/* by_slot - the buckets of @text by the slot their le ends */
static void by_slot(const char *text, double *v)
{
	struct pbucket b[QMAX];
	size_t n = buckets_of(text, b), i;
	uint32_t s;

	for (s = 0; s < GPULAT_HIST_NR_BUCKETS; s++)
		v[s] = NAN;
	for (i = 0; i < n; i++) {
		if (isinf(b[i].le)) {
			v[INF_SLOT] = b[i].count;
			continue;
		}
		for (s = 0; s < GPULAT_HIST_OVERFLOW; s++)
			if (le_of(s) == b[i].le)
				break;
		v[s] = b[i].count;
	}
}

/*
 * rate_of - promql's extrapolatedRate() for rate() of a counter: its @n
 * samples @v at times @t (s), over (@start, @end]; Prometheus 3's order
 * of the start's two limits with @v3, else 2.42's
 */
static double rate_of(const double *t, const double *v, size_t n,
		      double start, double end, bool v3)
{
	double res = v[n - 1] - v[0], dts = t[0] - start, dte = end - t[n - 1];
	double s = t[n - 1] - t[0], avg = s / (n - 1), thr = avg * 1.1, dz;
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i] < v[i - 1])
			res += v[i - 1];
	if (v3) {
		if (dts >= thr)
			dts = avg / 2;
		if (res > 0 && v[0] >= 0) {
			dz = s * (v[0] / res);
			if (dz < dts)
				dts = dz;
		}
		if (dte >= thr)
			dte = avg / 2;
		return res * ((s + dts + dte) / s / (end - start));
	}
	if (res > 0 && v[0] >= 0) {
		dz = s * (v[0] / res);
		if (dz < dts)
			dts = dz;
	}
	s += (dts < thr ? dts : avg / 2) + (dte < thr ? dte : avg / 2);
	return res * (s / (t[n - 1] - t[0])) / (end - start);
}

/*
 * window_rates - rate(X[range]) at scrape @k1, the range holding scrapes
 * @k0 to @k1, of each bucket series of @sc (full or trimmed: @full);
 * the buckets with a rate (two samples or more)
 */
static size_t window_rates(const struct scrape *sc, unsigned int k0,
			   unsigned int k1, bool full, bool v3,
			   struct pbucket *out)
{
	double t[SCRAPES], v[SCRAPES], end = k1 * INTERVAL, x;
	double start = end - (k1 - k0) * INTERVAL - INTERVAL / 2;
	size_t n, m = 0;
	uint32_t s;
	unsigned int k;

	for (s = 0; s < GPULAT_HIST_NR_BUCKETS; s++) {
		for (n = 0, k = k0; k <= k1; k++) {
			x = full ? sc[k].full[s] : sc[k].trim[s];
			if (isnan(x))
				continue;
			t[n] = k * INTERVAL;
			v[n++] = x;
		}
		if (n < 2)
			continue;
		out[m].le = le_of(s);
		out[m++].count = rate_of(t, v, n, start, end, v3);
	}
	return m;
}

/*
 * steady - whether the window k0..k1 is one that trimming keeps exact:
 * the bucket under the lowest that got samples in it was written from
 * its start (the lower bound of the interpolation), and every trimmed
 * series first written inside it is 0 there (the range grew by empty
 * buckets only, a new minimum within the margin)
 */
static bool steady(const struct scrape *sc, unsigned int k0, unsigned int k1)
{
	uint32_t s, below = UINT32_MAX;
	unsigned int k;

	for (s = 0; s < GPULAT_HIST_OVERFLOW; s++) {
		if (isnan(sc[k0].full[s]))
			continue;
		if (sc[k1].full[s] != sc[k0].full[s])
			break;
		below = s;
	}
	if (s < GPULAT_HIST_OVERFLOW && below != UINT32_MAX &&
	    isnan(sc[k0].trim[below]))
		return false;
	for (s = 0; s < GPULAT_HIST_NR_BUCKETS; s++) {
		if (!isnan(sc[k0].trim[s]))
			continue;
		for (k = k0 + 1; k <= k1; k++)
			if (!isnan(sc[k].trim[s]) && sc[k].trim[s] != 0)
				return false;
	}
	return true;
}

/*
 * windows - compare rate()'s quantiles of the trimmed and full series
 * over every window of 2 to 11 scrapes; @same[w]: whether window w (by
 * its last scrape k1 and length: w = k1 * 10 + len - 2) agreed, under
 * both versions of rate() and of the envelope; steady windows that did
 * not are logged and counted in the return
 */
static int windows(struct __test_metadata *_metadata, const struct scrape *sc,
		   bool *same, size_t *nsteady)
{
	struct pbucket f[QMAX], tr[QMAX];
	unsigned int k0, k1, len;
	size_t nf, nt;
	char why[160];
	int bad = 0, v3;
	bool ok;

	*nsteady = 0;
	for (k1 = 1; k1 < SCRAPES; k1++)
		for (len = 2; len <= 11 && len <= k1 + 1; len++) {
			k0 = k1 + 1 - len;
			ok = true;
			for (v3 = 0; v3 < 2 && ok; v3++) {
				nf = window_rates(sc, k0, k1, true, v3, f);
				nt = window_rates(sc, k0, k1, false, v3, tr);
				ok = nf && nt ? same_quantiles(f, nf, tr, nt, 200, why,
							      sizeof(why)) :
					 nf == nt;
			}
			same[k1 * 10 + len - 2] = ok;
			if (!steady(sc, k0, k1))
				continue;
			++*nsteady;
			if (!ok) {
				TH_LOG("steady window %u..%u: %s", k0, k1, why);
				bad++;
			}
		}
	return bad;
}

/*
 * scrapes - SCRAPES scrapes of a wakeup histogram growing by @add each
 * time (samples spread over slots 40 to 60 from the first), written by
 * one trimming daemon and one writing every bucket
 */
static void scrapes(struct scrape *sc, unsigned int per_octave,
		    void (*add)(unsigned int k, uint64_t *slots, uint64_t *rng),
		    uint64_t *rng)
{
	uint64_t slots[GPULAT_HIST_NR_BUCKETS] = { 0 };
	struct prom_state pf, pt;
	unsigned int k;
	char *t;

	prom_init(&pf);
	prom_init(&pt);
	pf.all_buckets = true;
	pt.all_buckets = false;
	pf.per_octave = pt.per_octave = per_octave;
	for (k = 0; k < SCRAPES; k++) {
		add(k, slots, rng);
		t = expo(&pf, slots);
		by_slot(t, sc[k].full);
		free(t);
		t = expo(&pt, slots);
		by_slot(t, sc[k].trim);
		free(t);
	}
	prom_free(&pf);
	prom_free(&pt);
}

/* the body: 1,000 samples a scrape over slots 40 to 60, none at 45 */
static void add_body(unsigned int k, uint64_t *slots, uint64_t *rng)
{
	uint32_t s;

	(void)k;
	for (s = 40; s <= 60; s++)
		if (s != 45)
			slots[s] += 40 + rnd(rng) % 20;
}

/* a new minimum one bucket under the lowest at scrape 20 */
static void add_min_down_one(unsigned int k, uint64_t *slots, uint64_t *rng)
{
	add_body(k, slots, rng);
	if (k >= 20)
		slots[39] += 30;
}

/* a new maximum one bucket over the highest from scrape 20 */
static void add_max_up_one(unsigned int k, uint64_t *slots, uint64_t *rng)
{
	add_body(k, slots, rng);
	if (k >= 20)
		slots[61] += 30;
}

/* 500 samples at slot 100 (the body ends at 60) at scrape 20 */
static void add_far(unsigned int k, uint64_t *slots, uint64_t *rng)
{
	add_body(k, slots, rng);
	if (k == 20)
		slots[100] += 500;
}

/* now and then idle, a new extreme near or far, the overflow */
static void add_random(unsigned int k, uint64_t *slots, uint64_t *rng)
{
	uint64_t r = rnd(rng) % 100;

	if (k && r < 10)
		return;
	add_body(k, slots, rng);
	if (r >= 80)
		slots[rnd(rng) % GPULAT_HIST_NR_BUCKETS] += 1 + rnd(rng) % 300;
	else if (r >= 70)
		slots[30 + rnd(rng) % 40] += 1 + rnd(rng) % 50;
}

/*
 * rate() of the trimmed series gives the full ones' quantiles in every
 * window over which the exported range did not grow, or grew by empty
 * buckets only (a new minimum within the margin), at every coarseness.
 */
TEST(rate_of_trimmed_buckets_gives_the_same_quantiles_when_steady)
{
	static const unsigned int per[] = { 8, 4, 2, 1 };
	static struct scrape sc[SCRAPES];
	bool same[SCRAPES * 10];
	uint64_t rng = 0x2545f4914f6cdd1dULL;
	size_t nsteady, total = 0, agree = 0, w;
	unsigned int run, k;

	for (run = 0; run < 12; run++) {
		scrapes(sc, per[run % 4], add_random, &rng);
		memset(same, 0, sizeof(same));
		ASSERT_EQ(0, windows(_metadata, sc, same, &nsteady));
		total += nsteady;
		for (w = 0; w < SCRAPES * 10; w++)
			agree += same[w];
	}
	TH_LOG("%zu steady windows, all the same; %zu windows the same in all",
	       total, agree);
	ASSERT_GT(total, 1000);
	/* a new minimum one bucket lower: steady, every window the same */
	for (k = 0; k < 4; k++) {
		scrapes(sc, 8, add_min_down_one, &rng);
		memset(same, 0, sizeof(same));
		ASSERT_EQ(0, windows(_metadata, sc, same, &nsteady));
		for (w = 10; w < SCRAPES * 10; w++)
			if (w % 10 + 2 <= w / 10 + 1)
				ASSERT_TRUE(same[w]);
	}
}

/*
 * A new maximum one bucket higher, samples arriving steadily: the new
 * margin's series starts at the count, its rate() under +Inf's, and the
 * envelope makes it +Inf's again: every window the same.
 */
TEST(rate_with_a_new_maximum_one_bucket_higher)
{
	static struct scrape sc[SCRAPES];
	bool same[SCRAPES * 10];
	uint64_t rng = 7;
	size_t nsteady, w;

	scrapes(sc, 8, add_max_up_one, &rng);
	memset(same, 0, sizeof(same));
	ASSERT_EQ(0, windows(_metadata, sc, same, &nsteady));
	for (w = 10; w < SCRAPES * 10; w++)
		if (w % 10 + 2 <= w / 10 + 1)
			ASSERT_TRUE(same[w]);
}

/*
 * What trimming costs: samples far over the range (40 buckets, five
 * octaves) make series whose history starts when they are first
 * written, so the windows over that scrape give other quantiles in the
 * new range; before it and once a window starts at it, the same.
 */
TEST(rate_over_a_far_new_maximum_differs_for_one_window)
{
	static struct scrape sc[SCRAPES];
	bool same[SCRAPES * 10];
	uint64_t rng = 11;
	unsigned int k1, len, differ = 0;
	size_t nsteady;

	scrapes(sc, 8, add_far, &rng);
	memset(same, 0, sizeof(same));
	ASSERT_EQ(0, windows(_metadata, sc, same, &nsteady));
	for (k1 = 1; k1 < SCRAPES; k1++)
		for (len = 2; len <= 11 && len <= k1 + 1; len++) {
			if (k1 < 20 || k1 + 1 - len >= 20) {
				ASSERT_TRUE(same[k1 * 10 + len - 2]);
			} else {
				differ += !same[k1 * 10 + len - 2];
			}
		}
	TH_LOG("%u windows over scrape 20 differ", differ);
	ASSERT_GT(differ, 0);
}

/*
 * ... but within an octave: the octaves' bounds above a label set's
 * range were written from its first samples on, so every quantile of a
 * window in which the range grew lies in the octave of the full
 * buckets' one (a factor of 2 at most), under both versions of rate()
 * and of the envelope.
 */
TEST(rate_over_a_far_new_maximum_stays_within_an_octave)
{
	static struct scrape sc[SCRAPES];
	struct pbucket f[QMAX], tr[QMAX];
	unsigned int k0, k1, len, i, checked = 0;
	uint64_t rng = 11;
	size_t nf, nt, mf, mt;
	double x, y, q;
	int v3;

	scrapes(sc, 8, add_far, &rng);
	for (k1 = 1; k1 < SCRAPES; k1++)
		for (len = 2; len <= 11 && len <= k1 + 1; len++) {
			k0 = k1 + 1 - len;
			for (v3 = 0; v3 < 2; v3++) {
				nf = window_rates(sc, k0, k1, true, v3, f);
				nt = window_rates(sc, k0, k1, false, v3, tr);
				if (!nf || !nt)
					continue;
				mf = pq_prepare(f, nf, v3);
				mt = pq_prepare(tr, nt, v3);
				for (i = 1; i < 100; i++) {
					q = i / 100.0;
					x = pq_quantile(q, f, mf);
					y = pq_quantile(q, tr, mt);
					if (isnan(x) || x <= 0)
						continue;
					checked++;
					if (y >= x / 2 && y <= x * 2)
						continue;
					TH_LOG("window %u..%u, q %.2f: %.9g over every bucket, %.9g trimmed",
					       k0, k1, q, x, y);
					ASSERT_TRUE(false);
				}
			}
		}
	ASSERT_LT(1000, checked);
}

TEST(all_buckets_from_the_environment)
{
	struct prom_state p;

	setenv("GPULAT_SERVE_ALL_BUCKETS", "1", 1);
	prom_init(&p);
	ASSERT_TRUE(p.all_buckets);
	setenv("GPULAT_SERVE_ALL_BUCKETS", "0", 1);
	prom_init(&p);
	ASSERT_FALSE(p.all_buckets);
	unsetenv("GPULAT_SERVE_ALL_BUCKETS");
	prom_init(&p);
	ASSERT_FALSE(p.all_buckets);
}

TEST_HARNESS_MAIN
