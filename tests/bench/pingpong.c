// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong - pipe round trips between a parent and a child, both pinned to
 * one CPU, so that every round trip is two wakeups and two context
 * switches.  Used by scripts/bench to weigh what scheduler probes cost.
 *
 *   pingpong [-c CPU] [-w WARMUP] [-H FILE] ROUNDS
 *
 * Prints one line (see bench.h):  units N ns T [hits H] preempted P
 * for N timed round trips after WARMUP untimed ones (default 5000).  FILE
 * is a gpulat debugfs family file or the folder of them.
 *
 * P counts the parent's involuntary context switches in the timed loop.  A
 * round trip in which the woken child preempts the parent is cheaper and
 * has fewer events (the parent then finds its answer waiting and does not
 * block); right after the fork the child's sleeper credit makes it preempt
 * for a thousand or more round trips, hence the long warm-up.  P should be
 * (near) zero: every timed round trip then takes the same path.
 */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <sys/wait.h>

#include "bench.h"

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

	bench_name = "pingpong";
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
	bench_report(rounds, t1 - t0, hits, h1 - h0);
	printf(" preempted %ld\n", r1.ru_nivcsw - r0.ru_nivcsw);
	return 0;
usage:
	fprintf(stderr, "usage: pingpong [-c CPU] [-w WARMUP] [-H FILE] ROUNDS\n");
	return 2;
}
