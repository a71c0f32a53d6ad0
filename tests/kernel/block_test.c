// SPDX-License-Identifier: GPL-2.0
/*
 * Block request latency against devices with a known answer, in the VM.
 *
 * null_blk devices made through configfs complete each request from a
 * timer (irqmode=2) completion_nsec after it was issued, so a device's
 * block.read.device histogram must sit at its completion time (plus the
 * fixed cost of the emulated timer and interrupt path).  Two devices with
 * different completion times must land in their own keys, each at its own
 * time.
 *
 * Queue time: a one-slot device (hw_queue_depth=1) read by several
 * processes at once.  With no I/O scheduler the readers wait for a driver
 * tag before their request exists, so queue time sees almost nothing;
 * with mq-deadline the requests wait inside the scheduler, between
 * block_rq_insert and block_rq_issue, for the ones ahead of them:
 * with R readers about (R - 1) device times each.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "gpulat_hist.h"
#include "lib/gpulat_user.h"
#include "vmtest.h"

NEEDS_FAMILY(GPULAT_FAM_BLOCK);

#define NULLB_CONFIGFS	"/sys/kernel/config/nullb"
#define NULLB_SIZE_MB	64
#define BLOCK_SIZE	4096
#define FAST_NS		500000UL
#define SLOW_NS		2000000UL
#define READS		300
#define DL_NS		1000000UL
#define DL_READERS	4
#define DL_READS	100
/* what the emulated timer, interrupt and completion path may add */
#define SLACK_NS	300000UL
#define ROUNDS		3

struct nullb {
	char cfg[128];		/* configfs folder */
	char name[32];		/* disk name */
	uint64_t key;		/* dev_t as the kernel encodes it */
};

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int nullb_attr(struct nullb *nb, const char *attr, unsigned long val)
{
	char path[192], s[32];

	snprintf(path, sizeof(path), "%s/%s", nb->cfg, attr);
	snprintf(s, sizeof(s), "%lu", val);
	return write_str(path, s);
}

/* queue_attr - write /sys/block/<disk>/queue/@attr */
static int queue_attr(struct nullb *nb, const char *attr, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", nb->name, attr);
	return write_str(path, val);
}

static int load_null_blk(void)
{
	struct stat st;

	if (stat(NULLB_CONFIGFS, &st) == 0)
		return 0;
	if (system("modprobe null_blk nr_devices=0 >/dev/null 2>&1"))
		return -ENOENT;
	return stat(NULLB_CONFIGFS, &st) ? -ENOENT : 0;
}

/*
 * nullb_create - a powered-on null_blk device @name that completes each
 * request @completion_ns after issue, with @depth tags on one queue
 */
static int nullb_create(struct nullb *nb, const char *name,
			unsigned long completion_ns, unsigned long depth)
{
	char path[192], buf[64];
	unsigned int maj, min;
	struct stat st;
	int ret;

	memset(nb, 0, sizeof(*nb));
	snprintf(nb->cfg, sizeof(nb->cfg), NULLB_CONFIGFS "/%s", name);
	if (mkdir(nb->cfg, 0755))
		return -errno;
	ret = nullb_attr(nb, "size", NULLB_SIZE_MB);
	if (!ret)
		ret = nullb_attr(nb, "blocksize", BLOCK_SIZE);
	if (!ret)
		ret = nullb_attr(nb, "irqmode", 2);
	if (!ret)
		ret = nullb_attr(nb, "completion_nsec", completion_ns);
	if (!ret)
		ret = nullb_attr(nb, "submit_queues", 1);
	if (!ret)
		ret = nullb_attr(nb, "hw_queue_depth", depth);
	if (!ret)
		ret = nullb_attr(nb, "power", 1);
	if (ret)
		return ret;

	/* newer kernels name the disk after the folder, older nullb<index> */
	snprintf(path, sizeof(path), "/sys/block/%s", name);
	if (stat(path, &st) == 0) {
		snprintf(nb->name, sizeof(nb->name), "%s", name);
	} else {
		snprintf(path, sizeof(path), "%s/index", nb->cfg);
		ret = read_str(path, buf, sizeof(buf));
		if (ret)
			return ret;
		snprintf(nb->name, sizeof(nb->name), "nullb%u",
			 (unsigned int)strtoul(buf, NULL, 10));
	}
	snprintf(path, sizeof(path), "/sys/block/%s/dev", nb->name);
	ret = read_str(path, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sscanf(buf, "%u:%u", &maj, &min) != 2)
		return -EINVAL;
	nb->key = (uint64_t)maj << 20 | min;
	return 0;
}

