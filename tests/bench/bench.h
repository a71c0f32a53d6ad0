/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the benchmark workloads (the .c files of tests/bench): static
 * programs that scripts/bench runs in the guest.  Every workload prints one
 * line
 *
 *   units N ns T [hits H] [NAME VALUE]...
 *
 * N units of work (round trips, messages, reads, packets) took T ns of
 * CLOCK_MONOTONIC time; under QEMU -icount shift=0 one guest nanosecond is
 * one guest instruction.  With -H PATH (a gpulat debugfs family file, or
 * the folder of them) H is the growth of the sum of every "hits N" field
 * across the timed part only: gpulat's probe hits for exactly that work
 * (plus whatever else ran meanwhile).
 */
#ifndef _GPULAT_BENCH_H
#define _GPULAT_BENCH_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *bench_name = "bench";

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", bench_name, what, strerror(errno));
	exit(1);
}

static inline void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static inline unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* file_hits - sum of the numbers that follow " hits " in the file @path */
static inline unsigned long long file_hits(const char *path)
{
	static char buf[1 << 20];
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

/* sum_hits - file_hits() of @path, or of every file in it if a folder */
static inline unsigned long long sum_hits(const char *path)
{
	unsigned long long sum = 0;
	struct dirent *de;
	char sub[512];
	DIR *d;

	if (!path)
		return 0;
	d = opendir(path);
	if (!d)
		return file_hits(path);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		sum += file_hits(sub);
	}
	closedir(d);
	return sum;
}

/* bench_report - the result line, without its end (callers may add) */
static inline void bench_report(unsigned long long units,
				unsigned long long ns, const char *hits,
				unsigned long long h)
{
	printf("units %llu ns %llu", units, ns);
	if (hits)
		printf(" hits %llu", h);
}

#endif /* _GPULAT_BENCH_H */
