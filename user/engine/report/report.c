// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report, the engine: watch the module for a while and write one
 * .tar.gz to
 * attach to a vendor bug report: snapshots (start, end, every interval),
 * the outlier trace, the diagnosis, the host facts nvidia-bug-report.sh
 * does not collect and NVML's view of the GPUs, with a MANIFEST on top.
 *
 * Everything is collected in a private temporary folder, packed by tar and
 * removed.  A source that is missing (no NVIDIA driver, no NVML, even no
 * gpulat.ko) is stated as absent in its file and in the MANIFEST; only a
 * failure to write the report is an error.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/report/report.h"
#include "lib/outfile.h"

/* report_name - the top folder's name: gpulat-report-HOST-YYYYMMDD-HHMMSS */
void report_name(struct report *r)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];
	char *p;

	if (gethostname(r->host, sizeof(r->host)) || !r->host[0])
		snprintf(r->host, sizeof(r->host), "unknown");
	r->host[sizeof(r->host) - 1] = '\0';
	/* The name becomes a file name: keep it to safe characters. */
	for (p = r->host; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		      *p == '_'))
			*p = '_';
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	strftime(r->when, sizeof(r->when), "%Y-%m-%d %H:%M:%S %z", &tm);
	snprintf(r->top, sizeof(r->top), "gpulat-report-%.100s-%s", r->host,
		 stamp);
}

/*
 * report_output - absolute path of the archive (tar changes folder first),
 * checked: never a device or a folder; 0, or -errno after a message
 */
int report_output(struct report *r)
{
	char cwd[PATH_MAX], msg[PATH_MAX + 256];
	const char *out = r->output;
	int n, ret;

	if (!getcwd(cwd, sizeof(cwd))) {
		ret = -errno;
		fprintf(stderr, "gpulat: cannot tell the current folder: %s\n",
			strerror(-ret));
		return ret;
	}
	if (out && (out[0] == '/' || gl_out_is_stdout(out)))
		n = asprintf(&r->out, "%s", out);
	else if (out)
		n = asprintf(&r->out, "%s/%s", cwd, out);
	else
		n = asprintf(&r->out, "%s/%s.tar.gz", cwd, r->top);
	if (n < 0) {
		r->out = NULL;
		fprintf(stderr, "gpulat: out of memory\n");
		return -ENOMEM;
	}
	/* Fail now, not after the watch. */
	ret = gl_out_check(r->out, msg, sizeof(msg));
	if (ret)
		fprintf(stderr, "gpulat: %s\n", msg);
	return ret;
}

/* report_wait - without the module: wait the window so the host deltas span it */
static void report_wait(struct report *r)
{
	struct timespec t0, t1, step = { 0, 100 * 1000 * 1000 };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	t1 = t0;
	while ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9 <
	       r->duration_s) {
		if (watch_stopped()) {
			r->interrupted = true;
			break;
		}
		nanosleep(&step, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t1);
	}
	r->waited_s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/* report_header - the MANIFEST's opening lines */
static char *report_header(struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "gpulat report %s\n\n", r->top);
	fprintf(f, "host:      %s\n", r->host);
	fprintf(f, "started:   %s\n", r->when);
	if (r->trigger[0])
		fprintf(f, "trigger:   %s\n", r->trigger);
	if (r->verdict[0])
		fprintf(f, "verdict:   %s\n", r->verdict);
	fprintf(f, "kernel:    %s\n", r->kernel[0] ? r->kernel : "unknown");
	fprintf(f, "tool:      gpulat ABI %u.%u\n", GPULAT_ABI_MAJOR,
		GPULAT_ABI_MINOR);
	if (r->module[0])
		fprintf(f, "module:    absent: %s\n", r->module);
	else if (r->source[0] && strncmp(r->source, "module", 6))
		fprintf(f, "module:    not used\n");
	else
		fprintf(f, "module:    ABI %u.%u (/dev/gpulat)\n", r->major,
			r->minor);
	if (r->source[0])
		fprintf(f, "source:    %s\n", r->source);
	if (r->watched)
		fprintf(f, "window:    %.1f s (asked %.1f s), %zu intervals of %.1f s%s\n",
			r->w.duration_s, r->duration_s, r->w.nr_intervals,
			r->interval_s,
			r->w.interrupted ? ", ended early by a signal" : "");
	else
		fprintf(f, "window:    %.1f s of host counters only%s\n",
			r->waited_s,
			r->interrupted ? ", ended early by a signal" : "");
	if (r->watched && r->w.trace_ok)
		fprintf(f, "trace:     %zu records, %llu lost, %llu dropped\n",
			r->w.nr_recs, (unsigned long long)r->w.lost,
			(unsigned long long)r->w.dropped);
	if (r->watched)
		fprintf(f, "read it:   gpulat hist -i snapshots/end.bin -f snapshots/start.bin\n"
			   "           (any machine of the same byte order; see snapshots/window.txt)\n");
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* report_collect - fill the folder; 0, or -errno after a message */
int report_collect(struct report *r, struct gl_source *src)
{
	struct gs_sampler gs = { 0 };
	double every;
	char why[160];
	int ret;

	ret = hostfacts_start(&r->hf, r->root, &r->b);
	if (ret)
		goto fail;
	fprintf(stderr, "gpulat: watching for %.0f s (Ctrl-C ends it early), then writing %s\n",
		r->duration_s, r->out);
	watch_stop_on_signal();
	every = gs_interval(r->has_gpu_interval ? r->gpu_interval_s :
			    -1, why, sizeof(why));
	if (every < 0) {
		fprintf(stderr, "gpulat: report: %s\n", why);
		return -EINVAL;
	}
	if (every > 0)
		gs_start(&gs, every, r->duration_s);	/* gs_stop() says if not */
	if (src) {
		struct diag_tasks t1 = { 0 };

		if (diag_tasks_read(&r->tasks))
			diag_tasks_free(&r->tasks);
		r->watch_tried = true;
		ret = watch_run(src, r->duration_s, r->interval_s, true,
				r->thresholds, r->thresholds_set, &r->w,
				NULL, NULL, stderr);
		if (ret) {
			gs_stop(&gs, &r->gpu);
			return ret;	/* watch_run() said why */
		}
		r->watched = true;
		if (r->tasks.n && !diag_tasks_read(&t1) &&
		    diag_tasks_delta(&r->tasks, &t1, &r->used))
			memset(&r->used, 0, sizeof(r->used));
		diag_tasks_free(&t1);
	} else {
		report_wait(r);
	}
	if (gs_stop(&gs, &r->gpu))
		memset(&r->gpu, 0, sizeof(r->gpu));
	return report_write(r);
fail:
	fprintf(stderr, "gpulat: %s\n", r->b.errmsg[0] ? r->b.errmsg :
		strerror(-ret));
	return ret;
}

