// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat enable, disable and reset (user/cmd/control.c) against a fake
 * device: the messages name each family, on success and on failure.
 *
 * The fake device is a set of link-time test doubles: this file defines
 * every function of user/lib/device.c, so that the linker takes these and
 * never pulls device.o out of the library (a function added there and
 * used by the code under test makes the link fail with a duplicate
 * definition: add its double here).  Everything else, the option parser
 * and control.c included, is the library's own code.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "blob.h"
#include "cmd/cmd.h"

/* --- The fake device ------------------------------------------------- */

static struct {
	int switch_ret[GPULAT_FAM_MAX];	/* gl_family_switch() per family */
	int reset_ret;			/* gl_reset() */
	int nr_calls;			/* gl_family_switch() calls */
	uint32_t call_family[16];
	bool call_on[16];
} fake;

/* A descriptor control_run() may close: /dev/null stands in. */
int gl_open(char *err, size_t errlen)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		snprintf(err, errlen, "fake device: %s", strerror(errno));
	return fd < 0 ? -errno : fd;
}

bool gl_no_module(int ret)
{
	return ret == -ENOENT || ret == -ENXIO || ret == -ENODEV;
}

int gl_version(int fd, uint32_t *major, uint32_t *minor)
{
	(void)fd;
	*major = GPULAT_ABI_MAJOR;
	*minor = GPULAT_ABI_MINOR;
	return 0;
}

int gl_reset(int fd)
{
	(void)fd;
	return fake.reset_ret;
}

int gl_family_switch(int fd, uint32_t family, bool on)
{
	(void)fd;
	if (fake.nr_calls < (int)ARRAY_SIZE(fake.call_family)) {
		fake.call_family[fake.nr_calls] = family;
		fake.call_on[fake.nr_calls] = on;
	}
	fake.nr_calls++;
	return family < GPULAT_FAM_MAX ? fake.switch_ret[family] : -ENOENT;
}

/* The snapshot of every family of blob.c: softirq's tracepoints missing. */
int gl_snapshot_take_err(int fd, struct gl_snapshot **out, char *err,
			 size_t errlen)
{
	struct blob b;

	(void)fd;
	blob_families(&b);
	*out = blob_parse(&b);
	blob_release(&b);
	if (!*out)
		snprintf(err, errlen, "fake device: bad blob");
	return *out ? 0 : -EBADMSG;
}

int gl_snapshot_take(int fd, struct gl_snapshot **out)
{
	return gl_snapshot_take_err(fd, out, NULL, 0);
}

/* --- Running a command ----------------------------------------------- */

/* slurp - rewind @f and read it into @buf, NUL-terminated */
static void slurp(FILE *f, char *buf, size_t len)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
}

/*
 * control - parse @argv and run control_run() on the fake device; its
 * exit code, what it wrote to stdout in @out and to stderr in @err
 */
static int control(char *out, size_t outlen, char *err, size_t errlen,
		   int argc, char **argv)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	int so, se, ret;
	struct gpulat_opts o;

	if (!fo || !fe)
		abort();
	ret = gpulat_parse_args(argc, argv, &o, fe);
	if (!ret) {
		fflush(stdout);
		fflush(stderr);
		so = dup(1);
		se = dup(2);
		dup2(fileno(fo), 1);
		dup2(fileno(fe), 2);
		ret = control_run(&o);
		fflush(stdout);
		fflush(stderr);
		dup2(so, 1);
		dup2(se, 2);
		close(so);
		close(se);
	}
	slurp(fo, out, outlen);
	slurp(fe, err, errlen);
	fclose(fo);
	fclose(fe);
	return ret;
}

