// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup2 mount (pure at /sys/fs/cgroup, or hybrid at
 * /sys/fs/cgroup/unified) and opening a cgroup of it for the watch set.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/cgroup_int.h"
#include "lib/source.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif

struct gl_cg_stats gl_cg_counters;
bool gl_cg_check_fs = true;
static char cg_root[PATH_MAX];
static bool cg_root_known;

/* field @i (0-based, space-separated) of @line, octal escapes undone */
static int field(const char *line, size_t len, int i, char *out, size_t olen)
{
	size_t p = 0, o = 0;

	while (i > 0 && p < len) {
		if (line[p++] == ' ')
			i--;
	}
	if (i)
		return -ENOENT;
	while (p < len && line[p] != ' ') {
		char c = line[p++];

		if (c == '\\' && p + 3 <= len && line[p] >= '0' &&
		    line[p] <= '3' && line[p + 1] >= '0' && line[p + 1] <= '7' &&
		    line[p + 2] >= '0' && line[p + 2] <= '7') {
			c = (char)((line[p] - '0') * 64 + (line[p + 1] - '0') * 8 +
				   (line[p + 2] - '0'));
			p += 3;
		}
		if (o + 1 >= olen)
			return -ENAMETOOLONG;
		out[o++] = c;
	}
	out[o] = '\0';
	return o ? 0 : -ENOENT;
}

/* whether the line's file system type (after " - ") is cgroup2 */
static bool is_cgroup2(const char *line, size_t len)
{
	const char *sep = memmem(line, len, " - ", 3);
	size_t rest;

	if (!sep)
		return false;
	rest = len - (size_t)(sep + 3 - line);
	return rest >= 7 && !strncmp(sep + 3, "cgroup2", 7) &&
	       (rest == 7 || sep[10] == ' ');
}

/* gl_cg_mount_parse - see cgroup.h */
int gl_cg_mount_parse(const char *text, size_t len, char *buf, size_t blen)
{
	char mp[PATH_MAX], first[PATH_MAX] = "";
	int rank = 0, r;	/* 2: /sys/fs/cgroup, 1: .../unified */
	size_t off = 0, l;
	const char *nl;

	if (!blen)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	while (off < len) {
		nl = memchr(text + off, '\n', len - off);
		l = nl ? (size_t)(nl - (text + off)) : len - off;
		if (is_cgroup2(text + off, l) &&
		    !field(text + off, l, 4, mp, sizeof(mp))) {
			r = !strcmp(mp, "/sys/fs/cgroup") ? 2 :
			    !strcmp(mp, "/sys/fs/cgroup/unified") ? 1 : 0;
			if (!first[0])
				snprintf(first, sizeof(first), "%s", mp);
			if (r > rank) {
				rank = r;
				if (strlen(mp) >= blen)
					return -ENAMETOOLONG;
				strcpy(buf, mp);
			}
		}
		off += l + 1;
	}
	if (!rank && first[0]) {
		if (strlen(first) >= blen)
			return -ENAMETOOLONG;
		strcpy(buf, first);
	}
	return buf[0] ? 0 : -ENOENT;
}

/* gl_cg_root - see cgroup.h */
const char *gl_cg_root(void)
{
	static char text[65536];
	size_t len;
	FILE *f;

	if (cg_root_known)
		return cg_root[0] ? cg_root : NULL;
	cg_root_known = true;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return NULL;
	len = fread(text, 1, sizeof(text), f);
	fclose(f);
	if (gl_cg_mount_parse(text, len, cg_root, sizeof(cg_root)))
		cg_root[0] = '\0';
	return cg_root[0] ? cg_root : NULL;
}

/* gl_cg_set_root - see cgroup.h */
void gl_cg_set_root(const char *root)
{
	cg_root_known = root != NULL;
	gl_cg_check_fs = root == NULL;
	snprintf(cg_root, sizeof(cg_root), "%s", root ? root : "");
	gl_cg_cache_reset();
}

/* @path relative to @root ("/x"), or NULL if it lies outside */
static const char *under(const char *root, const char *path)
{
	size_t n = strlen(root);

	if (strncmp(path, root, n) || (path[n] && path[n] != '/'))
		return NULL;
	return path[n] ? path + n : "/";
}

/* drop empty and "." components and a trailing slash of absolute @p */
static void normalize(char *p)
{
	char *out = p, *in = p;

	while (*in) {
		while (*in == '/')
			in++;
		if (!*in)
			break;
		if (in[0] == '.' && (in[1] == '/' || !in[1])) {
			in++;
			continue;
		}
		*out++ = '/';
		while (*in && *in != '/')
			*out++ = *in++;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* gl_cg_open - see cgroup.h */
int gl_cg_open(const char *path, struct gl_cgroup_watch *w, char *rel,
	       size_t rlen, char *err, size_t elen)
{
	const char *root = gl_cg_root(), *r, *c;
	char full[PATH_MAX];
	struct statfs sf;
	struct stat st;
	int fd, e;

	if (!root) {
		snprintf(err, elen, "no cgroup2 file system is mounted");
		return -ENOENT;
	}
	r = path[0] == '/' ? under(root, path) : NULL;
	if (!r)
		r = path;
	if (snprintf(full, sizeof(full), "%s%s%s", root, r[0] == '/' ? "" : "/",
		     r) >= (int)sizeof(full)) {
		snprintf(err, elen, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	/* "a//b/./c/" is "a/b/c": the level counts components */
	normalize(full);
	if (strstr(full, "/../") || (strlen(full) >= 3 &&
				     !strcmp(full + strlen(full) - 3, "/..")) ||
	    !under(root, full)) {
		snprintf(err, elen, "%s: not a path under %s", path, root);
		return -EINVAL;
	}
	fd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		snprintf(err, elen, "%s: %s", full,
			 e == ENOTDIR ? "not a cgroup directory" : strerror(e));
		return -e;
	}
	if (fstat(fd, &st) || (gl_cg_check_fs && (fstatfs(fd, &sf) ||
						  sf.f_type != CGROUP2_SUPER_MAGIC))) {
		close(fd);
		snprintf(err, elen, "%s: not a cgroup2 directory (cgroup2 is at %s)",
			 full, root);
		return -EINVAL;
	}
	w->fd = fd;
	w->id = st.st_ino;
	w->level = 0;
	r = under(root, full);
	for (c = r; *c; c++)
		if (*c == '/' && c[1] && c[1] != '/')
			w->level++;
	snprintf(rel, rlen, "%s", r);
	return 0;
}
