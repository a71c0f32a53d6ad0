// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder: a window of snapshots and records kept in memory,
 * written as a gpulat report bundle when something goes wrong.  The
 * bundle is the report engine's (engine/report*.c) fed a watch made of
 * copies of what the recorder holds, so it reads as any other report.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "flight.h"
#include "outfile.h"
#include "report.h"

#define FLIGHT_PREFIX	"gpulat-flight-"
#define FLIGHT_SUFFIX	".tar.gz"

static uint64_t flight_make_room(struct flight *fl, uint64_t need,
				 unsigned long slots, bool remove);

int flight_init(struct flight *fl, const struct flight_opts *o)
{
	struct stat st;
	int n;

	memset(fl, 0, sizeof(*fl));
	fl->o = *o;
	if (stat(o->dir, &st) || !S_ISDIR(st.st_mode) ||
	    access(o->dir, W_OK | X_OK)) {
		int ret = errno ? -errno : -ENOTDIR;

		fprintf(stderr, "gpulat: --flight %s: not a folder this process may write: %s\n",
			o->dir, strerror(-ret));
		return ret;
	}
	fl->recs = calloc(FLIGHT_MAX_RECS, sizeof(*fl->recs));
	if (!fl->recs) {
		fprintf(stderr, "gpulat: out of memory\n");
		return -ENOMEM;
	}
	fl->writer_fd = -1;
	/* what a writer killed with its daemon left: temporaries, folders */
	n = gl_out_sweep(o->dir, NULL);
	if (n > 0)
		fprintf(stderr, "gpulat: flight recorder: removed %d unfinished bundle%s from %s\n",
			n, n > 1 ? "s" : "", o->dir);
	report_sweep();
	fl->dir_bytes = flight_make_room(fl, 0, 0, true);
	return 0;
}

static void flight_drop_report(struct flight *fl)
{
	if (fl->r) {
		report_release(fl->r);
		fl->r = NULL;
	}
}

void flight_free(struct flight *fl)
{
	size_t i;

	if (fl->writer > 0) {
		kill(fl->writer, SIGKILL);
		waitpid(fl->writer, NULL, 0);
	}
	if (fl->writer_fd >= 0)
		close(fl->writer_fd);
	flight_drop_report(fl);
	for (i = 0; i < fl->nr_snaps; i++)
		free(fl->snaps[i].z);
	free(fl->snaps);
	free(fl->recs);
	memset(fl, 0, sizeof(*fl));
}

static void flight_pop_snap(struct flight *fl)
{
	fl->bytes -= fl->snaps[0].zlen;
	free(fl->snaps[0].z);
	memmove(fl->snaps, fl->snaps + 1,
		--fl->nr_snaps * sizeof(*fl->snaps));
}

void flight_add_snap(struct flight *fl, const struct gl_snapshot *s)
{
	/*
	 * a pending bundle still needs its window before the trigger, from
	 * the snapshot at or before its start, until it is written
	 */
	uint64_t keep_ns = (uint64_t)((fl->o.before_s + fl->o.after_s +
				       FLIGHT_LATE_S + 2) * 1e9);
	uint64_t now = gl_snapshot_header(s)->time_ns;
	struct flight_snap *n, *fs;
	const void *blob;
	uLongf zlen;
	size_t len;

	blob = gl_snapshot_blob(s, &len);
	if (!blob)
		goto drop;
	if (fl->nr_snaps == fl->cap_snaps) {
		size_t cap = fl->cap_snaps ? fl->cap_snaps * 2 : 64;

		n = realloc(fl->snaps, cap * sizeof(*n));
		if (!n)
			goto drop;
		fl->snaps = n;
		fl->cap_snaps = cap;
	}
	fs = &fl->snaps[fl->nr_snaps];
	zlen = compressBound(len);
	fs->z = malloc(zlen);
	/* level 1: the fastest; empty slots compress well at any level */
	if (!fs->z || compress2(fs->z, &zlen, blob, len, 1) != Z_OK) {
		free(fs->z);
		goto drop;
	}
	fs->time_ns = now;
	fs->len = len;
	fs->zlen = zlen;
	fl->nr_snaps++;
	fl->bytes += zlen;
	while (fl->nr_snaps > 1 && now - fl->snaps[0].time_ns > keep_ns)
		flight_pop_snap(fl);
	/* the memory bound wins over the window: counted, said in bundles */
	while (fl->nr_snaps > 2 && fl->bytes > fl->o.max_bytes) {
		flight_pop_snap(fl);
		fl->snaps_dropped++;
	}
	return;
drop:
	fl->snaps_dropped++;
}

