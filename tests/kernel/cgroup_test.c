// SPDX-License-Identifier: GPL-2.0
/*
 * Per-cgroup latency and the cgroup ids of trace records, in the VM.
 *
 * Two cgroups the test makes under the cgroup2 mount, A and B: a CPU hog
 * in B and a nice-19 victim in A that sleeps 1 ms in a loop, pinned to
 * the same CPU.  The victim's records carry A's id and name B's as the
 * culprit's cgroup; A's cgroup.wakeup moves while B's does not (its hog
 * never sleeps).  With every sched sample traced, the records of A's
 * tasks equal A's cgroup.wakeup + cgroup.preempt samples exactly.  Also:
 * keys_full past cgroup_max_keys, O_DIRECT reads of a null_blk disk
 * counted in the reader's cgroup, memcg reclaim in a cgroup over its
 * memory.max, and the ioctl's errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "shell.h"
#include "lib/gpulat_user.h"
#include "lib/source.h"
#include "vmtest.h"

/* the cgroup family has no probes of its own: the sched ones file it */
NEEDS_FAMILY(GPULAT_FAM_SCHED);

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_TOP		CG_ROOT "/gl_test"
#define CPU		1
#define SLEEP_US	1000
#define MANY		70	/* cgroups: past the default 64 keys */
#define NULLB_CONFIGFS	"/sys/kernel/config/nullb"
#define READS		50
#define MODDIR		"/gpulat/modules"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* cg_make - make @path (if new) and return its id (inode), 0 on failure */
static uint64_t cg_make(const char *path)
{
	struct stat st;

	if (mkdir(path, 0755) && errno != EEXIST)
		return 0;
	return stat(path, &st) ? 0 : st.st_ino;
}

static int cg_move(const char *path, pid_t pid)
{
	char p[256], v[32];

	snprintf(p, sizeof(p), "%s/cgroup.procs", path);
	snprintf(v, sizeof(v), "%d", (int)pid);
	return write_str(p, v);
}

/* cgfs_setup - cgroup2 at CG_ROOT, and CG_TOP with what controllers it has */
static int cgfs_setup(void)
{
	struct stat st;

	if (stat(CG_ROOT "/cgroup.procs", &st)) {
		mkdir(CG_ROOT, 0755);
		if (mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL))
			return -errno;
	}
	write_str(CG_ROOT "/cgroup.subtree_control", "+cpu");
	write_str(CG_ROOT "/cgroup.subtree_control", "+memory");
	write_str(CG_ROOT "/cgroup.subtree_control", "+io");
	if (!cg_make(CG_TOP))
		return -errno;
	write_str(CG_TOP "/cgroup.subtree_control", "+memory");
	write_str(CG_TOP "/cgroup.subtree_control", "+io");
	return 0;
}

/* watch - make the module watch the cgroups at @paths (@n of them) */
static int watch(int fd, const char **paths, unsigned int n)
{
	struct gl_cgroup_watch w[GPULAT_CG_WATCH_MAX + 1] = { 0 };
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		w[i].fd = open(paths[i], O_RDONLY | O_DIRECTORY);
		if (w[i].fd < 0)
			return -errno;
	}
	ret = gl_cgroup_set(fd, w, n);
	for (i = 0; i < n; i++)
		close(w[i].fd);
	return ret;
}

static struct gl_snapshot *snap(int fd)
{
	struct gl_snapshot *s = NULL;

	return gl_snapshot_take(fd, &s) ? NULL : s;
}

/* key_hist - the cgroup family's series @id of key @key in @a -> @b */
static struct gl_hist key_hist(struct gl_snapshot *a, struct gl_snapshot *b,
			       uint32_t id, uint64_t key)
{
	struct gl_hist h = { 0 }, h0 = { 0 };
	unsigned int s;

	gl_hist_merge_key(b, GPULAT_FAM_CGROUP, id, key, GPULAT_CPU_NONE, &h);
	gl_hist_merge_key(a, GPULAT_FAM_CGROUP, id, key, GPULAT_CPU_NONE, &h0);
	h.count -= h0.count;
	for (s = 0; s < GPULAT_HIST_NR_BUCKETS; s++)
		h.slots[s] -= h0.slots[s];
	return h;
}

