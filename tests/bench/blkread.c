// SPDX-License-Identifier: GPL-2.0
/*
 * blkread - synchronous 4 KiB O_DIRECT reads from a block device, one at
 * a time, for scripts/bench (a null_blk disk: the device takes no time, so
 * what is left is the block layer's and the probes' cost per I/O).
 *
 *   blkread [-w WARMUP] [-s SPAN_MB] [-H FILE] DEVICE COUNT
 *
 * Reads walk the first SPAN_MB (default 64) of DEVICE in 4 KiB steps and
 * wrap.  Prints one line (see bench.h):  units COUNT ns T [hits H]
 * for COUNT timed reads after WARMUP untimed ones (default 500).
 */
#define _GNU_SOURCE
#include <stdint.h>

#include "bench.h"

#define BLK	4096

int main(int argc, char **argv)
{
	unsigned long warmup = 500, count, span = 64, i, off = 0;
	unsigned long long t0 = 0, t1, h0 = 0, h1 = 0;
	const char *hits = NULL;
	void *buf;
	int fd, opt;

	bench_name = "blkread";
	while ((opt = getopt(argc, argv, "w:s:H:")) != -1) {
		switch (opt) {
		case 'w':
			warmup = strtoul(optarg, NULL, 0);
			break;
		case 's':
			span = strtoul(optarg, NULL, 0);
			break;
		case 'H':
			hits = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 2 || !span)
		goto usage;
	count = strtoul(argv[optind + 1], NULL, 0);
	if (!count)
		goto usage;
	span = span * 1024 * 1024 / BLK;
	fd = open(argv[optind], O_RDONLY | O_DIRECT);
	if (fd < 0)
		die(argv[optind]);
	if (posix_memalign(&buf, BLK, BLK))
		die("posix_memalign");

	for (i = 0; i < warmup + count; i++) {
		if (i == warmup) {
			if (hits)
				h0 = sum_hits(hits);
			t0 = now_ns();
		}
		if (pread(fd, buf, BLK, (off_t)off * BLK) != BLK)
			die("pread");
		off = (off + 1) % span;
	}
	t1 = now_ns();
	if (hits)
		h1 = sum_hits(hits);
	close(fd);
	free(buf);
	bench_report(count, t1 - t0, hits, h1 - h0);
	putchar('\n');
	return 0;
usage:
	fprintf(stderr, "usage: blkread [-w WARMUP] [-s SPAN_MB] [-H FILE] DEVICE COUNT\n");
	return 2;
}
