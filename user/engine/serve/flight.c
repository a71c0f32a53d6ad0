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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "engine/report/report.h"
#include "engine/serve/flight_int.h"
#include "lib/outfile.h"

int flight_init(struct flight *fl, const struct flight_opts *o)
{
	struct stat st;
	int n;

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
	fl->writer_fd = -1;
	/* what a writer killed with its daemon left: temporaries, folders */
	n = gl_out_sweep(o->dir, NULL);
	if (n > 0)
		fprintf(stderr, "gpulat: flight recorder: removed %d unfinished bundle%s from %s\n",
			n, n > 1 ? "s" : "", o->dir);
	report_sweep();
	fl->dir_bytes = flight_make_room(fl, 0, 0, true);
	return 0;
}

void flight_drop_report(struct flight *fl)
{
	if (fl->r) {
		report_release(fl->r);
		fl->r = NULL;
	}
}

void flight_free(struct flight *fl)
{
	size_t i;

	if (fl->writer > 0) {
		kill(fl->writer, SIGKILL);
		waitpid(fl->writer, NULL, 0);
	}
	if (fl->writer_fd >= 0)
		close(fl->writer_fd);
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
	r->mode = fl->o.mode;
	report_name(r);
	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	/* the archive's name is the writer's to choose (flight_pack) */
	snprintf(r->top, sizeof(r->top), FLIGHT_PREFIX "%.100s-%s", r->host,
		 stamp);
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

/* flight_watch - see flight_int.h */
int flight_watch(struct flight *fl, struct watch *w)
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