static uint64_t counter(struct gl_snapshot *s, uint32_t fam, uint32_t id)
{
	uint64_t v = 0;

	gl_counter(s, fam, id, &v);
	return v;
}

struct recs {
	uint64_t n_a, victim, victim_a, culprit_b, lost, lost_cpu;
	uint64_t block_a;
};

/* collect - read the trace for @ms; count what the tests look at */
static void collect(int fd, int ms, uint64_t a, uint64_t b, pid_t victim,
		    struct recs *r)
{
	static unsigned char buf[GL_TRACE_BUF];
	uint64_t end = now_ns() + ms * 1000000ULL, t;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct gl_trace_rec rec;
	size_t off;
	ssize_t n;

	while ((t = now_ns()) < end) {
		if (poll(&p, 1, (end - t) / 1000000 + 1) != 1)
			continue;
		n = gl_trace_read(fd, buf, sizeof(buf));
		for (off = 0; n > 0 && gl_trace_parse(buf, n, &off, &rec) > 0;) {
			const struct gpulat_rec_sample *s = &rec.u.sample;

			if (rec.type == GPULAT_REC_LOST) {
				r->lost += rec.u.lost.lost;
				if (rec.cpu == CPU)
					r->lost_cpu += rec.u.lost.lost;
			}
			if (rec.type != GPULAT_REC_SAMPLE ||
			    !(s->flags & GPULAT_REC_F_CGROUP))
				continue;
			if (s->family == GPULAT_FAM_SCHED && s->cgroup_id == a)
				r->n_a++;
			if (s->family == GPULAT_FAM_BLOCK && s->cgroup_id == a)
				r->block_a++;
			if (s->family != GPULAT_FAM_SCHED || s->pid != victim)
				continue;
			r->victim++;
			r->victim_a += s->cgroup_id == a;
			r->culprit_b += s->nr_culprits &&
					s->culprit_cgroup[0] == b;
		}
	}
}

/* open_reader - a device file made a trace reader (its first poll) */
static int open_reader(void)
{
	char err[256];
	struct pollfd p;
	int fd = gl_open(err, sizeof(err));

	if (fd < 0)
		return fd;
	p.fd = fd;
	p.events = POLLIN;
	poll(&p, 1, 0);
	return fd;
}

static int set_threshold(int fd, uint32_t family, uint64_t ns)
{
	return gl_threshold(fd, family, true, &ns);
}

FIXTURE(cg) {
	int fd;
	uint64_t a, b;
	uint64_t sched_was;
	bool reloaded;		/* with trace_ring=128: load it as it was */
};

FIXTURE_SETUP(cg)
{
	char err[256];
	uint64_t ns = 0;

	self->fd = -1;
	if (sysconf(_SC_NPROCESSORS_ONLN) <= CPU)
		SKIP(return, "needs at least %d CPUs", CPU + 1);
	ASSERT_EQ(0, cgfs_setup());
	self->a = cg_make(CG_TOP "/A");
	self->b = cg_make(CG_TOP "/B");
	ASSERT_NE(0, self->a);
	ASSERT_NE(0, self->b);
	self->fd = gl_open(err, sizeof(err));
	ASSERT_LE(0, self->fd) TH_LOG("%s", err);
	ASSERT_EQ(0, gl_threshold(self->fd, GPULAT_FAM_SCHED, false, &ns));
	self->sched_was = ns;
}

FIXTURE_TEARDOWN(cg)
{
	char p[64];
	int i;

	if (self->fd >= 0) {
		watch(self->fd, NULL, 0);
		set_threshold(self->fd, GPULAT_FAM_SCHED, self->sched_was);
		close(self->fd);
	}
	if (self->reloaded &&
	    sh("rmmod gpulat && insmod " MODDIR "/gpulat.ko"))
		TH_LOG("cannot load gpulat.ko again as it was");
	for (i = 0; i < MANY; i++) {
		snprintf(p, sizeof(p), CG_TOP "/A/c%d", i);
		rmdir(p);
	}
	rmdir(CG_TOP "/A");
	rmdir(CG_TOP "/B");
	rmdir(CG_TOP "/M");
}

