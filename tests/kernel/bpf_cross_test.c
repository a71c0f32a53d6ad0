// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF source against the module, in the VM: both attached at once
 * to one workload, a snapshot of each taken before and after it, and
 * the two differences compared series by series.  They hook the same
 * tracepoints with the same start -> end definitions, buckets and clock
 * (ktime_get_mono_fast_ns() is bpf_ktime_get_ns()), so each of the
 * workload's series must agree: counts within 2% (or COUNT_SLACK, for
 * the few samples of a quiet series), p50 and p99 within one bucket.
 *
 * Where they cannot agree by design:
 *
 *   - The two snapshots of a pair are taken one after the other (module,
 *     then BPF, before and after), so each source counts a few events
 *     the other does not: those of the gaps between them.  The workload
 *     starts after the first pair and stops before the second, the test
 *     waits on another CPU, and the gaps are printed.
 *   - A wait whose start event came before the BPF source attached ends
 *     there as a drop (no_start) while the module files it.  The source
 *     attaches SETTLE_US before the first pair, longer than any wait of
 *     the workload, so no such wait ends inside the window.
 *   - Two callbacks on one tracepoint run one after the other, and each
 *     source reads the clock in its own: the one called second stamps
 *     later by the first one's time, at the start event and at the end.
 *     Those times differ from one event to the other, so each sample of
 *     the source called second is off by their difference: under
 *     emulation up to 8 us for sched.wakeup and sched.preempt and 12 us
 *     for net.tx of the veth end without netem (BPF shorter with the
 *     module called first, as it attached at boot; longer once the
 *     module's net probes were registered again after BPF's).  At a p50
 *     of 40 us that is two or three buckets: quantiles within
 *     CLOCK_SLACK_NS agree too.
 *   - A few samples differ by far more: the guest's clock is the host's,
 *     and a pause of the emulator between the two callbacks (the host's
 *     scheduler, the other vCPU's turn: one host thread runs both) lands
 *     in one source's sample only.  With 300 samples of tens of us, p99
 *     is the third largest: on 6.1-rt net.tx's p99 was 1.18 ms in one
 *     source and 0.85 ms in the other (with one vCPU, 7 of 8 runs had
 *     the two p99 a bucket apart or less).
 *     So a quantile inside the other source's band of quantiles 2% of
 *     the samples either side (RANK_PPM, as many as the counts may
 *     differ by) agrees too.  A source that moved more samples than
 *     that, or all of them by more than CLOCK_SLACK_NS, fails.  The test
 *     says when either allowance was needed.
 *   - sched.evicted: the two start tables index pids differently (the
 *     module spreads the low pid bits), so two pids that collide in one
 *     need not collide in the other; the counters are printed, not
 *     compared.
 *
 * The cgroup family and mm.memcg_reclaim are compared the same way: one
 * cgroup made by the test, watched in both sources, holds the contended
 * CPU's tasks, then a reader of page cache through a small memory.max.
 *
 * A family not yet in the BPF source's table (or whose tracepoints this
 * kernel lacks) skips its test, with the reason, after the workload has
 * run for the module's numbers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "both.h"
#include "cross_cases.h"
#include "gpulat_hist.h"
#include "gpulat_tps.h"
#include "lib/gpulat_user.h"
#include "shell.h"
#include "vmtest.h"

/* the diagnostics on stdout, in order with the harness's lines */
static void __attribute__((constructor)) line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

enum { KMOD, BPF, NR_SRC };
static const char *const src_name[NR_SRC] = { "kmod", "bpf" };

/* counts of a quiet series may differ by this much (the gaps' events) */
#define COUNT_SLACK	3
/* fewer samples than this: the quantiles are not compared */
#define MIN_QUANTILE	50
#define SETTLE_US	300000
/* what the other source's callbacks may add to every sample (see above) */
#define CLOCK_SLACK_NS	20000
/* the share of samples that may have moved (see above), in ppm */
#define RANK_PPM	20000

/* the contended CPU: hogs and a sleeper there, the test elsewhere */
#define VICTIM_CPU	1
#define TEST_CPU	0
#define NR_HOGS		2
#define SLEEP_US	2000
#define SCHED_WORK_US	2000000
/* the fewest samples a loaded host left (127 at a load of 6): enough to compare */
#define SCHED_MIN	MIN_QUANTILE

#define NULLB_CONFIGFS	"/sys/kernel/config/nullb"
#define NULLB_NAME	"gl_cross"
#define NULLB_MB	64
#define NULLB_BLOCK	4096
#define NULLB_NS	1000000UL
#define READS		400

/* cgroups made by the test, one level under the VM's cgroup2 */
#define CG_ROOT		"/sys/fs/cgroup"
#define CG_SCHED	CG_ROOT "/gl_cross"
#define CG_MEMCG	CG_ROOT "/gl_cross_m"
#define MEMCG_MAX	"8M"
#define MEMCG_READ_MB	32

#define NET_NS_A	"gl-cross-a"
#define NET_NS_B	"gl-cross-b"
#define NET_DEV_A	"glx-a"
#define NET_DEV_B	"glx-b"
#define NET_MAC_A	"02:00:00:00:6f:0a"
#define NET_MAC_B	"02:00:00:00:6f:0b"
#define NET_ADDR_A	"10.232.0.1"
#define NET_ADDR_B	"10.232.0.2"
#define NET_PORT	7778
#define NET_PACKETS	300
#define NET_PERIOD_US	2000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

FIXTURE(cross) {
	struct gl_source *src[NR_SRC];
	struct gl_snapshot *before[NR_SRC], *diff[NR_SRC];
	uint64_t gap_ns[2];		/* module -> BPF snapshot, before, after */
	/* block */
	char nullb_cfg[128], nullb_dev[32];
	uint64_t nullb_key;
	/* net */
	char ip[64], tc[64];
	uint64_t key_a, key_b;
	/* cgroup: the one made (rmdir'd at teardown), watched in both */
	const char *cg;
	uint64_t cg_id;
};

