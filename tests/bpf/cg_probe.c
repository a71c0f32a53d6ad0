// SPDX-License-Identifier: GPL-2.0
/*
 * cg_probe - one window of the BPF source with a cgroup watch set, in
 * one process (loaded for it, or the pinned source): for the cgroup
 * host test, until the tool's own command sets the watch.
 *
 *   cg_probe [-t FAMILY=NS]... -s STOPFILE CGROUP2-DIR...
 *
 * Watches the directories (level: the directories above each up to the
 * cgroup2 mount), sets the thresholds, becomes the trace's reader, takes
 * a snapshot and prints "ready"; reads the trace until STOPFILE exists,
 * then takes a second snapshot and prints one JSON object: the watched
 * ids, the count delta of every series of the cgroup and mm families and
 * of every counter, the records lost, and the trace's sample records
 * per cgroup id (family.series -> count) with the sched.wakeup ones of
 * watched cgroups in full (pid, cgroup, culprits with their cgroups).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "lib/family.h"
#include "lib/gpulat_user.h"
#include "lib/source.h"

#define CGROUP2_MAGIC	0x63677270
#define MAX_CG		64
#define MAX_FULL	4000

struct cg_count {
	uint64_t cg;
	uint64_t n[GPULAT_FAM_MAX][8];
	/* of them, ended while a snapshot read the maps: in it or not */
	uint64_t edge[GPULAT_FAM_MAX][8];
};

/*
 * The window: each snapshot reads the maps from walk[i] to its time
 * (header time_ns); a sample that ended between may be in it or not.
 * Records past the second snapshot's time are not counted.
 */
static uint64_t walk[2], snap_t[2];
static int phase;	/* 0: before the first, 1: between, 2: after both */

static struct cg_count counts[MAX_CG];
static unsigned int nr_counts;
static uint64_t watched[GPULAT_CG_WATCH_MAX];
static unsigned int nr_watched;
static struct gpulat_rec_sample full[MAX_FULL];
static unsigned int nr_full;
static uint64_t lost, other_cg;

