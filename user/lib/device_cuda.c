// SPDX-License-Identifier: GPL-2.0
/* The module's side of the cuda family's library (GPULAT_IOC_CUDA). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/cudalib.h"
#include "lib/gpulat_user.h"

/*
 * gl_cuda_set - probe @lib's functions (NULL: none).  The module opens
 * nothing by name: it takes the inode of the file open here.  A module
 * older than ABI 1.5 answers -ENOTTY.
 */
int gl_cuda_set(int fd, const struct gl_cudalib *lib)
{
	struct gpulat_cuda_req r;
	int ret = 0;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.flags = GPULAT_CUDA_SET;
	r.fd = -1;
	if (lib) {
		r.fd = open(lib->path, O_RDONLY | O_CLOEXEC);
		if (r.fd < 0)
			return -errno;
		memcpy(r.offset, lib->offset, sizeof(r.offset));
	}
	if (ioctl(fd, GPULAT_IOC_CUDA, &r))
		ret = -errno;
	if (r.fd >= 0)
		close(r.fd);
	return ret;
}

int gl_cuda_get(int fd, struct gl_cuda_attached *a)
{
	struct gpulat_cuda_req r;

	memset(a, 0, sizeof(*a));
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.fd = -1;
	if (ioctl(fd, GPULAT_IOC_CUDA, &r))
		return -errno;
	if (r.nr > GPULAT_CUDA_FN_MAX)
		return -EPROTO;
	a->ino = r.ino;
	a->dev = r.dev;
	a->nr = r.nr;
	memcpy(a->offset, r.offset, sizeof(a->offset));
	return 0;
}
