/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Adding cgroups to the source's watch set for a while, and putting the
 * set back as it was (gpulat watch-cgroup, hist --cgroup INTERVAL).
 */
#ifndef _GPULAT_USER_CGWATCH_H
#define _GPULAT_USER_CGWATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "cgview.h"
#include "source.h"

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

#endif /* _GPULAT_USER_CGWATCH_H */
