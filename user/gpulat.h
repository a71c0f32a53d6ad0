/* SPDX-License-Identifier: GPL-2.0 */
/* gpulat tool: options, exit codes and the entry points of each view. */
#ifndef _GPULAT_USER_TOOL_H
#define _GPULAT_USER_TOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gpulat_user.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* Exit codes of the tool. */
enum gpulat_exit {
	GPULAT_EXIT_OK		= 0,
	GPULAT_EXIT_ERROR	= 1,	/* bad usage or input, failure */
	GPULAT_EXIT_NO_MODULE	= 2,	/* /dev/gpulat absent */
	GPULAT_EXIT_INCOMPATIBLE = 3,	/* module ABI major differs */
};

enum gpulat_cmd {
	GPULAT_CMD_NONE,
	GPULAT_CMD_HELP,		/* gpulat --help */
	GPULAT_CMD_VERSION,		/* gpulat --version */
	GPULAT_CMD_STATUS,
	GPULAT_CMD_HIST,
	GPULAT_CMD_SNAPSHOT,
	GPULAT_CMD_ENABLE,
	GPULAT_CMD_DISABLE,
	GPULAT_CMD_RESET,
	GPULAT_CMD_TRACE,
	GPULAT_CMD_DIAGNOSE,
	GPULAT_CMD_REPORT,
};

/* Most FAMILY arguments of enable and disable (duplicates dropped). */
#define GPULAT_FAMILY_LIST_MAX	64

/*
 * Shortest and longest INTERVAL, --duration and --interval accepted, in
 * seconds: a tenth of a second (each interval takes a snapshot, which
 * costs about 0.6 ms at 8 CPUs and grows with them; shorter ones would
 * mostly measure the tool) to a day.
 */
#define GPULAT_INTERVAL_MIN	0.1
#define GPULAT_INTERVAL_MAX	86400.0

/* Defaults of diagnose and report: watch window and report interval. */
#define GPULAT_DIAGNOSE_SECONDS	10.0
#define GPULAT_REPORT_SECONDS	30.0
#define GPULAT_REPORT_INTERVAL	5.0

struct gpulat_opts {
	enum gpulat_cmd cmd;
	bool help;		/* COMMAND --help */
	bool json;
	bool per_cpu;
	bool per_key;		/* hist -D: one histogram per key */
	bool summary;		/* hist -s: one line per histogram */
	const char *input;	/* saved snapshot to show */
	const char *from;	/* earlier saved snapshot to subtract */
	const char *output;	/* snapshot -o */
	uint64_t families;	/* bit per family number; 0: all */
	/* enable/disable: the FAMILY arguments in command line order */
	uint32_t family_list[GPULAT_FAMILY_LIST_MAX];
	size_t nr_family_list;
	bool has_interval;
	double interval_s;
	unsigned long count;	/* intervals to print; 0: until Ctrl-C */
	/* trace, diagnose, report: --threshold FAMILY=DURATION */
	uint64_t thresholds[GPULAT_FAM_MAX];	/* ns, 0: off */
	uint64_t thresholds_set;	/* bit per family given */
	bool has_duration;
	double duration_s;	/* --duration; trace: 0 = until Ctrl-C */
	bool has_report_interval;
	double report_interval_s;	/* report --interval */
};

/* Softirq vectors (the kernel's enum, stable) that gpulat hist net adds. */
#define VIEW_NET_TX_SOFTIRQ	2
#define VIEW_NET_RX_SOFTIRQ	3

/* What a view shows of a snapshot. */
struct view {
	uint64_t families;	/* bit per family number; 0: all */
	bool per_cpu;
	bool per_key;		/* one histogram per key, not merged over keys */
	bool summary;		/* text: one line per histogram, no buckets */
	bool is_interval;	/* a difference, not totals since reset */
	double interval_s;	/* requested or measured; < 0: none */
	bool clock;		/* print the wall clock time (live data) */
	const char *kernel;	/* uname -r, or NULL when unknown */
	uint32_t module_major, module_minor;
};

/* cli.c */
int gpulat_parse_args(int argc, char **argv, struct gpulat_opts *o,
		      FILE *err);
void gpulat_usage(FILE *f, enum gpulat_cmd cmd);
int gpulat_open_device(uint32_t *major, uint32_t *minor, FILE *err);
int gpulat_load_input(const char *input, const char *from,
		      struct gl_snapshot **out, FILE *err);
const char *gpulat_kernel_release(char *buf, size_t len);
bool view_wants_family(const struct view *v, uint32_t family);
bool view_wants_series(const struct view *v, const struct gpulat_series *sr);
const char *view_family_name(uint32_t family, char *buf, size_t len);
const char *view_kernel(const struct view *v, const struct gl_snapshot *s);

/* status.c */
int status_run(const struct gpulat_opts *o);
void status_print_text(FILE *f, const struct gl_snapshot *s,
		       const struct view *v);
void status_print_json(FILE *f, const struct gl_snapshot *s,
		       const struct view *v);

/* hist.c */
int hist_run(const struct gpulat_opts *o);
void hist_print_text(FILE *f, const struct gl_snapshot *s,
		     const struct view *v);
void hist_print_json(FILE *f, const struct gl_snapshot *s,
		     const struct view *v);

const char *hist_key_text(char *buf, size_t len,
			  const struct gpulat_series *sr);

/* snapshot.c */
int snapshot_run(const struct gpulat_opts *o);

/* trace.c */
int trace_run(const struct gpulat_opts *o);

/* diagnose.c */
int diagnose_run(const struct gpulat_opts *o);

/* report.c */
int report_run(const struct gpulat_opts *o);

/* control.c: enable, disable, reset */
int control_run(const struct gpulat_opts *o);
const char *control_reason(char *buf, size_t len, enum gpulat_cmd cmd,
			   int err);

/* version.c: gpulat --version */
int version_run(FILE *out);

#endif /* _GPULAT_USER_TOOL_H */
