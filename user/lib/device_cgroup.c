// SPDX-License-Identifier: GPL-2.0
/* libgpulat: the module's watched cgroups, GPULAT_IOC_CGROUP */
#include <errno.h>
#include <stdint.h>

#include "gpulat_user.h"
#include "source.h"

/* GPULAT_IOC_CGROUP: see gpulat_user.h (filled in by the module's side) */
int gl_cgroup_set(int fd, const struct gl_cgroup_watch *w, unsigned int n)
{
	(void)fd; (void)w; (void)n;
	return -ENOTTY;
}

int gl_cgroup_get(int fd, uint64_t *ids, unsigned int *n)
{
	(void)fd; (void)ids;
	*n = 0;
	return -ENOTTY;
}