static void nullb_destroy(struct nullb *nb)
{
	if (!nb->cfg[0])
		return;
	nullb_attr(nb, "power", 0);
	rmdir(nb->cfg);
	nb->cfg[0] = '\0';
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * read_blocks - @n O_DIRECT reads of BLOCK_SIZE spread over the device;
 * the time spent inside pread() is added to @waited
 */
static int read_blocks(const struct nullb *nb, unsigned int n,
		       unsigned int seed, uint64_t *waited)
{
	const unsigned long blocks = NULLB_SIZE_MB * (1048576 / BLOCK_SIZE);
	char path[64];
	unsigned int i;
	void *buf;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/dev/%s", nb->name);
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0)
		return -errno;
	if (posix_memalign(&buf, BLOCK_SIZE, BLOCK_SIZE)) {
		close(fd);
		return -ENOMEM;
	}
	for (i = 0; i < n && !ret; i++) {
		off_t off = (off_t)((seed + i * 7919UL) % blocks) * BLOCK_SIZE;
		uint64_t t0 = now_ns();

		if (pread(fd, buf, BLOCK_SIZE, off) != BLOCK_SIZE)
			ret = -EIO;
		*waited += now_ns() - t0;
	}
	free(buf);
	close(fd);
	return ret;
}

/*
 * read_parallel - @readers processes doing @n reads each at once; @waited
 * gets the time all of them spent inside pread()
 */
static int read_parallel(const struct nullb *nb, unsigned int readers,
			 unsigned int n, uint64_t *waited)
{
	pid_t pids[16];
	unsigned int i;
	int ret = 0, status, pfd[2];

	*waited = 0;
	if (pipe(pfd))
		return -errno;
	for (i = 0; i < readers; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			uint64_t w = 0;

			close(pfd[0]);
			if (read_blocks(nb, n, i * 1000, &w) ||
			    write(pfd[1], &w, sizeof(w)) != sizeof(w))
				_exit(1);
			_exit(0);
		}
		if (pids[i] < 0)
			return -errno;
	}
	close(pfd[1]);
	for (i = 0; i < readers; i++) {
		uint64_t w;

		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status) ||
		    read(pfd[0], &w, sizeof(w)) != sizeof(w))
			ret = -EIO;
		else
			*waited += w;
	}
	close(pfd[0]);
	return ret;
}

static int take(int fd, struct gl_snapshot **s)
{
	*s = NULL;
	return gl_snapshot_take(fd, s);
}

/* key_name - the key_name of @key's block series in @s, or NULL */
static const char *key_name(const struct gl_snapshot *s, uint64_t key)
{
	size_t i;

	for (i = 0; i < gl_snapshot_nr_series(s); i++) {
		const struct gpulat_series *sr = gl_snapshot_series(s, i);

		if (sr->family == GPULAT_FAM_BLOCK && sr->key == key)
			return sr->key_name;
	}
	return NULL;
}

static void merge(const struct gl_snapshot *d, const struct nullb *nb,
		  unsigned int op, unsigned int kind, struct gl_hist *h)
{
	gl_hist_merge_key(d, GPULAT_FAM_BLOCK, GPULAT_BLOCK_SERIES(op, kind),
			  nb->key, GPULAT_CPU_NONE, h);
}

