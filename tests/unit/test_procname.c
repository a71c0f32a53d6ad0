// SPDX-License-Identifier: GPL-2.0
/* The culprits' names, cached (user/lib/procname.c), over a fake /proc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/procname.h"

/* fake_task - DIR/PID/status naming @comm of thread group @tgid */
static void fake_task(const char *dir, int pid, const char *comm, int tgid)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", dir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/status", dir, pid);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\n",
		comm, tgid);
	fclose(f);
}

static void gone(const char *dir, int pid)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%d/status", dir, pid);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%d", dir, pid);
	rmdir(path);
}

FIXTURE(names) {
	char dir[64];
	struct procname_cache c;
};

FIXTURE_SETUP(names)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/gpulat-procname.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	memset(&self->c, 0, sizeof(self->c));
	self->c.proc = self->dir;
}

FIXTURE_TEARDOWN(names)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

/* read once, then served from the cache within its second */
TEST_F(names, cached_within_ttl)
{
	char comm[GPULAT_COMM_LEN];
	int32_t tgid;
	int i;

	fake_task(self->dir, 4242, "xmrig", 4240);
	for (i = 0; i < 100; i++) {
		procname_get(&self->c, 4242, 1000 + i * 1000000ULL, &tgid,
			     comm);
		ASSERT_EQ(4240, tgid);
		ASSERT_STREQ("xmrig", comm);
	}
	ASSERT_EQ(1, self->c.reads);
	ASSERT_EQ(99, self->c.hits);
}

/* past its second the entry is read again: a new name shows */
TEST_F(names, read_again_after_ttl)
{
	char comm[GPULAT_COMM_LEN];
	int32_t tgid;

	fake_task(self->dir, 7, "before", 7);
	procname_get(&self->c, 7, 0, &tgid, comm);
	fake_task(self->dir, 7, "after", 7);
	procname_get(&self->c, 7, PROCNAME_TTL_NS - 1, &tgid, comm);
	ASSERT_STREQ("before", comm);
	procname_get(&self->c, 7, PROCNAME_TTL_NS, &tgid, comm);
	ASSERT_STREQ("after", comm);
	ASSERT_EQ(2, self->c.reads);
	/* a clock that went back is no reason to trust it */
	procname_get(&self->c, 7, 5, &tgid, comm);
	ASSERT_EQ(3, self->c.reads);
}

/* a gone task: tgid -1, no name; cached as gone too */
TEST_F(names, gone_task)
{
	char comm[GPULAT_COMM_LEN];
	int32_t tgid;

	fake_task(self->dir, 99, "short", 99);
	gone(self->dir, 99);
	procname_get(&self->c, 99, 0, &tgid, comm);
	ASSERT_EQ(-1, tgid);
	ASSERT_STREQ("", comm);
	procname_get(&self->c, 99, 10, &tgid, comm);
	ASSERT_EQ(-1, tgid);
	ASSERT_EQ(1, self->c.hits);
}

/* many pids: the memory is fixed, every answer right */
TEST_F(names, bounded_and_right)
{
	char comm[GPULAT_COMM_LEN], want[GPULAT_COMM_LEN];
	int32_t tgid;
	int pid, round;

	for (pid = 1; pid <= 1000; pid++) {
		snprintf(want, sizeof(want), "t%d", pid);
		fake_task(self->dir, pid, want, pid + 1);
	}
	for (round = 0; round < 2; round++)
		for (pid = 1; pid <= 1000; pid++) {
			procname_get(&self->c, pid, round, &tgid, comm);
			snprintf(want, sizeof(want), "t%d", pid);
			ASSERT_STREQ(want, comm);
			ASSERT_EQ(pid + 1, tgid);
		}
	ASSERT_EQ(2000, self->c.reads + self->c.hits);
	ASSERT_LE(1000, self->c.reads);
	/* pid 0 (idle) and a negative pid are never cached */
	procname_get(&self->c, 0, 0, &tgid, comm);
	procname_get(&self->c, 0, 0, &tgid, comm);
	ASSERT_EQ(-1, tgid);
}

/* a process's start time: its own, none for a zombie nor a reaped one */
TEST(start_time)
{
	pid_t child;
	int i;

	ASSERT_NE(0, procname_start(getpid()));
	ASSERT_EQ(procname_start(getpid()), procname_start(getpid()));
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(0);
	/* a zombie until reaped: gone all the same */
	for (i = 0; i < 200 && procname_start(child); i++)
		usleep(5000);
	ASSERT_EQ(0, procname_start(child));
	ASSERT_EQ(child, waitpid(child, NULL, 0));
	ASSERT_EQ(0, procname_start(child));
	ASSERT_EQ(0, procname_start(0));
	ASSERT_EQ(0, procname_start(-1));
}

TEST_HARNESS_MAIN
