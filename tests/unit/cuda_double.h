/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the libcuda.so.1 double (tests/cuda/fake_cuda.c) is: built
 * beside the unit tests, in cuda/.
 */
#ifndef _GPULAT_TEST_CUDA_DOUBLE_H
#define _GPULAT_TEST_CUDA_DOUBLE_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* cuda_double - the double built beside this test, in @buf; NULL: none */
static inline const char *cuda_double(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	if (snprintf(buf, len, "%s/cuda/libcuda.so.1", exe) >= (int)len)
		return NULL;
	return access(buf, R_OK) ? NULL : buf;
}

#endif /* _GPULAT_TEST_CUDA_DOUBLE_H */
