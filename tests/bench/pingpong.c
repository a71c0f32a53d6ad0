// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong - pipe round trips between a parent and a child, both pinned to
 * one CPU, so that every round trip is two wakeups and two context
 * switches.  Used by scripts/bench to weigh what scheduler probes cost.
 *
 *   pingpong [-c CPU] [-w WARMUP] [-H FILE] ROUNDS
 *
 * Prints one line:  rounds N ns T [hits H] preempted P
 * where T is the CLOCK_MONOTONIC time of the N timed round trips (after
 * WARMUP untimed ones, default 5000).  Under QEMU -icount shift=0 one guest
 * nanosecond is one guest instruction.  With -H, FILE (a gpulat debugfs
 * family file) is read just before and just after the timed loop, and H is
 * the growth of the sum of its "hits N" fields: the probe hits of exactly
 * the timed round trips (plus whatever else ran meanwhile).
 *
 * P counts the parent's involuntary context switches in the timed loop.  A
 * round trip in which the woken child preempts the parent is cheaper and
 * has fewer events (the parent then finds its answer waiting and does not
 * block); right after the fork the child's sleeper credit makes it preempt
 * for a thousand or more round trips, hence the long warm-up.  P should be
 * (near) zero: every timed round trip then takes the same path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static void xread(int fd, char *c)
{
	ssize_t n;

	do
		n = read(fd, c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		die("read");
}

static void xwrite(int fd, char c)
{
	ssize_t n;

	do
		n = write(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		die("write");
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* sum_hits - sum of the numbers that follow "hits " in @path */
static unsigned long long sum_hits(const char *path)
{
	static char buf[65536];
	unsigned long long sum = 0;
	ssize_t len = 0, n;
	char *p;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	if (n < 0)
		die(path);
	close(fd);
	buf[len] = 0;
	for (p = buf; (p = strstr(p, " hits ")); p += 6)
		sum += strtoull(p + 6, NULL, 10);
	return sum;
}

/* rounds: round trips in the parent; the child answers until EOF */
static void ping(int wr, int rd, unsigned long rounds)
{
	char c = 0;

	while (rounds--) {
		xwrite(wr, c);
		xread(rd, &c);
	}
}

int main(int argc, char **argv)
{
	unsigned long rounds, warmup = 5000;
	unsigned long long t0, t1, h0 = 0, h1 = 0;
	const char *hits = NULL;
	struct rusage r0, r1;
	int cpu = 0, to_child[2], to_parent[2], opt, status;
	pid_t pid;
	char c;

	while ((opt = getopt(argc, argv, "c:w:H:")) != -1) {
		switch (opt) {
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'H':
			hits = optarg;
			break;
		case 'w':
			warmup = strtoul(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	rounds = strtoul(argv[optind], NULL, 0);
	if (!rounds)
		goto usage;

	/* the child inherits the affinity: both ends share the CPU */
	pin(cpu);
	if (pipe(to_child) || pipe(to_parent))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(to_child[1]);
		close(to_parent[0]);
		for (;;) {
			ssize_t n = read(to_child[0], &c, 1);

			if (n == 0)
				_exit(0);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				die("read");
			}
			xwrite(to_parent[1], c);
		}
	}
	close(to_child[0]);
	close(to_parent[1]);

	ping(to_child[1], to_parent[0], warmup);
	if (hits)
		h0 = sum_hits(hits);
	getrusage(RUSAGE_SELF, &r0);
	t0 = now_ns();
	ping(to_child[1], to_parent[0], rounds);
	t1 = now_ns();
	getrusage(RUSAGE_SELF, &r1);
	if (hits)
		h1 = sum_hits(hits);

	close(to_child[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("child");
	printf("rounds %lu ns %llu", rounds, t1 - t0);
	if (hits)
		printf(" hits %llu", h1 - h0);
	printf(" preempted %ld\n", r1.ru_nivcsw - r0.ru_nivcsw);
	return 0;
usage:
	fprintf(stderr, "usage: pingpong [-c CPU] [-w WARMUP] [-H FILE] ROUNDS\n");
	return 2;
}
