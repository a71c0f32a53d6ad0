// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat watch-cgroup PATH...: watch cgroups for a while and print their
 * series per interval; hist --cgroup PATH.  The watch set is the
 * source's, shared: ours is added to it and taken out again on exit,
 * Ctrl-C, SIGTERM, SIGHUP and a closed pipe included.
 */
#include <stdio.h>

#include "cmd/cmd.h"
#include "engine/cgview/cgview.h"
#include "engine/watch/watch.h"

static void cg_print(const struct gpulat_opts *o, const struct gl_snapshot *s,
		     const struct cgview_target *t, size_t n, double interval_s)
{
	if (o->json)
		cgview_print_json(stdout, s, t, n, interval_s);
	else
		cgview_print_text(stdout, s, t, n, interval_s);
	/* a closed pipe ends the watch: the set is put back */
	if (fflush(stdout) || ferror(stdout))
		watch_request_stop();
}

struct cg_each {
	const struct gpulat_opts *o;
	const struct cgview_target *t;
	size_t n;
};

static void cg_interval(const struct gl_snapshot *d, double seconds,
			void *arg)
{
	const struct cg_each *e = arg;

	cg_print(e->o, d, e->t, e->n, seconds);
}

/*
 * the intervals: @interval_s each, for @duration_s (0: until a signal)
 * or @count intervals (0: no bound)
 */
static int cg_loop(const struct gpulat_opts *o, struct gl_source *src,
		   const struct cgview_target *t, size_t n, double interval_s,
		   double duration_s, unsigned long count)
{
	struct cg_each e = { .o = o, .t = t, .n = n };
	struct interval_loop l = {
		.interval_s = interval_s, .duration_s = duration_s,
		.count = count, .stopped = watch_stopped, .on = cg_interval,
		.arg = &e,
	};

	return interval_run(src, &l, stderr) ? GPULAT_EXIT_ERROR :
					       GPULAT_EXIT_OK;
}

/*
 * watch @paths for the intervals (or, @interval_s 0, print the totals
 * once without touching the watch set)
 */
static int cg_run(const struct gpulat_opts *o, const char *const *paths,
		  size_t n, double interval_s, double duration_s,
		  unsigned long count)
{
	struct gl_cgroup_watch w[GPULAT_CG_WATCH_MAX];
	struct cgview_target t[GPULAT_CG_WATCH_MAX];
	struct gl_snapshot *s = NULL;
	struct cgwatch_saved sv = { .changed = false };
	struct gl_source *src;
	uint32_t major, minor;
	char err[512];
	int ret, rc;

	ret = cgwatch_open(paths, n, t, w, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "gpulat: %s\n", err);
		return GPULAT_EXIT_ERROR;
	}
	ret = gpulat_source_open(o, &src, &major, &minor, stderr);
	if (ret) {
		cgwatch_close(w, n);
		return gpulat_device_exit(ret);
	}
	if (!interval_s) {
		ret = gl_source_snapshot(src, &s, err, sizeof(err));
		rc = ret ? GPULAT_EXIT_ERROR : GPULAT_EXIT_OK;
		if (ret)
			fprintf(stderr, "gpulat: %s\n", err);
		else
			cg_print(o, s, t, n, -1);
		gl_snapshot_free(s);
		goto out;
	}
	/*
	 * signals before the set changes: none may leave it changed
	 * (SIGINT, SIGTERM, SIGHUP end the watch; SIGPIPE is a write error)
	 */
	watch_stop_on_signal();
	ret = cgwatch_begin(src, w, n, &sv, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "gpulat: %s\n", err);
		rc = GPULAT_EXIT_ERROR;
	} else {
		rc = cg_loop(o, src, t, n, interval_s, duration_s, count);
	}
	if (cgwatch_end(src, &sv, err, sizeof(err))) {
		fprintf(stderr, "gpulat: putting the watched cgroups back: %s\n",
			err);
		rc = GPULAT_EXIT_ERROR;
	}
out:
	cgwatch_close(w, n);
	gl_source_close(src);
	return rc;
}

/* watch_cgroup_run - gpulat watch-cgroup */
int watch_cgroup_run(const struct gpulat_opts *o)
{
	return cg_run(o, o->cgroups, o->nr_cgroups,
		      o->has_interval ? o->interval_s : 1.0,
		      o->has_duration ? o->duration_s : 0, 0);
}

/* hist_cgroup - see cmd/cmd.h */
int hist_cgroup(const struct gpulat_opts *o)
{
	const char *paths[1] = { o->cgroup };

	return cg_run(o, paths, 1, o->has_interval ? o->interval_s : 0, 0,
		      o->count);
}

static const char usage_watch_cgroup[] =
"usage: gpulat watch-cgroup PATH... [-i SECONDS] [-d SECONDS] [-j]\n"
"\n"
"Watch cgroups (v2): the run-queue waits, block requests and memory\n"
"cgroup reclaim of their tasks, per cgroup, every interval (default 1 s)\n"
"for --duration (default: until Ctrl-C).  PATH is a cgroup directory,\n"
"under the cgroup2 mount or relative to it; cgroups below a PATH are\n"
"listed under it.  At most 8 cgroups are watched at once, by every user\n"
"together; the cgroups watched before are watched again on exit.\n"
"Setting the watch needs root.\n"
"\n"
"options:\n"
"  -i, --interval SECONDS  one output per interval (0.1 to 86400)\n"
"  -d, --duration SECONDS  stop after this long\n"
"  -j, --json              JSON, one object per interval (JSON lines)\n"
"  -h, --help              show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat watch-cgroup /system.slice/docker-<id>.scope\n"
"    gpulat watch-cgroup /kubepods.slice -i 5 -d 60 --json\n";

const struct gpulat_command cmd_watch_cgroup = {
	.name = "watch-cgroup",
	.summary = "per-cgroup latency of chosen cgroups, per interval",
	.usage = usage_watch_cgroup,
	.optstring = "hji:I:d:",
	.args = GPULAT_ARGS_CGROUPS,
	.run = watch_cgroup_run,
};
