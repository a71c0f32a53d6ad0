// SPDX-License-Identifier: GPL-2.0
/* libgpulat device access: open /dev/gpulat, check its ABI, take snapshots. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/gpulat_user.h"
#include "lib/libinternal.h"

/* Attempts at a snapshot while series keep appearing between two calls. */
#define GL_TAKE_TRIES	8
/* Room added to the size asked for, so that a new series or two still fit. */
#define GL_TAKE_SLACK	(4 * 4096)
/* Refuse a size no module would need. */
#define GL_TAKE_MAX	(1UL << 30)

/* gl_version - ABI version of the module behind @fd */
int gl_version(int fd, uint32_t *major, uint32_t *minor)
{
	struct gpulat_version v = { .size = sizeof(v) };

	if (ioctl(fd, GPULAT_IOC_VERSION, &v))
		return -errno;
	*major = v.major;
	*minor = v.minor;
	return 0;
}

/* gl_open - open the device and check that its ABI major is ours; fd or -errno */
int gl_open(char *err, size_t errlen)
{
	uint32_t major = 0, minor = 0;
	char hint[1024];
	int fd, ret;

	fd = open(GPULAT_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (gl_no_module(ret)) {
			gl_load_hint(hint, sizeof(hint));
			gl_set_err(err, errlen,
				   "%s: %s: the gpulat module is not loaded; %s",
				   GPULAT_DEVICE_PATH, strerror(-ret), hint);
		} else if (ret == -EACCES || ret == -EPERM)
			gl_set_err(err, errlen,
				   "%s: %s: run gpulat as root",
				   GPULAT_DEVICE_PATH, strerror(-ret));
		else
			gl_set_err(err, errlen, "%s: %s", GPULAT_DEVICE_PATH,
				   strerror(-ret));
		return ret;
	}
	ret = gl_version(fd, &major, &minor);
	if (ret) {
		gl_set_err(err, errlen,
			   "%s: version query failed: %s; is it the gpulat device?",
			   GPULAT_DEVICE_PATH, strerror(-ret));
		close(fd);
		return ret;
	}
	if (major != GPULAT_ABI_MAJOR) {
		gl_set_err(err, errlen,
			   "module ABI %u.%u is incompatible with this gpulat (ABI %u.%u); use the gpulat tool built with the module",
			   major, minor, GPULAT_ABI_MAJOR, GPULAT_ABI_MINOR);
		close(fd);
		return -EPROTONOSUPPORT;
	}
	return fd;
}

/* gl_no_module - whether an open() error means the module is not loaded */
bool gl_no_module(int ret)
{
	return ret == -ENOENT || ret == -ENXIO || ret == -ENODEV;
}

/* gl_reset - zero every histogram and counter of the module */
int gl_reset(int fd)
{
	struct gpulat_reset r = { .size = sizeof(r) };

	return ioctl(fd, GPULAT_IOC_RESET, &r) ? -errno : 0;
}

/* gl_family_switch - attach (@on) or detach a family's probes */
int gl_family_switch(int fd, uint32_t family, bool on)
{
	struct gpulat_family_req r = {
		.size = sizeof(r), .family = family, .enable = on,
	};

	return ioctl(fd, GPULAT_IOC_FAMILY, &r) ? -errno : 0;
}

/* gl_snapshot_take_err - gl_snapshot_take with a reason in @err */
int gl_snapshot_take_err(int fd, struct gl_snapshot **out, char *err,
			 size_t errlen)
{
	struct gpulat_snapshot_req req;
	void *buf = NULL, *nbuf;
	uint64_t size;
	int tries, ret;

	*out = NULL;
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	if (ioctl(fd, GPULAT_IOC_SNAPSHOT, &req)) {
		ret = -errno;
		gl_set_err(err, errlen, "snapshot size query failed: %s",
			   strerror(-ret));
		return ret;
	}
	for (tries = 0; tries < GL_TAKE_TRIES; tries++) {
		if (req.needed > GL_TAKE_MAX) {
			gl_set_err(err, errlen,
				   "module asks for a %llu-byte snapshot buffer",
				   (unsigned long long)req.needed);
			ret = -EOVERFLOW;
			goto out;
		}
		size = req.needed + GL_TAKE_SLACK;
		nbuf = realloc(buf, size);	/* malloc alignment >= 8 */
		if (!nbuf) {
			ret = -ENOMEM;
			goto out;
		}
		buf = nbuf;
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.buf = (uintptr_t)buf;
		req.buf_size = size;
		if (!ioctl(fd, GPULAT_IOC_SNAPSHOT, &req)) {
			if (req.needed > size) {
				gl_set_err(err, errlen,
					   "module reports %llu bytes written into a %llu-byte buffer",
					   (unsigned long long)req.needed,
					   (unsigned long long)size);
				ret = -EBADMSG;
				goto out;
			}
			ret = gl_snapshot_parse_owned(buf, req.needed, out,
						      err, errlen);
			if (!ret)
				buf = NULL;	/* the snapshot's now */
			goto out;
		}
		ret = -errno;
		if (ret != -ENOSPC) {
			gl_set_err(err, errlen, "snapshot failed: %s",
				   strerror(-ret));
			goto out;
		}
	}
	gl_set_err(err, errlen, "snapshot kept growing over %d attempts",
		   GL_TAKE_TRIES);
	ret = -EAGAIN;
out:
	free(buf);
	return ret;
}

/* gl_snapshot_take - fetch, validate and own one snapshot of the device */
int gl_snapshot_take(int fd, struct gl_snapshot **out)
{
	return gl_snapshot_take_err(fd, out, NULL, 0);
}