FIXTURE_SETUP(cross)
{
	struct utsname u;
	char err[1024];
	int ret, i;

	memset(self, 0, sizeof(*self));
	pin_self(TEST_CPU);
	for (i = 0; i < NR_SRC; i++) {
		self->src[i] = gl_source_open(i == KMOD ? GL_SOURCE_KMOD :
					      GL_SOURCE_BPF, &ret, err,
					      sizeof(err));
		ASSERT_NE(NULL, self->src[i])
			TH_LOG("%s source: %s", src_name[i], err);
	}
	if (!uname(&u))
		ksft_print_msg("kernel %s\n", u.release);
	usleep(SETTLE_US);
}

FIXTURE_TEARDOWN(cross)
{
	int i;

	if (self->nullb_cfg[0]) {
		char path[192];

		snprintf(path, sizeof(path), "%s/power", self->nullb_cfg);
		write_str(path, "0");
		rmdir(self->nullb_cfg);
	}
	if (self->cg) {
		for (i = 0; i < NR_SRC; i++)
			gl_source_cgroup_set(self->src[i], NULL, 0);
		rmdir(self->cg);
	}
	if (self->ip[0]) {
		sh("%s netns del " NET_NS_A " 2>/dev/null", self->ip);
		sh("%s netns del " NET_NS_B " 2>/dev/null", self->ip);
	}
	for (i = 0; i < NR_SRC; i++) {
		gl_snapshot_free(self->before[i]);
		gl_snapshot_free(self->diff[i]);
		gl_source_close(self->src[i]);
	}
}

/*
 * bpf_missing - why the BPF source does not serve @fam ("" when it
 * does: some of its probes attached, none failed; both.h)
 */
static const char *bpf_missing(struct gl_source *bpf, uint32_t fam,
			       char *why, size_t len)
{
	if (both_serves(bpf, fam, why, len))
		why[0] = '\0';
	return why;
}

/* cross_begin - a snapshot of each source, the module's first */
static int cross_begin(FIXTURE_DATA(cross) *self)
{
	char err[256];
	uint64_t t = 0;
	int i, ret;

	for (i = 0; i < NR_SRC; i++) {
		ret = gl_source_snapshot(self->src[i], &self->before[i], err,
					 sizeof(err));
		if (ret)
			return ret;
		t = i ? now_ns() - t : now_ns();
	}
	self->gap_ns[0] = t;
	return 0;
}

/* cross_end - the second pair, in the same order, and the differences */
static int cross_end(FIXTURE_DATA(cross) *self)
{
	struct gl_snapshot *after[NR_SRC] = { NULL };
	char err[256];
	uint64_t t = 0;
	int i, ret = 0;

	for (i = 0; i < NR_SRC && !ret; i++) {
		ret = gl_source_snapshot(self->src[i], &after[i], err,
					 sizeof(err));
		t = i ? now_ns() - t : now_ns();
	}
	self->gap_ns[1] = t;
	for (i = 0; i < NR_SRC && !ret; i++)
		ret = gl_snapshot_diff(self->before[i], after[i],
				       &self->diff[i]);
	for (i = 0; i < NR_SRC; i++)
		gl_snapshot_free(after[i]);
	return ret;
}

static unsigned int slot_dist(uint64_t a, uint64_t b)
{
	unsigned int x = gpulat_hist_slot(a), y = gpulat_hist_slot(b);

	return x > y ? x - y : y - x;
}

/* in_band - whether @q lies within a bucket of @h's quantiles @ppm +- RANK_PPM */
static bool in_band(uint64_t q, const struct gl_hist *h, uint32_t ppm)
{
	uint64_t lo = gl_hist_quantile(h, ppm - RANK_PPM);
	uint64_t hi = gl_hist_quantile(h, ppm + RANK_PPM < 1000000 ?
					  ppm + RANK_PPM : 1000000);

	return gpulat_hist_slot(q) + 1 >= gpulat_hist_slot(lo) &&
	       gpulat_hist_slot(q) <= gpulat_hist_slot(hi) + 1;
}

/*
 * quantile_agrees - quantile @ppm of the two histograms: in one bucket or
 * the next; else within CLOCK_SLACK_NS (the callbacks' order shifts every
 * sample); else one inside the other's band of ranks (a few samples
 * moved).  The last two are said as diagnostics.
 */
static bool quantile_agrees(const struct gl_hist *h, uint32_t ppm,
			    const char *name, const char *what)
{
	uint64_t k = gl_hist_quantile(&h[KMOD], ppm);
	uint64_t b = gl_hist_quantile(&h[BPF], ppm);
	uint64_t d = k > b ? k - b : b - k;
	unsigned int q = ppm / 10000;

	if (slot_dist(k, b) <= 1)
		return true;
	if (d <= CLOCK_SLACK_NS) {
		ksft_print_msg("%s %s: p%u %u buckets apart but %llu ns: the callbacks' order\n",
			       name, what, q, slot_dist(k, b),
			       (unsigned long long)d);
		return true;
	}
	if (in_band(k, &h[BPF], ppm) || in_band(b, &h[KMOD], ppm)) {
		ksft_print_msg("%s %s: p%u %u buckets apart, inside the other's p%u-p%u: a few samples moved\n",
			       name, what, q, slot_dist(k, b),
			       (ppm - RANK_PPM) / 10000,
			       (ppm + RANK_PPM < 1000000 ? ppm + RANK_PPM : 1000000) / 10000);
		return true;
	}
	return false;
}

static unsigned long long mean(const struct gl_hist *h)
{
	return h->count ? h->sum_ns / h->count : 0;
}

