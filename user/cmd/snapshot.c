// SPDX-License-Identifier: GPL-2.0
/* gpulat snapshot: save the raw blob of the module to a file. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "gpulat.h"

/* snapshot_run - gpulat snapshot -o FILE */
int snapshot_run(const struct gpulat_opts *o)
{
	struct gl_snapshot *s = NULL;
	uint32_t major, minor;
	bool to_stdout = !strcmp(o->output, "-");
	char msg[256];
	FILE *f;
	struct gl_source *src;
	int ret;

	ret = gpulat_source_open(o, &src, &major, &minor, stderr);
	if (ret)
		return gpulat_device_exit(ret);
	gpulat_fresh_wait(src, GPULAT_FRESH_SECONDS);
	ret = gl_source_snapshot(src, &s, msg, sizeof(msg));
	gl_source_close(src);
	if (ret) {
		fprintf(stderr, "gpulat: %s\n", msg);
		return GPULAT_EXIT_ERROR;
	}
	f = to_stdout ? stdout : fopen(o->output, "wb");
	if (!f) {
		fprintf(stderr, "gpulat: cannot create %s: %s\n", o->output,
			strerror(errno));
		gl_snapshot_free(s);
		return GPULAT_EXIT_ERROR;
	}
	ret = gl_snapshot_write(s, f);
	if ((!to_stdout && fclose(f)) || ret) {
		fprintf(stderr, "gpulat: cannot write %s\n", o->output);
		ret = GPULAT_EXIT_ERROR;
	}
	gl_snapshot_free(s);
	return ret ? GPULAT_EXIT_ERROR : GPULAT_EXIT_OK;
}

static const char usage_snapshot[] =
"usage: gpulat snapshot -o FILE\n"
"\n"
"Save the raw snapshot blob of the module (for bug reports and replay\n"
"with --input).\n"
"\n"
"options:\n"
"  -o, --output FILE  file to write (- for standard output)\n"
"  -h, --help         show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat snapshot -o s.bin   # save now\n"
"    gpulat hist -i s.bin       # look at it later, on any machine\n";

const struct gpulat_command cmd_snapshot = {
	.name = "snapshot",
	.summary = "save the raw snapshot to a file (bug reports, replay)",
	.usage = usage_snapshot,
	.optstring = "ho:",
	.needs_output = true,
	.run = snapshot_run,
};
