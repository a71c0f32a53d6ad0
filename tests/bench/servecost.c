// SPDX-License-Identifier: GPL-2.0
/*
 * servecost - what one tick of gpulat serve costs in user space on a host
 * of N CPUs, measured natively on this one: a saved snapshot's per-CPU
 * series are copied onto N CPUs (CPU c's series on every CPU c mod the
 * saved count), then TICKS ticks run what serve_tick() runs after the
 * source's read: the decoding of the blob (gl_snapshot_parse, as both
 * sources end), the exposition (prom_write and the verdict's metrics),
 * the rolling verdict (verdict_add_snap, verdict_compute) and, with -f,
 * the flight recorder's compression of the blob.  Every tick adds counts
 * to a few series of every CPU, so that diffs and verdicts are not empty.
 *
 *   servecost [-n TICKS] [-c CPUS] [-f] SNAPSHOT
 *
 * Prints one line of medians per tick in ns of this process's CPU time,
 * the mean tick (the verdict is made on some ticks only, so the mean is
 * what serve's CPU share at 1 Hz is: mean_tick_ns / 1e9), and the peak
 * resident memory:
 *   cpus N series K blob_bytes B parse_ns P prom_ns R verdict_ns V
 *   flight_ns F tick_ns T mean_tick_ns A verdicts_made D rss_peak_kb M
 * The source's own part (the ioctl, the map reads) is not in it:
 * make bench-scale weighs that in the VM.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "engine/serve/prom.h"
#include "engine/serve/serve.h"
#include "engine/verdict/verdict.h"
#include "gpulat_hist.h"
#include "lib/gpulat_user.h"
#include "lib/libinternal.h"

static unsigned long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static unsigned long long median(unsigned long long *t, int n)
{
	qsort(t, n, sizeof(*t), cmp_ull);
	return t[n / 2];
}

static long rss_peak_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* on_cpus - @s's per-CPU series on @cpus CPUs; keyed series as they are */
static struct gl_snapshot *on_cpus(const struct gl_snapshot *s, unsigned int cpus)
{
	unsigned int have = gl_snapshot_header(s)->nr_cpu_ids, c;
	size_t i, n = 0, ns = gl_snapshot_nr_series(s);
	const struct gpulat_series *sr;
	struct gl_snapshot *o;

	for (i = 0; i < ns; i++) {
		sr = gl_snapshot_series(s, i);
		n += sr->cpu == GPULAT_CPU_NONE ? 1 :
		     (sr->cpu < cpus ? (cpus - sr->cpu + have - 1) / have : 0);
	}
	o = gl_snapshot_alloc(n, gl_snapshot_nr_counters(s),
			      gl_snapshot_nr_probes(s), 0);
	if (!o)
		return NULL;
	o->hdr = *gl_snapshot_header(s);
	o->hdr.nr_cpu_ids = cpus;
	for (i = 0, n = 0; i < ns; i++) {
		sr = gl_snapshot_series(s, i);
		for (c = sr->cpu == GPULAT_CPU_NONE ? 0 : sr->cpu;
		     c < (sr->cpu == GPULAT_CPU_NONE ? 1 : cpus); c += have) {
			memcpy(gl_series_at(o, n), sr, GL_SERIES_STRIDE);
			if (sr->cpu != GPULAT_CPU_NONE)
				gl_series_at(o, n)->cpu = c;
			n++;
		}
	}
	o->nr_series = n;
	qsort(o->series, n, GL_SERIES_STRIDE, gl_series_cmp);
	for (i = 0; i < gl_snapshot_nr_counters(s); i++)
		o->counters[i] = *gl_snapshot_counter(s, i);
	for (i = 0; i < gl_snapshot_nr_probes(s); i++)
		o->probes[i] = *gl_snapshot_probe(s, i);
	return o;
}