TEST_F(cg, ioctl_set_get_and_errors)
{
	const char *paths[GPULAT_CG_WATCH_MAX + 1];
	struct gl_cgroup_watch w[GPULAT_CG_WATCH_MAX + 1];
	uint64_t ids[GPULAT_CG_WATCH_MAX];
	unsigned int n, i;

	paths[0] = CG_TOP "/A";
	paths[1] = CG_TOP "/B";
	ASSERT_EQ(0, watch(self->fd, paths, 2));
	ASSERT_EQ(0, gl_cgroup_get(self->fd, ids, &n));
	ASSERT_EQ(2, n);
	EXPECT_EQ(self->a, ids[0]);
	EXPECT_EQ(self->b, ids[1]);

	for (i = 0; i <= GPULAT_CG_WATCH_MAX; i++)
		paths[i] = CG_TOP "/A";
	EXPECT_EQ(-E2BIG, watch(self->fd, paths, GPULAT_CG_WATCH_MAX + 1));
	w[0].fd = open("/dev/null", O_RDONLY);
	EXPECT_EQ(-EBADF, gl_cgroup_set(self->fd, w, 1));
	close(w[0].fd);
	w[0].fd = 1000;
	EXPECT_EQ(-EBADF, gl_cgroup_set(self->fd, w, 1));
	/* a failed SET leaves the set as it was */
	ASSERT_EQ(0, gl_cgroup_get(self->fd, ids, &n));
	EXPECT_EQ(2, n);
	EXPECT_EQ(0, gl_cgroup_set(self->fd, w, 0));
	ASSERT_EQ(0, gl_cgroup_get(self->fd, ids, &n));
	EXPECT_EQ(0, n);
}

/* debugfs lists the watched cgroups by id and path */
TEST_F(cg, debugfs_lists_the_set)
{
	const char *paths[] = { CG_TOP "/A", CG_TOP "/B" };
	char buf[4096], line[96];
	ssize_t n;
	int fd;

	ASSERT_EQ(0, watch(self->fd, paths, 2));
	fd = open("/sys/kernel/debug/gpulat/cgroups", O_RDONLY);
	if (fd < 0)
		SKIP(return, "no debugfs: %s", strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(0, n);
	buf[n] = '\0';
	TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "watched cgroups 2"));
	snprintf(line, sizeof(line), "%llu /gl_test/A\n",
		 (unsigned long long)self->a);
	EXPECT_NE(NULL, strstr(buf, line));
	snprintf(line, sizeof(line), "%llu /gl_test/B\n",
		 (unsigned long long)self->b);
	EXPECT_NE(NULL, strstr(buf, line));
}

/* spawn_in - vm_spawn() moved into the cgroup @path */
static pid_t spawn_in(const char *path, const char *comm, int nice, long us)
{
	pid_t pid = vm_spawn(CPU, comm, nice, us);

	if (pid > 0 && cg_move(path, pid)) {
		vm_stop(pid);
		return -1;
	}
	return pid;
}

