// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder: a window of snapshots and records kept in memory,
 * written as a gpulat report bundle when something goes wrong.  The
 * bundle is the report engine's (engine/report*.c) fed a watch made of
 * copies of what the recorder holds, so it reads as any other report.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "flight.h"
#include "report.h"

#define FLIGHT_PREFIX	"gpulat-flight-"
#define FLIGHT_SUFFIX	".tar.gz"

int flight_init(struct flight *fl, const struct flight_opts *o)
{
	struct stat st;

	memset(fl, 0, sizeof(*fl));
	fl->o = *o;
	if (stat(o->dir, &st) || !S_ISDIR(st.st_mode) ||
	    access(o->dir, W_OK | X_OK)) {
		int ret = errno ? -errno : -ENOTDIR;

		fprintf(stderr, "gpulat: --flight %s: not a folder this process may write: %s\n",
			o->dir, strerror(-ret));
		return ret;
	}
	fl->recs = calloc(FLIGHT_MAX_RECS, sizeof(*fl->recs));
	if (!fl->recs) {
		fprintf(stderr, "gpulat: out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

static void flight_drop_report(struct flight *fl)
{
	if (fl->r) {
		report_release(fl->r);
		fl->r = NULL;
	}
}

void flight_free(struct flight *fl)
{
	size_t i;

	flight_drop_report(fl);
	for (i = 0; i < fl->nr_snaps; i++)
		free(fl->snaps[i].z);
	free(fl->snaps);
	free(fl->recs);
	memset(fl, 0, sizeof(*fl));
}

static void flight_pop_snap(struct flight *fl)
{
	fl->bytes -= fl->snaps[0].zlen;
	free(fl->snaps[0].z);
	memmove(fl->snaps, fl->snaps + 1,
		--fl->nr_snaps * sizeof(*fl->snaps));
}

void flight_add_snap(struct flight *fl, const struct gl_snapshot *s)
{
	/*
	 * a pending bundle still needs its window before the trigger, from
	 * the snapshot at or before its start, until it is written
	 */
	uint64_t keep_ns = (uint64_t)((fl->o.before_s + fl->o.after_s +
				       FLIGHT_LATE_S + 2) * 1e9);
	uint64_t now = gl_snapshot_header(s)->time_ns;
	struct flight_snap *n, *fs;
	const void *blob;
	uLongf zlen;
	size_t len;

	blob = gl_snapshot_blob(s, &len);
	if (!blob)
		goto drop;
	if (fl->nr_snaps == fl->cap_snaps) {
		size_t cap = fl->cap_snaps ? fl->cap_snaps * 2 : 64;

		n = realloc(fl->snaps, cap * sizeof(*n));
		if (!n)
			goto drop;
		fl->snaps = n;
		fl->cap_snaps = cap;
	}
	fs = &fl->snaps[fl->nr_snaps];
	zlen = compressBound(len);
	fs->z = malloc(zlen);
	/* level 1: the fastest; empty slots compress well at any level */
	if (!fs->z || compress2(fs->z, &zlen, blob, len, 1) != Z_OK) {
		free(fs->z);
		goto drop;
	}
	fs->time_ns = now;
	fs->len = len;
	fs->zlen = zlen;
	fl->nr_snaps++;
	fl->bytes += zlen;
	while (fl->nr_snaps > 1 && now - fl->snaps[0].time_ns > keep_ns)
		flight_pop_snap(fl);
	/* the memory bound wins over the window: counted, said in bundles */
	while (fl->nr_snaps > 2 && fl->bytes > fl->o.max_bytes) {
		flight_pop_snap(fl);
		fl->snaps_dropped++;
	}
	return;
drop:
	fl->snaps_dropped++;
}

enum prom_cause flight_add_rec(struct flight *fl,
			       const struct gl_trace_rec *rec)
{
	size_t at = (fl->rec_head + fl->nr_recs) % FLIGHT_MAX_RECS;
	const struct gpulat_rec_sample *s = &rec->u.sample;

	if (rec->type == GPULAT_REC_LOST)
		fl->lost += rec->u.lost.lost;
	if (fl->nr_recs == FLIGHT_MAX_RECS) {
		fl->rec_head = (fl->rec_head + 1) % FLIGHT_MAX_RECS;
		fl->recs_dropped++;
	} else {
		fl->nr_recs++;
	}
	fl->recs[at] = *rec;
	if (rec->type == GPULAT_REC_EVENT &&
	    rec->u.event.event.type == GPULAT_EVENT_XID)
		return PROM_CAUSE_XID;
	if (rec->type == GPULAT_REC_SAMPLE && s->family < GPULAT_FAM_MAX &&
	    fl->o.trigger_ns[s->family] &&
	    s->latency_ns >= fl->o.trigger_ns[s->family])
		return PROM_CAUSE_OUTLIER;
	return PROM_NR_CAUSES;
}

/* flight_report - the bundle's report, begun at the trigger */
static struct report *flight_report(struct flight *fl, const char *why)
{
	struct report *r = calloc(1, sizeof(*r));
	time_t t = time(NULL);
	char stamp[32];
	struct tm tm;
	int i;

	if (!r)
		return NULL;
	r->root = fl->o.root;
	r->interval_s = 1;
	r->duration_s = fl->o.before_s + fl->o.after_s;
	snprintf(r->kernel, sizeof(r->kernel), "%s", fl->kernel);
	snprintf(r->source, sizeof(r->source), "%s", fl->source);
	snprintf(r->trigger, sizeof(r->trigger), "%s", why);
	r->major = fl->major;
	r->minor = fl->minor;
	report_name(r);
	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	/* two bundles in one second (--flight-gap 0): -2, -3... */
	for (i = 1; i < 100; i++) {
		snprintf(r->top, sizeof(r->top), FLIGHT_PREFIX "%.100s-%s%s%.0d",
			 r->host, stamp, i > 1 ? "-" : "", i > 1 ? i : 0);
		free(r->out);
		if (asprintf(&r->out, "%s/%s" FLIGHT_SUFFIX, fl->o.dir,
			     r->top) < 0) {
			r->out = NULL;
			goto fail;
		}
		if (access(r->out, F_OK))
			break;
	}
	if (report_workdir(r))
		goto fail;
	/* host counters from the trigger on: their deltas cover the after */
	if (hostfacts_start(&r->hf, r->root, &r->b))
		goto fail;
	return r;
fail:
	report_release(r);
	return NULL;
}

bool flight_trigger(struct flight *fl, uint64_t now_ns, const char *why)
{
	double now = now_ns / 1e9;

	if (fl->r || (fl->any && now - fl->last_s < fl->o.gap_s))
		return false;
	fl->r = flight_report(fl, why);
	if (!fl->r) {
		fprintf(stderr, "gpulat: flight recorder: cannot begin a bundle for %s\n",
			why);
		return false;
	}
	fl->trigger_ns = now_ns;
	fl->last_s = now;
	fl->any = true;
	fprintf(stderr, "gpulat: flight recorder: %s; writing %.0f s before and %.0f s after\n",
		why, fl->o.before_s, fl->o.after_s);
	return true;
}

/* flight_verdict - see flight.h */
void flight_verdict(struct flight *fl, const char *text)
{
	if (fl->r)
		snprintf(fl->r->verdict, sizeof(fl->r->verdict), "%s", text);
}

/* flight_unpack - the snapshot @fs holds, for the watch to own */
static struct gl_snapshot *flight_unpack(const struct flight_snap *fs)
{
	struct gl_snapshot *s = NULL;
	uLongf len = fs->len;
	unsigned char *blob = malloc(fs->len);

	if (blob && uncompress(blob, &len, fs->z, fs->zlen) == Z_OK &&
	    len == fs->len && gl_snapshot_parse(blob, len, &s, NULL, 0))
		s = NULL;
	free(blob);
	return s;
}

/* flight_watch - the watch of the window around the trigger, copied */
static int flight_watch(struct flight *fl, struct watch *w)
{
	uint64_t before = (uint64_t)(fl->o.before_s * 1e9);
	/* CLOCK_MONOTONIC starts at boot: a trigger may come before_s into it */
	uint64_t from = fl->trigger_ns > before ? fl->trigger_ns - before : 0;
	size_t first = 0, i, n;
	const struct gl_trace_rec *rec;
	uint64_t t0, t1;

	memset(w, 0, sizeof(*w));
	/* from the newest snapshot at or before @from: before_s whole */
	while (first + 1 < fl->nr_snaps &&
	       fl->snaps[first + 1].time_ns <= from)
		first++;
	if (fl->nr_snaps - first < 2)
		return -ENODATA;
	w->start = flight_unpack(&fl->snaps[first]);
	w->end = flight_unpack(&fl->snaps[fl->nr_snaps - 1]);
	n = fl->nr_snaps - first - 2;
	w->intervals = calloc(n ? n : 1, sizeof(*w->intervals));
	if (!w->start || !w->end || !w->intervals)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		w->intervals[i] = flight_unpack(&fl->snaps[first + 1 + i]);
		if (!w->intervals[i])
			return -ENOMEM;
		w->nr_intervals++;
	}
	if (gl_snapshot_diff(w->start, w->end, &w->window))
		return -ENOMEM;
	t0 = fl->snaps[first].time_ns;
	t1 = fl->snaps[fl->nr_snaps - 1].time_ns;
	w->duration_s = (t1 - t0) / 1e9;
	w->recs = calloc(fl->nr_recs ? fl->nr_recs : 1, sizeof(*w->recs));
	if (!w->recs)
		return -ENOMEM;
	for (i = 0; i < fl->nr_recs; i++) {
		rec = &fl->recs[(fl->rec_head + i) % FLIGHT_MAX_RECS];
		if (rec->time_ns >= t0 && rec->time_ns <= t1)
			w->recs[w->nr_recs++] = *rec;
	}
	w->lost = fl->lost;
	w->dropped = fl->recs_dropped;
	w->trace_ok = true;
	memcpy(w->thresholds, fl->thresholds, sizeof(w->thresholds));
	return 0;
}

struct flight_file {
	char *name;
	struct timespec mtime;
};

/* oldest first: by the time written, then by name (-2 after none) */
static int flight_file_cmp(const void *a, const void *b)
{
	const struct flight_file *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* flight_prune - keep the newest o.keep bundles of the folder */
static void flight_prune(struct flight *fl)
{
	size_t n = 0, cap = 0, i, plen = strlen(FLIGHT_PREFIX);
	size_t slen = strlen(FLIGHT_SUFFIX), len;
	struct flight_file *files = NULL, *nf;
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(fl->o.dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len <= plen + slen ||
		    strncmp(de->d_name, FLIGHT_PREFIX, plen) ||
		    strcmp(de->d_name + len - slen, FLIGHT_SUFFIX))
			continue;
		snprintf(path, sizeof(path), "%s/%s", fl->o.dir, de->d_name);
		if (lstat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			nf = realloc(files, cap * sizeof(*files));
			if (!nf)
				break;
			files = nf;
		}
		files[n].name = strdup(de->d_name);
		files[n].mtime = st.st_mtim;
		if (files[n].name)
			n++;
	}
	closedir(d);
	qsort(files, n, sizeof(*files), flight_file_cmp);
	for (i = 0; i + fl->o.keep < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", fl->o.dir, files[i].name);
		if (unlink(path))
			fprintf(stderr, "gpulat: flight recorder: cannot remove %s: %s\n",
				path, strerror(errno));
	}
	for (i = 0; i < n; i++)
		free(files[i].name);
	free(files);
}

static int flight_write(struct flight *fl)
{
	struct report *r = fl->r;
	int ret;

	r->watch_tried = true;
	ret = flight_watch(fl, &r->w);
	if (ret) {
		fprintf(stderr, "gpulat: flight recorder: no window to write: %s\n",
			strerror(-ret));
		goto out;
	}
	r->watched = true;
	if (fl->snaps_dropped)
		snprintf(r->trigger + strlen(r->trigger),
			 sizeof(r->trigger) - strlen(r->trigger),
			 " (%llu snapshots dropped for the memory bound)",
			 (unsigned long long)fl->snaps_dropped);
	ret = report_write(r);
	if (!ret)
		ret = report_archive(r);
	if (!ret) {
		fprintf(stderr, "gpulat: flight recorder: wrote %s\n", r->out);
		flight_prune(fl);
	}
out:
	flight_drop_report(fl);
	return ret ? ret : 1;
}

int flight_tick(struct flight *fl, uint64_t now_ns)
{
	uint64_t due = fl->trigger_ns + (uint64_t)(fl->o.after_s * 1e9);

	if (!fl->r || now_ns < due)
		return 0;
	/* until a snapshot at or after @due ends the window: after_s whole */
	if ((!fl->nr_snaps ||
	     fl->snaps[fl->nr_snaps - 1].time_ns < due) &&
	    now_ns < due + FLIGHT_LATE_S * 1000000000ULL)
		return 0;
	return flight_write(fl);
}

int flight_flush(struct flight *fl, uint64_t now_ns)
{
	(void)now_ns;
	return fl->r ? flight_write(fl) : 0;
}
