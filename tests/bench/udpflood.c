// SPDX-License-Identifier: GPL-2.0
/*
 * udpflood - UDP packets per second, for scripts/bench.
 *
 *   udpflood [-w WARMUP] [-b BATCH] [-H FILE] [-S NETNS] [-R NETNS]
 *            [-o] ADDR PORT COUNT
 *
 * Sends COUNT timed 64-byte datagrams (after WARMUP untimed ones, default
 * 1000) to ADDR:PORT.  The sender runs in the network namespace NETNS of
 * -S (a name under /run/netns, as `ip netns add` makes them), the
 * receiver, a child bound to ADDR:PORT, in that of -R.  Flow control keeps
 * every packet: after each BATCH (default 16) the sender waits until the
 * receiver has read them, so no socket buffer overflows and every run takes
 * the same path.  With -o there is no receiver (one way: the packets leave
 * through a real NIC, each transmit completion an interrupt; ADDR may be a
 * broadcast address); the sender then never sleeps: when the device's
 * queue is full it retries at once, so that under QEMU -icount no idle
 * (wall-clock) time enters the measurement.
 *
 * Prints one line (see bench.h):  units COUNT ns T [hits H]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "bench.h"

#define PKT	64

static void enter_netns(const char *name)
{
	char path[256];
	int fd;

	if (!name)
		return;
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/var/run/netns/%s", name);
		fd = open(path, O_RDONLY);
	}
	if (fd < 0)
		die(path);
	if (setns(fd, CLONE_NEWNET))
		die("setns");
	close(fd);
}

/*
 * Unconnected: an ICMP error that a reply brings back (a host port with no
 * listener) is not reported on the next send.
 */
static void xsend(int fd, const char *buf, int flags,
		  const struct sockaddr_in *sa)
{
	while (sendto(fd, buf, PKT, flags, (const struct sockaddr *)sa,
		      sizeof(*sa)) != PKT)
		if (errno != EINTR && errno != ENOBUFS && errno != EAGAIN)
			die("send");
}

static void xack(int fd, int write_it)
{
	char c = 0;
	ssize_t n;

	do
		n = write_it ? write(fd, &c, 1) : read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		die("ack pipe");
}

int main(int argc, char **argv)
{
	unsigned long warmup = 1000, count, batch = 16, i, total;
	unsigned long long t0 = 0, t1, h0 = 0, h1 = 0;
	const char *hits = NULL, *sns = NULL, *rns = NULL;
	int opt, oneway = 0, one = 1, s, ack[2] = { -1, -1 }, go[2], status;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char buf[PKT];
	pid_t pid = -1;

	bench_name = "udpflood";
	while ((opt = getopt(argc, argv, "w:b:H:S:R:o")) != -1) {
		switch (opt) {
		case 'w':
			warmup = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			batch = strtoul(optarg, NULL, 0);
			break;
		case 'H':
			hits = optarg;
			break;
		case 'S':
			sns = optarg;
			break;
		case 'R':
			rns = optarg;
			break;
		case 'o':
			oneway = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 3 || !batch)
		goto usage;
	if (inet_pton(AF_INET, argv[optind], &sa.sin_addr) != 1)
		goto usage;
	sa.sin_port = htons(atoi(argv[optind + 1]));
	count = strtoul(argv[optind + 2], NULL, 0);
	if (!count)
		goto usage;
	/* whole batches, so that the receiver's count ends with the sender */
	warmup = (warmup + batch - 1) / batch * batch;
	count = (count + batch - 1) / batch * batch;
	total = warmup + count;
	memset(buf, 'u', sizeof(buf));

	if (!oneway) {
		if (pipe(ack) || pipe(go))
			die("pipe");
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			struct timeval tv = { .tv_sec = 5 };

			enter_netns(rns);
			s = socket(AF_INET, SOCK_DGRAM, 0);
			if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)))
				die("receiver socket");
			setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
			xack(go[1], 1);		/* bound: the sender may start */
			for (i = 0; i < total; i++) {
				while (recv(s, buf, sizeof(buf), 0) != PKT)
					if (errno != EINTR)
						die("recv (a packet lost?)");
				if ((i + 1) % batch == 0)
					xack(ack[1], 1);
			}
			_exit(0);
		}
		xack(go[0], 0);
	}
	enter_netns(sns);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one)))
		die("sender socket");

	for (i = 0; i < total; i++) {
		if (i == warmup) {
			if (hits)
				h0 = sum_hits(hits);
			t0 = now_ns();
		}
		xsend(s, buf, oneway ? MSG_DONTWAIT : 0, &sa);
		if (!oneway && (i + 1) % batch == 0)
			xack(ack[0], 0);
	}
	t1 = now_ns();
	if (hits)
		h1 = sum_hits(hits);
	if (!oneway && (waitpid(pid, &status, 0) != pid ||
			!WIFEXITED(status) || WEXITSTATUS(status))) {
		fprintf(stderr, "udpflood: receiver failed\n");
		return 1;
	}
	bench_report(count, t1 - t0, hits, h1 - h0);
	putchar('\n');
	return 0;
usage:
	fprintf(stderr, "usage: udpflood [-w WARMUP] [-b BATCH] [-H FILE] [-S NETNS] [-R NETNS] [-o] ADDR PORT COUNT\n");
	return 2;
}
