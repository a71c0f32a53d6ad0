// SPDX-License-Identifier: GPL-2.0
/*
 * scaleload - a little of everything, forever, for the cgroups of
 * scripts/bench-scale: every PERIOD_MS one 4 KiB O_DIRECT read of DISK,
 * one small UDP datagram to ADDR (port 9, nobody listens: the packet
 * crosses the veth pair and is dropped there), and SPIN_US of CPU.  The
 * sched, block, net and cgroup families see each such process.
 *
 *   scaleload DISK ADDR PERIOD_MS SPIN_US
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) };
	unsigned long long spin, t0;
	struct timespec nap;
	char msg[64] = "gpulat scale";
	long period_ms;
	void *buf;
	int fd, s;
	off_t off = 0;

	if (argc != 5 || inet_pton(AF_INET, argv[2], &to.sin_addr) != 1) {
		fprintf(stderr, "usage: scaleload DISK ADDR PERIOD_MS SPIN_US\n");
		return 2;
	}
	period_ms = atol(argv[3]);
	spin = strtoull(argv[4], NULL, 0) * 1000;
	nap.tv_sec = period_ms / 1000;
	nap.tv_nsec = (period_ms % 1000) * 1000000L;
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || s < 0 || posix_memalign(&buf, 4096, 4096)) {
		perror("scaleload");
		return 1;
	}
	for (;;) {
		if (pread(fd, buf, 4096, off) != 4096)
			off = 0;
		off = (off + 4096 * 97) % (64 << 20);
		sendto(s, msg, sizeof(msg), 0, (struct sockaddr *)&to,
		       sizeof(to));
		t0 = now_ns();
		while (now_ns() - t0 < spin)
			;
		nanosleep(&nap, NULL);
	}
}
