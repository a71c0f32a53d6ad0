// SPDX-License-Identifier: GPL-2.0
/* gpulat trace: outliers as they happen. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "engine/gpusample/gpusample.h"
#include "engine/view/view.h"
#include "engine/watch/watch.h"
#include "lib/json.h"
#include "lib/units.h"

struct trace_out {
	const struct gpulat_opts *o;
	struct gl_snapshot *names;
	struct gl_source *src;
	uint64_t samples, events;
	time_t names_at;
	uint64_t names_for;		/* the key names were fetched for */
	bool write_failed;
	struct trace_nvml nvml;		/* Xids of NVML's events */
};

/* trace_out_flush - a closed pipe (gpulat trace | head): stop */
static void trace_out_flush(struct trace_out *t)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		t->write_failed = true;
		watch_request_stop();
	}
}

static void trace_out_nvml(uint64_t time_ns, uint32_t code,
			   const char *device, void *arg)
{
	struct trace_out *t = arg;

	t->events++;
	trace_print_nvml_xid(stdout, t->o->json, time_ns, code, device);
	trace_out_flush(t);
}

static void trace_tick(void *arg)
{
	struct trace_out *t = arg;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	tn_tick(&t->nvml, (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec);
}

/* trace_out_rec - print one record as it arrives */
static void trace_out_rec(const struct gl_trace_rec *r, void *arg)
{
	struct trace_out *t = arg;
	struct gl_snapshot *s;
	time_t now = time(NULL);

	if (r->type == GPULAT_REC_SAMPLE) {
		t->samples++;
		/*
		 * a key born after the last snapshot: fetch names again, once
		 * a second, and at once for another new key (a BPF source
		 * loaded for this command sees every key born)
		 */
		if (trace_has_key(r->u.sample.family) &&
		    (now != t->names_at || r->u.sample.key != t->names_for) &&
		    !trace_key_name(t->names, r->u.sample.family,
				    r->u.sample.key) &&
		    !gl_source_snapshot(t->src, &s, NULL, 0)) {
			gl_snapshot_free(t->names);
			t->names = s;
			t->names_at = now;
			t->names_for = r->u.sample.key;
		}
	} else if (r->type == GPULAT_REC_EVENT) {
		t->events++;
		if (r->u.event.event.type == GPULAT_EVENT_XID)
			tn_kernel_xid(&t->nvml, r->u.event.event.time_ns,
				      r->u.event.event.code,
				      r->u.event.event.device);
	}
	if (t->o->json)
		trace_print_json(stdout, r, t->names);
	else
		trace_print_text(stdout, r, t->names);
	/* a closed pipe (gpulat trace | head): stop, thresholds put back */
	trace_out_flush(t);
}

/* trace_nvml_summary - what NVML's events added, or why they could not */
static void trace_nvml_summary(const struct trace_out *t,
			       const struct gs_timeline *tl)
{
	if (tl->start_failed) {
		fprintf(stderr, "gpulat: no Xids from NVML: %s\n", tl->absent);
		return;
	}
	if (!tl->started || (!tl->present && !tl->hung))
		return;	/* no NVML here: nothing to say */
	if (tl->hung)
		fprintf(stderr, "gpulat: NVML: %s\n", tl->hung_why);
	else if (!tl->events)
		fprintf(stderr, "gpulat: NVML gives no Xid events: %s\n",
			tl->events_why);
	else
		fprintf(stderr,
			"gpulat: Xids from NVML's events: %" PRIu64 " printed, %" PRIu64 " also seen by the tracepoint (printed once), %" PRIu64 " lost, %" PRIu64 " printed early in a storm (may be printed twice)\n",
			t->nvml.printed, t->nvml.merged, t->nvml.lost,
			t->nvml.early);
}

int trace_run(const struct gpulat_opts *o)
{
	struct trace_out t = { .o = o };
	struct gs_timeline tl;
	char a[UNITS_LEN], why[160];
	double every;
	struct watch w;
	uint32_t major, minor;
	size_t f;
	struct gl_source *src;
	uint64_t self0 = 0, self1 = 0;
	bool have_self;
	int ret;

	every = gs_interval(o->has_gpu_interval ? o->gpu_interval_s : -1,
			    why, sizeof(why));
	if (every < 0) {
		fprintf(stderr, "gpulat: trace: %s\n", why);
		return GPULAT_EXIT_ERROR;
	}
	ret = gpulat_source_open(o, &src, &major, &minor, stderr);
	if (ret)
		return gpulat_device_exit(ret);
	if (minor < 2) {
		fprintf(stderr,
			"gpulat: the loaded module (ABI %u.%u) has no outlier trace; load one of ABI 1.2 or later\n",
			major, minor);
		gl_source_close(src);
		return GPULAT_EXIT_INCOMPATIBLE;
	}
	t.src = src;
	if (gl_source_snapshot(src, &t.names, NULL, 0))
		t.names = NULL;	/* keys print as numbers */
	t.names_at = time(NULL);
	watch_stop_on_signal();
	/* NVML's Xids, for drivers without the tracepoint; no GPU polled */
	if (every > 0 && !tn_start(&t.nvml, trace_out_nvml, &t))
		watch_set_tick(trace_tick, &t);
	have_self = !gl_source_trace_self_left(src, &self0);
	ret = watch_run(src, o->has_duration ? o->duration_s : 0, 0, false,
			o->thresholds, o->thresholds_set, &w, trace_out_rec,
			&t, stderr);
	watch_set_tick(NULL, NULL);
	tn_stop(&t.nvml, &tl);
	if (!ret) {
		if (!o->json) {
			fprintf(stderr, "gpulat: %" PRIu64 " outliers, %" PRIu64
				" events, %" PRIu64 " records lost; thresholds:",
				t.samples, t.events, w.lost);
			for (f = 1; f < GPULAT_FAM_MAX; f++)
				fprintf(stderr, " %s=%s",
					gl_family_name(f) ?
					gl_family_name(f) : "?",
					w.thresholds[f] ?
					units_ns(a, sizeof(a),
						 w.thresholds[f]) : "off");
			fputc('\n', stderr);
			trace_nvml_summary(&t, &tl);
		}
		/* stderr in both forms: not part of the JSON stream */
		if (have_self && !gl_source_trace_self_left(src, &self1))
			fprintf(stderr,
				"gpulat: %" PRIu64 " records about the trace's own readers left out of every reader's trace (trace_self_left)\n",
				self1 - self0);
		watch_free(&w);
	} else {
		ret = GPULAT_EXIT_ERROR;	/* watch_run() said why */
	}
	gs_timeline_free(&tl);
	gl_snapshot_free(t.names);
	gl_source_close(src);
	if (!ret && t.write_failed) {
		fprintf(stderr, "gpulat: writing the trace failed: %s\n",
			strerror(errno));
		ret = GPULAT_EXIT_ERROR;
	}
	return ret;
}

static const char usage_trace[] =
"usage: gpulat trace [-t FAMILY=DURATION]... [-j] [-d SECONDS]\n"
"                    [--gpu-interval 0]\n"
"\n"
"Stream every sample at or over its family's outlier threshold as it\n"
"happens, one line each: time, CPU, series, latency, the task it\n"
"happened to, the key (disk, device, IRQ) and, for a wait for a CPU, the\n"
"culprit: the tasks that held the CPU meanwhile and the hard IRQ and\n"
"softirq time that landed on it.  NVIDIA Xid events appear on the same\n"
"timeline: the driver's tracepoint's, and NVML's events' where NVML is\n"
"present (\"(from NVML)\"; one both saw prints once, as the\n"
"tracepoint's; no GPU is polled).  Records lost to a full buffer are\n"
"reported with their count.\n"
"A threshold given here holds while gpulat runs; the module's own\n"
"(module parameters FAMILY_threshold_us) apply to the rest.\n"
"\n"
"options:\n"
"  -t, --threshold FAMILY=DURATION  e.g. sched=5ms, block=20ms, irq=200us;\n"
"                    units ns, us, ms, s; 0 or off: no trace for FAMILY\n"
"  -j, --json        JSON lines, one object per record\n"
"  -d, --duration SECONDS  stop after SECONDS, 0.1 to 86400 (default:\n"
"                    until Ctrl-C)\n"
"      --gpu-interval 0  do not wait for NVML's Xid events (any other\n"
"                    value, 0.2 to 60, waits for them)\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat trace                      # outliers over the default thresholds\n"
"    gpulat trace -t sched=2ms -t nvidia=500us   # lower two thresholds\n"
"    gpulat trace -j -d 60 > out.jsonl # one minute as JSON lines\n";

const struct gpulat_command cmd_trace = {
	.name = "trace",
	.summary = "stream outliers as they happen, with the culprit",
	.usage = usage_trace,
	.optstring = "hjt:d:N:",
	.run = trace_run,
};
