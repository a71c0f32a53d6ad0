// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose, the command: CPU time around a watch of every family,
 * then the verdict (the diagnosis engine, user/engine/diagnose*.c)
 * printed as text or JSON.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "engine/diagnose/diagnose.h"
#include "engine/gpusample/gpusample.h"
#include "engine/watch/watch.h"

static const char usage_diagnose[] =
"usage: gpulat diagnose [-d SECONDS] [-t FAMILY=DURATION]... [-j]\n"
"                       [--gpu-interval SECONDS]\n"
"\n"
"Watch every family for SECONDS (default 10), compare each layer's tail\n"
"with its baseline and thresholds, and print a ranked verdict: which\n"
"layer (GPU driver interrupt path, network, storage, scheduler, memory)\n"
"most likely causes the spikes, the evidence (percentiles, counts, top\n"
"culprits by name and pid) and what to do next.  Says so when nothing is\n"
"abnormal.  Meanwhile NVML, when present, is sampled once a second in a\n"
"child process: utilisation, memory, clock event reasons, PCIe link, GPU\n"
"processes and Xid events, judged by the triage rule (GPUs idle: the\n"
"host; busy with memory full: the job).\n"
"\n"
"options:\n"
"  -d, --duration SECONDS  how long to watch, 0.1 to 86400 (default 10)\n"
"  -t, --threshold FAMILY=DURATION  outlier threshold while watching\n"
"  -j, --json        one JSON object\n"
"      --gpu-interval SECONDS  sample NVML every SECONDS, 0.2 to 60, or 0:\n"
"                    not at all (default 1, or $GPULAT_NVML_INTERVAL)\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat diagnose                   # ten seconds, then the verdict\n"
"    gpulat diagnose -d 60 -j          # a minute, as JSON\n";

/*
 * diag_block_threshold - @o's thresholds into @t; and on a BPF source of
 * this command's own (no other reader to disturb), unless given, the
 * block family's at its smallest expected p99 (20 ms): a disk's waits
 * beyond what the verdict calls normal name the tasks whose requests
 * they were, a process gone before the watch ends included
 */
static void diag_block_threshold(const struct gl_source *src,
				 const struct gpulat_opts *o, uint64_t *t,
				 uint64_t *set)
{
	const struct gl_family_info *fi = gl_family(GPULAT_FAM_BLOCK);
	uint64_t least = 0;
	uint32_t id;

	memcpy(t, o->thresholds, sizeof(o->thresholds));
	*set = o->thresholds_set;
	if (gl_source_kind(src) != GL_SOURCE_BPF || gl_source_pinned(src) ||
	    (*set & (1ULL << GPULAT_FAM_BLOCK)) || !fi)
		return;
	for (id = 0; id < fi->nr_series; id++) {
		const struct gl_series_info *si =
			gl_series_info(GPULAT_FAM_BLOCK, id);

		if (si && si->judged && (!least || si->expect_p99_ns < least))
			least = si->expect_p99_ns;
	}
	if (least) {
		t[GPULAT_FAM_BLOCK] = least;
		*set |= 1ULL << GPULAT_FAM_BLOCK;
	}
}

/* diagnose_run - gpulat diagnose */
int diagnose_run(const struct gpulat_opts *o)
{
	double duration = o->has_duration ? o->duration_s :
					    GPULAT_DIAGNOSE_SECONDS;
	struct diag_tasks used = { 0 };
	struct diag_scan scan;
	struct diag_result *r = NULL;
	struct gs_sampler gs = { 0 };
	struct gs_timeline gt = { 0 };
	uint32_t major, minor;
	double every;
	char why[160];
	bool have_t0, have_used;
	struct watch w;
	struct gl_source *src;
	uint64_t thresholds[GPULAT_FAM_MAX], thresholds_set;
	char desc[192];
	const char *kind;
	int ret;

	every = gs_interval(o->has_gpu_interval ? o->gpu_interval_s : -1,
			    why, sizeof(why));
	if (every < 0) {
		fprintf(stderr, "gpulat: diagnose: %s\n", why);
		return GPULAT_EXIT_ERROR;
	}
	ret = gpulat_source_open(o, &src, &major, &minor, stderr);
	if (ret)
		return gpulat_device_exit(ret);
	gl_source_describe(src, desc, sizeof(desc));
	kind = gl_source_kind(src) == GL_SOURCE_BPF ? "bpf" : "kmod";
	if (!o->json)
		fprintf(stderr, "gpulat: watching every family for %.3gs...\n",
			duration);
	watch_stop_on_signal();
	/*
	 * CPU time and storage bytes through the watch, a scan a second (a
	 * process gone before its end counts); a missing /proc only costs
	 * those users
	 */
	have_t0 = !diag_scan_begin(&scan);
	/* a sampler that cannot start costs the GPU side only: it says so */
	if (every > 0)
		gs_start(&gs, every, duration);	/* gs_stop() says if it failed */
	diag_block_threshold(src, o, thresholds, &thresholds_set);
	watch_set_tick(diag_scan_tick, &scan);
	ret = watch_run(src, duration, 0, false, thresholds, thresholds_set,
			&w, NULL, NULL, stderr);
	watch_set_tick(NULL, NULL);
	if (gs_stop(&gs, &gt))
		memset(&gt, 0, sizeof(gt));
	have_used = !diag_scan_end(&scan, &used) && !ret && have_t0;
	gl_source_close(src);
	if (ret) {
		gs_timeline_free(&gt);
		diag_tasks_free(&used);
		return GPULAT_EXIT_ERROR;	/* watch_run() said why */
	}
	ret = diag_analyze_gpu(&w, have_used ? &used : NULL,
			       every > 0 ? &gt : NULL, &r);
	gs_timeline_free(&gt);
	if (!ret)
		diag_set_source(r, kind, desc);
	if (ret) {
		fprintf(stderr, "gpulat: diagnose: %s\n", strerror(-ret));
		ret = GPULAT_EXIT_ERROR;
	} else {
		if (o->json)
			diag_print_json(stdout, r);
		else
			diag_print_text(stdout, r);
		ret = fflush(stdout) ? GPULAT_EXIT_ERROR : GPULAT_EXIT_OK;
	}
	diag_free(r);
	diag_tasks_free(&used);
	watch_free(&w);
	return ret;
}

const struct gpulat_command cmd_diagnose = {
	.name = "diagnose",
	.summary = "watch every layer a while and name the likely cause",
	.usage = usage_diagnose,
	.optstring = "hjt:d:N:",
	.run = diagnose_run,
};