TEST_F(cg, victim_in_a_hog_in_b)
{
	const char *paths[] = { CG_TOP "/A", CG_TOP "/B" };
	struct gl_snapshot *s1, *s2;
	struct gl_hist wa, wb, wa_idle;
	struct recs r = { 0 };
	pid_t hog, victim;
	int rd;

	ASSERT_EQ(0, watch(self->fd, paths, 2));
	ASSERT_EQ(0, set_threshold(self->fd, GPULAT_FAM_SCHED, 1000000));
	victim = spawn_in(paths[0], "gl_victim", 19, SLEEP_US);
	ASSERT_LT(0, victim);
	/* the victim alone: its waits are short */
	usleep(100000);
	s1 = snap(self->fd);
	usleep(500000);
	s2 = snap(self->fd);
	ASSERT_NE(NULL, s1);
	ASSERT_NE(NULL, s2);
	wa_idle = key_hist(s1, s2, GPULAT_CG_WAKEUP, self->a);
	gl_snapshot_free(s1);
	gl_snapshot_free(s2);

	hog = spawn_in(paths[1], "gl_hog", 0, 0);
	ASSERT_LT(0, hog);
	usleep(100000);
	rd = open_reader();
	ASSERT_LE(0, rd);
	s1 = snap(self->fd);
	collect(rd, 1500, self->a, self->b, victim, &r);
	s2 = snap(self->fd);
	vm_stop(hog);
	vm_stop(victim);
	close(rd);
	ASSERT_NE(NULL, s1);
	ASSERT_NE(NULL, s2);
	wa = key_hist(s1, s2, GPULAT_CG_WAKEUP, self->a);
	wb = key_hist(s1, s2, GPULAT_CG_WAKEUP, self->b);
	TH_LOG("A wakeup: idle %llu samples p99 %llu ns; with the hog %llu samples p99 %llu ns; B wakeup %llu samples; victim records %llu (in A %llu, culprit in B %llu)",
	       (unsigned long long)wa_idle.count,
	       (unsigned long long)gl_hist_quantile(&wa_idle, 990000),
	       (unsigned long long)wa.count,
	       (unsigned long long)gl_hist_quantile(&wa, 990000),
	       (unsigned long long)wb.count, (unsigned long long)r.victim,
	       (unsigned long long)r.victim_a,
	       (unsigned long long)r.culprit_b);
	gl_snapshot_free(s1);
	gl_snapshot_free(s2);

	EXPECT_LE(10, r.victim);
	EXPECT_EQ(r.victim, r.victim_a);
	/* the hog held the CPU for most of the victim's long waits */
	EXPECT_LE(r.victim * 9 / 10, r.culprit_b);
	EXPECT_LE(10, wa.count);
	EXPECT_LE(10 * gl_hist_quantile(&wa_idle, 990000),
		  gl_hist_quantile(&wa, 990000));
	EXPECT_LE(1000000, gl_hist_quantile(&wa, 990000));
	EXPECT_EQ(0, wb.count);
}

/*
 * one_round - the victim stopped at both snapshots: every sample of A's
 * tasks in between is a record, and none outside.  @wa, @pa: A's
 * cgroup.wakeup and cgroup.preempt samples; @r: the records.
 */
static int one_round(int fd, uint64_t a, const char *path, struct recs *r,
		     struct gl_hist *wa, struct gl_hist *pa)
{
	struct gl_snapshot *s1, *s2;
	pid_t victim;
	int rd;

	memset(r, 0, sizeof(*r));
	victim = spawn_in(path, "gl_victim", 0, 2 * SLEEP_US);
	if (victim < 0)
		return -1;
	kill(victim, SIGSTOP);
	usleep(50000);
	rd = open_reader();
	if (rd < 0) {
		vm_stop(victim);
		return -1;
	}
	s1 = snap(fd);
	kill(victim, SIGCONT);
	collect(rd, 200, a, 0, victim, r);
	kill(victim, SIGSTOP);
	collect(rd, 100, a, 0, victim, r);
	s2 = snap(fd);
	collect(rd, 100, a, 0, victim, r);
	vm_stop(victim);
	close(rd);
	if (!s1 || !s2)
		return -1;
	*wa = key_hist(s1, s2, GPULAT_CG_WAKEUP, a);
	*pa = key_hist(s1, s2, GPULAT_CG_PREEMPT, a);
	gl_snapshot_free(s1);
	gl_snapshot_free(s2);
	return 0;
}