enum prom_cause flight_add_rec(struct flight *fl,
			       const struct gl_trace_rec *rec)
{
	size_t at = (fl->rec_head + fl->nr_recs) % FLIGHT_MAX_RECS;
	const struct gpulat_rec_sample *s = &rec->u.sample;

	if (rec->type == GPULAT_REC_LOST)
		fl->lost += rec->u.lost.lost;
	if (fl->nr_recs == FLIGHT_MAX_RECS) {
		fl->rec_head = (fl->rec_head + 1) % FLIGHT_MAX_RECS;
		fl->recs_dropped++;
	} else {
		fl->nr_recs++;
	}
	fl->recs[at] = *rec;
	if (rec->type == GPULAT_REC_EVENT &&
	    rec->u.event.event.type == GPULAT_EVENT_XID)
		return PROM_CAUSE_XID;
	if (rec->type == GPULAT_REC_SAMPLE && s->family < GPULAT_FAM_MAX &&
	    fl->o.trigger_ns[s->family] &&
	    s->latency_ns >= fl->o.trigger_ns[s->family])
		return PROM_CAUSE_OUTLIER;
	return PROM_NR_CAUSES;
}

/* flight_report - the bundle's report, begun at the trigger */
static struct report *flight_report(struct flight *fl, const char *why)
{
	struct report *r = calloc(1, sizeof(*r));
	time_t t = time(NULL);
	char stamp[32];
	struct tm tm;

	if (!r)
		return NULL;
	r->root = fl->o.root;
	r->interval_s = 1;
	r->duration_s = fl->o.before_s + fl->o.after_s;
	snprintf(r->kernel, sizeof(r->kernel), "%s", fl->kernel);
	snprintf(r->source, sizeof(r->source), "%s", fl->source);
	snprintf(r->trigger, sizeof(r->trigger), "%s", why);
	r->major = fl->major;
	r->minor = fl->minor;
	r->mode = fl->o.mode;
	report_name(r);
	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	/* the archive's name is the writer's to choose (flight_name) */
	snprintf(r->top, sizeof(r->top), FLIGHT_PREFIX "%.100s-%s", r->host,
		 stamp);
	if (report_workdir(r))
		goto fail;
	/* host counters from the trigger on: their deltas cover the after */
	if (hostfacts_start(&r->hf, r->root, &r->b))
		goto fail;
	return r;
fail:
	report_release(r);
	return NULL;
}

bool flight_trigger(struct flight *fl, uint64_t now_ns, const char *why)
{
	double now = now_ns / 1e9;

	if (fl->r || (fl->any && now - fl->last_s < fl->o.gap_s))
		return false;
	fl->r = flight_report(fl, why);
	if (!fl->r) {
		fprintf(stderr, "gpulat: flight recorder: cannot begin a bundle for %s\n",
			why);
		return false;
	}
	fl->trigger_ns = now_ns;
	fl->last_s = now;
	fl->any = true;
	fprintf(stderr, "gpulat: flight recorder: %s; writing %.0f s before and %.0f s after\n",
		why, fl->o.before_s, fl->o.after_s);
	return true;
}

/* flight_verdict - see flight.h */
void flight_verdict(struct flight *fl, const char *text)
{
	if (fl->r)
		snprintf(fl->r->verdict, sizeof(fl->r->verdict), "%s", text);
}

/* flight_unpack - the snapshot @fs holds, for the watch to own */
static struct gl_snapshot *flight_unpack(const struct flight_snap *fs)
{
	struct gl_snapshot *s = NULL;
	uLongf len = fs->len;
	unsigned char *blob = malloc(fs->len);

	if (blob && uncompress(blob, &len, fs->z, fs->zlen) == Z_OK &&
	    len == fs->len && gl_snapshot_parse(blob, len, &s, NULL, 0))
		s = NULL;
	free(blob);
	return s;
}

