// SPDX-License-Identifier: GPL-2.0
/* gpulat - latency histograms of the gpulat kernel module: dispatch only. */
#include "gpulat.h"

int main(int argc, char **argv)
{
	struct gpulat_opts o;
	int ret;

	ret = gpulat_parse_args(argc, argv, &o, stderr);
	if (ret)
		return ret;
	if (o.help) {
		gpulat_usage(stdout, o.cmd);
		return GPULAT_EXIT_OK;
	}
	switch (o.cmd) {
	case GPULAT_CMD_STATUS:
		return status_run(&o);
	case GPULAT_CMD_HIST:
		return hist_run(&o);
	case GPULAT_CMD_SNAPSHOT:
		return snapshot_run(&o);
	case GPULAT_CMD_ENABLE:
	case GPULAT_CMD_DISABLE:
	case GPULAT_CMD_RESET:
		return control_run(&o);
	case GPULAT_CMD_TRACE:
		return trace_run(&o);
	case GPULAT_CMD_DIAGNOSE:
		return diagnose_run(&o);
	case GPULAT_CMD_REPORT:
		return report_run(&o);
	case GPULAT_CMD_VERSION:
		return version_run(stdout);
	default:
		gpulat_usage(stdout, GPULAT_CMD_NONE);
		return GPULAT_EXIT_OK;
	}
}
