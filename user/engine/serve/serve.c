// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat serve, the loop: one snapshot a second, the trace in between.
 * Everything a scrape or the textfile collector reads is rendered here,
 * once per snapshot; the HTTP thread only hands it out.
 */
#include <malloc.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/serve/serve.h"
#include "engine/verdict/verdict.h"
#include "engine/view/view.h"
#include "engine/watch/watch.h"
#include "lib/units.h"

/* Longest sleep of the loop: how late a signal or a tick may be seen. */
#define SERVE_POLL_MS	200
/* Xids remembered as triggers, past the module's ring of 64 events */
#define SERVE_XIDS_DONE	128

static volatile sig_atomic_t serve_usr1;

static void serve_on_usr1(int sig)
{
	(void)sig;
	serve_usr1 = 1;
}

static uint64_t serve_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct serve {
	const struct serve_conf *c;
	struct gl_source *src;
	struct prom_state p;
	struct serve_http *http;
	struct flight fl;
	bool flight_on;
	struct verdict v;
	bool verdict_on;
	struct gl_snapshot *names;	/* the newest snapshot, for names */
	uint64_t next_textfile_ns;
	struct serve_tf tf;
	struct watch *tw;		/* the trace's: thresholds and losses */
	/*
	 * Each Xid triggers once, whether its trace record or a snapshot's
	 * events show it first (the record may be lost: the trace's ring
	 * overflows under a flood of outliers, the events' ring does not):
	 * the last Xids that did, and the newest event time a snapshot had.
	 */
	struct gpulat_event xids_done[SERVE_XIDS_DONE];
	size_t nr_xids_done, xids_done_at;
	uint64_t xid_snap_ns;
	bool xid_snap_seen;		/* xid_snap_ns is set */
};

/* a bundle's trigger, and the rolling verdict of its moment */
static void serve_trigger(struct serve *sv, enum prom_cause cause,
			  const char *why)
{
	char v[300];

	sv->p.flight_triggers[cause]++;
	if (!flight_trigger(&sv->fl, serve_mono_ns(), why)) {
		sv->p.flight_suppressed++;
		return;
	}
	if (sv->verdict_on)
		flight_verdict(&sv->fl, verdict_text(v, sizeof(v), &sv->v));
}

/* serve_xid_first - whether Xid @ev triggers now (seen for the first time) */
static bool serve_xid_first(struct serve *sv, const struct gpulat_event *ev)
{
	const struct gpulat_event *d;
	size_t i;

	for (i = 0; i < sv->nr_xids_done; i++) {
		d = &sv->xids_done[i];
		if (d->time_ns == ev->time_ns && d->code == ev->code &&
		    !strncmp(d->device, ev->device, sizeof(d->device)))
			return false;
	}
	sv->xids_done[sv->xids_done_at] = *ev;
	sv->xids_done_at = (sv->xids_done_at + 1) % SERVE_XIDS_DONE;
	if (sv->nr_xids_done < SERVE_XIDS_DONE)
		sv->nr_xids_done++;
	return true;
}

/*
 * serve_snap_xids - the Xids of @s that no trace record showed (the
 * trace was read just before it, or the source has none); those from
 * before the daemon started trigger nothing, as they count for nothing
 */
static void serve_snap_xids(struct serve *sv, const struct gl_snapshot *s)
{
	const struct gpulat_event *ev;
	uint64_t newest = sv->xid_snap_ns;
	char why[256], dev[sizeof(ev->device) + 1];
	size_t i;

	for (i = 0; i < gl_snapshot_nr_events(s); i++) {
		ev = gl_snapshot_event(s, i);
		if (ev->type != GPULAT_EVENT_XID ||
		    (sv->xid_snap_seen && ev->time_ns <= sv->xid_snap_ns))
			continue;
		if (ev->time_ns > newest)
			newest = ev->time_ns;
		if (ev->time_ns < sv->p.xid_from_ns || !serve_xid_first(sv, ev))
			continue;
		memcpy(dev, ev->device, sizeof(ev->device));
		dev[sizeof(ev->device)] = '\0';
		snprintf(why, sizeof(why),
			 "Xid %u on %.32s (CPU %u; seen in a snapshot%s)",
			 ev->code, dev, ev->cpu, sv->tw->trace_ok ?
			 ", its trace record lost" : ": no trace");
		serve_trigger(sv, PROM_CAUSE_XID, why);
	}
	sv->xid_snap_ns = newest;
	sv->xid_snap_seen = true;
}

