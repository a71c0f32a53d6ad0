// SPDX-License-Identifier: GPL-2.0
/* gpulat snapshot: save the raw blob of the module to a file. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/outfile.h"

/* snapshot_run - gpulat snapshot -o FILE */
int snapshot_run(const struct gpulat_opts *o)
{
	struct gl_snapshot *s = NULL;
	uint32_t major, minor;
	struct gl_out out;
	char msg[PATH_MAX + 256];
	struct gl_source *src;
	const void *blob;
	size_t len;
	int ret;

	/* a bad path fails before the wait for a fresh snapshot */
	if (gl_out_check(o->output, msg, sizeof(msg))) {
		fprintf(stderr, "gpulat: %s\n", msg);
		return GPULAT_EXIT_ERROR;
	}
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
	ret = gl_out_open(&out, o->output, gpulat_file_mode(o), msg,
			  sizeof(msg));
	if (ret) {
		fprintf(stderr, "gpulat: %s\n", msg);
		gl_snapshot_free(s);
		return GPULAT_EXIT_ERROR;
	}
	blob = gl_snapshot_blob(s, &len);
	ret = gl_out_write(&out, blob, len);
	gl_snapshot_free(s);
	if (ret) {
		fprintf(stderr, "gpulat: cannot write %s: %s\n", o->output,
			strerror(-ret));
		gl_out_abort(&out);
		return GPULAT_EXIT_ERROR;
	}
	if (gl_out_commit(&out, msg, sizeof(msg))) {
		fprintf(stderr, "gpulat: %s\n", msg);
		return GPULAT_EXIT_ERROR;
	}
	return GPULAT_EXIT_OK;
}

static const char usage_snapshot[] =
"usage: gpulat snapshot -o FILE\n"
"\n"
"Save the raw snapshot blob of the module (for bug reports and replay\n"
"with --input).\n"
"\n"
"options:\n"
"  -o, --output FILE  file to write (- for standard output); a device\n"
"                    or folder is refused, a file replaced only whole\n"
"      --mode MODE   its permissions, octal (default 0600)\n"
"  -h, --help         show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat snapshot -o s.bin   # save now\n"
"    gpulat hist -i s.bin       # look at it later, on any machine\n";

const struct gpulat_command cmd_snapshot = {
	.name = "snapshot",
	.summary = "save the raw snapshot to a file (bug reports, replay)",
	.usage = usage_snapshot,
	.optstring = "ho:M:",
	.needs_output = true,
	.run = snapshot_run,
};