/* level - directories from @path up to the cgroup2 mount's root */
static int level(const char *path)
{
	char p[4096], up[4096];
	struct statfs fs;
	struct stat a, b;
	int n = 0;

	snprintf(p, sizeof(p), "%s", path);
	for (;;) {
		if (snprintf(up, sizeof(up), "%s/..", p) >= (int)sizeof(up))
			return -1;
		if (stat(p, &a) || stat(up, &b))
			return -1;
		if (statfs(up, &fs) || fs.f_type != CGROUP2_MAGIC ||
		    a.st_dev != b.st_dev)
			return n;
		n++;
		memcpy(p, up, sizeof(p));
	}
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void count(const struct gpulat_rec_sample *s)
{
	uint64_t t = s->hdr.time_ns;
	unsigned int i;
	bool edge;

	if (t < walk[0] || (phase == 2 && t > snap_t[1]))
		return;		/* before the first snapshot, after the second */
	edge = t <= snap_t[0] || (phase == 2 && t >= walk[1]);
	for (i = 0; i < nr_counts && counts[i].cg != s->cgroup_id; i++)
		;
	if (i == nr_counts) {
		if (nr_counts == MAX_CG) {
			other_cg++;
			return;
		}
		counts[nr_counts++].cg = s->cgroup_id;
	}
	if (s->family < GPULAT_FAM_MAX && s->series < 8) {
		counts[i].n[s->family][s->series]++;
		counts[i].edge[s->family][s->series] += edge;
	}
	if (s->family != GPULAT_FAM_SCHED || s->series != GPULAT_SCHED_WAKEUP)
		return;
	for (i = 0; i < nr_watched; i++)
		if (watched[i] == s->cgroup_id && nr_full < MAX_FULL)
			full[nr_full++] = *s;
}

static void drain(struct gl_source *src)
{
	static unsigned char buf[1 << 16];
	const struct gpulat_rec_header *h;
	ssize_t n, off;

	while ((n = gl_source_trace_read(src, buf, sizeof(buf))) > 0) {
		for (off = 0; off + (ssize_t)sizeof(*h) <= n; off += h->size) {
			h = (const void *)(buf + off);
			if (!h->size)
				break;
			if (h->type == GPULAT_REC_LOST)
				lost += ((const struct gpulat_rec_lost *)h)->lost;
			else if (h->type == GPULAT_REC_SAMPLE &&
				 h->size >= GPULAT_REC_SAMPLE_SIZE_VER1)
				count((const void *)h);
		}
	}
}

static uint64_t series_count(const struct gl_snapshot *s,
			     const struct gpulat_series *like)
{
	size_t i;

	for (i = 0; s && i < gl_snapshot_nr_series(s); i++) {
		const struct gpulat_series *sr = gl_snapshot_series(s, i);

		if (sr->family == like->family && sr->id == like->id &&
		    sr->cpu == like->cpu && sr->key == like->key)
			return sr->count;
	}
	return 0;
}

static uint64_t counter_value(const struct gl_snapshot *s,
			      const struct gpulat_counter *like)
{
	size_t i;

	for (i = 0; i < gl_snapshot_nr_counters(s); i++) {
		const struct gpulat_counter *c = gl_snapshot_counter(s, i);

		if (c->family == like->family && c->id == like->id)
			return c->value;
	}
	return 0;
}

static void print(const struct gl_snapshot *s0, const struct gl_snapshot *s1)
{
	unsigned int i, f, k;
	const char *sep = "";
	char name[GPULAT_NAME_LEN];

	printf("{\"watched\": [");
	for (i = 0; i < nr_watched; i++)
		printf("%s%" PRIu64, i ? ", " : "", watched[i]);
	printf("], \"lost\": %" PRIu64 ", \"other_cg\": %" PRIu64
	       ", \"series\": [", lost, other_cg);
	for (i = 0; i < gl_snapshot_nr_series(s1); i++) {
		const struct gpulat_series *sr = gl_snapshot_series(s1, i);

		if (sr->family != GPULAT_FAM_CGROUP &&
		    sr->family != GPULAT_FAM_MM)
			continue;
		printf("%s\n {\"name\": \"%.32s\", \"key\": %" PRIu64
		       ", \"key_name\": \"%.32s\", \"cpu\": %d, \"delta\": %"
		       PRIu64 "}", sep, sr->name, (uint64_t)sr->key, sr->key_name,
		       sr->cpu == GPULAT_CPU_NONE ? -1 : (int)sr->cpu,
		       (uint64_t)(sr->count - series_count(s0, sr)));
		sep = ",";
	}
	printf("],\n\"counters\": {");
	for (sep = "", i = 0; i < gl_snapshot_nr_counters(s1); i++) {
		const struct gpulat_counter *c = gl_snapshot_counter(s1, i);

		printf("%s\"%.32s\": %" PRIu64, sep, c->name,
		       (uint64_t)(c->value - counter_value(s0, c)));
		sep = ", ";
	}
	printf("},\n\"records\": {");
	for (sep = "", i = 0; i < nr_counts; i++) {
		const char *sep2 = "";

		printf("%s\n \"%" PRIu64 "\": {", sep, counts[i].cg);
		for (f = 1; f < GPULAT_FAM_MAX; f++)
			for (k = 0; k < 8; k++) {
				if (!counts[i].n[f][k])
					continue;
				gl_series_name(name, sizeof(name), f, k);
				printf("%s\"%s\": %" PRIu64 ", \"%s/edge\": %"
				       PRIu64, sep2, name, counts[i].n[f][k],
				       name, counts[i].edge[f][k]);
				sep2 = ", ";
			}
		printf("}");
		sep = ",";
	}
	printf("},\n\"sched\": [");
	for (sep = "", i = 0; i < nr_full; i++) {
		const struct gpulat_rec_sample *r = &full[i];

		printf("%s\n {\"pid\": %d, \"cgroup\": %" PRIu64
		       ", \"ns\": %" PRIu64 ", \"flags\": %u, \"culprits\": [",
		       sep, r->pid, (uint64_t)r->cgroup_id,
		       (uint64_t)r->latency_ns, r->flags);
		for (k = 0; k < r->nr_culprits && k < GPULAT_NR_CULPRITS; k++)
			printf("%s[%d, %" PRIu64 ", %" PRIu64 "]", k ? ", " : "",
			       r->culprits[k].pid, (uint64_t)r->culprit_cgroup[k],
			       (uint64_t)r->culprits[k].ns);
		printf("]}");
		sep = ",";
	}
	printf("]}\n");
}

int main(int argc, char **argv)
{
	struct gl_cgroup_watch w[GPULAT_CG_WATCH_MAX];
	struct gl_snapshot *s0 = NULL, *s1 = NULL;
	const char *stop = NULL;
	struct gl_source *src;
	char err[512] = "";
	unsigned int n = 0;
	struct stat st;
	uint64_t ns;
	int opt, ret, fam, pfd;
	char *eq;

	src = gl_source_open(GL_SOURCE_BPF, &ret, err, sizeof(err));
	if (!src) {
		fprintf(stderr, "cg_probe: %s\n", err);
		return 1;
	}
	while ((opt = getopt(argc, argv, "t:s:")) != -1) {
		if (opt == 's') {
			stop = optarg;
			continue;
		}
		eq = strchr(optarg, '=');
		if (opt != 't' || !eq)
			return 2;
		*eq = '\0';
		fam = gl_family_lookup(optarg);
		ns = strtoull(eq + 1, NULL, 0);
		if (fam < 0 || gl_source_threshold(src, fam, true, &ns)) {
			fprintf(stderr, "cg_probe: threshold %s\n", optarg);
			return 2;
		}
	}
	for (; optind < argc && n < GPULAT_CG_WATCH_MAX; optind++, n++) {
		w[n].fd = open(argv[optind], O_RDONLY | O_DIRECTORY);
		if (w[n].fd < 0 || fstat(w[n].fd, &st) ||
		    level(argv[optind]) < 0) {
			fprintf(stderr, "cg_probe: %s: %s\n", argv[optind],
				strerror(errno));
			return 1;
		}
		w[n].id = st.st_ino;
		w[n].level = level(argv[optind]);
	}
	if (!stop)
		return 2;
	ret = gl_source_cgroup_set(src, w, n);
	if (!ret)
		ret = gl_source_cgroup_get(src, watched, &nr_watched);
	if (ret) {
		fprintf(stderr, "cg_probe: watch: %s\n", strerror(-ret));
		return 1;
	}
	pfd = gl_source_poll_fd(src);
	walk[0] = mono_ns();
	if (pfd < 0 || gl_source_snapshot(src, &s0, err, sizeof(err))) {
		fprintf(stderr, "cg_probe: %s\n", err[0] ? err : "trace");
		return 1;
	}
	snap_t[0] = gl_snapshot_header(s0)->time_ns;
	phase = 1;
	printf("ready\n");
	fflush(stdout);
	while (access(stop, F_OK)) {
		struct pollfd p = { .fd = pfd, .events = POLLIN };

		poll(&p, 1, 20);
		drain(src);
	}
	drain(src);
	walk[1] = mono_ns();
	if (gl_source_snapshot(src, &s1, err, sizeof(err))) {
		fprintf(stderr, "cg_probe: %s\n", err);
		return 1;
	}
	snap_t[1] = gl_snapshot_header(s1)->time_ns;
	phase = 2;
	drain(src);
	print(s0, s1);
	gl_source_cgroup_set(src, w, 0);
	gl_snapshot_free(s0);
	gl_snapshot_free(s1);
	gl_source_close(src);
	return 0;
}