TEST_F(cg, records_equal_samples)
{
	const char *paths[] = { CG_TOP "/A" };
	struct gl_hist wa, pa;
	struct recs r;
	char err[256];
	int round;

	/* every sched sample is a record: the largest rings */
	close(self->fd);
	self->fd = -1;
	self->reloaded = true;
	ASSERT_EQ(0, sh("rmmod gpulat && insmod " MODDIR "/gpulat.ko trace_ring=128"));
	self->fd = gl_open(err, sizeof(err));
	ASSERT_LE(0, self->fd) TH_LOG("%s", err);
	ASSERT_EQ(0, watch(self->fd, paths, 1));
	ASSERT_EQ(0, set_threshold(self->fd, GPULAT_FAM_SCHED, 1));
	/* the reader off the victim's CPU */
	pin_self(0);
	/*
	 * A's task runs on CPU only, so its records are all in that ring:
	 * a round counts when that ring lost none (a slow guest may fall
	 * behind a ring of 128 in a burst)
	 */
	for (round = 0; round < 5; round++) {
		ASSERT_EQ(0, one_round(self->fd, self->a, paths[0], &r, &wa,
				       &pa));
		TH_LOG("round %d: A: %llu records, %llu wakeup + %llu preempt samples; lost %llu, on cpu %d %llu",
		       round, (unsigned long long)r.n_a,
		       (unsigned long long)wa.count,
		       (unsigned long long)pa.count,
		       (unsigned long long)r.lost, CPU,
		       (unsigned long long)r.lost_cpu);
		if (!r.lost_cpu)
			break;
	}
	ASSERT_EQ(0, r.lost_cpu);
	EXPECT_LE(30, r.n_a);
	EXPECT_EQ(wa.count + pa.count, r.n_a);
}

/* wakeups_of - A's cgroup.wakeup samples over @ms with the victim running */
static uint64_t wakeups_of(int fd, uint64_t a, int ms)
{
	struct gl_snapshot *s1 = snap(fd), *s2;
	uint64_t n;

	usleep(ms * 1000);
	s2 = snap(fd);
	n = s1 && s2 ? key_hist(s1, s2, GPULAT_CG_WAKEUP, a).count : ~0ULL;
	gl_snapshot_free(s1);
	gl_snapshot_free(s2);
	return n;
}

/* the family switched off files nothing; reset zeroes its series */
TEST_F(cg, family_off_and_reset)
{
	const char *paths[] = { CG_TOP "/A" };
	struct gl_snapshot *s;
	struct gl_hist h = { 0 };
	uint64_t on, off, again;
	pid_t victim;

	ASSERT_EQ(0, watch(self->fd, paths, 1));
	victim = spawn_in(paths[0], "gl_victim", 0, SLEEP_US);
	ASSERT_LT(0, victim);
	on = wakeups_of(self->fd, self->a, 300);
	ASSERT_EQ(0, gl_family_switch(self->fd, GPULAT_FAM_CGROUP, false));
	off = wakeups_of(self->fd, self->a, 300);
	ASSERT_EQ(0, gl_family_switch(self->fd, GPULAT_FAM_CGROUP, true));
	again = wakeups_of(self->fd, self->a, 300);
	vm_stop(victim);
	ASSERT_EQ(0, gl_reset(self->fd));
	s = snap(self->fd);
	ASSERT_NE(NULL, s);
	gl_hist_merge_key(s, GPULAT_FAM_CGROUP, GPULAT_CG_WAKEUP, self->a,
			  GPULAT_CPU_NONE, &h);
	gl_snapshot_free(s);
	TH_LOG("A's wakeups in 300 ms: on %llu, off %llu, on again %llu; after reset %llu",
	       (unsigned long long)on, (unsigned long long)off,
	       (unsigned long long)again, (unsigned long long)h.count);
	EXPECT_LE(20, on);
	EXPECT_EQ(0, off);
	EXPECT_LE(20, again);
	/* the victim is gone: nothing of A's after the reset */
	EXPECT_EQ(0, h.count);
}

