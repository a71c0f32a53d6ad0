// SPDX-License-Identifier: GPL-2.0
/*
 * The watch set for a while: ours added to what others watch (so that a
 * second user does not take theirs away), the old set put back after.
 * The set holds ids, and setting it needs open directories: the old ones
 * are found again by id (user/lib/cgroup_resolve.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/cgview/cgview.h"
#include "lib/array_size.h"
#include "lib/cgroup.h"

/* cgwatch_reason - see cgwatch.h */
const char *cgwatch_reason(char *buf, size_t len, int ret)
{
	switch (ret) {
	case -ENOTTY:
	case -EOPNOTSUPP:
	case -ENOSYS:
		snprintf(buf, len,
			 "the source has no cgroup family (a module or BPF program older than ABI 1.3)");
		break;
	case -EPERM:
	case -EACCES:
		snprintf(buf, len,
			 "setting the watched cgroups needs CAP_SYS_ADMIN (run as root)");
		break;
	case -E2BIG:
		snprintf(buf, len, "at most %d cgroups can be watched at once",
			 GPULAT_CG_WATCH_MAX);
		break;
	case -EXDEV:
		snprintf(buf, len,
			 "the BPF source cannot watch cgroups from inside a cgroup namespace (its paths are not the kernel's); run gpulat in the host's, or use the module");
		break;
	case -EBADF:
	case -EINVAL:
		snprintf(buf, len, "the source refused a path: not a cgroup2 directory");
		break;
	default:
		snprintf(buf, len, "%s", strerror(-ret));
	}
	return buf;
}

/* cgwatch_open - see cgwatch.h */
int cgwatch_open(const char *const *paths, size_t n, struct cgview_target *t,
		 struct gl_cgroup_watch *w, char *err, size_t elen)
{
	size_t i, k;
	int ret;

	if (n > GPULAT_CG_WATCH_MAX) {
		snprintf(err, elen, "%zu cgroups: at most %d can be watched",
			 n, GPULAT_CG_WATCH_MAX);
		return -E2BIG;
	}
	for (i = 0; i < n; i++) {
		ret = gl_cg_open(paths[i], &w[i], t[i].rel, sizeof(t[i].rel),
				 err, elen);
		if (ret) {
			cgwatch_close(w, i);
			return ret;
		}
		t[i].id = w[i].id;
		for (k = 0; k < i; k++) {
			if (w[k].id == w[i].id) {
				snprintf(err, elen, "%s: named twice", paths[i]);
				cgwatch_close(w, i + 1);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* cgwatch_close - see cgwatch.h */
void cgwatch_close(struct gl_cgroup_watch *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (w[i].fd >= 0)
			close(w[i].fd);
		w[i].fd = -1;
	}
}

/* open the watched cgroup @id again, by its path; 0 or -ENOENT */
static int reopen(uint64_t id, struct gl_cgroup_watch *w)
{
	char path[PATH_MAX], rel[PATH_MAX], err[256];

	if (!gl_cg_path(id, path, sizeof(path)))
		return -ENOENT;
	if (gl_cg_open(path, w, rel, sizeof(rel), err, sizeof(err)))
		return -ENOENT;
	if (w->id != id) {	/* removed, and a new one made there */
		close(w->fd);
		return -ENOENT;
	}
	return 0;
}

/* the old set's ids, reopened, after @w[0..*n); those gone dropped */
static void add_old(const uint64_t *ids, unsigned int nids,
		    struct gl_cgroup_watch *w, size_t *n, size_t max)
{
	unsigned int i;
	size_t k;

	for (i = 0; i < nids && *n < max; i++) {
		for (k = 0; k < *n && w[k].id != ids[i]; k++)
			;
		if (k < *n)
			continue;
		if (!reopen(ids[i], &w[*n]))
			(*n)++;
		else
			fprintf(stderr, "gpulat: watched cgroup %llu is gone: dropped\n",
				(unsigned long long)ids[i]);
	}
}

/* cgwatch_begin - see cgwatch.h */
int cgwatch_begin(struct gl_source *src, const struct gl_cgroup_watch *w,
		  size_t n, struct cgwatch_saved *sv, char *err, size_t elen)
{
	struct gl_cgroup_watch all[2 * GPULAT_CG_WATCH_MAX];
	size_t i, k, nall = 0, missing = 0;
	int ret;

	memset(sv, 0, sizeof(*sv));
	ret = gl_source_cgroup_get(src, sv->ids, &sv->n);
	if (ret) {
		cgwatch_reason(err, elen, ret);
		return ret;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < sv->n && sv->ids[k] != w[i].id; k++)
			;
		if (k == sv->n)
			sv->added[missing++] = w[i].id;
	}
	sv->nr_added = missing;
	if (!missing)
		return 0;	/* all watched already: nothing to change */
	if (sv->n + missing > GPULAT_CG_WATCH_MAX) {
		snprintf(err, elen,
			 "%u cgroups are watched already and %zu more would pass the bound of %d",
			 sv->n, missing, GPULAT_CG_WATCH_MAX);
		return -E2BIG;
	}
	for (i = 0; i < n; i++) {
		all[nall] = w[i];
		all[nall++].fd = dup(w[i].fd);
	}
	add_old(sv->ids, sv->n, all, &nall, ARRAY_SIZE(all));
	ret = gl_source_cgroup_set(src, all, nall);
	cgwatch_close(all, nall);
	if (ret) {
		cgwatch_reason(err, elen, ret);
		return ret;
	}
	sv->changed = true;
	return 0;
}

/* cgwatch_end - see cgwatch.h */
int cgwatch_end(struct gl_source *src, struct cgwatch_saved *sv, char *err,
		size_t elen)
{
	struct gl_cgroup_watch old[GPULAT_CG_WATCH_MAX];
	uint64_t now[GPULAT_CG_WATCH_MAX], keep[GPULAT_CG_WATCH_MAX];
	unsigned int nr_now = 0, nr_keep = 0, i, k;
	size_t n = 0;
	int ret;

	if (!sv->changed)
		return 0;
	/* the set as it is now: others may have changed it since */
	ret = gl_source_cgroup_get(src, now, &nr_now);
	if (ret) {
		cgwatch_reason(err, elen, ret);
		return ret;
	}
	for (i = 0; i < nr_now && i < GPULAT_CG_WATCH_MAX; i++) {
		for (k = 0; k < sv->nr_added && sv->added[k] != now[i]; k++)
			;
		if (k == sv->nr_added)
			keep[nr_keep++] = now[i];
	}
	add_old(keep, nr_keep, old, &n, ARRAY_SIZE(old));
	ret = gl_source_cgroup_set(src, old, n);
	cgwatch_close(old, n);
	if (ret) {
		cgwatch_reason(err, elen, ret);
		return ret;
	}
	sv->changed = false;
	return 0;
}