/*
 * cross_series - one series of both differences (key @key unless
 * @any_key; CPU @cpu or GPULAT_CPU_NONE for all): printed, and with
 * @check its count and quantiles must agree.  Returns the smaller count.
 */
static uint64_t cross_series(struct __test_metadata *_metadata,
			     FIXTURE_DATA(cross) *self, uint32_t fam,
			     uint32_t id, bool any_key, uint64_t key,
			     uint32_t cpu, const char *what, bool check)
{
	struct gl_hist h[NR_SRC];
	uint64_t p50[NR_SRC], p99[NR_SRC], hi, lo;
	char name[64];
	int i;

	gl_series_name(name, sizeof(name), fam, id);
	for (i = 0; i < NR_SRC; i++) {
		if (any_key)
			gl_hist_merge(self->diff[i], fam, id, cpu, &h[i]);
		else
			gl_hist_merge_key(self->diff[i], fam, id, key, cpu,
					  &h[i]);
		p50[i] = gl_hist_quantile(&h[i], 500000);
		p99[i] = gl_hist_quantile(&h[i], 990000);
	}
	ksft_print_msg("%s %s: kmod %llu samples p50 %llu p99 %llu mean %llu ns; bpf %llu samples p50 %llu p99 %llu mean %llu ns\n",
		       name, what, (unsigned long long)h[KMOD].count,
		       (unsigned long long)p50[KMOD],
		       (unsigned long long)p99[KMOD],
		       mean(&h[KMOD]),
		       (unsigned long long)h[BPF].count,
		       (unsigned long long)p50[BPF],
		       (unsigned long long)p99[BPF],
		       mean(&h[BPF]));
	hi = h[KMOD].count > h[BPF].count ? h[KMOD].count : h[BPF].count;
	lo = h[KMOD].count + h[BPF].count - hi;
	if (!check)
		return lo;
	EXPECT_GE(hi * 2 / 100 > COUNT_SLACK ? hi * 2 / 100 : COUNT_SLACK,
		  hi - lo)
		TH_LOG("%s %s: counts differ", name, what);
	if (lo < MIN_QUANTILE)
		return lo;
	EXPECT_TRUE(quantile_agrees(h, 500000, name, what))
		TH_LOG("%s %s: p50 apart", name, what);
	EXPECT_TRUE(quantile_agrees(h, 990000, name, what))
		TH_LOG("%s %s: p99 apart", name, what);
	return lo;
}

/*
 * cross_keyed - every series of @fam with key @key that has samples in
 * either difference, through cross_series()
 */
static void cross_keyed(struct __test_metadata *_metadata,
			FIXTURE_DATA(cross) *self, uint32_t fam, uint64_t key,
			const char *what, bool check)
{
	uint64_t seen = 0;	/* series ids done, as bits */
	size_t i;
	int s;

	for (s = 0; s < NR_SRC; s++)
		for (i = 0; i < gl_snapshot_nr_series(self->diff[s]); i++) {
			const struct gpulat_series *sr =
				gl_snapshot_series(self->diff[s], i);

			/* a keyed family lists every series of a key: no empty ones */
			if (sr->family != fam || sr->key != key || !sr->count ||
			    sr->id >= 64 || seen & 1ULL << sr->id)
				continue;
			seen |= 1ULL << sr->id;
			cross_series(_metadata, self, fam, sr->id, false, key,
				     GPULAT_CPU_NONE, what, check);
		}
}

/* cross_drops - each drop counter of @fam in both differences, printed */
static void cross_drops(FIXTURE_DATA(cross) *self, uint32_t fam)
{
	char line[512];
	size_t i, off = 0;
	uint64_t v[NR_SRC];
	int s;

	for (i = 0; i < gl_snapshot_nr_counters(self->diff[KMOD]); i++) {
		const struct gpulat_counter *c =
			gl_snapshot_counter(self->diff[KMOD], i);

		if (c->family != fam || off >= sizeof(line))
			continue;
		for (s = 0; s < NR_SRC; s++)
			if (gl_counter(self->diff[s], fam, c->id, &v[s]))
				v[s] = ~0ULL;
		off += snprintf(line + off, sizeof(line) - off, "%s%s %llu/%lld",
				off ? ", " : "", c->name,
				(unsigned long long)v[KMOD], (long long)v[BPF]);
	}
	ksft_print_msg("drops kmod/bpf (-1: none in BPF): %s\n", line);
	ksft_print_msg("snapshot gaps (module, then BPF): %llu us before, %llu us after\n",
		       (unsigned long long)self->gap_ns[0] / 1000,
		       (unsigned long long)self->gap_ns[1] / 1000);
}

/*
 * A contended CPU: NR_HOGS spinners at nice 0 and a sleeper at nice 19
 * pinned to VICTIM_CPU, the test on TEST_CPU.  sched.wakeup and
 * sched.preempt of VICTIM_CPU are the workload's (and the kernel
 * threads' there); those of TEST_CPU hold the test's own snapshots
 * and are printed only.
 */
