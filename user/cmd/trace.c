// SPDX-License-Identifier: GPL-2.0
/* gpulat trace: outliers as they happen. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpulat.h"
#include "json.h"
#include "trace.h"
#include "units.h"
#include "watch.h"

struct trace_out {
	const struct gpulat_opts *o;
	struct gl_snapshot *names;
	struct gl_source *src;
	uint64_t samples, events;
	time_t names_at;
	uint64_t names_for;		/* the key names were fetched for */
	bool write_failed;
};

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
	}
	if (t->o->json)
		trace_print_json(stdout, r, t->names);
	else
		trace_print_text(stdout, r, t->names);
	/* a closed pipe (gpulat trace | head): stop, thresholds put back */
	if (fflush(stdout) == EOF || ferror(stdout)) {
		t->write_failed = true;
		watch_request_stop();
	}
}

int trace_run(const struct gpulat_opts *o)
{
	struct trace_out t = { .o = o };
	char a[UNITS_LEN];
	struct watch w;
	uint32_t major, minor;
	size_t f;
	struct gl_source *src;
	int ret;

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
	ret = watch_run(src, o->has_duration ? o->duration_s : 0, 0, false,
			o->thresholds, o->thresholds_set, &w, trace_out_rec,
			&t, stderr);
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
		}
		watch_free(&w);
	} else {
		ret = GPULAT_EXIT_ERROR;	/* watch_run() said why */
	}
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
"\n"
"Stream every sample at or over its family's outlier threshold as it\n"
"happens, one line each: time, CPU, series, latency, the task it\n"
"happened to, the key (disk, device, IRQ) and, for a wait for a CPU, the\n"
"culprit: the tasks that held the CPU meanwhile and the hard IRQ and\n"
"softirq time that landed on it.  NVIDIA Xid events appear on the same\n"
"timeline.  Records lost to a full buffer are reported with their count.\n"
"A threshold given here holds while gpulat runs; the module's own\n"
"(module parameters FAMILY_threshold_us) apply to the rest.\n"
"\n"
"options:\n"
"  -t, --threshold FAMILY=DURATION  e.g. sched=5ms, block=20ms, irq=200us;\n"
"                    units ns, us, ms, s; 0 or off: no trace for FAMILY\n"
"  -j, --json        JSON lines, one object per record\n"
"  -d, --duration SECONDS  stop after SECONDS, 0.1 to 86400 (default:\n"
"                    until Ctrl-C)\n"
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
	.optstring = "hjt:d:",
	.run = trace_run,
};
