// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/gpulat: every documented errno of every ioctl, the snapshot layout,
 * and reset.  Output buffers are poisoned so that a call that must not
 * write is caught writing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "uapi/gpulat.h"

#define POISON	0xcc

static int ioctl_err(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = open(GPULAT_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

TEST_F(dev, device_is_root_only)
{
	struct stat st;

	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
}

TEST_F(dev, unknown_command_is_enotty)
{
	uint32_t buf[16] = { 0 };

	EXPECT_EQ(ENOTTY, ioctl_err(self->fd, _IOWR(GPULAT_IOC_MAGIC, 0x7f,
						     uint32_t), buf));
	EXPECT_EQ(ENOTTY, ioctl_err(self->fd, _IO('x', 1), buf));
}

TEST_F(dev, version)
{
	struct gpulat_version v;

	memset(&v, POISON, sizeof(v));
	v.size = sizeof(v);
	v.flags = 0;
	ASSERT_EQ(0, ioctl_err(self->fd, GPULAT_IOC_VERSION, &v));
	EXPECT_EQ(GPULAT_ABI_MAJOR, v.major);
	EXPECT_EQ(GPULAT_ABI_MINOR, v.minor);
	EXPECT_EQ(sizeof(v), v.size);
}

TEST_F(dev, version_bad_arguments)
{
	struct {
		struct gpulat_version v;
		uint32_t tail[4];
	} big;
	struct gpulat_version v = { .size = sizeof(v) };

	v.flags = 1;
	EXPECT_EQ(EINVAL, ioctl_err(self->fd, GPULAT_IOC_VERSION, &v));
	v.flags = 0;
	v.size = GPULAT_VERSION_SIZE_VER0 - 4;
	EXPECT_EQ(EINVAL, ioctl_err(self->fd, GPULAT_IOC_VERSION, &v));
	v.size = 1 << 20;
	EXPECT_EQ(E2BIG, ioctl_err(self->fd, GPULAT_IOC_VERSION, &v));
	EXPECT_EQ(EFAULT, ioctl_err(self->fd, GPULAT_IOC_VERSION, NULL));

	/* a newer, larger struct is fine while the unknown tail is zero */
	memset(&big, 0, sizeof(big));
	big.v.size = sizeof(big);
	EXPECT_EQ(0, ioctl_err(self->fd, GPULAT_IOC_VERSION, &big));
	EXPECT_EQ(GPULAT_ABI_MAJOR, big.v.major);
	/* the module answered with the size it knows */
	EXPECT_EQ(sizeof(big.v), big.v.size);
	big.v.size = sizeof(big);
	big.tail[2] = 1;
	EXPECT_EQ(E2BIG, ioctl_err(self->fd, GPULAT_IOC_VERSION, &big));
}

TEST_F(dev, snapshot_size_query_and_short_buffer)
{
	struct gpulat_snapshot_req r = { .size = sizeof(r) };
	unsigned char *buf;
	size_t i;

	ASSERT_EQ(0, ioctl_err(self->fd, GPULAT_IOC_SNAPSHOT, &r));
	ASSERT_LT(sizeof(struct gpulat_snap_header), r.needed);

	buf = malloc(r.needed);
	ASSERT_NE(NULL, buf);
	memset(buf, POISON, r.needed);
	r.buf = (uintptr_t)buf;
	r.buf_size = sizeof(struct gpulat_snap_header);
	r.needed = 0;
	EXPECT_EQ(ENOSPC, ioctl_err(self->fd, GPULAT_IOC_SNAPSHOT, &r));
	EXPECT_LT(sizeof(struct gpulat_snap_header), r.needed);
	for (i = 0; i < r.buf_size; i++)
		if (buf[i] != POISON)
			break;
	EXPECT_EQ(r.buf_size, i) TH_LOG("short buffer was written at %zu", i);
	free(buf);
}

TEST_F(dev, snapshot_bad_arguments)
{
	struct gpulat_snapshot_req r = { .size = sizeof(r) };
	void *ro;

	r.flags = 2;
	EXPECT_EQ(EINVAL, ioctl_err(self->fd, GPULAT_IOC_SNAPSHOT, &r));
	r.flags = 0;
	r.size = 8;
	EXPECT_EQ(EINVAL, ioctl_err(self->fd, GPULAT_IOC_SNAPSHOT, &r));
	r.size = sizeof(r);
	r.buf = 0;
	r.buf_size = 1 << 20;
	EXPECT_EQ(EFAULT, ioctl_err(self->fd, GPULAT_IOC_SNAPSHOT, &r));

	/* a read-only mapping cannot take the snapshot */
	ro = mmap(NULL, 1 << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	r.buf = (uintptr_t)ro;
	EXPECT_EQ(EFAULT, ioctl_err(self->fd, GPULAT_IOC_SNAPSHOT, &r));
	munmap(ro, 1 << 20);
}

static void *take(int fd, size_t *len)
{
	struct gpulat_snapshot_req r = { .size = sizeof(r) };
	void *buf;

	if (ioctl(fd, GPULAT_IOC_SNAPSHOT, &r))
		return NULL;
	r.buf_size = r.needed + 4096;	/* room for a CPU coming online */
	buf = calloc(1, r.buf_size);
	r.buf = (uintptr_t)buf;
	if (!buf || ioctl(fd, GPULAT_IOC_SNAPSHOT, &r)) {
		free(buf);
		return NULL;
	}
	*len = r.needed;
	return buf;
}

TEST_F(dev, snapshot_layout)
{
	const struct gpulat_snap_header *h;
	const struct gpulat_series *sr;
	struct utsname u;
	size_t len = 0, sz;
	void *buf = take(self->fd, &len);

	ASSERT_NE(NULL, buf);
	h = buf;
	EXPECT_EQ(GPULAT_SNAP_MAGIC, h->magic);
	EXPECT_EQ(sizeof(*h), h->header_size);
	EXPECT_EQ(GPULAT_ABI_MAJOR, h->abi_major);
	EXPECT_EQ(len, h->total_size);
	EXPECT_EQ(GPULAT_HIST_NR_BUCKETS, h->hist_nr_buckets);
	EXPECT_EQ(GPULAT_HIST_SUB_BITS, h->hist_sub_bits);
	EXPECT_EQ(GPULAT_HIST_MIN_SHIFT, h->hist_min_shift);
	EXPECT_EQ(GPULAT_HIST_MAX_SHIFT, h->hist_max_shift);
	EXPECT_LE(h->reset_time_ns, h->time_ns);
	ASSERT_EQ(0, uname(&u));
	EXPECT_STREQ(u.release, h->kernel_release);

	sz = sizeof(*sr) + GPULAT_HIST_NR_BUCKETS * sizeof(uint64_t);
	EXPECT_EQ(sz, h->series.entry_size);
	EXPECT_EQ(sizeof(*h), h->series.offset);
	EXPECT_EQ(h->series.offset + h->series.count * sz, h->counters.offset);
	EXPECT_EQ(sizeof(struct gpulat_counter), h->counters.entry_size);
	/* at least the sched family's three drop counters */
	EXPECT_LE(3, h->counters.count);
	EXPECT_EQ(sizeof(struct gpulat_probe), h->probes.entry_size);
	EXPECT_EQ(h->probes.offset + h->probes.count * h->probes.entry_size,
		  h->total_size);

	sr = (const void *)((const char *)buf + h->series.offset);
	EXPECT_EQ(GPULAT_FAM_SCHED, sr->family);
	EXPECT_EQ(0, sr->pad);
	EXPECT_STREQ("sched.wakeup", sr->name);
	free(buf);
}

TEST_F(dev, reset_zeroes_and_bumps_generation)
{
	struct gpulat_reset rs = { .size = sizeof(rs) };
	const struct gpulat_snap_header *h;
	uint64_t before = 0, after = 0;
	uint32_t gen;
	size_t len, i;
	void *buf;

	buf = take(self->fd, &len);
	ASSERT_NE(NULL, buf);
	h = buf;
	gen = h->generation;
	for (i = 0; i < h->series.count; i++)
		before += ((const struct gpulat_series *)((const char *)buf +
			   h->series.offset + i * h->series.entry_size))->count;
	free(buf);
	ASSERT_LT(0, before);

	rs.flags = 1;
	EXPECT_EQ(EINVAL, ioctl_err(self->fd, GPULAT_IOC_RESET, &rs));
	rs.flags = 0;
	ASSERT_EQ(0, ioctl_err(self->fd, GPULAT_IOC_RESET, &rs));

	buf = take(self->fd, &len);
	ASSERT_NE(NULL, buf);
	h = buf;
	EXPECT_EQ(gen + 1, h->generation);
	for (i = 0; i < h->series.count; i++)
		after += ((const struct gpulat_series *)((const char *)buf +
			  h->series.offset + i * h->series.entry_size))->count;
	/* only the few switches since the reset */
	EXPECT_GT(before, after);
	EXPECT_GT(1000, after);
	free(buf);
}

static uint64_t sched_hits(int fd)
{
	const struct gpulat_snap_header *h;
	const struct gpulat_probe *p;
	uint64_t hits = 0;
	size_t len, i;
	void *buf = take(fd, &len);

	if (!buf)
		return 0;
	h = buf;
	for (i = 0; i < h->probes.count; i++) {
		p = (const void *)((const char *)buf + h->probes.offset +
				   i * h->probes.entry_size);
		if (p->family == GPULAT_FAM_SCHED)
			hits += p->hits;
	}
	free(buf);
	return hits;
}

TEST_F(dev, family_switch)
{
	struct gpulat_family_req r = { .size = sizeof(r),
				       .family = GPULAT_FAM_SCHED };
	uint64_t a, b;

	r.flags = 1;
	EXPECT_EQ(EINVAL, ioctl_err(self->fd, GPULAT_IOC_FAMILY, &r));
	r.flags = 0;
	r.enable = 2;
	EXPECT_EQ(EINVAL, ioctl_err(self->fd, GPULAT_IOC_FAMILY, &r));
	r.enable = 1;
	r.family = 999;
	EXPECT_EQ(ENOENT, ioctl_err(self->fd, GPULAT_IOC_FAMILY, &r));
	r.family = GPULAT_FAM_SCHED;

	/* off: the probes stop counting, the data stays */
	r.enable = 0;
	ASSERT_EQ(0, ioctl_err(self->fd, GPULAT_IOC_FAMILY, &r));
	a = sched_hits(self->fd);
	ASSERT_LT(0, a);
	usleep(200000);
	b = sched_hits(self->fd);
	EXPECT_EQ(a, b);
	/* twice off is fine */
	EXPECT_EQ(0, ioctl_err(self->fd, GPULAT_IOC_FAMILY, &r));

	r.enable = 1;
	ASSERT_EQ(0, ioctl_err(self->fd, GPULAT_IOC_FAMILY, &r));
	usleep(200000);
	EXPECT_LT(b, sched_hits(self->fd));
}

TEST_HARNESS_MAIN
