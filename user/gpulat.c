// SPDX-License-Identifier: GPL-2.0
/* gpulat - latency histograms of the gpulat kernel module: dispatch only. */
#include "cmd/cmd.h"

int main(int argc, char **argv)
{
	const struct gpulat_command *c;
	struct gpulat_opts o;
	int ret;

	ret = gpulat_parse_args(argc, argv, &o, stderr);
	if (ret)
		return ret;
	if (o.cmd == GPULAT_CMD_VERSION)
		return version_run(stdout);
	c = gpulat_command_of(o.cmd);
	if (o.help || !c) {
		gpulat_usage(stdout, o.cmd);
		return GPULAT_EXIT_OK;
	}
	return c->run(&o);
}
