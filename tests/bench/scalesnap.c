// SPDX-License-Identifier: GPL-2.0
/*
 * scalesnap - how long libgpulat's snapshot takes on either source, for
 * scripts/bench-scale: CALLS calls of gl_source_snapshot() (default 50)
 * after one untimed one, each timed alone with CLOCK_MONOTONIC.  On the
 * module that is the SNAPSHOT ioctl and the decoding into a struct
 * gl_snapshot; on the pinned BPF source the reads of its maps and the
 * same decoding: what every gpulat command and each tick of serve pays.
 *
 *   scalesnap [-n CALLS] kmod|pinned
 *
 * Then CALLS decodings of the last blob as the sources decode theirs
 * (gl_snapshot_parse_owned(), on a copy made untimed): the library's
 * share (validation; the series copied only where unsorted), P; the rest
 * of M is the source's (the ioctl, or the map reads, and the pages of a
 * new blob).  The process keeps freed memory for reuse as serve does
 * (serve_malloc_setup()).  Prints one line:
 *   calls N median_ns M min_ns A max_ns B parse_median_ns P bytes S series K cpus C
 * S is the blob's size, K its series (per CPU and per key), C the online
 * CPUs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/gpulat_user.h"
#include "lib/libinternal.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	enum gl_source_kind kind;
	struct gl_source *src;
	struct gl_snapshot *s;
	unsigned long long *t, t0, med, pmed, tmin, tmax;
	size_t bytes = 0, series = 0;
	const void *blob;
	void *copy = NULL;
	int calls = 50, opt, i, ret;
	char err[256];

	/* as serve_malloc_setup() */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			goto usage;
		calls = atoi(optarg);
	}
	if (optind != argc - 1 || calls < 1 ||
	    gl_source_parse(argv[optind], &kind))
		goto usage;
	src = gl_source_open(kind, &ret, err, sizeof(err));
	if (!src) {
		fprintf(stderr, "scalesnap: %s\n", err);
		return 1;
	}
	t = calloc(calls, sizeof(*t));
	if (!t)
		return 1;
	for (i = -1; i < calls; i++) {
		t0 = now_ns();
		ret = gl_source_snapshot(src, &s, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "scalesnap: %s\n", err);
			return 1;
		}
		if (i >= 0)
			t[i] = now_ns() - t0;
		blob = gl_snapshot_blob(s, &bytes);
		series = gl_snapshot_nr_series(s);
		if (i == calls - 1) {
			copy = malloc(bytes);
			if (!copy)
				return 1;
			memcpy(copy, blob, bytes);
		}
		gl_snapshot_free(s);
	}
	gl_source_close(src);
	qsort(t, calls, sizeof(*t), cmp_ull);
	med = calls % 2 ? t[calls / 2] : (t[calls / 2 - 1] + t[calls / 2]) / 2;
	tmin = t[0];
	tmax = t[calls - 1];
	for (i = 0; i < calls; i++) {
		void *buf = malloc(bytes);

		if (!buf)
			return 1;
		memcpy(buf, copy, bytes);
		t0 = now_ns();
		if (gl_snapshot_parse_owned(buf, bytes, &s, err, sizeof(err))) {
			fprintf(stderr, "scalesnap: parse: %s\n", err);
			return 1;
		}
		t[i] = now_ns() - t0;
		gl_snapshot_free(s);
	}
	qsort(t, calls, sizeof(*t), cmp_ull);
	pmed = calls % 2 ? t[calls / 2] : (t[calls / 2 - 1] + t[calls / 2]) / 2;
	printf("calls %d median_ns %llu min_ns %llu max_ns %llu parse_median_ns %llu bytes %zu series %zu cpus %ld\n",
	       calls, med, tmin, tmax, pmed, bytes, series,
	       sysconf(_SC_NPROCESSORS_ONLN));
	free(copy);
	free(t);
	return 0;
usage:
	fprintf(stderr, "usage: scalesnap [-n CALLS] kmod|pinned\n");
	return 2;
}
