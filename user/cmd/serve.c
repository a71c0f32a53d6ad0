// SPDX-License-Identifier: GPL-2.0
/* gpulat serve: the daemon for Prometheus, and the flight recorder. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "engine/serve/serve.h"
#include "lib/cudalib.h"

/*
 * serve_cuda - a module that probes no CUDA library gets the one this
 * host's jobs load, if there is one: the cuda family is on wherever
 * libcuda.so.1 is, also after the module was loaded again (the engine
 * opens the source again then).  The BPF source finds it itself.
 */
static void serve_cuda(struct gl_source *src)
{
	struct gl_cuda_attached a;
	struct gl_cudalib lib;
	char why[256];
	int ret;

	if (gl_source_kind(src) != GL_SOURCE_KMOD ||
	    gl_source_cuda_get(src, &a) || a.ino ||
	    gl_cudalib_resolve(&lib, NULL, why, sizeof(why)))
		return;
	ret = gl_source_cuda_set(src, &lib);
	if (ret)
		fprintf(stderr, "gpulat serve: cuda: cannot probe %s: %s\n",
			lib.path, strerror(-ret));
	else
		fprintf(stderr, "gpulat serve: cuda: probing %u functions of %s\n",
			lib.nr, lib.path);
}

/* serve_open - the source the options name, for the engine */
static int serve_open(const void *ctx, struct gl_source **src,
		      uint32_t *major, uint32_t *minor)
{
	int ret = gpulat_source_open(ctx, src, major, minor, stderr);

	if (!ret)
		serve_cuda(*src);
	return ret;
}

static int serve_run(const struct gpulat_opts *o)
{
	static char kernel[128];
	struct serve_conf c = {
		.listen = o->listen, .textfile = o->textfile,
		.buckets = o->serve_buckets, .max_keys = o->serve_max_keys,
		.per_cpu = o->per_cpu, .all_buckets = o->serve_all_buckets,
		.verdict_s = o->verdict_s,
		.thresholds_set = o->thresholds_set,
		.version = gpulat_version(),
		.kernel = gpulat_kernel_release(kernel, sizeof(kernel)),
		.open = serve_open, .open_ctx = o,
	};
	struct flight_opts *f = &c.flight;
	bool open_failed;
	int ret;

	/* neither HTTP nor a textfile asked for: HTTP, as exporters do */
	if (!c.listen && !c.textfile)
		c.listen = SERVE_LISTEN_DEFAULT;
	memcpy(c.thresholds, o->thresholds, sizeof(c.thresholds));
	if (o->flight) {
		f->dir = o->flight;
		f->before_s = o->flight_before_s;
		f->after_s = o->flight_after_s;
		f->gap_s = o->flight_gap_s;
		f->keep = o->flight_keep;
		f->dir_bytes = o->flight_max_bytes;
		f->mode = gpulat_file_mode(o);
		memcpy(f->trigger_ns, o->triggers, sizeof(f->trigger_ns));
	}
	ret = serve_loop(&c, &open_failed);
	if (!ret)
		return GPULAT_EXIT_OK;
	return open_failed ? gpulat_device_exit(ret) : GPULAT_EXIT_ERROR;
}

static const char usage_serve[] =
"usage: gpulat serve [--listen ADDR:PORT] [--textfile DIR] [--flight DIR]\n"
"                    [options]\n"
"\n"
"Run as a daemon on the module or the BPF source: take a snapshot every\n"
"second and export every series to Prometheus, over HTTP at /metrics\n"
"(default :" SERVE_PORT ") or as DIR/" SERVE_TEXTFILE_NAME " for\n"
"node_exporter's textfile collector, rewritten every 5 s by rename.\n"
"Histograms are classic Prometheus histograms in seconds whose le bounds\n"
"are gpulat's buckets exactly (le = upper bound - 1 ns); drops and Xids\n"
"are counters.  With --flight, keep the last seconds of snapshots and\n"
"outlier records in memory and, on an Xid, an outlier at or over a\n"
"--trigger bound, or SIGUSR1, write a gpulat report bundle of the window\n"
"before and after it into DIR, written by a child process so that no\n"
"snapshot waits on the disk or NVML; every bundle lost is counted by\n"
"reason.  Bundles are 0600 (0640 with the group gpulat where it exists).\n"
"A scrape that accepts gzip gets it.  One peer (a remote address, or a\n"
"local user on any loopback address) holds at most 8 of 64 connections.\n"
"On the module, it hands over the host's libcuda.so.1 when the module\n"
"probes none (gpulat cuda).  SIGINT or SIGTERM stop it (a bundle under\n"
"way is written first).  See\n"
"Documentation/fleet.rst and Documentation/service.rst.\n"
"\n"
"options:\n"
"  --listen ADDR:PORT     serve HTTP there (127.0.0.1:9464, [::1]:9464, :9464)\n"
"  --textfile DIR         write DIR/" SERVE_TEXTFILE_NAME " for node_exporter\n"
"  --buckets N            buckets per power of two: 8 (exact, default), 4, 2, 1\n"
"  -C, --per-cpu          a cpu label on per-CPU series (many more series)\n"
"  --all-buckets          every bucket, empty ones too (fixed bounds; by\n"
"                         default the empty ones around a histogram's\n"
"                         range are left out: Documentation/fleet.rst)\n"
"  --max-keys N           keys (disks, devices, IRQs) per metric exported by\n"
"                         name, the rest summed as \"_other\" (default 32)\n"
"  -t, --threshold FAMILY=DURATION  the trace threshold while it runs\n"
"  --flight DIR           the flight recorder's bundles go to DIR\n"
"  --trigger FAMILY=DURATION  an outlier at or over DURATION triggers a bundle\n"
"  --flight-window S      seconds kept before a trigger (default 60)\n"
"  --flight-after S       seconds recorded after it (default 10)\n"
"  --flight-gap S         least seconds between two bundles (default 300)\n"
"  --flight-keep N        bundles kept in DIR, oldest removed (default 10)\n"
"  --flight-max-bytes SIZE  bytes of bundles kept in DIR, oldest removed\n"
"                         first (K, M, G, T; 1M to 1T; default 1G)\n"
"  --mode MODE            bundles' permissions, octal (default 0600)\n"
"  --verdict S            the rolling verdict's window: gpulat diagnose's\n"
"                         ranking of the last S seconds at every snapshot,\n"
"                         as gpulat_verdict_* (default 10; 0: off)\n"
"  -h, --help             show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat serve --listen 127.0.0.1:9464\n"
"    gpulat serve --textfile /var/lib/prometheus/node-exporter\n"
"    gpulat serve --flight /var/lib/gpulat/flight --trigger sched=50ms\n"
"    kill -USR1 $(pidof gpulat)    # freeze the last minute now\n";

const struct gpulat_command cmd_serve = {
	.name = "serve",
	.summary = "export every series to Prometheus; flight recorder",
	.usage = usage_serve,
	.optstring = "hCt:L:T:F:b:k:W:A:G:K:B:M:Ug:R:",
	.run = serve_run,
};
