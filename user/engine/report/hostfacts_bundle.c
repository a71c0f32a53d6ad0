// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report: the report folder, its MANIFEST, packing it with tar and
 * removing it.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/report/hostfacts_int.h"

/* bundle_fail - keep the first failure and its reason */
void bundle_fail(struct bundle *b, int err, const char *fmt, ...)
{
	va_list ap;

	if (b->err)
		return;
	b->err = err ? err : -EIO;
	va_start(ap, fmt);
	vsnprintf(b->errmsg, sizeof(b->errmsg), fmt, ap);
	va_end(ap);
}

int bundle_init(struct bundle *b, const char *dir)
{
	memset(b, 0, sizeof(*b));
	b->dir = strdup(dir);
	if (!b->dir)
		return -ENOMEM;
	if (mkdir(dir, 0700)) {
		b->err = -errno;
		snprintf(b->errmsg, sizeof(b->errmsg), "cannot create %s: %s",
			 dir, strerror(errno));
		return b->err;
	}
	return 0;
}

void bundle_free(struct bundle *b)
{
	size_t i;

	for (i = 0; i < b->nr; i++) {
		free(b->e[i].path);
		free(b->e[i].what);
		free(b->e[i].absent);
	}
	free(b->e);
	free(b->dir);
	memset(b, 0, sizeof(*b));
}

static struct bundle_entry *bundle_entry(struct bundle *b, const char *path)
{
	struct bundle_entry *e;
	size_t i;

	for (i = b->nr; i-- > 0;)
		if (!strcmp(b->e[i].path, path))
			return &b->e[i];
	if (b->nr == b->alloc) {
		size_t n = b->alloc ? 2 * b->alloc : 32;

		e = realloc(b->e, n * sizeof(*e));
		if (!e)
			return NULL;
		b->e = e;
		b->alloc = n;
	}
	e = &b->e[b->nr];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	if (!e->path)
		return NULL;
	b->nr++;
	return e;
}

/* bundle_mkdirs - make the folders of @path below the top folder */
static int bundle_mkdirs(struct bundle *b, const char *path)
{
	char full[PATH_MAX];
	char *p;
	int n;

	n = snprintf(full, sizeof(full), "%s/%s", b->dir, path);
	if (n < 0 || (size_t)n >= sizeof(full))
		return -ENAMETOOLONG;
	for (p = full + strlen(b->dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(full, 0700) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

FILE *bundle_create(struct bundle *b, const char *path, const char *what)
{
	struct bundle_entry *e;
	char full[PATH_MAX];
	FILE *f;
	int ret;

	if (b->err)
		return NULL;
	e = bundle_entry(b, path);
	if (!e || !(e->what || (e->what = strdup(what)))) {
		bundle_fail(b, -ENOMEM, "out of memory");
		return NULL;
	}
	ret = bundle_mkdirs(b, path);
	if (ret) {
		bundle_fail(b, ret, "cannot create the folder of %s/%s: %s",
			    b->dir, path, strerror(-ret));
		return NULL;
	}
	snprintf(full, sizeof(full), "%s/%s", b->dir, path);
	f = fopen(full, "w");
	if (!f)
		bundle_fail(b, -errno, "cannot create %s: %s", full,
			    strerror(errno));
	return f;
}

int bundle_close(struct bundle *b, FILE *f, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) || bad) {
		bundle_fail(b, -EIO, "cannot write %s/%s: %s", b->dir, path,
			    bad ? "write error" : strerror(errno));
		return -EIO;
	}
	return 0;
}

void bundle_absent(struct bundle *b, const char *path, const char *fmt, ...)
{
	struct bundle_entry *e = bundle_entry(b, path);
	va_list ap;
	char *s;
	int n;

	if (!e) {
		bundle_fail(b, -ENOMEM, "out of memory");
		return;
	}
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		bundle_fail(b, -ENOMEM, "out of memory");
		return;
	}
	free(e->absent);
	e->absent = s;
}

size_t bundle_nr_absent(const struct bundle *b)
{
	size_t i, n = 0;

	for (i = 0; i < b->nr; i++)
		n += !!b->e[i].absent;
	return n;
}

