// SPDX-License-Identifier: GPL-2.0
/* libgpulat: the module's watched cgroups, GPULAT_IOC_CGROUP */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include "lib/gpulat_user.h"
#include "lib/source.h"

/*
 * gl_cgroup_set - watch the cgroups open at @w[i].fd (@n 0: none); the
 * module takes only the fds, it finds ids and levels itself.  A module
 * older than ABI 1.3 answers -ENOTTY (an unknown command).
 */
int gl_cgroup_set(int fd, const struct gl_cgroup_watch *w, unsigned int n)
{
	struct gpulat_cgroup_req r;
	unsigned int i;

	if (n > GPULAT_CG_WATCH_MAX)
		return -E2BIG;
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.flags = GPULAT_CGROUP_SET;
	r.nr = n;
	for (i = 0; i < n; i++)
		r.fd[i] = w[i].fd;
	if (ioctl(fd, GPULAT_IOC_CGROUP, &r))
		return -errno;
	return 0;
}

/* gl_cgroup_get - the watched ids into @ids[GPULAT_CG_WATCH_MAX] */
int gl_cgroup_get(int fd, uint64_t *ids, unsigned int *n)
{
	struct gpulat_cgroup_req r;
	unsigned int i;

	*n = 0;
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	if (ioctl(fd, GPULAT_IOC_CGROUP, &r))
		return -errno;
	if (r.nr > GPULAT_CG_WATCH_MAX)
		return -EPROTO;
	for (i = 0; i < r.nr; i++)
		ids[i] = r.id[i];
	*n = r.nr;
	return 0;
}
