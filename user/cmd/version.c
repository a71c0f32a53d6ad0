// SPDX-License-Identifier: GPL-2.0
/* gpulat --version: the tool's version and ABI, the module's when loaded. */
#include <fcntl.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "version.h"	/* generated: build/user/version.h */

const char *gpulat_version(void)
{
	return GPULAT_VERSION;
}

/* version_run - print "gpulat VERSION (ABI M.N)"; works without the module */
int version_run(FILE *out)
{
	uint32_t major, minor;
	int fd;

	fprintf(out, "gpulat %s (ABI %u.%u)\n", GPULAT_VERSION,
		GPULAT_ABI_MAJOR, GPULAT_ABI_MINOR);
	/* A loaded module's ABI too, as gpulat status shows it; quiet if none */
	fd = open(GPULAT_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return GPULAT_EXIT_OK;
	if (!gl_version(fd, &major, &minor))
		fprintf(out, "module ABI %u.%u (%s)\n", major, minor,
			GPULAT_DEVICE_PATH);
	close(fd);
	return GPULAT_EXIT_OK;
}