TEST_F(cross, sched_contended_cpu)
{
	pid_t pids[NR_HOGS + 2];
	char why[320];
	uint64_t n;
	int i;

	if (sysconf(_SC_NPROCESSORS_ONLN) <= VICTIM_CPU)
		SKIP(return, "needs %d CPUs", VICTIM_CPU + 1);
	if (bpf_missing(self->src[BPF], GPULAT_FAM_SCHED, why, sizeof(why))[0])
		SKIP(return, "%s", why);

	ASSERT_EQ(0, cross_begin(self));
	for (i = 0; i < NR_HOGS; i++)
		pids[i] = vm_spawn(VICTIM_CPU, "gl-hog", 0, 0);
	pids[NR_HOGS] = vm_spawn(VICTIM_CPU, "gl-sleeper", 0, SLEEP_US);
	pids[NR_HOGS + 1] = vm_spawn(VICTIM_CPU, "gl-sleeper19", 19, SLEEP_US);
	usleep(SCHED_WORK_US);
	for (i = 0; i < NR_HOGS + 2; i++)
		vm_stop(pids[i]);
	ASSERT_EQ(0, cross_end(self));

	n = cross_series(_metadata, self, GPULAT_FAM_SCHED,
			 GPULAT_SCHED_WAKEUP, true, 0, VICTIM_CPU, "cpu1", true);
	EXPECT_LE(SCHED_MIN, n);
	n = cross_series(_metadata, self, GPULAT_FAM_SCHED,
			 GPULAT_SCHED_PREEMPT, true, 0, VICTIM_CPU, "cpu1", true);
	EXPECT_LE(SCHED_MIN, n);
	cross_series(_metadata, self, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP,
		     true, 0, TEST_CPU, "cpu0 (the test's)", false);
	cross_series(_metadata, self, GPULAT_FAM_SCHED, GPULAT_SCHED_PREEMPT,
		     true, 0, TEST_CPU, "cpu0 (the test's)", false);
	cross_drops(self, GPULAT_FAM_SCHED);
}

/* --- cgroup: the same cgroup watched in both sources ------------------ */

static int cg_move(const char *path, pid_t pid)
{
	char p[192], v[32];

	snprintf(p, sizeof(p), "%s/cgroup.procs", path);
	snprintf(v, sizeof(v), "%d", (int)pid);
	return write_str(p, v);
}

/*
 * cg_watch - cgroup2 at CG_ROOT (mounted if not yet), the cgroup @path
 * made one level under it, and both sources watching it alone
 */
static int cg_watch(FIXTURE_DATA(cross) *self, const char *path)
{
	struct gl_cgroup_watch w = { .level = 1 };
	struct stat st;
	int i, ret = 0;

	if (stat(CG_ROOT "/cgroup.procs", &st)) {
		mkdir(CG_ROOT, 0755);
		if (mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL))
			return -errno;
	}
	write_str(CG_ROOT "/cgroup.subtree_control", "+memory");
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	self->cg = path;
	w.fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.fd < 0 || fstat(w.fd, &st))
		return -errno;
	self->cg_id = st.st_ino;
	w.id = st.st_ino;
	for (i = 0; i < NR_SRC && !ret; i++) {
		gl_source_family_switch(self->src[i], GPULAT_FAM_CGROUP, true);
		ret = gl_source_cgroup_set(self->src[i], &w, 1);
	}
	close(w.fd);
	return ret;
}

/*
 * The contended CPU of sched_contended_cpu, its tasks in one watched
 * cgroup: cgroup.wakeup and cgroup.preempt of its key agree, and each
 * holds no more than the sched series of all CPUs (the key's tasks are
 * some of the system's).
 */
TEST_F(cross, cgroup_contended_cpu)
{
	pid_t pids[NR_HOGS + 2];
	struct gl_hist cg, cpu;
	uint64_t n;
	char why[320];
	int i, s;

	if (sysconf(_SC_NPROCESSORS_ONLN) <= VICTIM_CPU)
		SKIP(return, "needs %d CPUs", VICTIM_CPU + 1);
	if (bpf_missing(self->src[BPF], GPULAT_FAM_CGROUP, why,
			sizeof(why))[0])
		SKIP(return, "%s", why);
	ASSERT_EQ(0, cg_watch(self, CG_SCHED));

	for (i = 0; i < NR_HOGS; i++)
		pids[i] = vm_spawn(VICTIM_CPU, "gl-hog", 0, 0);
	pids[NR_HOGS] = vm_spawn(VICTIM_CPU, "gl-sleeper", 0, SLEEP_US);
	pids[NR_HOGS + 1] = vm_spawn(VICTIM_CPU, "gl-sleeper19", 19, SLEEP_US);
	for (i = 0; i < NR_HOGS + 2; i++)
		ASSERT_EQ(0, cg_move(CG_SCHED, pids[i]));
	/* the moves' own waits are outside the window */
	usleep(SETTLE_US);
	/*
	 * stopped while the windows open: the two sources' snapshots are
	 * taken one after the other (385 ms apart under KASAN), and waits
	 * between them would be in one window only
	 */
	for (i = 0; i < NR_HOGS + 2; i++) {
		ASSERT_EQ(0, kill(pids[i], SIGSTOP));
		ASSERT_EQ(pids[i], waitpid(pids[i], &s, WUNTRACED));
	}
	ASSERT_EQ(0, cross_begin(self));
	for (i = 0; i < NR_HOGS + 2; i++)
		ASSERT_EQ(0, kill(pids[i], SIGCONT));
	usleep(SCHED_WORK_US);
	/* stopped first: a snapshot's series are not read at one instant */
	for (i = 0; i < NR_HOGS + 2; i++)
		vm_stop(pids[i]);
	ASSERT_EQ(0, cross_end(self));

	n = cross_series(_metadata, self, GPULAT_FAM_CGROUP, GPULAT_CG_WAKEUP,
			 false, self->cg_id, GPULAT_CPU_NONE, "gl_cross", true);
	EXPECT_LE(SCHED_MIN, n);
	n = cross_series(_metadata, self, GPULAT_FAM_CGROUP, GPULAT_CG_PREEMPT,
			 false, self->cg_id, GPULAT_CPU_NONE, "gl_cross", true);
	EXPECT_LE(SCHED_MIN, n);
	cross_series(_metadata, self, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP,
		     true, 0, VICTIM_CPU, "cpu1", false);
	cross_series(_metadata, self, GPULAT_FAM_SCHED, GPULAT_SCHED_PREEMPT,
		     true, 0, VICTIM_CPU, "cpu1", false);
	for (s = 0; s < NR_SRC; s++)
		for (i = GPULAT_CG_WAKEUP; i <= GPULAT_CG_PREEMPT; i++) {
			gl_hist_merge_key(self->diff[s], GPULAT_FAM_CGROUP, i,
					  self->cg_id, GPULAT_CPU_NONE, &cg);
			gl_hist_merge(self->diff[s], GPULAT_FAM_SCHED,
				      i == GPULAT_CG_WAKEUP ?
				      GPULAT_SCHED_WAKEUP : GPULAT_SCHED_PREEMPT,
				      GPULAT_CPU_NONE, &cpu);
			EXPECT_GE(cpu.count, cg.count)
				TH_LOG("%s: the cgroup's series %d beyond sched's",
				       src_name[s], i);
		}
	cross_drops(self, GPULAT_FAM_CGROUP);
}

