// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report, the command: the options, the device (or its absence,
 * stated in the report), then the report engine (user/engine/report/report.c)
 * collects and packs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "engine/report/report.h"
#include "lib/outfile.h"

static const char usage_report[] =
"usage: gpulat report [-o FILE.tar.gz] [-d SECONDS] [--interval SECONDS]\n"
"                     [-t FAMILY=DURATION]... [--gpu-interval SECONDS]\n"
"\n"
"Watch for SECONDS (default 30) and write one archive to attach to a\n"
"vendor bug report: snapshots at the start, the end and every interval,\n"
"the outlier trace, the diagnosis, and the host facts that\n"
"nvidia-bug-report.sh does not collect (IRQ affinity of the nvidia IRQs,\n"
"irqbalance, /proc/interrupts and /proc/softirqs, cpufreq and idle\n"
"states, THP, PCIe link and AER counters of NVIDIA functions, driver\n"
"version, NVRM/Xid log lines, kernel and gpulat parameters, GPU state\n"
"through NVML when present, sampled once a second over the window in\n"
"gpu/timeline.txt).  MANIFEST at the top says what is inside.\n"
"\n"
"options:\n"
"  -o, --output FILE  archive to write (default\n"
"                    gpulat-report-HOST-YYYYMMDD-HHMMSS.tar.gz; - for\n"
"                    standard output); a device or folder is refused\n"
"      --mode MODE   the archive's permissions, octal (default 0600: it\n"
"                    holds every user's task names and the kernel log)\n"
"  -d, --duration SECONDS  how long to watch, 0.1 to 86400 (default 30)\n"
"      --interval SECONDS  snapshot every SECONDS, 0.1 to 86400 (default 5)\n"
"  -t, --threshold FAMILY=DURATION  outlier threshold while watching\n"
"      --gpu-interval SECONDS  sample NVML every SECONDS, 0.2 to 60, or 0:\n"
"                    not at all (default 1, or $GPULAT_NVML_INTERVAL)\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat report                     # 30 s, archive in this folder\n"
"    gpulat report -d 120 -o /tmp/r.tar.gz\n";

/*
 * report_open - the source in *@srcp, or NULL there when there is none
 * (its reason in r->module: the report holds host facts only); 0, or an
 * exit code after a message
 */
static int report_open(const struct gpulat_opts *o, struct report *r,
		       struct gl_source **srcp)
{
	char *msg = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&msg, &len);
	int ret, code;

	*srcp = NULL;
	if (!m) {
		fprintf(stderr, "gpulat: out of memory\n");
		return GPULAT_EXIT_ERROR;
	}
	ret = gpulat_source_open(o, srcp, &r->major, &r->minor, m);
	fclose(m);
	code = ret ? gpulat_device_exit(ret) : GPULAT_EXIT_OK;
	if (!ret)
		gl_source_describe(*srcp, r->source, sizeof(r->source));
	if (code != GPULAT_EXIT_NO_MODULE) {
		/* Permission, ABI: the person can fix those; say so and stop. */
		if (code)
			fputs(msg, stderr);
		free(msg);
		return code;
	}
	msg[strcspn(msg, "\n")] = '\0';
	snprintf(r->module, sizeof(r->module), "%s",
		 strncmp(msg, "gpulat: ", 8) ? msg : msg + 8);
	free(msg);
	fprintf(stderr, "gpulat: %s: the report holds host facts only\n",
		r->module);
	return GPULAT_EXIT_OK;
}

/* report_run - gpulat report */
int report_run(const struct gpulat_opts *o)
{
	struct report *r;
	struct gl_source *src = NULL;
	int ret = GPULAT_EXIT_ERROR;

	r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(stderr, "gpulat: out of memory\n");
		return GPULAT_EXIT_ERROR;
	}
	r->output = o->output;
	r->has_gpu_interval = o->has_gpu_interval;
	r->gpu_interval_s = o->gpu_interval_s;
	memcpy(r->thresholds, o->thresholds, sizeof(r->thresholds));
	r->thresholds_set = o->thresholds_set;
	r->duration_s = o->has_duration ? o->duration_s : GPULAT_REPORT_SECONDS;
	r->interval_s = o->has_report_interval ? o->report_interval_s :
		GPULAT_REPORT_INTERVAL;
	if (r->interval_s > r->duration_s)
		r->interval_s = r->duration_s;
	r->root = getenv("GPULAT_SYSROOT");
	if (!r->root)
		r->root = "";
	gpulat_kernel_release(r->kernel, sizeof(r->kernel));
	r->mode = gpulat_file_mode(o);
	report_name(r);
	report_sweep();
	if (report_output(r))
		goto out;
	if (!bundle_find_prog("tar")) {
		fprintf(stderr, "gpulat: tar is not installed or not in PATH; the report is a .tar.gz made by tar\n");
		goto out;
	}
	ret = report_open(o, r, &src);
	if (ret)
		goto out;
	ret = GPULAT_EXIT_ERROR;
	if (report_workdir(r) || report_collect(r, src)) {
		gl_source_close(src);
		goto out;
	}
	gl_source_close(src);
	if (report_archive(r))
		goto out;
	/* the archive may be on standard output: the line goes beside it */
	fprintf(gl_out_is_stdout(r->out) ? stderr : stdout,
		"wrote %s (%zu files, %zu sources absent: see MANIFEST)\n",
		r->out, r->b.nr, bundle_nr_absent(&r->b));
	ret = GPULAT_EXIT_OK;
out:
	report_release(r);
	return ret;
}

const struct gpulat_command cmd_report = {
	.name = "report",
	.summary = "write a .tar.gz bundle for a vendor bug report",
	.usage = usage_report,
	.optstring = "ho:t:d:I:N:M:",
	.run = report_run,
};
