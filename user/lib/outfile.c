// SPDX-License-Identifier: GPL-2.0
/* Files written whole or not at all, never over a device: outfile.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/outfile.h"

bool gl_out_is_stdout(const char *path)
{
	return !strcmp(path, "-") || !strcmp(path, "/dev/stdout") ||
	       !strcmp(path, "/dev/fd/1");
}

static const char *gl_out_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a folder";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* gl_out_resolve - @path, its symlinks resolved, in @buf; 0 or -errno */
static int gl_out_resolve(const char *path, char *buf, char *msg,
			  size_t len)
{
	struct stat st;
	char *real;

	if (strlen(path) >= PATH_MAX) {
		snprintf(msg, len, "%.64s...: name too long", path);
		return -ENAMETOOLONG;
	}
	if (lstat(path, &st)) {
		if (errno != ENOENT) {
			snprintf(msg, len, "%s: %s", path, strerror(errno));
			return -errno;
		}
		snprintf(buf, PATH_MAX, "%s", path);
		return 0;
	}
	if (S_ISLNK(st.st_mode)) {
		/* written where the link points, the link kept */
		real = realpath(path, NULL);
		if (!real) {
			snprintf(msg, len, "%s: a link to nothing (%s)", path,
				 strerror(errno));
			return -ENOENT;
		}
		snprintf(buf, PATH_MAX, "%s", real);
		free(real);
		return 0;
	}
	snprintf(buf, PATH_MAX, "%s", path);
	return 0;
}

/* gl_out_dir - the folder of @path into @dir (PATH_MAX) */
static void gl_out_dir(const char *path, char *dir)
{
	char *slash;

	snprintf(dir, PATH_MAX, "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, PATH_MAX, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
}

/* gl_out_target - @path resolved in @real, checked; 0 or -errno */
static int gl_out_target(const char *path, char *real, char *msg,
			 size_t len)
{
	char dir[PATH_MAX];
	struct stat st;
	int ret;

	ret = gl_out_resolve(path, real, msg, len);
	if (ret)
		return ret;
	if (!stat(real, &st)) {
		if (!S_ISREG(st.st_mode)) {
			snprintf(msg, len, "%s exists and is %s: not replaced (- writes to standard output)",
				 path, gl_out_kind(st.st_mode));
			return S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
		}
		if (access(real, W_OK)) {
			ret = -errno;
			snprintf(msg, len, "%s: %s", path, strerror(-ret));
			return ret;
		}
	}
	gl_out_dir(real, dir);
	if (access(dir, W_OK | X_OK)) {
		ret = -errno;
		snprintf(msg, len, "cannot write %s: %s: %s", path, dir,
			 strerror(-ret));
		return ret;
	}
	return 0;
}

int gl_out_check(const char *path, char *msg, size_t len)
{
	char real[PATH_MAX];

	if (gl_out_is_stdout(path))
		return 0;
	return gl_out_target(path, real, msg, len);
}

/*
 * gl_out_group - the gid of GL_OUT_GROUP; false where there is none.  The
 * static tool reads /etc/group itself: glibc's getgrnam() needs its
 * shared NSS modules at run time, which a static program cannot count on.
 */
static bool gl_out_group(gid_t *gid)
{
#ifdef GPULAT_NO_NSS
	FILE *f = fopen("/etc/group", "re");
	struct group *g = NULL;

	while (f && (g = fgetgrent(f)) && strcmp(g->gr_name, GL_OUT_GROUP))
		;
	if (g)
		*gid = g->gr_gid;
	if (f)
		fclose(f);
#else
	struct group *g = getgrnam(GL_OUT_GROUP);

	if (g)
		*gid = g->gr_gid;
#endif
	return g != NULL;
}

/* gl_out_private - 0640 and the group where GL_OUT_GROUP exists, else 0600 */
static void gl_out_private(int fd)
{
	gid_t gid;

	if (gl_out_group(&gid) && !fchown(fd, (uid_t)-1, gid))
		fchmod(fd, 0640);
}

int gl_out_open(struct gl_out *o, const char *path, mode_t mode, char *msg,
		size_t len)
{
	char dir[PATH_MAX];
	const char *base;
	int ret;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->mode = mode;
	if (gl_out_is_stdout(path)) {
		o->to_stdout = true;
		o->fd = STDOUT_FILENO;
		snprintf(o->path, sizeof(o->path), "standard output");
		return 0;
	}
	ret = gl_out_target(path, o->path, msg, len);
	if (ret)
		return ret;
	gl_out_dir(o->path, dir);
	base = strrchr(o->path, '/');
	base = base ? base + 1 : o->path;
	/* what a writer of this same file left when it was killed */
	gl_out_sweep(dir, base);
	/* a name of at most NAME_MAX: the target's name cut short */
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s/.%.180s" GL_OUT_TAG
			     "%d.XXXXXX", dir, base, (int)getpid()) >=
	    sizeof(o->tmp)) {
		o->tmp[0] = '\0';
		snprintf(msg, len, "%s: name too long", path);
		return -ENAMETOOLONG;
	}
	o->fd = mkostemp(o->tmp, O_CLOEXEC);	/* 0600 */
	if (o->fd < 0) {
		ret = -errno;
		snprintf(msg, len, "cannot create a file beside %s: %s", path,
			 strerror(-ret));
		o->tmp[0] = '\0';
		return ret;
	}
	if (mode == GL_OUT_PRIVATE)
		gl_out_private(o->fd);
	else if (fchmod(o->fd, mode & 07777)) {
		ret = -errno;
		snprintf(msg, len, "%s: %s", o->tmp, strerror(-ret));
		gl_out_abort(o);
		return ret;
	}
	return 0;
}