/*
 * report_write - the files of a finished watch (or wait), the host facts'
 * end and the MANIFEST; 0, or -errno after a message
 */
int report_write(struct report *r)
{
	char *header;
	int ret;

	ret = hostfacts_end(&r->hf, &r->b);
	if (!ret)
		ret = report_nvml(r);
	if (!ret)
		ret = report_gpu_timeline(r);
	if (!ret)
		ret = report_snapshots(r);
	if (!ret)
		ret = report_trace(r);
	if (!ret)
		ret = report_diagnosis(r);
	if (ret)
		goto fail;
	header = report_header(r);
	if (!header) {
		ret = -ENOMEM;
		bundle_fail(&r->b, ret, "out of memory");
		goto fail;
	}
	ret = bundle_write_manifest(&r->b, header);
	free(header);
	if (ret)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "gpulat: %s\n", r->b.errmsg[0] ? r->b.errmsg :
		strerror(-ret));
	return ret;
}

/* The private folders of reports: REPORT_WORK "PID.XXXXXX" in $TMPDIR. */
#define REPORT_WORK	"gpulat-report."

static const char *report_tmpdir(void)
{
	const char *tmpdir = getenv("TMPDIR");

	return tmpdir && tmpdir[0] ? tmpdir : "/tmp";
}

int report_sweep(void)
{
	const char *tmpdir = report_tmpdir();
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int n = 0;
	DIR *d = opendir(tmpdir);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, REPORT_WORK, strlen(REPORT_WORK)) ||
		    !gl_dead_writer(de->d_name, REPORT_WORK))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", tmpdir,
				     de->d_name) >= sizeof(path) ||
		    lstat(path, &st) || !S_ISDIR(st.st_mode) ||
		    (geteuid() && st.st_uid != geteuid()))
			continue;
		if (!bundle_remove(path)) {
			fprintf(stderr, "gpulat: removed %s, left by a report that died\n",
				path);
			n++;
		}
	}
	closedir(d);
	return n;
}

/*
 * report_workdir - the private temporary folder and the bundle in it;
 * 0, or -errno after a message
 */
int report_workdir(struct report *r)
{
	char dir[PATH_MAX + 256];
	int ret;

	/* the pid in its name: a later report removes it if this one dies */
	snprintf(r->tmp, sizeof(r->tmp), "%s/" REPORT_WORK "%d.XXXXXX",
		 report_tmpdir(), (int)getpid());
	if (!mkdtemp(r->tmp)) {
		ret = -errno;
		fprintf(stderr, "gpulat: cannot create a temporary folder %s: %s\n",
			r->tmp, strerror(-ret));
		r->tmp[0] = '\0';
		return ret;
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", r->tmp, r->top) >=
	    sizeof(dir)) {
		fprintf(stderr, "gpulat: temporary folder name too long: %s\n",
			r->tmp);
		return -ENAMETOOLONG;
	}
	ret = bundle_init(&r->b, dir);
	if (ret) {
		fprintf(stderr, "gpulat: %s\n", r->b.errmsg[0] ? r->b.errmsg :
			"out of memory");
		return ret;
	}
	return 0;
}

/*
 * report_archive - pack the folder into r->out: through a temporary
 * beside it (outfile.h), so a failure leaves what was there as it was;
 * 0, or -errno after a message
 */
int report_archive(struct report *r)
{
	char err[PATH_MAX + 256];
	struct gl_out out;
	int ret;

	ret = gl_out_open(&out, r->out, r->mode, err, sizeof(err));
	if (!ret) {
		ret = bundle_pack(r->tmp, r->top, out.fd, err, sizeof(err));
		if (ret)
			gl_out_abort(&out);
		else
			ret = gl_out_commit(&out, err, sizeof(err));
	}
	if (ret)
		fprintf(stderr, "gpulat: %s\n", err);
	return ret;
}

/* report_release - remove the temporary folder, free what @r holds and @r */
void report_release(struct report *r)
{
	if (r->tmp[0]) {
		int rm = bundle_remove(r->tmp);

		if (rm)
			fprintf(stderr, "gpulat: cannot remove %s: %s\n",
				r->tmp, strerror(-rm));
	}
	if (r->watch_tried)
		watch_free(&r->w);
	diag_tasks_free(&r->tasks);
	diag_tasks_free(&r->used);
	gs_timeline_free(&r->gpu);
	hostfacts_free(&r->hf);
	bundle_free(&r->b);
	free(r->out);
	free(r);
}