/* advance - one second later, and a few more samples on every series in use */
static void advance(struct gl_snapshot *o, unsigned int tick)
{
	struct gpulat_series *sr;
	size_t i;
	uint32_t b;

	o->hdr.time_ns += 1000000000ULL;
	for (i = 0; i < o->nr_series; i++) {
		sr = gl_series_at(o, i);
		if (!sr->count || (i + tick) % 4)
			continue;
		for (b = 0; b < GPULAT_HIST_NR_BUCKETS && !sr->buckets[b]; b++)
			;
		sr->buckets[b] += 1 + tick % 3;
		sr->count += 1 + tick % 3;
		sr->sum_ns += (1 + tick % 3) * gpulat_hist_lower(b);
	}
}

int main(int argc, char **argv)
{
	unsigned long long *tp, *tr, *tv, *tf, *tt, t0, t1, t2, t3, t4;
	unsigned long long total = 0;
	int ticks = 30, cpus = 224, opt, i;
	struct gl_snapshot *in, *o, *s, *prev = NULL;
	struct prom_state p;
	struct verdict v;
	bool flight = false;
	char err[256];
	size_t blen = 0;

	serve_malloc_setup();	/* as serve does */
	while ((opt = getopt(argc, argv, "n:c:f")) != -1) {
		if (opt == 'n')
			ticks = atoi(optarg);
		else if (opt == 'c')
			cpus = atoi(optarg);
		else if (opt == 'f')
			flight = true;
		else
			goto usage;
	}
	if (optind != argc - 1 || ticks < 3 || cpus < 1)
		goto usage;
	if (gl_snapshot_read(argv[optind], &in, err, sizeof(err))) {
		fprintf(stderr, "servecost: %s\n", err);
		return 1;
	}
	o = on_cpus(in, cpus);
	tp = calloc(ticks, sizeof(*tp));
	tr = calloc(ticks, sizeof(*tr));
	tv = calloc(ticks, sizeof(*tv));
	tf = calloc(ticks, sizeof(*tf));
	tt = calloc(ticks, sizeof(*tt));
	if (!o || !tp || !tr || !tv || !tf || !tt || verdict_init(&v, VERDICT_WINDOW_S))
		return 1;
	prom_init(&p);
	for (i = 0; i < ticks; i++) {
		char *page = NULL;
		size_t plen = 0;
		const void *blob;
		FILE *f;

		advance(o, i);
		if (gl_snapshot_build_blob(o))
			return 1;
		blob = gl_snapshot_blob(o, &blen);
		t0 = cpu_ns();
		if (gl_snapshot_parse(blob, blen, &s, err, sizeof(err))) {
			fprintf(stderr, "servecost: %s\n", err);
			return 1;
		}
		t1 = cpu_ns();
		verdict_add_snap(&v, s);
		verdict_compute(&v);
		t2 = cpu_ns();
		f = open_memstream(&page, &plen);
		prom_count_events(&p, s);
		if (!f || prom_write(&p, s, f))
			return 1;
		verdict_prom(f, &v);
		fclose(f);
		free(page);
		t3 = cpu_ns();
		if (flight) {
			uLongf zlen = compressBound(blen);
			unsigned char *z = malloc(zlen);

			if (!z || compress2(z, &zlen, blob, blen, 1) != Z_OK)
				return 1;
			free(z);
		}
		gl_snapshot_free(prev);
		prev = s;
		t4 = cpu_ns();
		tp[i] = t1 - t0;
		tv[i] = t2 - t1;
		tr[i] = t3 - t2;
		tf[i] = flight ? t4 - t3 : 0;
		tt[i] = t4 - t0;
		total += tt[i];
	}
	printf("cpus %d series %zu blob_bytes %zu parse_ns %llu prom_ns %llu verdict_ns %llu flight_ns %llu tick_ns %llu mean_tick_ns %llu verdicts_made %llu verdict_cpu_s %.3f rss_peak_kb %ld\n",
	       cpus, o->nr_series, blen, median(tp, ticks), median(tr, ticks),
	       median(tv, ticks), median(tf, ticks), median(tt, ticks),
	       total / ticks, (unsigned long long)v.computed, v.cost_s, rss_peak_kb());
	verdict_free(&v);
	prom_free(&p);
	gl_snapshot_free(prev);
	gl_snapshot_free(o);
	gl_snapshot_free(in);
	return 0;
usage:
	fprintf(stderr, "usage: servecost [-n TICKS] [-c CPUS] [-f] SNAPSHOT\n");
	return 2;
}