/* flight_watch - the watch of the window around the trigger, copied */
static int flight_watch(struct flight *fl, struct watch *w)
{
	uint64_t before = (uint64_t)(fl->o.before_s * 1e9);
	/* CLOCK_MONOTONIC starts at boot: a trigger may come before_s into it */
	uint64_t from = fl->trigger_ns > before ? fl->trigger_ns - before : 0;
	size_t first = 0, i, n;
	const struct gl_trace_rec *rec;
	uint64_t t0, t1;

	memset(w, 0, sizeof(*w));
	/* from the newest snapshot at or before @from: before_s whole */
	while (first + 1 < fl->nr_snaps &&
	       fl->snaps[first + 1].time_ns <= from)
		first++;
	if (fl->nr_snaps - first < 2)
		return -ENODATA;
	w->start = flight_unpack(&fl->snaps[first]);
	w->end = flight_unpack(&fl->snaps[fl->nr_snaps - 1]);
	n = fl->nr_snaps - first - 2;
	w->intervals = calloc(n ? n : 1, sizeof(*w->intervals));
	if (!w->start || !w->end || !w->intervals)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		w->intervals[i] = flight_unpack(&fl->snaps[first + 1 + i]);
		if (!w->intervals[i])
			return -ENOMEM;
		w->nr_intervals++;
	}
	if (gl_snapshot_diff(w->start, w->end, &w->window))
		return -ENOMEM;
	t0 = fl->snaps[first].time_ns;
	t1 = fl->snaps[fl->nr_snaps - 1].time_ns;
	w->duration_s = (t1 - t0) / 1e9;
	w->recs = calloc(fl->nr_recs ? fl->nr_recs : 1, sizeof(*w->recs));
	if (!w->recs)
		return -ENOMEM;
	for (i = 0; i < fl->nr_recs; i++) {
		rec = &fl->recs[(fl->rec_head + i) % FLIGHT_MAX_RECS];
		if (rec->time_ns >= t0 && rec->time_ns <= t1)
			w->recs[w->nr_recs++] = *rec;
	}
	w->lost = fl->lost;
	w->dropped = fl->recs_dropped;
	w->trace_ok = true;
	memcpy(w->thresholds, fl->thresholds, sizeof(w->thresholds));
	return 0;
}

struct flight_file {
	char *name;
	struct timespec mtime;
	uint64_t bytes;
};

