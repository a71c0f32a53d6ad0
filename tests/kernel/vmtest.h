/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers the in-VM tests share (static: each test is one program). */
#ifndef _GPULAT_VMTEST_H
#define _GPULAT_VMTEST_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

/* pin_self - run on @cpu only; a child that cannot exits with 90 */
static inline void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(90);
}

/* write_str - write @val to the file @path (sysfs, configfs); 0 or -errno */
static inline int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -EIO;
}

#endif /* _GPULAT_VMTEST_H */
