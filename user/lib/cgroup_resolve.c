// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup id -> path: on cgroup2 a cgroup's id is its directory's inode
 * number, so a walk of the mount finds it.  The walk is bounded (cgroups
 * cached, levels walked), each bound counted when hit, and an id not
 * found walks again at most once a second.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/cgroup_int.h"

struct cg_entry {
	uint64_t id;
	char *path;	/* from the mount: "/", "/a/b" */
};

static struct cg_entry *cache;
static size_t nr_cache;
static unsigned int max_entries = GL_CG_MAX_ENTRIES;
static unsigned int max_depth = GL_CG_MAX_DEPTH;
static uint64_t last_walk_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* gl_cg_cache_reset - see cgroup_int.h */
void gl_cg_cache_reset(void)
{
	size_t i;

	for (i = 0; i < nr_cache; i++)
		free(cache[i].path);
	free(cache);
	cache = NULL;
	nr_cache = 0;
	last_walk_ns = 0;
}

/* gl_cg_set_bounds - see cgroup.h */
void gl_cg_set_bounds(unsigned int entries, unsigned int depth)
{
	max_entries = entries ? entries : GL_CG_MAX_ENTRIES;
	max_depth = depth ? depth : GL_CG_MAX_DEPTH;
	gl_cg_cache_reset();
}

static void add(uint64_t id, const char *rel)
{
	if (nr_cache >= max_entries) {
		gl_cg_counters.entries_full++;
		return;
	}
	cache[nr_cache].path = strdup(rel);
	if (cache[nr_cache].path)
		cache[nr_cache++].id = id;
}

/* the cgroup open at @dfd, path @rel, @depth levels below the mount */
static void walk(int dfd, char *rel, size_t rlen, unsigned int depth)
{
	struct dirent *d;
	struct stat st;
	size_t n = strlen(rel);
	DIR *dir;
	int sub;

	if (fstat(dfd, &st)) {
		close(dfd);
		return;
	}
	add(st.st_ino, n ? rel : "/");
	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return;
	}
	while ((d = readdir(dir))) {
		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		if (depth >= max_depth) {
			gl_cg_counters.too_deep++;
			continue;
		}
		if (nr_cache >= max_entries) {
			gl_cg_counters.entries_full++;
			continue;
		}
		if (n + 1 + strlen(d->d_name) >= rlen)
			continue;
		sub = openat(dirfd(dir), d->d_name,
			     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0)
			continue;
		rel[n] = '/';
		strcpy(rel + n + 1, d->d_name);
		walk(sub, rel, rlen, depth + 1);
		rel[n] = '\0';
	}
	closedir(dir);
}

static const char *lookup(uint64_t id, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < nr_cache; i++) {
		if (cache[i].id == id) {
			snprintf(buf, len, "%s", cache[i].path);
			return buf;
		}
	}
	return NULL;
}

/* gl_cg_path - see cgroup.h */
const char *gl_cg_path(uint64_t id, char *buf, size_t len)
{
	const char *root;
	char rel[PATH_MAX] = "";
	uint64_t t;
	int fd;

	if (!id)
		return NULL;
	if (lookup(id, buf, len))
		return buf;
	t = now_ns();
	root = gl_cg_root();
	if (!root || (last_walk_ns && t - last_walk_ns < 1000000000ULL))
		return NULL;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	gl_cg_cache_reset();
	cache = calloc(max_entries, sizeof(*cache));
	if (!cache) {
		close(fd);
		return NULL;
	}
	last_walk_ns = t;
	gl_cg_counters.walks++;
	walk(fd, rel, sizeof(rel), 0);
	return lookup(id, buf, len);
}

/* gl_cg_stats - see cgroup.h */
void gl_cg_stats(struct gl_cg_stats *st)
{
	*st = gl_cg_counters;
}