/* --- block: a null_blk disk that completes each read NULLB_NS late ----- */

static int nullb_attr(FIXTURE_DATA(cross) *self, const char *attr,
		      const char *val)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/%s", self->nullb_cfg, attr);
	return write_str(path, val);
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		ret = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

/*
 * nullb_create - as block_test.c: timer completion (irqmode 2), one
 * queue, no I/O scheduler; the disk's name and its series key
 */
static int nullb_create(FIXTURE_DATA(cross) *self)
{
	static const char *const attrs[][2] = {
		{ "size", "64" }, { "blocksize", "4096" }, { "irqmode", "2" },
		{ "completion_nsec", "1000000" }, { "submit_queues", "1" },
		{ "hw_queue_depth", "64" }, { "power", "1" },
	};
	char path[192], buf[64];
	unsigned int maj, min;
	struct stat st;
	size_t i;
	int ret = 0;

	if (stat(NULLB_CONFIGFS, &st) &&
	    (sh("modprobe null_blk nr_devices=0 >/dev/null 2>&1") ||
	     stat(NULLB_CONFIGFS, &st)))
		return -ENOENT;
	snprintf(self->nullb_cfg, sizeof(self->nullb_cfg),
		 NULLB_CONFIGFS "/" NULLB_NAME);
	if (mkdir(self->nullb_cfg, 0755))
		return -errno;
	for (i = 0; i < ARRAY_SIZE(attrs) && !ret; i++)
		ret = nullb_attr(self, attrs[i][0], attrs[i][1]);
	if (ret)
		return ret;
	/* newer kernels name the disk after the folder, older nullb<index> */
	snprintf(path, sizeof(path), "/sys/block/" NULLB_NAME);
	if (!stat(path, &st)) {
		snprintf(self->nullb_dev, sizeof(self->nullb_dev), NULLB_NAME);
	} else {
		snprintf(path, sizeof(path), "%s/index", self->nullb_cfg);
		ret = read_line(path, buf, sizeof(buf));
		if (ret)
			return ret;
		snprintf(self->nullb_dev, sizeof(self->nullb_dev), "nullb%lu",
			 strtoul(buf, NULL, 10));
	}
	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler",
		 self->nullb_dev);
	ret = write_str(path, "none");
	snprintf(path, sizeof(path), "/sys/block/%s/dev", self->nullb_dev);
	if (!ret)
		ret = read_line(path, buf, sizeof(buf));
	if (!ret && sscanf(buf, "%u:%u", &maj, &min) != 2)
		ret = -EINVAL;
	self->nullb_key = (uint64_t)maj << 20 | min;	/* the kernel's dev_t */
	return ret;
}

static int nullb_read(FIXTURE_DATA(cross) *self, unsigned int n)
{
	const unsigned long blocks = NULLB_MB * (1048576 / NULLB_BLOCK);
	char path[64];
	unsigned int i;
	void *buf;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/dev/%s", self->nullb_dev);
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0)
		return -errno;
	if (posix_memalign(&buf, NULLB_BLOCK, NULLB_BLOCK)) {
		close(fd);
		return -ENOMEM;
	}
	for (i = 0; i < n && !ret; i++)
		if (pread(fd, buf, NULLB_BLOCK, (off_t)(i * 7919UL % blocks) *
			  NULLB_BLOCK) != NULLB_BLOCK)
			ret = -EIO;
	free(buf);
	close(fd);
	return ret;
}

/*
 * READS direct reads from a null_blk disk, without an I/O scheduler and
 * then with mq-deadline (each read inserted, then dispatched: its
 * in-flight entry exists when it is issued): its block.read.device holds
 * READS samples at about NULLB_NS in both sources, and its other series
 * (block.read.queue: next to nothing without a scheduler) agree too.
 * Without the family in the BPF source the reads still run, for the
 * module's numbers, and the test then skips.
 */
