// SPDX-License-Identifier: GPL-2.0
/* Where the NVML test double is, for the tests that load it. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/nvml/nvml.h"
#include "nvml_double.h"

/* nvml_double_path - see nvml_double.h */
const char *nvml_double_path(char *buf, size_t len, const char *sub)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(buf, len, "%s/%s/" NVML_SONAME, exe, sub);
	return access(buf, R_OK) ? NULL : buf;
}
