// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report: the command.  report_run() and the bundle are the
 * report engine's (user/report.c).
 */
#include "gpulat.h"

static const char usage_report[] =
"usage: gpulat report [-o FILE.tar.gz] [-d SECONDS] [--interval SECONDS]\n"
"                     [-t FAMILY=DURATION]...\n"
"\n"
"Watch for SECONDS (default 30) and write one archive to attach to a\n"
"vendor bug report: snapshots at the start, the end and every interval,\n"
"the outlier trace, the diagnosis, and the host facts that\n"
"nvidia-bug-report.sh does not collect (IRQ affinity of the nvidia IRQs,\n"
"irqbalance, /proc/interrupts and /proc/softirqs, cpufreq and idle\n"
"states, THP, PCIe link and AER counters of NVIDIA functions, driver\n"
"version, NVRM/Xid log lines, kernel and gpulat parameters, GPU state\n"
"through NVML when present).  MANIFEST at the top says what is inside.\n"
"\n"
"options:\n"
"  -o, --output FILE  archive to write (default\n"
"                    gpulat-report-HOST-YYYYMMDD-HHMMSS.tar.gz)\n"
"  -d, --duration SECONDS  how long to watch, 0.1 to 86400 (default 30)\n"
"      --interval SECONDS  snapshot every SECONDS, 0.1 to 86400 (default 5)\n"
"  -t, --threshold FAMILY=DURATION  outlier threshold while watching\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat report                     # 30 s, archive in this folder\n"
"    gpulat report -d 120 -o /tmp/r.tar.gz\n";

const struct gpulat_command cmd_report = {
	.name = "report",
	.summary = "write a .tar.gz bundle for a vendor bug report",
	.usage = usage_report,
	.optstring = "ho:t:d:I:",
	.run = report_run,
};
