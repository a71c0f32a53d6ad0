// SPDX-License-Identifier: GPL-2.0
/*
 * snapbench - how long one GPULAT_IOC_SNAPSHOT call takes, for
 * scripts/bench: CALLS calls (default 50) after one untimed one, each
 * timed alone with CLOCK_MONOTONIC.
 *
 *   snapbench [-n CALLS] [DEVICE]
 *
 * Prints one line:
 *   calls N median_ns M min_ns A max_ns B bytes S cpus C
 * S is the snapshot's size, C the online CPUs.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/ioctl.h>

#include "bench.h"
#include "uapi/gpulat.h"

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct gpulat_snapshot_req req = { .size = sizeof(req) };
	unsigned long long *t, t0, med;
	const char *dev = "/dev/gpulat";
	int calls = 50, opt, fd, i;
	size_t cap;
	void *buf;

	bench_name = "snapbench";
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		switch (opt) {
		case 'n':
			calls = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind < argc - 1 || calls < 1)
		goto usage;
	if (optind == argc - 1)
		dev = argv[optind];
	fd = open(dev, O_RDONLY);
	if (fd < 0)
		die(dev);
	if (ioctl(fd, GPULAT_IOC_SNAPSHOT, &req))
		die("GPULAT_IOC_SNAPSHOT (size)");
	/* room for series that appear meanwhile */
	cap = req.needed + 65536;
	buf = malloc(cap);
	t = calloc(calls, sizeof(*t));
	if (!buf || !t)
		die("malloc");
	memset(buf, 0, cap);
	for (i = -1; i < calls; i++) {
		req.buf = (uintptr_t)buf;
		req.buf_size = cap;
		t0 = now_ns();
		if (ioctl(fd, GPULAT_IOC_SNAPSHOT, &req))
			die("GPULAT_IOC_SNAPSHOT");
		if (i >= 0)
			t[i] = now_ns() - t0;
	}
	qsort(t, calls, sizeof(*t), cmp_ull);
	med = calls % 2 ? t[calls / 2] : (t[calls / 2 - 1] + t[calls / 2]) / 2;
	printf("calls %d median_ns %llu min_ns %llu max_ns %llu bytes %llu cpus %ld\n",
	       calls, med, t[0], t[calls - 1],
	       (unsigned long long)req.needed, sysconf(_SC_NPROCESSORS_ONLN));
	close(fd);
	free(buf);
	free(t);
	return 0;
usage:
	fprintf(stderr, "usage: snapbench [-n CALLS] [DEVICE]\n");
	return 2;
}