static uint64_t p50(const struct gl_hist *h)
{
	return gl_hist_quantile(h, 500000);
}

/* drops - every block drop counter of @d, summed; -1 if one is missing */
static int64_t drops(const struct gl_snapshot *d)
{
	static const uint32_t ids[] = {
		GPULAT_BLOCK_NO_START, GPULAT_BLOCK_FULL, GPULAT_BLOCK_EXPIRED,
		GPULAT_BLOCK_NEGATIVE, GPULAT_BLOCK_KEYS_FULL,
	};
	uint64_t v, sum = 0;
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		if (gl_counter(d, GPULAT_FAM_BLOCK, ids[i], &v))
			return -1;
		sum += v;
	}
	return sum;
}

/* bucket_floor - the lowest value of the histogram bucket holding @ns */
static uint64_t bucket_floor(uint64_t ns)
{
	return gpulat_hist_lower(gpulat_hist_slot(ns));
}

FIXTURE(block) {
	int fd;
	struct nullb fast, slow;
};

FIXTURE_SETUP(block)
{
	char err[256];

	memset(&self->fast, 0, sizeof(self->fast));
	memset(&self->slow, 0, sizeof(self->slow));
	self->fd = gl_open(err, sizeof(err));
	ASSERT_LE(0, self->fd) TH_LOG("%s", err);
	if (load_null_blk())
		SKIP(return, "no null_blk with configfs");
}

FIXTURE_TEARDOWN(block)
{
	nullb_destroy(&self->fast);
	nullb_destroy(&self->slow);
	close(self->fd);
}

struct pair_round {
	struct gl_hist fast, slow, fast_queue;
	uint64_t waited;	/* time spent in pread() */
	int64_t drops;
};

/* pair_measure - READS reads from each device, and what their keys saw */
static int pair_measure(int fd, const struct nullb *fast,
			const struct nullb *slow, struct pair_round *r,
			struct gl_snapshot **before, struct gl_snapshot **after)
{
	struct gl_snapshot *d = NULL;
	int ret;

	r->waited = 0;
	ret = take(fd, before);
	if (!ret)
		ret = read_blocks(fast, READS, 1, &r->waited);
	if (!ret)
		ret = read_blocks(slow, READS, 2, &r->waited);
	if (!ret)
		ret = take(fd, after);
	if (!ret)
		ret = gl_snapshot_diff(*before, *after, &d);
	if (!ret) {
		merge(d, fast, GPULAT_BLOCK_READ, GPULAT_BLOCK_DEVICE, &r->fast);
		merge(d, slow, GPULAT_BLOCK_READ, GPULAT_BLOCK_DEVICE, &r->slow);
		merge(d, fast, GPULAT_BLOCK_READ, GPULAT_BLOCK_QUEUE,
		      &r->fast_queue);
		r->drops = drops(d);
	}
	gl_snapshot_free(d);
	return ret;
}

/* in_bounds - whether the median @p50 fits a device completing in @ns */
static bool in_bounds(uint64_t p50, uint64_t ns)
{
	return p50 >= bucket_floor(ns) && p50 <= ns * 3 / 2 + SLACK_NS;
}

/*
 * Each device's read device time sits at its own completion time, in its
 * own key, and nothing is dropped.
 *
 * The emulator's time is the host's: a host busy with other work stretches
 * the guest's timer path, seldom but by milliseconds.  A round whose
 * medians miss their bounds is therefore run again, up to ROUNDS times;
 * devices filed under each other's keys miss them in every round.
 */