int bundle_write_manifest(struct bundle *b, const char *header)
{
	static const char what[] =
		"this list: every file, then every absent source";
	size_t i, w = strlen("MANIFEST");
	FILE *f;

	f = bundle_create(b, "MANIFEST", what);
	if (!f)
		return b->err;
	for (i = 0; i < b->nr; i++)
		if (strlen(b->e[i].path) > w)
			w = strlen(b->e[i].path);
	/* This file first: a reader opens the archive here. */
	fprintf(f, "%s\nfiles:\n  %-*s  %s\n", header, (int)w, "MANIFEST",
		what);
	for (i = 0; i < b->nr; i++)
		if (b->e[i].what && strcmp(b->e[i].path, "MANIFEST"))
			fprintf(f, "  %-*s  %s\n", (int)w, b->e[i].path,
				b->e[i].what);
	fprintf(f, "\nabsent sources (each file says so too):\n");
	if (!bundle_nr_absent(b))
		fprintf(f, "  none\n");
	for (i = 0; i < b->nr; i++)
		if (b->e[i].absent)
			fprintf(f, "  absent: %s: %s\n", b->e[i].path,
				b->e[i].absent);
	return bundle_close(b, f, "MANIFEST");
}

bool bundle_find_prog(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	const char *p, *end;

	if (strchr(name, '/'))
		return !access(name, X_OK);
	if (!path || !path[0])
		path = "/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		end = strchrnul(p, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p),
			     end > p ? p : ".", name) < (int)sizeof(buf) &&
		    !access(buf, X_OK))
			return true;
		if (!*end)
			return false;
	}
}

/* bundle_copy - the pipe @in to @fd until its end; 0 or -errno of a write */
static int bundle_copy(int in, int fd)
{
	char buf[65536];
	ssize_t n, w;
	size_t off;

	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		for (off = 0; off < (size_t)n; off += w) {
			w = write(fd, buf + off, n - off);
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w <= 0)
				return w < 0 ? -errno : -EIO;
		}
	}
}

int bundle_pack(const char *parent, const char *top, int fd, char *err,
		size_t errlen)
{
	int pfd[2], dfd[2], status, child_errno = 0, ret;
	ssize_t n;
	pid_t pid;

	/*
	 * The archive comes through a pipe and is written here: a full disk
	 * is this process's ENOSPC, not tar's status.  The other pipe closes
	 * on exec; an errno on it means exec failed.
	 */
	if (pipe2(pfd, O_CLOEXEC)) {
		ret = -errno;
		snprintf(err, errlen, "cannot run tar: %s", strerror(-ret));
		return ret;
	}
	if (pipe2(dfd, O_CLOEXEC)) {
		ret = -errno;
		snprintf(err, errlen, "cannot run tar: %s", strerror(-ret));
		close(pfd[0]);
		close(pfd[1]);
		return ret;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot run tar: %s", strerror(-ret));
		close(pfd[0]);
		close(pfd[1]);
		close(dfd[0]);
		close(dfd[1]);
		return ret;
	}
	if (!pid) {
		close(pfd[0]);
		close(dfd[0]);
		if (dup2(dfd[1], STDOUT_FILENO) < 0)
			_exit(127);
		execlp("tar", "tar", "-czf", "-", "-C", parent, top,
		       (char *)NULL);
		child_errno = errno;
		if (write(pfd[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	close(dfd[1]);
	ret = bundle_copy(dfd[0], fd);
	close(dfd[0]);		/* tar, still writing, ends on EPIPE */
	do
		n = read(pfd[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			ret = -errno;
			snprintf(err, errlen, "waiting for tar: %s",
				 strerror(-ret));
			return ret;
		}
	}
	if (n == sizeof(child_errno)) {
		snprintf(err, errlen, "cannot run tar: %s%s",
			 strerror(child_errno), child_errno == ENOENT ?
			 " (tar is not installed or not in PATH)" : "");
		return -child_errno;
	}
	if (ret) {
		snprintf(err, errlen, "cannot write the archive: %s",
			 strerror(-ret));
		return ret;
	}
	if (WIFSIGNALED(status)) {
		snprintf(err, errlen, "tar -czf - -C %s %s was killed by signal %d",
			 parent, top, WTERMSIG(status));
		return -EIO;
	}
	if (WEXITSTATUS(status)) {
		snprintf(err, errlen, "tar -czf - -C %s %s failed with status %d",
			 parent, top, WEXITSTATUS(status));
		return -EIO;
	}
	return 0;
}

static int bundle_rm_one(const char *path, const struct stat *st, int flag,
			 struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) ? -1 : 0;
	return unlink(path) ? -1 : 0;
}

int bundle_remove(const char *dir)
{
	if (nftw(dir, bundle_rm_one, 16, FTW_DEPTH | FTW_PHYS))
		return errno ? -errno : -EIO;
	return 0;
}
