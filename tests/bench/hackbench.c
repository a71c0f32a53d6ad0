// SPDX-License-Identifier: GPL-2.0
/*
 * hackbench - a small hackbench (pipe mode) for scripts/bench: GROUPS
 * groups of FDS senders and FDS receivers; every sender writes LOOPS
 * 100-byte messages to every receiver of its group through the receiver's
 * pipe, which is cut to one page so that senders block often; receivers
 * read one message at a time, as hackbench does.  A context-switch storm without pinning: on several CPUs the
 * wakeups cross CPUs.
 *
 *   hackbench [-g GROUPS] [-f FDS] [-H FILE] LOOPS
 *
 * Prints one line (see bench.h):  units N ns T [hits H]
 * where N = GROUPS x FDS x FDS x LOOPS messages, and T runs from the
 * release of the (already forked, waiting) children to the exit of the
 * last one, so that forking is not timed.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/wait.h>

#include "bench.h"

#define MSG_SIZE	100

static void xwrite_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write");
		p += n;
		len -= n;
	}
}

/* wait_start - tell the parent we are ready, then wait for its go */
static void wait_start(int ready, int go)
{
	char c = 0;

	xwrite_all(ready, &c, 1);
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
}

static void receiver(int rd, unsigned long msgs, int ready, int go)
{
	char buf[MSG_SIZE];
	unsigned long long left = (unsigned long long)msgs * MSG_SIZE;

	wait_start(ready, go);
	while (left) {
		ssize_t n = read(rd, buf, left < sizeof(buf) ? left : sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("read");
		left -= n;
	}
	_exit(0);
}

static void sender(const int *wr, int fds, unsigned long loops, int ready,
		   int go)
{
	char msg[MSG_SIZE];
	unsigned long i;
	int j;

	memset(msg, 'x', sizeof(msg));
	wait_start(ready, go);
	for (i = 0; i < loops; i++)
		for (j = 0; j < fds; j++)
			xwrite_all(wr[j], msg, sizeof(msg));
	_exit(0);
}

int main(int argc, char **argv)
{
	int groups = 1, fds = 5, opt, g, i, j, ready[2], go[2], status;
	unsigned long long t0, t1, h0 = 0, h1 = 0;
	const char *hits = NULL;
	unsigned long loops;
	int nchild = 0;
	char c;

	bench_name = "hackbench";
	while ((opt = getopt(argc, argv, "g:f:H:")) != -1) {
		switch (opt) {
		case 'g':
			groups = atoi(optarg);
			break;
		case 'f':
			fds = atoi(optarg);
			break;
		case 'H':
			hits = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || groups < 1 || fds < 1 || fds > 64)
		goto usage;
	loops = strtoul(argv[optind], NULL, 0);
	if (!loops)
		goto usage;

	if (pipe(ready) || pipe(go))
		die("pipe");
	for (g = 0; g < groups; g++) {
		int wr[64];

		for (i = 0; i < fds; i++) {
			int p[2];
			pid_t pid;

			if (pipe(p))
				die("pipe");
			fcntl(p[1], F_SETPIPE_SZ, 4096);	/* best effort */
			pid = fork();
			if (pid < 0)
				die("fork");
			if (!pid) {
				close(p[1]);
				close(go[1]);
				receiver(p[0], (unsigned long)fds * loops,
					 ready[1], go[0]);
			}
			close(p[0]);
			wr[i] = p[1];
			nchild++;
		}
		for (i = 0; i < fds; i++) {
			pid_t pid = fork();

			if (pid < 0)
				die("fork");
			if (!pid) {
				close(go[1]);
				sender(wr, fds, loops, ready[1], go[0]);
			}
			nchild++;
		}
		for (j = 0; j < fds; j++)
			close(wr[j]);
	}
	for (i = 0; i < nchild; i++)
		while (read(ready[0], &c, 1) != 1)
			if (errno != EINTR)
				die("read ready");

	if (hits)
		h0 = sum_hits(hits);
	t0 = now_ns();
	close(go[1]);		/* EOF: every child starts */
	for (i = 0; i < nchild; i++) {
		if (wait(&status) < 0)
			die("wait");
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "hackbench: a child failed\n");
			return 1;
		}
	}
	t1 = now_ns();
	if (hits)
		h1 = sum_hits(hits);
	bench_report((unsigned long long)groups * fds * fds * loops, t1 - t0,
		     hits, h1 - h0);
	putchar('\n');
	return 0;
usage:
	fprintf(stderr, "usage: hackbench [-g GROUPS] [-f FDS] [-H FILE] LOOPS\n");
	return 2;
}
