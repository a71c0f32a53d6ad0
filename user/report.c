// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report: watch the module for a while and write one .tar.gz to
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
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diagnose.h"
#include "gpulat.h"
#include "hostfacts.h"
#include "nvml.h"
#include "trace.h"
#include "units.h"
#include "watch.h"

struct report {
	const struct gpulat_opts *o;
	double duration_s, interval_s;
	char host[128];
	char top[256];			/* gpulat-report-HOST-YYYYMMDD-HHMMSS */
	char when[64];			/* start time, for people */
	char *out;			/* the archive, absolute path */
	char tmp[PATH_MAX];		/* private folder holding top/ */
	const char *root;		/* $GPULAT_SYSROOT or "" */
	char kernel[128];
	struct bundle b;
	struct hostfacts hf;
	struct watch w;
	struct diag_tasks tasks;	/* CPU time of threads at the start */
	struct diag_tasks used;		/* and used during the watch */
	bool watch_tried;		/* watch_run was called: free w */
	bool watched;			/* w holds a finished watch */
	bool interrupted;		/* a signal ended the wait early */
	double waited_s;		/* without the module: time waited */
	char module[512];		/* why the module is absent; "" if read */
	uint32_t major, minor;
};

/* report_name - the top folder's name: gpulat-report-HOST-YYYYMMDD-HHMMSS */
static void report_name(struct report *r)
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

