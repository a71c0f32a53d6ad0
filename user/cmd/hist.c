// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat hist: latency histograms as text or JSON, totals since load or
 * reset, or the difference over each interval (the hist view prints).
 */
#include <signal.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "engine/watch/watch.h"

static volatile sig_atomic_t hist_stop;

/* hist_print - the view @o asks for */
static void hist_print(const struct gpulat_opts *o,
		       const struct gl_snapshot *s, const struct view *v)
{
	if (o->json)
		hist_print_json(stdout, s, v);
	else
		hist_print_text(stdout, s, v);
	fflush(stdout);
}

/* hist_on_signal - Ctrl-C ends interval mode after the current output */
static void hist_on_signal(int sig)
{
	(void)sig;
	hist_stop = 1;
}

static bool hist_stopped(void)
{
	return hist_stop;
}

struct hist_each {
	const struct gpulat_opts *o;
	struct view *v;
};

static void hist_interval(const struct gl_snapshot *d, double seconds,
			  void *arg)
{
	const struct hist_each *e = arg;

	(void)seconds;
	hist_print(e->o, d, e->v);
}

/* hist_loop - print the difference over each interval */
static int hist_loop(const struct gpulat_opts *o, struct gl_source *src,
		     struct view *v)
{
	struct sigaction sa = { .sa_handler = hist_on_signal };
	struct hist_each e = { .o = o, .v = v };
	struct interval_loop l = {
		.interval_s = o->interval_s, .count = o->count,
		.stopped = hist_stopped, .on = hist_interval, .arg = &e,
	};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	v->is_interval = true;
	v->interval_s = o->interval_s;
	return interval_run(src, &l, stderr) ? GPULAT_EXIT_ERROR :
					       GPULAT_EXIT_OK;
}

/* hist_run - gpulat hist */
int hist_run(const struct gpulat_opts *o)
{
	struct view v = { .families = o->families, .per_cpu = o->per_cpu,
			  .per_key = o->per_key, .summary = o->summary };
	const struct gpulat_snap_header *h;
	struct gl_snapshot *s = NULL;
	char kernel[128], msg[256], desc[160];
	struct gpulat_opts w;
	struct gl_source *src;
	int ret;

	if (o->cgroup)
		return hist_cgroup(o);
	if (o->input) {
		ret = gpulat_load_input(o->input, o->from, &s, stderr);
		if (ret)
			return gpulat_input_exit(ret);
		if (o->from) {
			h = gl_snapshot_header(s);
			v.is_interval = true;
			v.interval_s = h->time_ns > h->reset_time_ns ?
				(h->time_ns - h->reset_time_ns) / 1e9 : 0;
		}
		hist_print(o, s, &v);
		gl_snapshot_free(s);
		return GPULAT_EXIT_OK;
	}
	ret = gpulat_source_open(o, &src, &v.module_major, &v.module_minor, stderr);
	if (ret)
		return gpulat_device_exit(ret);
	v.kernel = gpulat_kernel_release(kernel, sizeof(kernel));
	v.clock = true;
	gpulat_view_source(&v, src, desc, sizeof(desc));
	if (!o->has_interval && gl_source_fresh(src)) {
		/* nothing counted yet: one window instead of totals */
		w = *o;
		w.has_interval = true;
		w.interval_s = GPULAT_FRESH_SECONDS;
		w.count = 1;
		gpulat_fresh_note(src, w.interval_s);
		ret = hist_loop(&w, src, &v);
		gl_source_close(src);
		return ret;
	}
	if (o->has_interval) {
		ret = hist_loop(o, src, &v);
		gl_source_close(src);
		return ret;
	}
	ret = gl_source_snapshot(src, &s, msg, sizeof(msg));
	gl_source_close(src);
	if (ret) {
		fprintf(stderr, "gpulat: %s\n", msg);
		return GPULAT_EXIT_ERROR;
	}
	hist_print(o, s, &v);
	gl_snapshot_free(s);
	return GPULAT_EXIT_OK;
}

static const char usage_hist[] =
"usage: gpulat hist [FAMILY...] [-D] [-C] [-s | -j] [-i FILE [-f FILE]]\n"
"                   [--cgroup PATH]\n"
"                   [INTERVAL [COUNT]]\n"
"\n"
"Print latency histograms: without INTERVAL the totals since the module\n"
"was loaded or reset; with INTERVAL (seconds, 0.1 to 86400) what\n"
"happened in each interval, COUNT times (default: until Ctrl-C).\n"
"FAMILY limits the output to those families; net also shows the NET_RX\n"
"and NET_TX softirqs.\n"
"Families: " GPULAT_USAGE_FAMILIES ".\n"
"Histograms of one kind are merged over disks, devices, IRQs and CPUs\n"
"unless -D or -C split them.  Text skips empty histograms.\n"
"\n"
"options:\n"
"  -D, --per-key     one histogram per disk, device, IRQ handler, thread\n"
"  -C, --per-cpu     also one histogram per CPU (empty CPUs skipped)\n"
"  -s, --summary     one line per histogram: count, p50, p99, max\n"
"  -j, --json        JSON, one object per output (JSON lines)\n"
"  -i, --input FILE  read a saved snapshot instead of the device\n"
"  -f, --from FILE   with --input: show the difference from FILE\n"
"  --cgroup PATH     the cgroup family's series of cgroup PATH and those\n"
"                    below it; with INTERVAL, watched for that while\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat hist                # all histograms since load or reset\n"
"    gpulat hist sched          # only the sched family\n"
"    gpulat hist block -D       # one histogram per disk\n"
"    gpulat hist irq -D 1 5     # per IRQ handler, five 1 s intervals\n"
"    gpulat hist net            # net devices and the net softirqs\n"
"    gpulat hist 1              # every second, until Ctrl-C\n"
"    gpulat hist -C 0.5 4       # per CPU, four half-second intervals\n"
"    gpulat hist -C -s 2 1      # per CPU, one line each, one 2 s interval\n"
"    gpulat hist -j 10 1        # one 10 s interval as JSON\n"
"    gpulat hist -i b.bin -f a.bin  # what happened between two saves\n";

const struct gpulat_command cmd_hist = {
	.name = "hist",
	.summary = "latency histograms, totals or per interval",
	.usage = usage_hist,
	.optstring = "hjCDsi:f:c:",
	.args = GPULAT_ARGS_HIST,
	.run = hist_run,
};
