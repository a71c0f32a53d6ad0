// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat attach / detach: keep the BPF source attached between commands.
 * Without it each command loads the BPF programs for its own run, and
 * totals since load mean since that command started.  Pinned in bpffs
 * (GL_BPF_PIN_DIR), the programs keep counting after the tool exits, as
 * a loaded module does: no daemon needed, and nothing else to stop.
 */
#include <errno.h>
#include <string.h>

#include "cmd/cmd.h"

/* attach_run - gpulat attach, gpulat detach */
static int attach_run(const struct gpulat_opts *o)
{
	bool on = o->cmd == GPULAT_CMD_ATTACH;
	char msg[512];
	int ret;

	gpulat_pins_swept(stderr);
	ret = on ? gl_source_bpf_pin(msg, sizeof(msg)) :
		   gl_source_bpf_unpin(msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "gpulat: %s: %s\n", on ? "attach" : "detach",
			msg);
		return GPULAT_EXIT_ERROR;
	}
	if (on)
		printf("BPF source attached, pinned in %s: commands use it until gpulat detach\n",
		       GL_BPF_PIN_DIR);
	else
		printf("BPF source detached (%s removed)\n", GL_BPF_PIN_DIR);
	return GPULAT_EXIT_OK;
}

static const char usage_attach[] =
"usage: gpulat attach\n"
"\n"
"Load the BPF source (the same probes as the gpulat module, as BPF\n"
"programs) and pin it in " GL_BPF_PIN_DIR ", so that it stays attached\n"
"and keeps counting after gpulat exits, until gpulat detach.  Every\n"
"command then reads it, as it reads a loaded module: totals since the\n"
"attach, the trace, enable/disable/reset.  Without it, a command on the\n"
"BPF source loads the programs for its own run.  Needs root (or CAP_BPF\n"
"and CAP_PERFMON), a kernel with BTF, and bpffs on /sys/fs/bpf.\n"
"\n"
"The folder is made whole under a temporary name and renamed into place:\n"
"what an attach killed before it finished left is removed (and said) by\n"
"the next attach, detach or status, and a half-made folder found at\n"
GL_BPF_PIN_DIR " is never read: attach replaces it, detach removes it.\n"
"\n"
"options:\n"
"  -h, --help   show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat attach && gpulat hist   # totals since the attach\n"
"    gpulat detach                  # the programs detach\n";

static const char usage_detach[] =
"usage: gpulat detach\n"
"\n"
"Remove the pinned BPF source (" GL_BPF_PIN_DIR "): its programs\n"
"detach once no gpulat command holds them.\n"
"\n"
"options:\n"
"  -h, --help   show this help\n";

const struct gpulat_command cmd_attach = {
	.name = "attach",
	.summary = "keep the BPF source attached between commands (bpffs)",
	.usage = usage_attach,
	.optstring = "h",
	.run = attach_run,
};

const struct gpulat_command cmd_detach = {
	.name = "detach",
	.summary = "remove the pinned BPF source",
	.usage = usage_detach,
	.optstring = "h",
	.run = attach_run,
};