TEST_F(cross, block_null_blk)
{
	static const char *const scheds[] = { "none", "mq-deadline" };
	char why[320], path[128], what[96];
	struct gl_hist h;
	uint64_t full;
	unsigned int k;
	bool bpf;
	int s;

	bpf = !bpf_missing(self->src[BPF], GPULAT_FAM_BLOCK, why,
			   sizeof(why))[0];
	ASSERT_EQ(0, gl_source_family_switch(self->src[KMOD], GPULAT_FAM_BLOCK,
					     true));
	if (nullb_create(self) == -ENOENT)
		SKIP(return, "no null_blk with configfs");
	ASSERT_NE(0, self->nullb_dev[0]);
	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler",
		 self->nullb_dev);

	for (k = 0; k < ARRAY_SIZE(scheds); k++) {
		if (write_str(path, scheds[k])) {
			ksft_print_msg("no I/O scheduler %s here\n", scheds[k]);
			continue;
		}
		usleep(SETTLE_US);	/* the new disk's own reads done */
		for (s = 0; s < NR_SRC; s++) {
			gl_snapshot_free(self->before[s]);
			gl_snapshot_free(self->diff[s]);
			self->before[s] = self->diff[s] = NULL;
		}
		ASSERT_EQ(0, cross_begin(self));
		ASSERT_EQ(0, nullb_read(self, READS));
		ASSERT_EQ(0, cross_end(self));

		snprintf(what, sizeof(what), "%s (%s)", self->nullb_dev,
			 scheds[k]);
		cross_keyed(_metadata, self, GPULAT_FAM_BLOCK,
			    self->nullb_key, what, bpf);
		for (s = 0; s < (bpf ? NR_SRC : BPF); s++) {
			gl_hist_merge_key(self->diff[s], GPULAT_FAM_BLOCK,
					  GPULAT_BLOCK_SERIES(GPULAT_BLOCK_READ,
							      GPULAT_BLOCK_DEVICE),
					  self->nullb_key, GPULAT_CPU_NONE, &h);
			EXPECT_LE(READS, h.count)
				TH_LOG("%s %s", src_name[s], what);
			/* nothing dropped: a full table would show here */
			full = ~0ULL;
			gl_counter(self->diff[s], GPULAT_FAM_BLOCK,
				   GPULAT_BLOCK_FULL, &full);
			EXPECT_EQ(0, full) TH_LOG("%s %s: block.full",
						  src_name[s], what);
		}
		cross_drops(self, GPULAT_FAM_BLOCK);
	}
	/* a skip passes: only when the module's part did */
	if (!bpf && _metadata->passed)
		SKIP(return, "%s (the module's numbers above)", why);
}

/* cache_read - a child in cgroup @path reads @mb MiB of @dev, cached */
static int cache_read(const char *path, const char *dev, size_t mb)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		static char buf[65536];
		size_t done = 0;
		char p[64];
		int fd;

		pin_self(VICTIM_CPU);
		if (cg_move(path, getpid()))
			_exit(80);
		snprintf(p, sizeof(p), "/dev/%s", dev);
		fd = open(p, O_RDONLY);
		if (fd < 0)
			_exit(81);
		for (; done < mb << 20; done += sizeof(buf))
			if (read(fd, buf, sizeof(buf)) != sizeof(buf))
				_exit(82);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * MEMCG_READ_MB of clean page cache read through a cgroup's memory.max
 * of MEMCG_MAX (reclaimed, never the OOM killer, as cgroup_test.c):
 * mm.memcg_reclaim and the cgroup's cgroup.memcg_reclaim agree.
 */
TEST_F(cross, memcg_reclaim_page_cache)
{
	char why[320];
	struct stat st;
	uint64_t n;

	if (bpf_missing(self->src[BPF], GPULAT_FAM_MM, why, sizeof(why))[0] ||
	    bpf_missing(self->src[BPF], GPULAT_FAM_CGROUP, why,
			sizeof(why))[0])
		SKIP(return, "%s", why);
	ASSERT_EQ(0, gl_source_family_switch(self->src[KMOD], GPULAT_FAM_MM,
					     true));
	gl_source_family_switch(self->src[BPF], GPULAT_FAM_MM, true);
	ASSERT_EQ(0, cg_watch(self, CG_MEMCG));
	if (stat(CG_MEMCG "/memory.max", &st))
		SKIP(return, "no memory controller in this kernel's cgroup2");
	ASSERT_EQ(0, write_str(CG_MEMCG "/memory.max", MEMCG_MAX));
	if (nullb_create(self) == -ENOENT)
		SKIP(return, "no null_blk with configfs");
	ASSERT_NE(0, self->nullb_dev[0]);
	usleep(SETTLE_US);

	ASSERT_EQ(0, cross_begin(self));
	ASSERT_EQ(0, cache_read(CG_MEMCG, self->nullb_dev, MEMCG_READ_MB));
	ASSERT_EQ(0, cross_end(self));

	n = cross_series(_metadata, self, GPULAT_FAM_MM,
			 GPULAT_MM_MEMCG_RECLAIM, true, 0, GPULAT_CPU_NONE,
			 "all CPUs", true);
	EXPECT_LT(0, n);
	n = cross_series(_metadata, self, GPULAT_FAM_CGROUP, GPULAT_CG_MEMCG,
			 false, self->cg_id, GPULAT_CPU_NONE, "gl_cross_m",
			 true);
	EXPECT_LT(0, n);
	cross_drops(self, GPULAT_FAM_MM);
}

/* --- net: netem on one end of a veth pair, as net_test.c --------------- */

/* net_find_tool - iproute2's @name (busybox has applets of the same name) */
static int net_find_tool(const char *name, char *out, size_t len)
{
	static const char *const dirs[] = {
		"/usr/sbin", "/usr/bin", "/sbin", "/bin",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(out, len, "%s/%s", dirs[i], name);
		if (!access(out, X_OK) &&
		    !sh("%s -V 2>&1 | grep -q iproute2", out))
			return 0;
	}
	out[0] = '\0';
	return -ENOENT;
}

