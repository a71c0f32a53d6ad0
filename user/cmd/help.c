// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat --help and gpulat COMMAND --help: the commands and the families
 * are listed from their tables, each command's help is its own.
 */
#include <string.h>

#include "cmd/cmd.h"

static const char usage_head[] =
"usage: gpulat [-h] [-V] [--source auto|kmod|bpf] COMMAND [ARGS]\n"
"\n"
"Latency histograms of the gpulat kernel module (/dev/gpulat), or of\n"
"the same probes as BPF programs where the module is not loaded.\n"
"\n"
"commands:\n";

static const char usage_tail[] =
"\n"
"options:\n"
"  -h, --help      show this help (gpulat COMMAND -h: help on COMMAND)\n"
"  -V, --version   show the tool's version and ABI version\n"
"  --source SOURCE where the series come from (also GPULAT_SOURCE):\n"
"                  kmod, the module; bpf, BPF programs loaded for this\n"
"                  command alone; pinned, the BPF source gpulat attach\n"
"                  pinned; auto (default), the module when it is loaded,\n"
"                  else the pinned source (said on stderr; drill and\n"
"                  watch-cgroup take their own), else bpf\n"
"\n"
"exit status: 0 ok, 1 bad usage or error, 2 no source (module not\n"
"loaded, and BPF not possible where auto), 3 module ABI incompatible\n"
"with this tool\n"
"\n"
"EXAMPLES:\n"
"    gpulat status              # is the module loaded, what is attached\n"
"    gpulat hist                # histograms since load or reset\n"
"    gpulat hist sched 1 10     # sched latency, 10 one-second intervals\n"
"    gpulat hist block -D       # block latency, one histogram per disk\n"
"    gpulat enable irq nvidia   # switch the irq and nvidia probes on\n"
"    gpulat reset               # start counting from zero\n"
"    gpulat snapshot -o s.bin   # save a snapshot for a bug report\n"
"    gpulat trace -t sched=5ms  # every run-queue wait of 5 ms or more\n"
"    gpulat diagnose            # what causes the spikes, ranked\n"
"    gpulat report -o r.tar.gz  # everything a vendor needs, in one file\n"
"    gpulat --source bpf attach # no module: BPF, attached until detach\n";

/* help_families - the families of the table: "sched, block, ..." */
static void help_families(FILE *f)
{
	size_t i;

	for (i = 0; i < gl_family_count(); i++)
		fprintf(f, "%s%s", i ? ", " : "",
			gl_family_name(gl_family_at(i)));
}

/* usage_main - the tool's help: every command and every family */
static void usage_main(FILE *f)
{
	const struct gpulat_command *c;
	int cmd;

	fputs(usage_head, f);
	for (cmd = GPULAT_CMD_NONE; cmd < GPULAT_NR_CMDS; cmd++) {
		c = gpulat_command_of(cmd);
		if (c)
			fprintf(f, "  %-12s %s\n", c->name, c->summary);
	}
	fputs("\nfamilies: ", f);
	help_families(f);
	fputc('\n', f);
	fputs(usage_tail, f);
}

/* help_put - @text, each GPULAT_USAGE_FAMILIES in it the table's list */
static void help_put(FILE *f, const char *text)
{
	const size_t tl = strlen(GPULAT_USAGE_FAMILIES);
	const char *at;

	while ((at = strstr(text, GPULAT_USAGE_FAMILIES))) {
		fwrite(text, 1, at - text, f);
		help_families(f);
		text = at + tl;
	}
	fputs(text, f);
}

/* gpulat_usage - help text of @cmd (GPULAT_CMD_NONE: the tool's) */
void gpulat_usage(FILE *f, enum gpulat_cmd cmd)
{
	const struct gpulat_command *c = gpulat_command_of(cmd);

	if (c)
		help_put(f, c->usage);
	else
		usage_main(f);
}
