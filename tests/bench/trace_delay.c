// SPDX-License-Identifier: GPL-2.0
/*
 * How long an outlier takes to reach a reader of the trace.
 *
 * A hog spins on CPU 1 and a nice-19 sleeper wakes there every 2 ms, so
 * its waits for the CPU pass a 1 ms sched threshold.  This reader, on
 * CPU 0, blocks in poll() and takes, for every record it gets, the time
 * from the record's end event (its CLOCK_MONOTONIC stamp) to the moment
 * poll() returned.  Prints one line:
 *
 *   BENCH trace_delay records N p50_ns X p99_ns Y max_ns Z lost L
 *
 * usage: trace_delay [SECONDS]   (default 3)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uapi/gpulat.h"
#include "bench.h"

#define MAX_DELAYS	100000

static uint64_t delays[MAX_DELAYS];

static pid_t spawn(int nice, long sleep_us)
{
	pid_t pid = fork();
	struct timespec ts = { 0, sleep_us * 1000L };

	if (pid)
		return pid;
	pin(1);
	setpriority(PRIO_PROCESS, 0, nice);
	for (;;)
		if (sleep_us)
			nanosleep(&ts, NULL);
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct gpulat_threshold_req thr = {
		.size = sizeof(thr), .flags = GPULAT_THRESHOLD_SET,
		.family = GPULAT_FAM_SCHED, .threshold_ns = 1000000,
	};
	static unsigned char buf[65536];
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	uint64_t end, t, lost = 0, old;
	struct pollfd p;
	size_t n = 0, off;
	pid_t hog, victim;
	ssize_t got;
	int fd;

	bench_name = "trace_delay";
	fd = open(GPULAT_DEVICE_PATH, O_RDONLY);
	if (fd < 0 || ioctl(fd, GPULAT_IOC_THRESHOLD, &thr)) {
		printf("BENCH skip trace_delay - %s\n", strerror(errno));
		return 0;
	}
	old = 5000000;
	pin(0);
	p.fd = fd;
	p.events = POLLIN;
	poll(&p, 1, 0);		/* a reader from now on */
	hog = spawn(0, 0);
	victim = spawn(19, 2000);
	end = now_ns() + seconds * 1e9;
	while ((t = now_ns()) < end) {
		if (poll(&p, 1, 100) != 1)
			continue;
		t = now_ns();
		got = read(fd, buf, sizeof(buf));
		for (off = 0; got > 0 && off + sizeof(struct gpulat_rec_header) <=
					 (size_t)got;) {
			struct gpulat_rec_header h;

			memcpy(&h, buf + off, sizeof(h));
			if (h.size < sizeof(h) || off + h.size > (size_t)got)
				break;
			if (h.type == GPULAT_REC_SAMPLE && n < MAX_DELAYS &&
			    t >= h.time_ns)
				delays[n++] = t - h.time_ns;
			if (h.type == GPULAT_REC_LOST) {
				uint64_t l;

				memcpy(&l, buf + off + sizeof(h), sizeof(l));
				lost += l;
			}
			off += h.size;
		}
	}
	kill(victim, SIGKILL);
	kill(hog, SIGKILL);
	waitpid(victim, NULL, 0);
	waitpid(hog, NULL, 0);
	thr.threshold_ns = old;
	ioctl(fd, GPULAT_IOC_THRESHOLD, &thr);
	close(fd);
	if (!n) {
		printf("BENCH skip trace_delay - no records\n");
		return 0;
	}
	qsort(delays, n, sizeof(delays[0]), cmp);
	printf("BENCH trace_delay records %zu p50_ns %llu p99_ns %llu max_ns %llu lost %llu\n",
	       n, (unsigned long long)delays[n / 2],
	       (unsigned long long)delays[(n * 99) / 100],
	       (unsigned long long)delays[n - 1], (unsigned long long)lost);
	return 0;
}
