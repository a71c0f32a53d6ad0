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

#include "gpulat_user.h"

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

#endif /* _GPULAT_USER_CGVIEW_H */