TEST_F(block, device_time_per_disk)
{
	struct gl_snapshot *first = NULL, *a = NULL, *b = NULL;
	struct pair_round r;
	uint64_t fp = 0, sp = 0;
	const char *n;
	int round;

	ASSERT_EQ(0, nullb_create(&self->fast, "gl_fast", FAST_NS, 64));
	ASSERT_EQ(0, nullb_create(&self->slow, "gl_slow", SLOW_NS, 64));
	ASSERT_NE(self->fast.key, self->slow.key);
	ASSERT_EQ(0, queue_attr(&self->fast, "scheduler", "none"));
	ASSERT_EQ(0, queue_attr(&self->slow, "scheduler", "none"));

	for (round = 1; round <= ROUNDS; round++) {
		gl_snapshot_free(a);
		gl_snapshot_free(b);
		a = b = NULL;
		ASSERT_EQ(0, pair_measure(self->fd, &self->fast, &self->slow,
					  &r, &a, &b));
		if (!first) {
			first = a;
			a = NULL;
		}
		fp = p50(&r.fast);
		sp = p50(&r.slow);
		TH_LOG("round %d: %s read device p50 %llu ns max %llu (%llu samples); %s p50 %llu ns max %llu (%llu samples); %s queue samples %llu; device time %llu%% of the time in pread(); drops %lld",
		       round, self->fast.name, (unsigned long long)fp,
		       (unsigned long long)r.fast.max_ns,
		       (unsigned long long)r.fast.count,
		       self->slow.name, (unsigned long long)sp,
		       (unsigned long long)r.slow.max_ns,
		       (unsigned long long)r.slow.count,
		       self->fast.name, (unsigned long long)r.fast_queue.count,
		       (unsigned long long)(r.waited ? (r.fast.sum_ns +
							r.slow.sum_ns) * 100 /
						       r.waited : 0),
		       (long long)r.drops);
		if (in_bounds(fp, FAST_NS) && in_bounds(sp, SLOW_NS))
			break;
	}

	/* every read was timed, each in its own disk's key */
	EXPECT_LE(READS, r.fast.count);
	EXPECT_LE(READS, r.slow.count);
	EXPECT_GT(READS + 20, r.fast.count);
	EXPECT_GT(READS + 20, r.slow.count);
	/* never faster than the timer; 1.5x + slack keeps the two apart */
	EXPECT_LE(bucket_floor(FAST_NS), fp);
	EXPECT_GE(FAST_NS * 3 / 2 + SLACK_NS, fp);
	EXPECT_LE(bucket_floor(SLOW_NS), sp);
	EXPECT_GE(SLOW_NS * 3 / 2 + SLACK_NS, sp);
	EXPECT_LT(fp, sp);
	/* each device time lies inside the pread() that waited for it */
	EXPECT_GT(r.waited, r.fast.sum_ns + r.slow.sum_ns);
	/* no scheduler, one reader: issued directly, no queue time */
	EXPECT_GT(READS / 10, r.fast_queue.count);
	EXPECT_EQ(0, r.drops);

	/* a key seen for the first time is named after its disk */
	if (!key_name(first, self->fast.key)) {
		n = key_name(b, self->fast.key);
		ASSERT_NE(NULL, n);
		EXPECT_STREQ(self->fast.name, n);
	}
	if (!key_name(first, self->slow.key)) {
		n = key_name(b, self->slow.key);
		ASSERT_NE(NULL, n);
		EXPECT_STREQ(self->slow.name, n);
	}
	gl_snapshot_free(first);
	gl_snapshot_free(a);
	gl_snapshot_free(b);
}

struct dl_phase {
	struct gl_hist queue, device;
	uint64_t waited;	/* time the readers spent in pread() */
	int64_t drops;
};

static int dl_measure(int fd, const struct nullb *nb, struct dl_phase *out)
{
	struct gl_snapshot *a, *b = NULL, *d = NULL;
	int ret;

	ret = take(fd, &a);
	if (!ret)
		ret = read_parallel(nb, DL_READERS, DL_READS, &out->waited);
	if (!ret)
		ret = take(fd, &b);
	if (!ret)
		ret = gl_snapshot_diff(a, b, &d);
	if (!ret) {
		merge(d, nb, GPULAT_BLOCK_READ, GPULAT_BLOCK_QUEUE, &out->queue);
		merge(d, nb, GPULAT_BLOCK_READ, GPULAT_BLOCK_DEVICE,
		      &out->device);
		out->drops = drops(d);
	}
	gl_snapshot_free(a);
	gl_snapshot_free(b);
	gl_snapshot_free(d);
	return ret;
}