#define ARGV(...)	((char *[]){ "gpulat", __VA_ARGS__, NULL })
#define ARGC(...)	((int)(sizeof((char *[]){ "gpulat", __VA_ARGS__ }) / sizeof(char *)))
#define CONTROL(self, ...)						\
	control((self)->out, sizeof((self)->out), (self)->err,		\
		sizeof((self)->err), ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

FIXTURE(ctl) {
	char out[4096], err[4096];
};

FIXTURE_SETUP(ctl)
{
	memset(&fake, 0, sizeof(fake));
}

FIXTURE_TEARDOWN(ctl) { }

/* Each family switched, in command line order, named on its line. */
TEST_F(ctl, enable_names_each_family)
{
	ASSERT_EQ(GPULAT_EXIT_OK, CONTROL(self, "enable", "sched", "block"));
	EXPECT_STREQ("sched: enabled\nblock: enabled\n", self->out);
	EXPECT_STREQ("", self->err);
	ASSERT_EQ(2, fake.nr_calls);
	EXPECT_EQ(GPULAT_FAM_SCHED, fake.call_family[0]);
	EXPECT_EQ(GPULAT_FAM_BLOCK, fake.call_family[1]);
	EXPECT_TRUE(fake.call_on[0] && fake.call_on[1]);
}

TEST_F(ctl, disable_names_each_family)
{
	ASSERT_EQ(GPULAT_EXIT_OK, CONTROL(self, "disable", "mm", "nvidia"));
	EXPECT_STREQ("mm: disabled\nnvidia: disabled\n", self->out);
	EXPECT_STREQ("", self->err);
	ASSERT_EQ(2, fake.nr_calls);
	EXPECT_FALSE(fake.call_on[0] || fake.call_on[1]);
}

/*
 * A failure names the family that failed (the message once read
 * "cannot enable : out of memory"), the others still go on.
 */
TEST_F(ctl, enable_error_names_the_family)
{
	fake.switch_ret[GPULAT_FAM_NET] = -ENOMEM;
	ASSERT_EQ(GPULAT_EXIT_ERROR, CONTROL(self, "enable", "net", "irq"));
	EXPECT_STREQ("gpulat: cannot enable net: out of memory in the kernel\n",
		     self->err);
	EXPECT_STREQ("irq: enabled\n", self->out);
	EXPECT_EQ(2, fake.nr_calls);
}

TEST_F(ctl, disable_error_names_the_family)
{
	fake.switch_ret[GPULAT_FAM_SCHED] = -EPERM;
	fake.switch_ret[GPULAT_FAM_SOFTIRQ] = -EBUSY;
	ASSERT_EQ(GPULAT_EXIT_ERROR,
		  CONTROL(self, "disable", "sched", "block", "softirq"));
	EXPECT_STREQ("gpulat: cannot disable sched: permission denied; run gpulat as root\n"
		     "gpulat: cannot disable softirq: registration failed: Device or resource busy (EBUSY)\n",
		     self->err);
	EXPECT_STREQ("block: disabled\n", self->out);
}

/* ENODEV: the family and its missing tracepoints, from a snapshot. */
TEST_F(ctl, enable_missing_tracepoints)
{
	fake.switch_ret[GPULAT_FAM_SOFTIRQ] = -ENODEV;
	ASSERT_EQ(GPULAT_EXIT_ERROR, CONTROL(self, "enable", "softirq"));
	EXPECT_STREQ("gpulat: cannot enable softirq: its tracepoints are missing on this kernel (missing: softirq_raise, softirq_exit)\n",
		     self->err);
	EXPECT_STREQ("", self->out);
}

TEST_F(ctl, reset)
{
	ASSERT_EQ(GPULAT_EXIT_OK, CONTROL(self, "reset"));
	EXPECT_STREQ("reset: histograms and drop counters zeroed\n", self->out);
	EXPECT_STREQ("", self->err);
	fake.reset_ret = -EPERM;
	ASSERT_EQ(GPULAT_EXIT_ERROR, CONTROL(self, "reset"));
	EXPECT_STREQ("gpulat: cannot reset: permission denied; run gpulat as root\n",
		     self->err);
	EXPECT_STREQ("", self->out);
	EXPECT_EQ(0, fake.nr_calls);
}

/* The helper control.c names families with: the table, else family<N>. */
TEST(family_names)
{
	char buf[24];

	memset(buf, 'x', sizeof(buf));
	EXPECT_STREQ("sched", view_family_name(GPULAT_FAM_SCHED, buf,
					       sizeof(buf)));
	EXPECT_STREQ("family99", view_family_name(99, buf, sizeof(buf)));
	EXPECT_STREQ("family99", buf);
}

TEST_HARNESS_MAIN