static int net_ns_fd(const char *ns)
{
	char path[96];

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* net_ns_key - @dev's series key: ifindex, the namespace inode above */
static int net_ns_key(const char *ns, const char *dev, uint64_t *key)
{
	int fd = net_ns_fd(ns), self, ret = 0;
	unsigned int ifindex = 0;
	struct stat st;

	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || self < 0 || fstat(fd, &st) || setns(fd, CLONE_NEWNET))
		ret = -errno;
	if (!ret) {
		ifindex = if_nametoindex(dev);
		if (setns(self, CLONE_NEWNET) || !ifindex)
			ret = -ENODEV;
	}
	*key = (uint64_t)st.st_ino << 32 | ifindex;
	if (self >= 0)
		close(self);
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * net_no_ipv6 - IPv6 off for the devices that enter @ns (no router or
 * neighbour solicitations); a kernel without IPv6 has none to switch off
 */
static int net_no_ipv6(const char *ns)
{
	int fd, status;
	pid_t pid = fork();

	if (!pid) {
		fd = net_ns_fd(ns);
		if (fd < 0 || setns(fd, CLONE_NEWNET))
			_exit(1);
		write_str("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* net_setup - the pair, IPv6 off and static neighbours: only our packets */
static int net_setup(FIXTURE_DATA(cross) *self)
{
	const char *ip = self->ip;

	sh("%s netns del " NET_NS_A " 2>/dev/null; %s netns del " NET_NS_B
	   " 2>/dev/null", ip, ip);
	if (sh_loud("%s netns add " NET_NS_A " && %s netns add " NET_NS_B, ip,
		    ip) ||
	    net_no_ipv6(NET_NS_A) || net_no_ipv6(NET_NS_B) ||
	    sh_loud("%s link add " NET_DEV_A " address " NET_MAC_A
		    " type veth peer name " NET_DEV_B " address " NET_MAC_B,
		    ip) ||
	    sh_loud("%s link set " NET_DEV_A " netns " NET_NS_A " && %s link set "
		    NET_DEV_B " netns " NET_NS_B, ip, ip) ||
	    sh_loud("%s -n " NET_NS_A " addr add " NET_ADDR_A "/24 dev "
		    NET_DEV_A " && %s -n " NET_NS_B " addr add " NET_ADDR_B
		    "/24 dev " NET_DEV_B, ip, ip) ||
	    sh_loud("%s -n " NET_NS_A " neigh add " NET_ADDR_B " lladdr "
		    NET_MAC_B " dev " NET_DEV_A " nud permanent && %s -n "
		    NET_NS_B " neigh add " NET_ADDR_A " lladdr " NET_MAC_A
		    " dev " NET_DEV_B " nud permanent", ip, ip) ||
	    sh_loud("%s -n " NET_NS_A " qdisc add dev " NET_DEV_A
		    " root netem delay 1ms", self->tc) ||
	    sh_loud("%s -n " NET_NS_A " link set " NET_DEV_A " up && %s -n "
		    NET_NS_B " link set " NET_DEV_B " up", ip, ip))
		return -EIO;
	if (net_ns_key(NET_NS_A, NET_DEV_A, &self->key_a) ||
	    net_ns_key(NET_NS_B, NET_DEV_B, &self->key_b))
		return -ENODEV;
	return 0;
}

/* net_socket - in a child: enter @ns, a UDP socket bound to @addr */
static int net_socket(const char *ns, const char *addr)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(NET_PORT) };
	struct timeval tmo = { .tv_sec = 1 };
	int fd = net_ns_fd(ns), s;

	if (fd < 0 || setns(fd, CLONE_NEWNET))
		_exit(10);
	close(fd);
	inet_pton(AF_INET, addr, &sa.sin_addr);
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)))
		_exit(11);
	return s;
}

/*
 * net_traffic - NET_PACKETS datagrams A -> B, one per NET_PERIOD_US, each
 * echoed back by B: both devices transmit and both backlogs take them
 */
static int net_traffic(void)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(NET_PORT) };
	int ready[2], status = -1, ret = 0, s, i, got = 0;
	pid_t echo, pinger;
	char buf[64] = { 0 }, c;

	if (pipe(ready))
		return -errno;
	echo = fork();
	if (!echo) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n;

		s = net_socket(NET_NS_B, NET_ADDR_B);
		if (write(ready[1], "r", 1) != 1)
			_exit(12);
		while ((n = recvfrom(s, buf, sizeof(buf), 0,
				     (struct sockaddr *)&from, &fl)) > 0)
			if (sendto(s, buf, n, 0, (struct sockaddr *)&from,
				   fl) != n || ++got == NET_PACKETS)
				break;
		_exit(got == NET_PACKETS ? 0 : 13);
	}
	if (echo < 0 || read(ready[0], &c, 1) != 1)
		return -EIO;
	pinger = fork();
	if (!pinger) {
		struct timespec t = { 0, NET_PERIOD_US * 1000L };

		s = net_socket(NET_NS_A, NET_ADDR_A);
		inet_pton(AF_INET, NET_ADDR_B, &to.sin_addr);
		for (i = 0; i < NET_PACKETS; i++) {
			if (sendto(s, buf, sizeof(buf), 0, (struct sockaddr *)&to,
				   sizeof(to)) != sizeof(buf))
				_exit(14);
			nanosleep(&t, NULL);
			while (recv(s, buf, sizeof(buf), MSG_DONTWAIT) > 0)
				got++;
		}
		while (got < NET_PACKETS && recv(s, buf, sizeof(buf), 0) > 0)
			got++;
		_exit(got == NET_PACKETS ? 0 : 15);
	}
	for (i = 0; i < 2; i++) {
		pid_t p = i ? echo : pinger;

		if (p < 0 || waitpid(p, &status, 0) != p ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			ksft_print_msg("net %s failed (status %d)\n",
				       i ? "echo" : "sender", status);
			ret = -EIO;
		}
	}
	close(ready[0]);
	close(ready[1]);
	return ret;
}

/*
 * NET_PACKETS echoed datagrams over a veth pair, netem (1 ms) on A:
 * net.tx and net.backlog of both ends agree.  Without the family in the
 * BPF source the traffic still runs, for the module's numbers, and the
 * test then skips.
 */
