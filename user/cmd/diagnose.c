// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: the command.  diagnose_run() and the analysis are the
 * diagnosis engine's (user/diagnose.c).
 */
#include "gpulat.h"

static const char usage_diagnose[] =
"usage: gpulat diagnose [-d SECONDS] [-t FAMILY=DURATION]... [-j]\n"
"\n"
"Watch every family for SECONDS (default 10), compare each layer's tail\n"
"with its baseline and thresholds, and print a ranked verdict: which\n"
"layer (GPU driver interrupt path, network, storage, scheduler, memory)\n"
"most likely causes the spikes, the evidence (percentiles, counts, top\n"
"culprits by name and pid) and what to do next.  Says so when nothing is\n"
"abnormal.\n"
"\n"
"options:\n"
"  -d, --duration SECONDS  how long to watch, 0.1 to 86400 (default 10)\n"
"  -t, --threshold FAMILY=DURATION  outlier threshold while watching\n"
"  -j, --json        one JSON object\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat diagnose                   # ten seconds, then the verdict\n"
"    gpulat diagnose -d 60 -j          # a minute, as JSON\n";

const struct gpulat_command cmd_diagnose = {
	.name = "diagnose",
	.summary = "watch every layer a while and name the likely cause",
	.usage = usage_diagnose,
	.optstring = "hjt:d:",
	.run = diagnose_run,
};