/* nullb_make - a null_blk disk through configfs; its /dev path into @dev */
static int nullb_make(char *dev, size_t len)
{
	char buf[32], path[96];
	struct stat st;
	int fd;
	ssize_t n;

	if (stat(NULLB_CONFIGFS, &st) &&
	    system("modprobe null_blk nr_devices=0 >/dev/null 2>&1"))
		return -ENOENT;
	if (mkdir(NULLB_CONFIGFS "/glcg", 0755) && errno != EEXIST)
		return -errno;
	write_str(NULLB_CONFIGFS "/glcg/size", "64");
	write_str(NULLB_CONFIGFS "/glcg/blocksize", "4096");
	if (write_str(NULLB_CONFIGFS "/glcg/power", "1"))
		return -EIO;
	/* newer kernels name the disk after the folder, older nullb<index> */
	snprintf(dev, len, "/dev/glcg");
	if (stat(dev, &st)) {
		fd = open(NULLB_CONFIGFS "/glcg/index", O_RDONLY);
		if (fd < 0)
			return -errno;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return -EIO;
		buf[n] = '\0';
		snprintf(dev, len, "/dev/nullb%u",
			 (unsigned int)strtoul(buf, NULL, 10));
		if (stat(dev, &st))
			return -ENOENT;
	}
	/*
	 * no I/O scheduler: each read is issued at once, by its task (with
	 * one, the dispatch may run in a kworker, whose cgroup it then is)
	 */
	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler",
		 dev + strlen("/dev/"));
	write_str(path, "none");
	return 0;
}

static void nullb_drop(void)
{
	write_str(NULLB_CONFIGFS "/glcg/power", "0");
	rmdir(NULLB_CONFIGFS "/glcg");
}

/* reads_in - @n O_DIRECT reads of @dev from a child in cgroup @path */
static int reads_in(const char *path, const char *dev, int n)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		void *buf;
		int fd, i;

		if (cg_move(path, getpid()))
			_exit(80);
		fd = open(dev, O_RDONLY | O_DIRECT);
		if (fd < 0 || posix_memalign(&buf, 4096, 4096))
			_exit(81);
		for (i = 0; i < n; i++)
			if (pread(fd, buf, 4096, (off_t)i * 4096) != 4096)
				_exit(82);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(cg, block_reads_counted_in_their_cgroup)
{
	const char *paths[] = { CG_TOP "/A", CG_TOP "/B" };
	struct gl_snapshot *s1, *s2;
	struct gl_hist ba, bb;
	char dev[64];
	int ret;

	ret = nullb_make(dev, sizeof(dev));
	if (ret) {
		nullb_drop();
		SKIP(return, "no null_blk disk: %s", strerror(-ret));
	}
	ASSERT_EQ(0, watch(self->fd, paths, 2));
	s1 = snap(self->fd);
	ret = reads_in(paths[0], dev, READS);
	s2 = snap(self->fd);
	nullb_drop();
	ASSERT_EQ(0, ret);
	ASSERT_NE(NULL, s1);
	ASSERT_NE(NULL, s2);
	ba = key_hist(s1, s2, GPULAT_CG_BLOCK, self->a);
	bb = key_hist(s1, s2, GPULAT_CG_BLOCK, self->b);
	TH_LOG("cgroup.block: A %llu, B %llu after %d reads in A",
	       (unsigned long long)ba.count, (unsigned long long)bb.count,
	       READS);
	gl_snapshot_free(s1);
	gl_snapshot_free(s2);
	EXPECT_EQ(READS, ba.count);
	EXPECT_EQ(0, bb.count);
}

/* cache_in - a child in cgroup @path that reads @mb MiB of @dev, cached */
static int cache_in(const char *path, const char *dev, size_t mb)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		static char buf[65536];
		size_t done = 0;
		int fd;

		if (cg_move(path, getpid()))
			_exit(80);
		fd = open(dev, O_RDONLY);
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