/* serve_on_rec - a trace record: kept by the recorder, maybe a trigger */
static void serve_on_rec(const struct gl_trace_rec *r, void *arg)
{
	struct serve *sv = arg;
	const struct gpulat_rec_sample *s = &r->u.sample;
	char why[256], lat[UNITS_LEN], bound[UNITS_LEN], name[64];
	enum prom_cause cause;

	if (r->type == GPULAT_REC_LOST)
		sv->p.trace_lost += r->u.lost.lost;
	if (r->type == GPULAT_REC_SAMPLE)
		sv->p.trace_records++;
	if (sv->verdict_on)
		verdict_add_rec(&sv->v, r);
	if (!sv->flight_on)
		return;
	cause = flight_add_rec(&sv->fl, r);
	if (cause == PROM_CAUSE_XID) {
		if (!serve_xid_first(sv, &r->u.event.event))
			return;		/* a snapshot's events showed it */
		snprintf(why, sizeof(why), "Xid %u on %.32s (CPU %u)",
			 r->u.event.event.code, r->u.event.event.device,
			 r->cpu);
	} else if (cause == PROM_CAUSE_OUTLIER) {
		snprintf(why, sizeof(why),
			 "outlier %s %s on CPU %u, pid %d %.16s, at or over the bound %s",
			 trace_series_name(name, sizeof(name), sv->names,
					   s->family, s->series),
			 units_ns(lat, sizeof(lat), s->latency_ns), r->cpu,
			 s->pid, s->comm,
			 units_ns(bound, sizeof(bound),
				  sv->fl.o.trigger_ns[s->family]));
	} else {
		return;
	}
	serve_trigger(sv, cause, why);
}

