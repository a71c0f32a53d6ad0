/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroup family's series by cgroup (gpulat watch-cgroup, hist
 * --cgroup): for each chosen cgroup its own series and, under it, those
 * of the cgroups below it; count, p50, p99, max of each kind.
 */
#ifndef _GPULAT_USER_CGVIEW_H
#define _GPULAT_USER_CGVIEW_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <stddef.h>

#include "lib/cgroup.h"
#include "lib/gpulat_user.h"
#include "lib/json.h"
#include "lib/source.h"

/* A chosen cgroup: its path from the mount and its id (0: unknown). */
struct cgview_target {
	char rel[PATH_MAX];
	uint64_t id;
};

/* Cgroups below the chosen ones that one view lists at most. */
#define CGVIEW_MAX_ROWS	256

/*
 * cgview_print_text, cgview_print_json - the series of @t[0..n) and the
 * cgroups below them in @s (an interval's difference, or totals);
 * @interval_s < 0: totals.  Cgroups are matched by path (the mount's),
 * else by id.  Returns the number of cgroups shown.
 */
size_t cgview_print_text(FILE *f, const struct gl_snapshot *s,
			 const struct cgview_target *t, size_t n,
			 double interval_s);
size_t cgview_print_json(FILE *f, const struct gl_snapshot *s,
			 const struct cgview_target *t, size_t n,
			 double interval_s);

/*
 * A cgroup as trace and diagnose print it: its path from the mount and
 * the container, pod or unit the path (or on a hybrid host the task's v1
 * lines) shows.
 */
struct cg_desc {
	uint64_t id;		/* 0: unknown */
	char path[PATH_MAX];	/* "" if not found on this host */
	struct gl_cg_name name;
};

/*
 * cg_describe - @id's path and name; @pid > 0: on a hybrid host, when the
 * path names no container and the task lives in it still, its v1 lines
 */
void cg_describe(struct cg_desc *d, uint64_t id, pid_t pid);
/* cg_text - "/a/b (docker 0123456789ab)", "/a/b", "cgroup 4242" */
const char *cg_text(char *buf, size_t len, const struct cg_desc *d);
/*
 * cg_json - @key: {"id":N,"path":"/a"|null,"container":{...}|null}; the
 * container object: kind, id, short_id, pod, unit, uid (those known)
 */
void cg_json(struct json *j, const char *key, const struct cg_desc *d);

/*
 * Adding cgroups to the source's watch set for a while, and putting the
 * set back as it was (gpulat watch-cgroup, hist --cgroup INTERVAL).
 */
/* The set as it was, to put back. */
struct cgwatch_saved {
	uint64_t ids[GPULAT_CG_WATCH_MAX];	/* the set before */
	unsigned int n;
	/* the ids this watch added, which cgwatch_end() takes out again */
	uint64_t added[GPULAT_CG_WATCH_MAX];
	unsigned int nr_added;
	bool changed;	/* we set it: cgwatch_end() restores */
};

/*
 * cgwatch_open - open @paths[0..n) as cgroups of the mount into @t
 * (paths, ids) and @w (open fds, ids, levels); 0, or -errno with the
 * reason in @err (nothing left open)
 */
int cgwatch_open(const char *const *paths, size_t n, struct cgview_target *t,
		 struct gl_cgroup_watch *w, char *err, size_t elen);
/* cgwatch_close - close the fds of @w[0..n) */
void cgwatch_close(struct gl_cgroup_watch *w, size_t n);

/*
 * cgwatch_begin - watch @w[0..n) besides what the source watches already
 * (saved into @sv); nothing to do if all are watched.  0, or -errno with
 * the reason in @err: the source too old, no permission, too many.
 */
int cgwatch_begin(struct gl_source *src, const struct gl_cgroup_watch *w,
		  size_t n, struct cgwatch_saved *sv, char *err, size_t elen);
/*
 * cgwatch_end - take the cgroups this watch added out of the set as it
 * is now (another user's, added meanwhile, stay; cgroups removed since
 * are dropped); 0, or -errno with the reason in @err
 */
int cgwatch_end(struct gl_source *src, struct cgwatch_saved *sv, char *err,
		size_t elen);

/* cgwatch_reason - why a watch set was refused (@ret: -errno) */
const char *cgwatch_reason(char *buf, size_t len, int ret);

#endif /* _GPULAT_USER_CGVIEW_H */