/* pct - queue + device time of @p in percent of the readers' wait */
static uint64_t pct(const struct dl_phase *p)
{
	return p->waited ? (p->queue.sum_ns + p->device.sum_ns) * 100 /
			   p->waited : 0;
}

/*
 * DL_READERS processes on a one-slot device: without a scheduler they
 * queue for the tag, unseen; with mq-deadline each request is inserted
 * and waits in the scheduler for about DL_READERS - 1 others.
 */
TEST_F(block, queue_time_none_vs_mq_deadline)
{
	const unsigned int reads = DL_READERS * DL_READS;
	struct dl_phase none, dl;
	uint64_t dev_p50;

	ASSERT_EQ(0, nullb_create(&self->slow, "gl_dl", DL_NS, 1));
	ASSERT_EQ(0, queue_attr(&self->slow, "scheduler", "none"));
	ASSERT_EQ(0, dl_measure(self->fd, &self->slow, &none));

	if (queue_attr(&self->slow, "scheduler", "mq-deadline"))
		SKIP(return, "no mq-deadline");
	/* room in the scheduler for every reader (the default is 2 x depth) */
	ASSERT_EQ(0, queue_attr(&self->slow, "nr_requests", "16"));
	ASSERT_EQ(0, dl_measure(self->fd, &self->slow, &dl));

	dev_p50 = p50(&dl.device);
	TH_LOG("none: queue %llu samples p50 %llu ns, device %llu samples p50 %llu ns, queue+device %llu%% of the readers' wait; mq-deadline: queue %llu samples p50 %llu ns, device %llu samples p50 %llu ns, queue+device %llu%%; drops %lld, %lld",
	       (unsigned long long)none.queue.count,
	       (unsigned long long)p50(&none.queue),
	       (unsigned long long)none.device.count,
	       (unsigned long long)p50(&none.device),
	       (unsigned long long)pct(&none),
	       (unsigned long long)dl.queue.count,
	       (unsigned long long)p50(&dl.queue),
	       (unsigned long long)dl.device.count,
	       (unsigned long long)dev_p50,
	       (unsigned long long)pct(&dl),
	       (long long)none.drops, (long long)dl.drops);

	/*
	 * Device time: only the floor here; the upper bound is
	 * device_time_per_disk's, four readers make the emulator's
	 * stretching worse.
	 */
	EXPECT_LE(reads, none.device.count);
	EXPECT_GT(reads / 10, none.queue.count);
	EXPECT_LE(bucket_floor(DL_NS), p50(&none.device));

	/* every request inserted, then issued */
	EXPECT_LE(reads, dl.queue.count);
	EXPECT_LE(reads, dl.device.count);
	EXPECT_LE(bucket_floor(DL_NS), dev_p50);
	/* waiting behind the others: well over one device time */
	EXPECT_LE(dev_p50 * 3 / 2, p50(&dl.queue));
	/*
	 * Each request's queue and device time lie inside the pread() that
	 * waits for it: their sum is below the readers' time, and with the
	 * scheduler holding the requests it is most of it.  Without one,
	 * most of the wait is for a tag, before the request exists.
	 */
	EXPECT_GT(dl.waited, dl.queue.sum_ns + dl.device.sum_ns);
	EXPECT_LT(dl.waited * 6 / 10, dl.queue.sum_ns + dl.device.sum_ns);
	EXPECT_GT(none.waited, none.queue.sum_ns + none.device.sum_ns);
	EXPECT_GT(none.waited * 6 / 10, none.queue.sum_ns + none.device.sum_ns);
	EXPECT_EQ(0, none.drops);
	EXPECT_EQ(0, dl.drops);
}

VMTEST_HARNESS_MAIN