int gl_out_write(struct gl_out *o, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(o->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

void gl_out_abort(struct gl_out *o)
{
	if (o->to_stdout)
		return;
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
}

int gl_out_commit(struct gl_out *o, char *msg, size_t len)
{
	struct stat st;
	int ret = 0;

	if (o->to_stdout) {
		if (fsync(STDOUT_FILENO) && errno != EINVAL && errno != EROFS)
			ret = -errno;
		if (ret)
			snprintf(msg, len, "standard output: %s",
				 strerror(-ret));
		return ret;
	}
	/* whole on the disk before it has the target's name */
	if (fsync(o->fd))
		ret = -errno;
	if (close(o->fd) && !ret)
		ret = -errno;
	o->fd = -1;
	if (ret) {
		snprintf(msg, len, "cannot write %s: %s", o->path,
			 strerror(-ret));
		goto fail;
	}
	if (!stat(o->path, &st) && !S_ISREG(st.st_mode)) {
		ret = -EEXIST;
		snprintf(msg, len, "%s became %s while written: not replaced",
			 o->path, gl_out_kind(st.st_mode));
		goto fail;
	}
	if (rename(o->tmp, o->path)) {
		ret = -errno;
		snprintf(msg, len, "cannot rename %s to %s: %s", o->tmp,
			 o->path, strerror(-ret));
		goto fail;
	}
	o->tmp[0] = '\0';
	return 0;
fail:
	gl_out_abort(o);
	return ret;
}

bool gl_dead_writer(const char *name, const char *tag)
{
	const char *p = strstr(name, tag);
	char *end;
	long pid;

	if (!p)
		return false;
	p += strlen(tag);
	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno || end == p || *end != '.' || pid <= 0 || pid > INT_MAX)
		return false;
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

int gl_out_sweep(const char *dir, const char *name)
{
	char path[PATH_MAX], prefix[NAME_MAX + 2] = ".";
	struct dirent *de;
	struct stat st;
	int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	if (name)
		snprintf(prefix, sizeof(prefix), ".%.180s" GL_OUT_TAG, name);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) ||
		    !strstr(de->d_name, GL_OUT_TAG) ||
		    !gl_dead_writer(de->d_name, GL_OUT_TAG))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     de->d_name) >= sizeof(path) ||
		    lstat(path, &st) || !S_ISREG(st.st_mode) ||
		    (geteuid() && st.st_uid != geteuid()))
			continue;
		if (!unlink(path))
			n++;
	}
	closedir(d);
	return n;
}