TEST_F_TIMEOUT(cg, memcg_reclaim_over_memory_max, 60)
{
	const char *paths[] = { CG_TOP "/M" };
	struct gl_snapshot *s1, *s2;
	struct gl_hist mm = { 0 }, mm0 = { 0 }, cm;
	uint64_t m;
	struct stat st;

	char dev[64];
	int ret;

	m = cg_make(paths[0]);
	ASSERT_NE(0, m);
	if (stat(CG_TOP "/M/memory.max", &st))
		SKIP(return, "no memory controller in this kernel's cgroup2");
	ret = nullb_make(dev, sizeof(dev));
	if (ret) {
		nullb_drop();
		SKIP(return, "no null_blk disk: %s", strerror(-ret));
	}
	/* 32 MiB of clean page cache through 8: reclaimed, no OOM */
	ASSERT_EQ(0, write_str(CG_TOP "/M/memory.max", "8M"));
	ASSERT_EQ(0, watch(self->fd, paths, 1));
	s1 = snap(self->fd);
	ret = cache_in(paths[0], dev, 32);
	s2 = snap(self->fd);
	nullb_drop();
	EXPECT_EQ(0, ret);
	ASSERT_NE(NULL, s1);
	ASSERT_NE(NULL, s2);
	gl_hist_merge(s1, GPULAT_FAM_MM, GPULAT_MM_MEMCG_RECLAIM,
		      GPULAT_CPU_NONE, &mm0);
	gl_hist_merge(s2, GPULAT_FAM_MM, GPULAT_MM_MEMCG_RECLAIM,
		      GPULAT_CPU_NONE, &mm);
	cm = key_hist(s1, s2, GPULAT_CG_MEMCG, m);
	TH_LOG("mm.memcg_reclaim %llu samples, M's cgroup.memcg_reclaim %llu",
	       (unsigned long long)(mm.count - mm0.count),
	       (unsigned long long)cm.count);
	gl_snapshot_free(s1);
	gl_snapshot_free(s2);
	EXPECT_LT(0, mm.count - mm0.count);
	EXPECT_LT(0, cm.count);
}

/* last: the keys it takes stay until unload */
/* A task moved through MANY cgroups below a watched one: keys run out */
TEST_F(cg, keys_full_counted)
{
	const char *paths[] = { CG_TOP "/A" };
	struct gl_snapshot *s1, *s2;
	char p[64];
	uint64_t full;
	pid_t t;
	int i;

	ASSERT_EQ(0, watch(self->fd, paths, 1));
	t = spawn_in(paths[0], "gl_mover", 0, SLEEP_US);
	ASSERT_LT(0, t);
	s1 = snap(self->fd);
	for (i = 0; i < MANY; i++) {
		snprintf(p, sizeof(p), CG_TOP "/A/c%d", i);
		ASSERT_NE(0, cg_make(p));
		ASSERT_EQ(0, cg_move(p, t));
		usleep(5000);	/* a few wakeups in each */
	}
	s2 = snap(self->fd);
	cg_move(CG_ROOT, t);
	vm_stop(t);
	ASSERT_NE(NULL, s1);
	ASSERT_NE(NULL, s2);
	full = counter(s2, GPULAT_FAM_CGROUP, GPULAT_CG_KEYS_FULL) -
	       counter(s1, GPULAT_FAM_CGROUP, GPULAT_CG_KEYS_FULL);
	TH_LOG("keys_full %llu after %d cgroups", (unsigned long long)full,
	       MANY);
	gl_snapshot_free(s1);
	gl_snapshot_free(s2);
	EXPECT_LT(0, full);
}

/*
 * cgroup_test --watch DIR...: only set the watch set (fault_test.sh walks
 * the fallible steps of a SET with it); prints the error, exits 1
 */
static int watch_main(int n, char **dirs)
{
	char err[256];
	int fd, ret;

	fd = gl_open(err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "cgroup_test: %s\n", err);
		return 1;
	}
	ret = watch(fd, (const char **)dirs, n);
	close(fd);
	if (ret) {
		fprintf(stderr, "cgroup_test: watch: %s\n", strerror(-ret));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--watch"))
		return watch_main(argc - 2, argv + 2);
	vmtest_scale_timeouts();
	return test_harness_run(argc, argv);
}
