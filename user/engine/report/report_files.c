// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report: the files made from the watch (raw and text snapshots
 * of the window and of every interval, the outlier trace as text and JSON
 * lines, the diagnosis) and NVML's view of the GPUs, each stated absent
 * when its source is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/nvml/nvml.h"
#include "engine/report/report.h"
#include "engine/view/view.h"
#include "lib/units.h"

/* report_absent_file - a file holding only "absent: why" */
static int report_absent_file(struct report *r, const char *path,
			      const char *what, const char *why)
{
	FILE *f = bundle_create(&r->b, path, what);

	if (!f)
		return r->b.err;
	fprintf(f, "absent: %s\n", why);
	bundle_absent(&r->b, path, "%s", why);
	return bundle_close(&r->b, f, path);
}

static int report_blob(struct report *r, const struct gl_snapshot *s,
		       const char *path, const char *what)
{
	FILE *f = bundle_create(&r->b, path, what);
	int ret;

	if (!f)
		return r->b.err;
	ret = gl_snapshot_write(s, f);
	if (bundle_close(&r->b, f, path))
		return r->b.err;
	if (ret)
		bundle_fail(&r->b, ret, "cannot write %s: %s", path,
			    strerror(-ret));
	return r->b.err;
}

static void report_view(const struct report *r, struct view *v, double span)
{
	memset(v, 0, sizeof(*v));
	v->is_interval = true;
	v->interval_s = span;
	v->kernel = r->kernel[0] ? r->kernel : NULL;
	v->module_major = r->major;
	v->module_minor = r->minor;
}

/* report_span - seconds between two snapshots */
static double report_span(const struct gl_snapshot *a,
			  const struct gl_snapshot *b)
{
	const struct gpulat_snap_header *ha = gl_snapshot_header(a);
	const struct gpulat_snap_header *hb = gl_snapshot_header(b);

	return hb->time_ns > ha->time_ns ?
		(hb->time_ns - ha->time_ns) / 1e9 : 0;
}

/*
 * report_intervals - intervals.txt: each interval as gpulat hist shows it,
 * then what followed the last one up to end.bin
 */
static int report_intervals(struct report *r)
{
	static const char path[] = "snapshots/intervals.txt";
	const struct gl_snapshot *prev = r->w.start, *cur;
	struct gl_snapshot *d;
	struct view v;
	size_t i;
	FILE *f;
	int ret;

	f = bundle_create(&r->b, path,
			  "every interval as text (interval-NNN.bin minus the one before, then end.bin)");
	if (!f)
		return r->b.err;
	for (i = 0; i <= r->w.nr_intervals; i++) {
		cur = i < r->w.nr_intervals ? r->w.intervals[i] : r->w.end;
		/* A window of whole intervals ends on the last one. */
		if (i == r->w.nr_intervals && i && report_span(prev, cur) < 0.001)
			break;
		if (i < r->w.nr_intervals)
			fprintf(f, "%s=== interval %zu (interval-%03zu.bin)\n\n",
				i ? "\n" : "", i + 1, i + 1);
		else
			fprintf(f, "%s=== interval %zu (to end.bin)\n\n",
				i ? "\n" : "", i + 1);
		ret = gl_snapshot_diff(prev, cur, &d);
		if (ret) {
			fprintf(f, "cannot difference it: %s\n", strerror(-ret));
		} else {
			report_view(r, &v, report_span(prev, cur));
			hist_print_text(f, d, &v);
			gl_snapshot_free(d);
		}
		prev = cur;
	}
	return bundle_close(&r->b, f, path);
}

int report_snapshots(struct report *r)
{
	char path[64];
	struct view v;
	size_t i;
	FILE *f;
	int ret;

	if (!r->watched) {
		ret = report_absent_file(r, "snapshots/window.txt",
					 "the window's histograms as text",
					 r->module);
		return ret;
	}
	ret = report_blob(r, r->w.start, "snapshots/start.bin",
			  "raw snapshot when the watch began (gpulat hist -i)");
	if (!ret)
		ret = report_blob(r, r->w.end, "snapshots/end.bin",
				  "raw snapshot when the watch ended");
	for (i = 0; !ret && i < r->w.nr_intervals; i++) {
		snprintf(path, sizeof(path), "snapshots/interval-%03zu.bin",
			 i + 1);
		ret = report_blob(r, r->w.intervals[i], path,
				  "raw snapshot at the end of this interval");
	}
	if (ret)
		return ret;
	f = bundle_create(&r->b, "snapshots/window.txt",
			  "the window's histograms as text (end.bin minus start.bin)");
	if (!f)
		return r->b.err;
	report_view(r, &v, r->w.duration_s);
	hist_print_text(f, r->w.window, &v);
	ret = bundle_close(&r->b, f, "snapshots/window.txt");
	return ret ? ret : report_intervals(r);
}

static void report_thresholds(FILE *f, const struct watch *w)
{
	char buf[UNITS_LEN];
	size_t i;
	uint32_t fam;
	bool any = false;

	fprintf(f, "# thresholds:");
	for (i = 0; i < gl_family_count(); i++) {
		fam = gl_family_at(i);
		if (fam >= GPULAT_FAM_MAX || !w->thresholds[fam])
			continue;
		fprintf(f, " %s=%s", gl_family_name(fam),
			units_ns(buf, sizeof(buf), w->thresholds[fam]));
		any = true;
	}
	fprintf(f, "%s\n", any ? "" : " none");
}