TEST_F(cross, net_veth_netem)
{
	char why[320];
	struct gl_hist h;
	bool bpf;
	int s;

	bpf = !bpf_missing(self->src[BPF], GPULAT_FAM_NET, why,
			   sizeof(why))[0];
	if (net_find_tool("ip", self->ip, sizeof(self->ip)) ||
	    net_find_tool("tc", self->tc, sizeof(self->tc)))
		SKIP(return, "needs iproute2's ip and tc");
	sh("modprobe veth 2>/dev/null; modprobe sch_netem 2>/dev/null");
	ASSERT_EQ(0, gl_source_family_switch(self->src[KMOD], GPULAT_FAM_NET,
					     true));
	ASSERT_EQ(0, net_setup(self));
	usleep(SETTLE_US);	/* carrier up on both ends */

	ASSERT_EQ(0, cross_begin(self));
	ASSERT_EQ(0, net_traffic());
	ASSERT_EQ(0, cross_end(self));

	cross_keyed(_metadata, self, GPULAT_FAM_NET, self->key_a,
		    NET_DEV_A " (netem)", bpf);
	cross_keyed(_metadata, self, GPULAT_FAM_NET, self->key_b, NET_DEV_B,
		    bpf);
	for (s = 0; s < (bpf ? NR_SRC : BPF); s++) {
		gl_hist_merge_key(self->diff[s], GPULAT_FAM_NET, GPULAT_NET_TX,
				  self->key_a, GPULAT_CPU_NONE, &h);
		EXPECT_LE(NET_PACKETS, h.count) TH_LOG("%s", src_name[s]);
	}
	cross_drops(self, GPULAT_FAM_NET);
	/* a skip passes: only when the module's part did */
	if (!bpf && _metadata->passed)
		SKIP(return, "%s (the module's numbers above)", why);
}

/* gpulat_tps.h's rows: what both sources list, in its order */
struct decl_tp {
	uint32_t fam;
	const char *tp;
	bool always;		/* needs ALWAYS: no source may leave it out */
};

#define DECL_TP(fam, hit, tp, kprobe, prog, needs) \
	{ GPULAT_FAM_##fam, tp, DECL_ALWAYS_##needs },
#define DECL_ALWAYS_ALWAYS	true
#define DECL_ALWAYS_MEMCG	false
#define DECL_ALWAYS_COMPACTION	false
#define DECL_ALWAYS_DRIVER	false

/* a family the list lacks fails below: its probes are not the next */
static const struct decl_tp decl_tps[] = { GPULAT_TPS_ALL(DECL_TP) };

/*
 * same_tracepoints - whether @s lists the declared tracepoints of every
 * family in their order, leaving out only those a kernel or driver may
 * lack (the module omits the driver's Xid tracepoint, which it takes
 * from the driver itself); each fault logged.  The cgroup family hooks
 * nothing of its own: it rides the sched, block and mm probes, which the
 * BPF source lists under it too (by design: its programs are theirs).
 */
static bool same_tracepoints(const struct gl_snapshot *s, const char *name,
			     size_t *listed)
{
	size_t i, d = 0, n = gl_snapshot_nr_probes(s);
	bool ok = true;

	*listed = 0;
	for (i = 0; i < n; i++) {
		const struct gpulat_probe *p = gl_snapshot_probe(s, i);

		if (p->family == GPULAT_FAM_CGROUP)
			continue;
		++*listed;
		/* skip the optional rows before this one's */
		while (d < ARRAY_SIZE(decl_tps) && !decl_tps[d].always &&
		       (decl_tps[d].fam != p->family ||
			strcmp(decl_tps[d].tp, p->tracepoint)))
			d++;
		if (d == ARRAY_SIZE(decl_tps) || decl_tps[d].fam != p->family ||
		    strcmp(decl_tps[d].tp, p->tracepoint)) {
			ksft_print_msg("%s: probe %zu %s %s is not the declaration's next (%s)\n",
				       name, i, gl_family_name(p->family),
				       p->tracepoint, d < ARRAY_SIZE(decl_tps) ?
				       decl_tps[d].tp : "its end");
			ok = false;
			break;
		}
		d++;
	}
	for (; ok && d < ARRAY_SIZE(decl_tps); d++)
		if (decl_tps[d].always) {
			ksft_print_msg("%s: %s %s not listed\n", name,
				       gl_family_name(decl_tps[d].fam),
				       decl_tps[d].tp);
			ok = false;
		}
	return ok;
}

/*
 * Both sources hook the tracepoints gpulat_tps.h declares, family by
 * family in its order (the attach order); the BPF source lists them all.
 */
TEST_F(cross, same_tracepoints_as_declared)
{
	struct gl_snapshot *s[NR_SRC] = { NULL };
	size_t listed[NR_SRC];
	char err[256];
	int i;

	for (i = 0; i < NR_SRC; i++) {
		ASSERT_EQ(0, gl_source_snapshot(self->src[i], &s[i], err,
						sizeof(err)))
			TH_LOG("%s: %s", src_name[i], err);
		EXPECT_TRUE(same_tracepoints(s[i], src_name[i], &listed[i]));
		ksft_print_msg("%s lists %zu of the %zu declared tracepoints\n",
			       src_name[i], listed[i], ARRAY_SIZE(decl_tps));
	}
	EXPECT_EQ(ARRAY_SIZE(decl_tps), listed[BPF]);
	for (i = 0; i < NR_SRC; i++)
		gl_snapshot_free(s[i]);
}

/*
 * Every family has its cross case (cross_cases.h; a family without one
 * does not build), named here for the log.
 */
TEST(every_family_has_a_cross_case)
{
	uint32_t fam;

	ASSERT_EQ(GPULAT_FAM_MAX, ARRAY_SIZE(cross_cases));
	for (fam = 1; fam < GPULAT_FAM_MAX; fam++) {
		ASSERT_NE(NULL, cross_cases[fam]) TH_LOG("family %u", fam);
		ksft_print_msg("cross case of %s: %s\n", gl_family_name(fam),
			       cross_cases[fam]);
	}
}

VMTEST_HARNESS_MAIN