/* serve_render - the exposition of @s as one buffer; NULL on failure */
static char *serve_render(struct serve *sv, const struct gl_snapshot *s,
			  size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int ret;

	if (!f)
		return NULL;
	ret = prom_write(&sv->p, s, f);
	if (!ret && sv->verdict_on)
		verdict_prom(f, &sv->v);
	if (fclose(f) || ret) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* serve_flight_counts - the recorder's outcomes, for the exporter */
static void serve_flight_counts(struct serve *sv)
{
	if (!sv->flight_on)
		return;
	sv->p.flight_bundles = sv->fl.written;
	memcpy(sv->p.flight_failed, sv->fl.failed,
	       sizeof(sv->p.flight_failed));
	sv->p.flight_bytes = sv->fl.dir_bytes;
}

static void serve_tick(struct serve *sv)
{
	struct gl_snapshot *s = NULL;
	struct timespec now;
	char msg[256], *buf;
	uint64_t mono = serve_mono_ns();
	size_t len;
	int ret;

	/*
	 * the trace first: an Xid of the snapshot that its record did not
	 * show is one whose record was lost (read errors: the loop's next
	 * read says them)
	 */
	if (sv->flight_on && sv->tw->trace_ok)
		watch_read_trace(sv->src, sv->tw, serve_on_rec, sv, stderr);
	/* a driver loaded after the daemon: its family attaches now */
	gl_source_refresh(sv->src);
	ret = gl_source_snapshot(sv->src, &s, msg, sizeof(msg));
	if (ret) {
		/* said on every failure: the operator's log shows how long */
		fprintf(stderr, "gpulat: snapshot failed: %s\n", msg);
		sv->p.snapshot_errors++;
		s = NULL;
	} else {
		prom_count_events(&sv->p, s);
		clock_gettime(CLOCK_REALTIME, &now);
		sv->p.last_snapshot_unix = now.tv_sec + now.tv_nsec / 1e9;
		if (sv->verdict_on) {
			verdict_add_snap(&sv->v, s);
			verdict_compute(&sv->v);
		}
	}
	serve_flight_counts(sv);
	if (sv->http)
		serve_http_counts(sv->http, sv->p.http_refused);
	buf = serve_render(sv, s ? s : sv->names, &len);
	if (buf && sv->tf.on && mono >= sv->next_textfile_ns) {
		sv->next_textfile_ns = mono + (uint64_t)(SERVE_TEXTFILE_S * 1e9);
		serve_tf_hand(&sv->tf, buf, len);
	}
	if (buf && sv->http)
		serve_http_publish(sv->http, buf, len);	/* takes buf */
	else
		free(buf);
	if (!s)
		return;
	if (sv->flight_on) {
		serve_snap_xids(sv, s);
		flight_add_snap(&sv->fl, s);
	}
	gl_snapshot_free(sv->names);
	sv->names = s;
}

/*
 * serve_start - HTTP and the recorder, then the source: a bad address or
 * folder fails before the source loads; an enum gpulat_exit
 */
static int serve_start(struct serve *sv, uint32_t *major, uint32_t *minor,
		       bool *open_failed)
{
	const struct serve_conf *c = sv->c;
	struct flight_opts fo = c->flight;
	int ret;

	prom_init(&sv->p);
	if (c->buckets)
		sv->p.per_octave = c->buckets;
	if (c->max_keys)
		sv->p.max_keys = c->max_keys;
	sv->p.per_cpu = c->per_cpu;
	if (c->all_buckets)
		sv->p.all_buckets = true;
	sv->p.xid_from_ns = serve_mono_ns();
	sv->p.root = getenv("GPULAT_SYSROOT");
	sv->p.version = c->version;
	sv->p.kernel = c->kernel;
	if (c->listen) {
		/* scrapes until the first snapshot are answered 503 */
		sv->http = serve_http_start(c->listen);
		if (!sv->http)
			return -EINVAL;
	}
	if (c->textfile && serve_tf_start(&sv->tf, c->textfile))
		return -EINVAL;
	if (fo.dir) {
		fo.max_bytes = FLIGHT_MAX_BYTES;
		fo.root = sv->p.root ? sv->p.root : "";
		ret = flight_init(&sv->fl, &fo);
		if (ret)
			return ret;
		sv->flight_on = true;
	}
	if (c->verdict_s > 0) {
		if (verdict_init(&sv->v, c->verdict_s)) {
			fprintf(stderr, "gpulat: out of memory\n");
			return -ENOMEM;
		}
		sv->verdict_on = true;
	}
	ret = c->open(c->open_ctx, &sv->src, major, minor);
	if (ret) {
		*open_failed = true;
		return ret;
	}
	sv->p.source = gl_source_kind(sv->src) == GL_SOURCE_BPF ? "bpf" :
		       "kmod";
	if (sv->flight_on) {
		gl_source_describe(sv->src, sv->fl.source,
				   sizeof(sv->fl.source));
		snprintf(sv->fl.kernel, sizeof(sv->fl.kernel), "%s",
			 sv->p.kernel ? sv->p.kernel : "");
		sv->fl.major = *major;
		sv->fl.minor = *minor;
	}
	return 0;
}

static void serve_announce(const struct serve *sv)
{
	const struct serve_conf *c = sv->c;
	const struct flight_opts *f = &c->flight;
	char desc[160];

	fprintf(stderr, "gpulat serve: %s", gl_source_describe(sv->src, desc,
							     sizeof(desc)));
	if (sv->http)
		fprintf(stderr, "; http://%s/metrics",
			serve_http_where(sv->http, desc, sizeof(desc)));
	if (c->textfile)
		fprintf(stderr, "; %s/%s every %.0f s", c->textfile,
			SERVE_TEXTFILE_NAME, SERVE_TEXTFILE_S);
	if (sv->flight_on)
		fprintf(stderr, "; flight recorder in %s (%.0f s before, %.0f s after, one per %.0f s, %lu kept, %llu MiB at most)",
			f->dir, f->before_s, f->after_s, f->gap_s, f->keep,
			(unsigned long long)(f->dir_bytes >> 20));
	if (sv->verdict_on)
		fprintf(stderr, "; a verdict over the last %.0f s at every snapshot",
			c->verdict_s);
	fprintf(stderr, "\n");
}

/*
 * serve_malloc_setup - keep the snapshots' memory in the process: a large
 * host's snapshot is 11 MB, allocated and freed every second; glibc would
 * map and unmap each (its threshold follows the last freed size), so each
 * page was faulted in anew, a third of a tick's CPU at 224 CPUs.  Blocks
 * up to 32 MB (glibc's largest threshold) come from the heap instead, and
 * the heap is kept up to 256 MB free.
 */
void serve_malloc_setup(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

/* serve_on_interval - a tick: one snapshot for every output */
static int serve_on_interval(double seconds, void *arg)
{
	(void)seconds;
	serve_tick(arg);
	return 0;
}

/* serve_on_turn - a SIGUSR1's bundle, the flight recorder's clock */
static void serve_on_turn(void *arg)
{
	struct serve *sv = arg;

	if (serve_usr1) {
		serve_usr1 = 0;
		if (sv->flight_on)
			serve_trigger(sv, PROM_CAUSE_SIGNAL, "SIGUSR1");
	}
	if (sv->flight_on) {
		flight_reap(&sv->fl, false);
		flight_tick(&sv->fl, serve_mono_ns());
	}
}

static int serve_poll_fd(void *arg)
{
	struct serve *sv = arg;

	return sv->tw->trace_ok ? gl_source_poll_fd(sv->src) : -1;
}

static bool serve_pending(void *arg)
{
	return gl_source_trace_pending(((struct serve *)arg)->src);
}

static int serve_on_ready(void *arg)
{
	struct serve *sv = arg;

	return watch_read_trace(sv->src, sv->tw, serve_on_rec, sv, stderr) ?
	       -EIO : 0;
}

int serve_loop(const struct serve_conf *c, bool *open_failed)
{
	uint64_t old[GPULAT_FAM_MAX] = { 0 };
	struct watch tw = { 0 };	/* thresholds and losses only */
	struct serve sv = { .c = c, .tw = &tw };
	struct interval_clock clock = {
		.interval_s = SERVE_TICK_S,
		.first_at_once = true,
		.no_burst = true,
		.tick_ms = SERVE_POLL_MS,
		.stopped = watch_stopped,
		.on_interval = serve_on_interval,
		.poll_fd = serve_poll_fd,
		.pending = serve_pending,
		.on_ready = serve_on_ready,
		.on_tick = serve_on_turn,
		.arg = &sv,
	};
	struct sigaction sa;
	uint32_t major, minor;
	int ret;
	bool thresholds = false;

	*open_failed = false;
	serve_malloc_setup();
	ret = serve_start(&sv, &major, &minor, open_failed);
	if (ret)
		goto out;
	if (minor >= 2) {
		ret = watch_begin_thresholds(sv.src, &tw, c->thresholds,
					     c->thresholds_set, old, stderr);
		if (ret) {
			goto out;
		}
		thresholds = true;
		memcpy(sv.fl.thresholds, tw.thresholds,
		       sizeof(sv.fl.thresholds));
		memcpy(sv.v.thresholds, tw.thresholds,
		       sizeof(sv.v.thresholds));
		sv.v.trace_ok = tw.trace_ok;
	}
	watch_stop_on_signal();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = serve_on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	serve_announce(&sv);
	/* the first poll makes this process a reader of the trace */
	if (tw.trace_ok)
		watch_read_trace(sv.src, &tw, serve_on_rec, &sv, stderr);
	ret = interval_clock_run(&clock);
	/* a bundle under way is written with what there is */
	if (sv.flight_on)
		flight_flush(&sv.fl);
out:
	if (thresholds)
		watch_end_thresholds(sv.src, &tw, c->thresholds_set, old);
	serve_http_stop(sv.http);
	serve_tf_stop(&sv.tf);
	if (sv.flight_on)
		flight_free(&sv.fl);
	if (sv.verdict_on)
		verdict_free(&sv.v);
	gl_snapshot_free(sv.names);
	prom_free(&sv.p);
	gl_source_close(sv.src);
	return ret;
}
