// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder's writer: a child process packs each bundle, so
 * that the snapshot loop never waits on tar, NVML or the disk (flight.h);
 * the folder's bounds, in bytes and count, are kept here.
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

#include "engine/report/report.h"
#include "engine/serve/flight_int.h"
#include "lib/outfile.h"

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

/* flight_st_bytes - what a file takes of the disk: its blocks, or its size */
static uint64_t flight_st_bytes(const struct stat *st)
{
	uint64_t blocks = (uint64_t)st->st_blocks * 512;

	return blocks > (uint64_t)st->st_size ? blocks : (uint64_t)st->st_size;
}

/* flight_make_room - see flight_int.h */
uint64_t flight_make_room(struct flight *fl, uint64_t need,
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
		files[n].bytes = flight_st_bytes(&st);
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
	bytes = flight_st_bytes(&st);
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