int report_trace(struct report *r)
{
	static const char txt[] = "trace.txt", json[] = "trace.jsonl";
	FILE *f;
	size_t i;

	if (!r->watched || !r->w.trace_ok) {
		const char *why = r->watched ?
			"the module has no outlier trace (ABI older than 1.2)" :
			r->module;

		if (report_absent_file(r, txt, "outlier trace, one line per record",
				       why))
			return r->b.err;
		return report_absent_file(r, json,
					  "outlier trace as JSON lines", why);
	}
	f = bundle_create(&r->b, txt,
			  "outlier trace: every sample over its family's threshold, Xid events, losses");
	if (!f)
		return r->b.err;
	report_thresholds(f, &r->w);
	fprintf(f, "# %zu records, %llu lost by the module, %llu dropped by the tool (over %d kept)\n",
		r->w.nr_recs, (unsigned long long)r->w.lost,
		(unsigned long long)r->w.dropped, WATCH_MAX_RECS);
	for (i = 0; i < r->w.nr_recs; i++)
		trace_print_text(f, &r->w.recs[i], r->w.end);
	if (bundle_close(&r->b, f, txt))
		return r->b.err;
	f = bundle_create(&r->b, json, "the same trace as JSON lines");
	if (!f)
		return r->b.err;
	for (i = 0; i < r->w.nr_recs; i++)
		trace_print_json(f, &r->w.recs[i], r->w.end);
	return bundle_close(&r->b, f, json);
}

int report_diagnosis(struct report *r)
{
	struct diag_result *d = NULL;
	FILE *f;
	int ret;

	if (!r->watched) {
		if (report_absent_file(r, "diagnosis.txt",
				       "the diagnosis, as gpulat diagnose prints it",
				       r->module))
			return r->b.err;
		return report_absent_file(r, "diagnosis.json",
					  "the diagnosis as JSON", r->module);
	}
	/* The processes that held the CPUs name culprits; none is fine. */
	ret = diag_analyze_gpu(&r->w, r->used.v ? &r->used : NULL,
			       r->gpu.started ? &r->gpu : NULL, &d);
	if (ret) {
		bundle_fail(&r->b, ret, "diagnosis: %s", strerror(-ret));
		return ret;
	}
	if (r->source[0])
		diag_set_source(d, strncmp(r->source, "module", 6) ? "bpf" :
				"kmod", r->source);
	f = bundle_create(&r->b, "diagnosis.txt",
			  "the diagnosis of the window, as gpulat diagnose prints it");
	if (f) {
		diag_print_text(f, d);
		bundle_close(&r->b, f, "diagnosis.txt");
	}
	f = r->b.err ? NULL : bundle_create(&r->b, "diagnosis.json",
					    "the diagnosis as JSON");
	if (f) {
		diag_print_json(f, d);
		bundle_close(&r->b, f, "diagnosis.json");
	}
	if (!r->b.err)
		report_processes(r, d);
	diag_free(d);
	return r->b.err;
}

int report_nvml(struct report *r)
{
	static const char path[] = "host/nvml.txt";
	const char *lib = getenv("GPULAT_NVML_LIB");
	struct nvml_answer a;
	char why[640];
	FILE *f;

	f = bundle_create(&r->b, path,
			  "GPU state through NVML: clock event reasons, PCIe link, persistence, utilisation");
	if (!f)
		return r->b.err;
	if (r->gpu.hung) {
		/* asking again would wait the whole bound for nothing */
		fprintf(f, "library:      %s\nabsent: NVML failed during the window: %s\n",
			lib && lib[0] ? lib : NVML_SONAME, r->gpu.hung_why);
		bundle_absent(&r->b, path, "NVML failed during the window: %s",
			      r->gpu.hung_why);
		a.text = NULL;
	} else if (!nvml_child_ask(nvml_child_timeout(), &a, why,
				   sizeof(why))) {
		fputs(a.text, f);
		if (!a.present)
			bundle_absent(&r->b, path, "%s", a.absent);
	} else {
		fprintf(f, "library:      %s\nabsent: %s\n",
			lib && lib[0] ? lib : NVML_SONAME, why);
		bundle_absent(&r->b, path, "%s", why);
	}
	free(a.text);
	bundle_close(&r->b, f, path);
	return r->b.err;
}

/* report_gpu_timeline - gpu/timeline.txt and .json: NVML over the window */
int report_gpu_timeline(struct report *r)
{
	static const char txt[] = "gpu/timeline.txt", json[] = "gpu/timeline.json";
	const struct gs_timeline *t = &r->gpu;
	const char *why = NULL;
	FILE *f;

	if (!t->started)
		why = "no GPU timeline: sampling was off (GPULAT_NVML_INTERVAL=0) or could not start, or the flight recorder made this bundle (it keeps none)";
	else if (!t->present)
		why = t->absent;
	f = bundle_create(&r->b, txt,
			  "NVML once per interval over the window: utilisation, memory, PCIe link, replays, clock events, GPU processes; Xids from NVML's events");
	if (!f)
		return r->b.err;
	if (t->started)
		gs_print_text(f, t);
	else
		fprintf(f, "absent: %s\n", why);
	if (why)
		bundle_absent(&r->b, txt, "%s", why);
	bundle_close(&r->b, f, txt);
	if (r->b.err)
		return r->b.err;
	f = bundle_create(&r->b, json, "the same timeline as one JSON object");
	if (!f)
		return r->b.err;
	gs_print_json(f, t);
	return bundle_close(&r->b, f, json);
}
