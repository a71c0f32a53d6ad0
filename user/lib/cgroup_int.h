/* SPDX-License-Identifier: GPL-2.0 */
/* libgpulat cgroups: what the mount, walk and naming files share. */
#ifndef _GPULAT_USER_CGROUP_INT_H
#define _GPULAT_USER_CGROUP_INT_H

#include "lib/cgroup.h"

extern struct gl_cg_stats gl_cg_counters;
/* whether the root must be a cgroup2 file system (not when tests set it) */
extern bool gl_cg_check_fs;
/* gl_cg_cache_reset - forget every cached id (the root changed) */
void gl_cg_cache_reset(void);

#endif /* _GPULAT_USER_CGROUP_INT_H */
