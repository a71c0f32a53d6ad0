// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the command line parser: the input is split at NUL bytes into
 * argv[1..]; parsing opens nothing and runs no command.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"

#define FUZZ_MAX_ARGS	32

/* fuzz_bad_seconds - outside [GPULAT_INTERVAL_MIN, GPULAT_INTERVAL_MAX] */
static bool fuzz_bad_seconds(double v)
{
	return !(v >= GPULAT_INTERVAL_MIN && v <= GPULAT_INTERVAL_MAX);
}

/* fuzz_check_families - enable/disable name known families, once each */
static void fuzz_check_families(const struct gpulat_opts *o)
{
	uint64_t seen = 0;
	size_t i;

	if (o->cmd != GPULAT_CMD_ENABLE && o->cmd != GPULAT_CMD_DISABLE) {
		if (o->nr_family_list)
			abort();
		return;
	}
	if (!o->nr_family_list || o->nr_family_list > GPULAT_FAMILY_LIST_MAX)
		abort();
	for (i = 0; i < o->nr_family_list; i++) {
		if (!gl_family_name(o->family_list[i]) ||
		    o->family_list[i] >= 64 ||
		    (seen & (1ULL << o->family_list[i])))
			abort();
		seen |= 1ULL << o->family_list[i];
	}
	if (seen != o->families)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[FUZZ_MAX_ARGS + 2], *buf, *p, *end;
	static FILE *devnull;
	struct gpulat_opts o;
	int argc = 1;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = "gpulat";
	for (p = buf, end = buf + size; p <= end && argc <= FUZZ_MAX_ARGS;
	     p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	/* after -h parsing stops: the checks below hold for complete parses */
	if (!gpulat_parse_args(argc, argv, &o, devnull) && !o.help) {
		/* INTERVAL, --duration, --interval: within the bounds */
		if (o.has_interval && fuzz_bad_seconds(o.interval_s))
			abort();
		if (o.has_duration && fuzz_bad_seconds(o.duration_s))
			abort();
		if (o.has_report_interval &&
		    fuzz_bad_seconds(o.report_interval_s))
			abort();
		if (o.cmd == GPULAT_CMD_SNAPSHOT &&
		    (!o.output || !o.output[0]))
			abort();
		if (o.from && !o.input)
			abort();
		fuzz_check_families(&o);
	}
	if (o.help)
		gpulat_usage(devnull, o.cmd);
	free(buf);
	return 0;
}