/* report_output - absolute path of the archive; tar changes folder first */
static int report_output(struct report *r)
{
	char cwd[PATH_MAX], *dir, *slash;
	const char *out = r->o->output;
	int n;

	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "gpulat: cannot tell the current folder: %s\n",
			strerror(errno));
		return -1;
	}
	if (out && out[0] == '/')
		n = asprintf(&r->out, "%s", out);
	else if (out)
		n = asprintf(&r->out, "%s/%s", cwd, out);
	else
		n = asprintf(&r->out, "%s/%s.tar.gz", cwd, r->top);
	if (n < 0) {
		r->out = NULL;
		fprintf(stderr, "gpulat: out of memory\n");
		return -1;
	}
	/* Fail now, not after the watch, when the folder is not writable. */
	dir = strdup(r->out);
	if (!dir) {
		fprintf(stderr, "gpulat: out of memory\n");
		return -1;
	}
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (access(dir, W_OK | X_OK)) {
		fprintf(stderr, "gpulat: cannot write %s: %s: %s\n", r->out,
			dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	if (!access(r->out, F_OK) && access(r->out, W_OK)) {
		fprintf(stderr, "gpulat: cannot write %s: %s\n", r->out,
			strerror(errno));
		return -1;
	}
	return 0;
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

static int report_snapshots(struct report *r)
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

static int report_trace(struct report *r)
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

static int report_diagnosis(struct report *r)
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
	ret = diag_analyze_tasks(&r->w, r->used.v ? &r->used : NULL, &d);
	if (ret) {
		bundle_fail(&r->b, ret, "diagnosis: %s", strerror(-ret));
		return ret;
	}
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
	diag_free(d);
	return r->b.err;
}

/*
 * NVML is asked in a child process.  nvmlInit and the queries can block
 * for a long time on a GPU that fell off the bus (exactly when a report
 * is wanted), or crash inside the vendor library; the child gets
 * REPORT_NVML_SECONDS ($GPULAT_NVML_TIMEOUT) to answer, then is killed.
 */
#define REPORT_NVML_SECONDS	10.0
#define REPORT_NVML_MAGIC	0x4e564d4cU	/* "NVML" */

/* What the child sends: this, then @len bytes of nvml.txt. */
struct report_nvml_head {
	uint32_t magic;
	uint32_t present;
	uint32_t len;
	char absent[512];
};

/* report_nvml_timeout - $GPULAT_NVML_TIMEOUT seconds, else the default */
static double report_nvml_timeout(void)
{
	const char *s = getenv("GPULAT_NVML_TIMEOUT");
	char *end;
	double v;

	if (!s || !s[0])
		return REPORT_NVML_SECONDS;
	v = strtod(s, &end);
	if (*end || !(v > 0) || v > 3600)
		return REPORT_NVML_SECONDS;
	return v;
}

static double report_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int report_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * report_nvml_child - in the child: ask NVML and send the answer on @fd.
 * The descriptors of the report (the device, its files) are closed first,
 * so a child stuck in the driver holds none of them.
 */
static void __attribute__((noreturn)) report_nvml_child(int fd)
{
	struct report_nvml_head h;
	struct nvml_info *n;
	char *text = NULL;
	size_t len = 0;
	struct dirent *e;
	FILE *f;
	DIR *d;

	d = opendir("/proc/self/fd");
	while (d && (e = readdir(d))) {
		int o = atoi(e->d_name);

		if (o > 2 && o != fd && o != dirfd(d))
			close(o);
	}
	if (d)
		closedir(d);
	n = calloc(1, sizeof(*n));
	if (!n)
		_exit(3);
	nvml_collect(n);
	f = open_memstream(&text, &len);
	if (!f)
		_exit(3);
	nvml_print_text(f, n);
	if (fclose(f) || len > UINT32_MAX)
		_exit(3);
	memset(&h, 0, sizeof(h));
	h.magic = REPORT_NVML_MAGIC;
	h.present = n->present;
	h.len = (uint32_t)len;
	snprintf(h.absent, sizeof(h.absent), "%s", n->absent);
	if (report_write_all(fd, &h, sizeof(h)) ||
	    report_write_all(fd, text, len))
		_exit(4);
	close(fd);
	/* Answered: a hang or a crash in nvmlShutdown costs nothing now. */
	nvml_close(n);
	_exit(0);
}

/*
 * report_reap - wait for child @pid for at most @wait_s; true when it
 * ended (its status in *@status).  A process stuck in the kernel does
 * not die even of SIGKILL: it is left behind rather than waited for.
 */
static bool report_reap(pid_t pid, int *status, double wait_s)
{
	double until = report_now() + wait_s;
	struct timespec step = { 0, 10 * 1000 * 1000 };
	pid_t ret;

	for (;;) {
		ret = waitpid(pid, status, WNOHANG);
		if (ret == pid)
			return true;
		if (ret < 0 && errno != EINTR)
			return false;
		if (report_now() >= until)
			return false;
		nanosleep(&step, NULL);
	}
}

/*
 * report_nvml_ask - nvml.txt as a child process writes it, within
 * @timeout_s: 0 with the text in *@text (malloc'd) and the child's
 * header in @h; else -1 with why not in @why
 */
static int report_nvml_ask(double timeout_s, struct report_nvml_head *h,
			   char **text, char *why, size_t whylen)
{
	double until = report_now() + timeout_s;
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0, need = sizeof(*h);
	bool head = false, done = false, eof = false, timed_out = false;
	bool reaped;
	int pfd[2], status = 0, ret = -1;
	pid_t pid;

	*text = NULL;
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(why, whylen, "cannot ask NVML: pipe: %s",
			 strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "cannot ask NVML: fork: %s",
			 strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		close(pfd[0]);
		report_nvml_child(pfd[1]);
	}
	close(pfd[1]);
	while (!done && !eof) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		double left = until - report_now();
		ssize_t n;
		int pr;

		if (left <= 0) {
			timed_out = true;
			break;
		}
		pr = poll(&p, 1, (int)(left * 1000) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0) {
			snprintf(why, whylen, "cannot ask NVML: poll: %s",
				 strerror(errno));
			break;
		}
		if (!pr)
			continue;	/* the deadline is checked above */
		if (len == cap) {
			cap = cap ? 2 * cap : 16384;
			nb = realloc(buf, cap);
			if (!nb) {
				snprintf(why, whylen, "out of memory");
				break;
			}
			buf = nb;
		}
		n = read(pfd[0], buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			eof = true;
			break;
		}
		len += n;
		if (!head && len >= sizeof(*h)) {
			memcpy(h, buf, sizeof(*h));
			if (h->magic != REPORT_NVML_MAGIC) {
				snprintf(why, whylen,
					 "the process asking NVML sent garbage");
				break;
			}
			head = true;
			need += h->len;
		}
		done = head && len >= need;
	}
	close(pfd[0]);
	if (done) {
		/* The answer is in: give the child what is left to finish. */
		reaped = report_reap(pid, &status, until - report_now());
		if (!reaped) {
			kill(pid, SIGKILL);
			report_reap(pid, &status, 1);
		}
		*text = malloc(h->len + 1);
		if (*text) {
			memcpy(*text, buf + sizeof(*h), h->len);
			(*text)[h->len] = '\0';
			h->absent[sizeof(h->absent) - 1] = '\0';
			ret = 0;
		} else {
			snprintf(why, whylen, "out of memory");
		}
		free(buf);
		return ret;
	}
	free(buf);
	if (!eof) {
		/* Timed out, or gave up reading: stop the child. */
		kill(pid, SIGKILL);
		reaped = report_reap(pid, &status, 1);
		if (timed_out)
			snprintf(why, whylen,
				 "NVML did not answer within %g s (the process asking it, pid %d, was killed%s)",
				 timeout_s, (int)pid,
				 reaped ? "" : "; it is stuck in the kernel");
		return -1;
	}
	/* The pipe closed without a whole answer: the child ended. */
	reaped = report_reap(pid, &status, until - report_now() > 1 ?
			     until - report_now() : 1);
	if (!reaped) {
		kill(pid, SIGKILL);
		reaped = report_reap(pid, &status, 1);
	}
	if (reaped && WIFSIGNALED(status))
		snprintf(why, whylen,
			 "NVML crashed the process asking it: signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (reaped && WIFEXITED(status) && WEXITSTATUS(status))
		snprintf(why, whylen,
			 "the process asking NVML ended with status %d before answering",
			 WEXITSTATUS(status));
	else
		snprintf(why, whylen,
			 "the process asking NVML ended before answering");
	return -1;
}

static int report_nvml(struct report *r)
{
	static const char path[] = "host/nvml.txt";
	const char *lib = getenv("GPULAT_NVML_LIB");
	struct report_nvml_head h;
	char why[640], *text = NULL;
	FILE *f;

	f = bundle_create(&r->b, path,
			  "GPU state through NVML: clock event reasons, PCIe link, persistence, utilisation");
	if (!f)
		return r->b.err;
	if (!report_nvml_ask(report_nvml_timeout(), &h, &text, why,
			     sizeof(why))) {
		fputs(text, f);
		if (!h.present)
			bundle_absent(&r->b, path, "%s", h.absent);
	} else {
		fprintf(f, "library:      %s\nabsent: %s\n",
			lib && lib[0] ? lib : NVML_SONAME, why);
		bundle_absent(&r->b, path, "%s", why);
	}
	free(text);
	bundle_close(&r->b, f, path);
	return r->b.err;
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
	fprintf(f, "kernel:    %s\n", r->kernel[0] ? r->kernel : "unknown");
	fprintf(f, "tool:      gpulat ABI %u.%u\n", GPULAT_ABI_MAJOR,
		GPULAT_ABI_MINOR);
	if (r->module[0])
		fprintf(f, "module:    absent: %s\n", r->module);
	else
		fprintf(f, "module:    ABI %u.%u (/dev/gpulat)\n", r->major,
			r->minor);
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

/* report_collect - fill the folder; 0 or an exit code after a message */
static int report_collect(struct report *r, int fd)
{
	char *header;
	int ret;

	ret = hostfacts_start(&r->hf, r->root, &r->b);
	if (ret)
		goto fail;
	fprintf(stderr, "gpulat: watching for %.0f s (Ctrl-C ends it early), then writing %s\n",
		r->duration_s, r->out);
	watch_stop_on_signal();
	if (fd >= 0) {
		struct diag_tasks t1 = { 0 };

		if (diag_tasks_read(&r->tasks))
			diag_tasks_free(&r->tasks);
		r->watch_tried = true;
		ret = watch_run(fd, r->duration_s, r->interval_s, true,
				r->o->thresholds, r->o->thresholds_set, &r->w,
				NULL, NULL, stderr);
		if (ret)
			return ret;
		r->watched = true;
		if (r->tasks.n && !diag_tasks_read(&t1) &&
		    diag_tasks_delta(&r->tasks, &t1, &r->used))
			memset(&r->used, 0, sizeof(r->used));
		diag_tasks_free(&t1);
	} else {
		report_wait(r);
	}
	ret = hostfacts_end(&r->hf, &r->b);
	if (!ret)
		ret = report_nvml(r);
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
		bundle_fail(&r->b, -ENOMEM, "out of memory");
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
	return GPULAT_EXIT_ERROR;
}

/* report_open - the device, or the reason it is absent; fd, -1, or -exit code */
static int report_open(struct report *r)
{
	char *msg = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&msg, &len);
	int fd;

	if (!m) {
		fprintf(stderr, "gpulat: out of memory\n");
		return -GPULAT_EXIT_ERROR;
	}
	fd = gpulat_open_device(&r->major, &r->minor, m);
	fclose(m);
	if (fd >= 0 || fd != -GPULAT_EXIT_NO_MODULE) {
		/* Permission, ABI: the person can fix those; say so and stop. */
		if (fd < 0)
			fputs(msg, stderr);
		free(msg);
		return fd;
	}
	msg[strcspn(msg, "\n")] = '\0';
	snprintf(r->module, sizeof(r->module), "%s",
		 strncmp(msg, "gpulat: ", 8) ? msg : msg + 8);
	free(msg);
	fprintf(stderr, "gpulat: %s: the report holds host facts only\n",
		r->module);
	return -1;
}

/* report_run - gpulat report */
int report_run(const struct gpulat_opts *o)
{
	char err[512], dir[PATH_MAX + 256], *part = NULL;
	struct report *r;
	const char *tmpdir;
	int fd, ret = GPULAT_EXIT_ERROR;

	r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(stderr, "gpulat: out of memory\n");
		return GPULAT_EXIT_ERROR;
	}
	r->o = o;
	r->duration_s = o->has_duration ? o->duration_s : GPULAT_REPORT_SECONDS;
	r->interval_s = o->has_report_interval ? o->report_interval_s :
		GPULAT_REPORT_INTERVAL;
	if (r->interval_s > r->duration_s)
		r->interval_s = r->duration_s;
	r->root = getenv("GPULAT_SYSROOT");
	if (!r->root)
		r->root = "";
	gpulat_kernel_release(r->kernel, sizeof(r->kernel));
	report_name(r);
	if (report_output(r))
		goto out;
	if (!bundle_find_prog("tar")) {
		fprintf(stderr, "gpulat: tar is not installed or not in PATH; the report is a .tar.gz made by tar\n");
		goto out;
	}
	fd = report_open(r);
	if (fd < -1) {
		ret = -fd;
		goto out;
	}
	tmpdir = getenv("TMPDIR");
	snprintf(r->tmp, sizeof(r->tmp), "%s/gpulat-report.XXXXXX",
		 tmpdir && tmpdir[0] ? tmpdir : "/tmp");
	if (!mkdtemp(r->tmp)) {
		fprintf(stderr, "gpulat: cannot create a temporary folder %s: %s\n",
			r->tmp, strerror(errno));
		r->tmp[0] = '\0';
		if (fd >= 0)
			close(fd);
		goto out;
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", r->tmp, r->top) >=
	    sizeof(dir)) {
		fprintf(stderr, "gpulat: temporary folder name too long: %s\n",
			r->tmp);
		if (fd >= 0)
			close(fd);
		goto out;
	}
	if (bundle_init(&r->b, dir)) {
		fprintf(stderr, "gpulat: %s\n", r->b.errmsg[0] ? r->b.errmsg :
			"out of memory");
		if (fd >= 0)
			close(fd);
		goto out;
	}
	ret = report_collect(r, fd);
	if (fd >= 0)
		close(fd);
	if (ret)
		goto out;
	/*
	 * tar writes a name of its own next to the archive, renamed over it
	 * when whole: a failure leaves a file given with -o as it was.
	 */
	if (asprintf(&part, "%s.tmp.%d", r->out, (int)getpid()) < 0) {
		part = NULL;
		fprintf(stderr, "gpulat: out of memory\n");
		goto out;
	}
	if (bundle_pack(r->tmp, r->top, part, err, sizeof(err))) {
		fprintf(stderr, "gpulat: %s\n", err);
		unlink(part);
		ret = GPULAT_EXIT_ERROR;
		goto out;
	}
	if (rename(part, r->out)) {
		fprintf(stderr, "gpulat: cannot rename %s to %s: %s\n", part,
			r->out, strerror(errno));
		unlink(part);
		ret = GPULAT_EXIT_ERROR;
		goto out;
	}
	printf("wrote %s (%zu files, %zu sources absent: see MANIFEST)\n",
	       r->out, r->b.nr, bundle_nr_absent(&r->b));
	ret = GPULAT_EXIT_OK;
out:
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
	hostfacts_free(&r->hf);
	bundle_free(&r->b);
	free(part);
	free(r->out);
	free(r);
	return ret;
}