/* oldest first: by the time written, then by name (-2 after none) */
static int flight_file_cmp(const void *a, const void *b)
{
	const struct flight_file *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* flight_is_bundle - whether @name is one of the recorder's bundles */
static bool flight_is_bundle(const char *name)
{
	size_t len = strlen(name), plen = strlen(FLIGHT_PREFIX);
	size_t slen = strlen(FLIGHT_SUFFIX);

	return len > plen + slen && !strncmp(name, FLIGHT_PREFIX, plen) &&
	       !strcmp(name + len - slen, FLIGHT_SUFFIX);
}

/*
 * flight_make_room - remove the oldest bundles of the folder until
 * @slots more fit in o.keep and @need more bytes in o.dir_bytes (@remove
 * false: none, only counted); the bytes of those left
 */
static uint64_t flight_make_room(struct flight *fl, uint64_t need,
				 unsigned long slots, bool remove)
{
	size_t n = 0, cap = 0, i;
	struct flight_file *files = NULL, *nf;
	uint64_t bytes = 0;
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(fl->o.dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!flight_is_bundle(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", fl->o.dir, de->d_name);
		if (lstat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			nf = realloc(files, cap * sizeof(*files));
			if (!nf)
				break;
			files = nf;
		}
		files[n].name = strdup(de->d_name);
		files[n].mtime = st.st_mtim;
		files[n].bytes = (uint64_t)st.st_blocks * 512 > (uint64_t)st.st_size ?
				 (uint64_t)st.st_blocks * 512 : (uint64_t)st.st_size;
		if (files[n].name) {
			bytes += files[n].bytes;
			n++;
		}
	}
	closedir(d);
	if (n)
		qsort(files, n, sizeof(*files), flight_file_cmp);
	for (i = 0; i < n && remove; i++) {
		if (n - i + slots <= fl->o.keep &&
		    bytes + need <= fl->o.dir_bytes)
			break;
		snprintf(path, sizeof(path), "%s/%s", fl->o.dir, files[i].name);
		if (unlink(path))
			fprintf(stderr, "gpulat: flight recorder: cannot remove %s: %s\n",
				path, strerror(errno));
		else
			bytes -= files[i].bytes;
	}
	for (i = 0; i < n; i++)
		free(files[i].name);
	free(files);
	return bytes;
}

/* What a writer says of its bundle, through its pipe. */
struct flight_result {
	int fail;			/* enum prom_fail; PROM_NR_FAILS: written */
	int err;			/* errno */
	uint64_t dir_bytes;
	char path[PATH_MAX];
};

/* flight_fail_of - the reason counted for @err */
static int flight_fail_of(int err)
{
	switch (err) {
	case ENOSPC:
	case EDQUOT:
		return PROM_FAIL_NO_SPACE;
	case EFBIG:
		return PROM_FAIL_TOO_BIG;
	case ENODATA:
		return PROM_FAIL_NO_WINDOW;
	default:
		return PROM_FAIL_IO;
	}
}

/*
 * flight_pack - the archive through a temporary beside its name (the
 * first of NAME, NAME-2, ... not taken), room made for it, renamed
 * whole; 0 or -errno after a message
 */
static int flight_pack(struct flight *fl, struct report *r,
		       struct flight_result *res)
{
	char err[PATH_MAX + 256];
	struct gl_out out;
	struct stat st;
	uint64_t bytes;
	int i, ret;

	for (i = 1; i < 100; i++) {
		snprintf(res->path, sizeof(res->path), "%s/%s%s%.0d" FLIGHT_SUFFIX,
			 fl->o.dir, r->top, i > 1 ? "-" : "", i > 1 ? i : 0);
		if (access(res->path, F_OK))
			break;
	}
	ret = gl_out_open(&out, res->path, r->mode, err, sizeof(err));
	if (ret)
		goto fail;
	ret = bundle_pack(r->tmp, r->top, out.fd, err, sizeof(err));
	if (!ret && fstat(out.fd, &st)) {
		ret = -errno;
		snprintf(err, sizeof(err), "%s: %s", out.tmp, strerror(-ret));
	}
	if (ret) {
		gl_out_abort(&out);
		goto fail;
	}
	bytes = (uint64_t)st.st_blocks * 512 > (uint64_t)st.st_size ?
		(uint64_t)st.st_blocks * 512 : (uint64_t)st.st_size;
	if (bytes > fl->o.dir_bytes) {
		gl_out_abort(&out);
		snprintf(err, sizeof(err), "a bundle of %llu bytes does not fit in --flight-max-bytes %llu",
			 (unsigned long long)bytes,
			 (unsigned long long)fl->o.dir_bytes);
		ret = -EFBIG;
		goto fail;
	}
	/* the oldest give way; this one is already on the disk */
	res->dir_bytes = flight_make_room(fl, bytes, 1, true) + bytes;
	ret = gl_out_commit(&out, err, sizeof(err));
	if (!ret)
		return 0;
	res->dir_bytes -= bytes;
fail:
	fprintf(stderr, "gpulat: flight recorder: %s\n", err);
	return ret;
}

/* flight_write - the bundle of fl->r, in the writer; its result */
static void flight_write(struct flight *fl, struct flight_result *res)
{
	struct report *r = fl->r;
	int ret;

	r->watch_tried = true;
	ret = flight_watch(fl, &r->w);
	if (ret) {
		fprintf(stderr, "gpulat: flight recorder: no window to write: %s\n",
			strerror(-ret));
		goto out;
	}
	r->watched = true;
	if (fl->snaps_dropped)
		snprintf(r->trigger + strlen(r->trigger),
			 sizeof(r->trigger) - strlen(r->trigger),
			 " (%llu snapshots dropped for the memory bound)",
			 (unsigned long long)fl->snaps_dropped);
	ret = report_write(r);
	if (!ret)
		ret = flight_pack(fl, r, res);
	if (!ret)
		fprintf(stderr, "gpulat: flight recorder: wrote %s\n",
			res->path);
out:
	res->err = -ret;
	res->fail = ret ? flight_fail_of(-ret) : PROM_NR_FAILS;
	if (ret)
		res->dir_bytes = flight_make_room(fl, 0, 0, false);
}

/* flight_close_from - close every descriptor from @fd on */
static void flight_close_from(int fd)
{
	long max = sysconf(_SC_OPEN_MAX);

#ifdef SYS_close_range
	if (!syscall(SYS_close_range, fd, ~0U, 0))
		return;
#endif
	if (max < 0 || max > 65536)
		max = 65536;
	for (; fd < max; fd++)
		close(fd);
}

/*
 * flight_writer - the child that writes: it holds nothing of the
 * daemon's (no socket, no device), dies with it (what it left is swept
 * at the next start) and says its outcome on @fd
 */
static void __attribute__((noreturn)) flight_writer(struct flight *fl,
						    int fd, pid_t parent)
{
	struct flight_result res = { .fail = PROM_FAIL_IO };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	if (fd != 3) {
		if (dup2(fd, 3) < 0)
			_exit(1);
		fd = 3;
	}
	flight_close_from(4);
	flight_write(fl, &res);
	report_release(fl->r);		/* its private folder too */
	fflush(stderr);
	if (write(fd, &res, sizeof(res)) != sizeof(res))
		_exit(1);
	_exit(0);
}

static uint64_t flight_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* flight_spawn - hand the pending bundle to a writer; 1, or 0 (counted) */
static int flight_spawn(struct flight *fl)
{
	struct report *r = fl->r;
	pid_t parent = getpid();
	int p[2];

	if (pipe2(p, O_CLOEXEC)) {
		fprintf(stderr, "gpulat: flight recorder: cannot start a writer: %s\n",
			strerror(errno));
		goto fail;
	}
	fflush(stderr);
	fl->writer = fork();
	if (fl->writer < 0) {
		fprintf(stderr, "gpulat: flight recorder: cannot start a writer: %s\n",
			strerror(errno));
		fl->writer = 0;
		close(p[0]);
		close(p[1]);
		goto fail;
	}
	if (!fl->writer) {
		close(p[0]);
		flight_writer(fl, p[1], parent);
	}
	close(p[1]);
	fl->writer_fd = p[0];
	/* the real clock: the loop's may be a test's */
	fl->writer_ns = flight_now_ns();
	/* its folder is the writer's to remove now */
	r->tmp[0] = '\0';
	flight_drop_report(fl);
	return 1;
fail:
	fl->failed[PROM_FAIL_IO]++;
	flight_drop_report(fl);
	return 0;
}

int flight_reap(struct flight *fl, bool wait)
{
	uint64_t until = fl->writer_ns + FLIGHT_WRITER_MAX_S * 1000000000ULL;
	uint64_t now_ns = flight_now_ns();
	struct flight_result res = { .fail = PROM_FAIL_KILLED };
	struct pollfd pfd;
	int status, ms;
	pid_t got;
	ssize_t n;

	if (fl->writer <= 0)
		return 0;
	/* the pipe ends when the writer does: its result, or nothing */
	pfd.fd = fl->writer_fd;
	pfd.events = POLLIN;
	ms = 0;
	if (wait)
		ms = now_ns < until ? (int)((until - now_ns) / 1000000) + 1 : 0;
	if (poll(&pfd, 1, ms) <= 0) {
		if (now_ns < until && !wait)
			return 0;
		fprintf(stderr, "gpulat: flight recorder: the writer (pid %d) ran over %d s: killed\n",
			(int)fl->writer, FLIGHT_WRITER_MAX_S);
		kill(fl->writer, SIGKILL);
	} else {
		do
			n = read(fl->writer_fd, &res, sizeof(res));
		while (n < 0 && errno == EINTR);
		if (n != sizeof(res)) {
			memset(&res, 0, sizeof(res));
			res.fail = PROM_FAIL_KILLED;
		}
	}
	do
		got = waitpid(fl->writer, &status, 0);
	while (got < 0 && errno == EINTR);
	if (res.fail != PROM_NR_FAILS && got > 0 && WIFSIGNALED(status))
		res.fail = PROM_FAIL_KILLED;
	close(fl->writer_fd);
	fl->writer_fd = -1;
	fl->writer = 0;
	if (res.fail == PROM_NR_FAILS)
		fl->written++;
	else if (res.fail >= 0 && res.fail < PROM_NR_FAILS)
		fl->failed[res.fail]++;
	if (res.fail != PROM_FAIL_KILLED)
		fl->dir_bytes = res.dir_bytes;
	return 1;
}

int flight_tick(struct flight *fl, uint64_t now_ns)
{
	uint64_t due = fl->trigger_ns + (uint64_t)(fl->o.after_s * 1e9);

	if (!fl->r || now_ns < due)
		return 0;
	/* until a snapshot at or after @due ends the window: after_s whole */
	if ((!fl->nr_snaps ||
	     fl->snaps[fl->nr_snaps - 1].time_ns < due) &&
	    now_ns < due + FLIGHT_LATE_S * 1000000000ULL)
		return 0;
	if (fl->writer > 0) {
		if (now_ns < due + FLIGHT_BUSY_WAIT_S * 1000000000ULL)
			return 0;
		fprintf(stderr, "gpulat: flight recorder: a bundle given up: the writer (pid %d) is still busy with the one before\n",
			(int)fl->writer);
		fl->failed[PROM_FAIL_WRITER_BUSY]++;
		flight_drop_report(fl);
		return 0;
	}
	return flight_spawn(fl);
}

int flight_flush(struct flight *fl)
{
	int ret = 0;

	if (fl->r && fl->writer > 0)
		ret |= flight_reap(fl, true);
	if (fl->r)
		flight_spawn(fl);
	if (fl->writer > 0)
		ret |= flight_reap(fl, true);
	return ret;
}
