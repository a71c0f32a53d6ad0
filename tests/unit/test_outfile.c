// SPDX-License-Identifier: GPL-2.0
/*
 * Files written whole or not at all (lib/outfile.c): a device, a FIFO or
 * a folder is never replaced; the temporary is beside the target, of the
 * mode asked, and gone on every path; the sweep removes the temporaries
 * of dead writers only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/outfile.h"
#include "shell.h"

FIXTURE(of) {
	char dir[64];
	char path[PATH_MAX];
	char msg[PATH_MAX + 256];
};

FIXTURE_SETUP(of)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/gl-outfile.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/out", self->dir);
}

FIXTURE_TEARDOWN(of)
{
	sh("rm -rf %s", self->dir);
}

/* entries - files in @dir but . and .. */
static int entries(const char *dir)
{
	return sh("exit $(ls -A %s | wc -l)", dir);
}

static int mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (int)(st.st_mode & 07777);
}

TEST(standard_output_is_named_three_ways)
{
	EXPECT_TRUE(gl_out_is_stdout("-"));
	EXPECT_TRUE(gl_out_is_stdout("/dev/stdout"));
	EXPECT_TRUE(gl_out_is_stdout("/dev/fd/1"));
	EXPECT_FALSE(gl_out_is_stdout("--"));
	EXPECT_FALSE(gl_out_is_stdout("/dev/null"));
}

TEST_F(of, what_is_not_a_regular_file_is_refused)
{
	struct gl_out o;
	char fifo[PATH_MAX];

	EXPECT_EQ(-EEXIST, gl_out_check("/dev/null", self->msg,
					 sizeof(self->msg)));
	EXPECT_NE(NULL, strstr(self->msg, "a character device: not replaced"));
	EXPECT_EQ(-EISDIR, gl_out_check(self->dir, self->msg,
					 sizeof(self->msg)));
	snprintf(fifo, sizeof(fifo), "%s/fifo", self->dir);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	/* refused without opening it: a FIFO would block */
	EXPECT_EQ(-EEXIST, gl_out_open(&o, fifo, 0600, self->msg,
				       sizeof(self->msg)));
	EXPECT_NE(NULL, strstr(self->msg, "a FIFO"));
	EXPECT_EQ(1, entries(self->dir));
	EXPECT_GT(0, gl_out_check("/nonexistent/x", self->msg,
				  sizeof(self->msg)));
}

TEST_F(of, whole_or_not_at_all_and_the_mode_asked)
{
	struct gl_out o;

	ASSERT_EQ(0, sh("echo old > %s", self->path));
	ASSERT_EQ(0, gl_out_open(&o, self->path, 0640, self->msg,
				 sizeof(self->msg)));
	/* the temporary beside it, the target untouched meanwhile */
	EXPECT_EQ(2, entries(self->dir));
	EXPECT_NE(NULL, strstr(o.tmp, "/.out" GL_OUT_TAG));
	ASSERT_EQ(0, gl_out_write(&o, "new\n", 4));
	EXPECT_EQ(0, sh("grep -qx old %s", self->path));
	gl_out_abort(&o);
	EXPECT_EQ(1, entries(self->dir));
	EXPECT_EQ(0, sh("grep -qx old %s", self->path));
	ASSERT_EQ(0, gl_out_open(&o, self->path, 0640, self->msg,
				 sizeof(self->msg)));
	ASSERT_EQ(0, gl_out_write(&o, "new\n", 4));
	ASSERT_EQ(0, gl_out_commit(&o, self->msg, sizeof(self->msg)));
	EXPECT_EQ(0, sh("grep -qx new %s", self->path));
	EXPECT_EQ(0640, mode_of(self->path));
	EXPECT_EQ(1, entries(self->dir));
	/* private: 0600 unless the gpulat group exists */
	ASSERT_EQ(0, gl_out_open(&o, self->path, GL_OUT_PRIVATE, self->msg,
				 sizeof(self->msg)));
	ASSERT_EQ(0, gl_out_commit(&o, self->msg, sizeof(self->msg)));
	EXPECT_EQ(sh("getent group " GL_OUT_GROUP " >/dev/null") ? 0600 :
		  0640, mode_of(self->path));
}

TEST_F(of, a_target_that_became_a_folder_is_not_replaced)
{
	struct gl_out o;

	ASSERT_EQ(0, gl_out_open(&o, self->path, 0600, self->msg,
				 sizeof(self->msg)));
	ASSERT_EQ(0, mkdir(self->path, 0700));
	EXPECT_EQ(-EEXIST, gl_out_commit(&o, self->msg, sizeof(self->msg)));
	EXPECT_NE(NULL, strstr(self->msg, "became a folder"));
	EXPECT_EQ(1, entries(self->dir));
}

TEST_F(of, a_link_is_written_through)
{
	struct gl_out o;
	char link[PATH_MAX];

	snprintf(link, sizeof(link), "%s/link", self->dir);
	ASSERT_EQ(0, sh("echo old > %s && ln -s out %s", self->path, link));
	ASSERT_EQ(0, gl_out_open(&o, link, 0600, self->msg,
				 sizeof(self->msg)));
	ASSERT_EQ(0, gl_out_write(&o, "new\n", 4));
	ASSERT_EQ(0, gl_out_commit(&o, self->msg, sizeof(self->msg)));
	EXPECT_EQ(0, sh("test -L %s && grep -qx new %s", link, self->path));
	/* a link to a device is the device */
	ASSERT_EQ(0, sh("ln -sf /dev/null %s", link));
	EXPECT_EQ(-EEXIST, gl_out_check(link, self->msg, sizeof(self->msg)));
}

TEST_F(of, the_sweep_removes_dead_writers_only)
{
	pid_t dead = fork();
	char name[PATH_MAX];

	if (!dead)
		_exit(0);
	ASSERT_LT(0, dead);
	waitpid(dead, NULL, 0);
	ASSERT_EQ(0, sh("touch %s/.a" GL_OUT_TAG "%d.XXXXXX %s/.b" GL_OUT_TAG
			"%d.XXXXXX %s/.c" GL_OUT_TAG "x%d.XXXXXX %s/keep",
			self->dir, (int)dead, self->dir, (int)getpid(),
			self->dir, (int)dead, self->dir));
	/* a writer of one file sweeps that file's only */
	EXPECT_EQ(0, gl_out_sweep(self->dir, "b"));
	EXPECT_EQ(1, gl_out_sweep(self->dir, "a"));
	EXPECT_EQ(0, gl_out_sweep(self->dir, NULL));
	snprintf(name, sizeof(name), ".b" GL_OUT_TAG "%d.XXXXXX",
		 (int)getpid());
	EXPECT_EQ(3, entries(self->dir));
	EXPECT_TRUE(gl_dead_writer(".z" GL_OUT_TAG "999999999.abc",
				   GL_OUT_TAG) || kill(999999999, 0) == 0);
	EXPECT_FALSE(gl_dead_writer(name, GL_OUT_TAG));
	EXPECT_FALSE(gl_dead_writer(".z" GL_OUT_TAG "12", GL_OUT_TAG));
	EXPECT_FALSE(gl_dead_writer(".z" GL_OUT_TAG "-1.x", GL_OUT_TAG));
	EXPECT_FALSE(gl_dead_writer("plain", GL_OUT_TAG));
}

TEST_HARNESS_MAIN
