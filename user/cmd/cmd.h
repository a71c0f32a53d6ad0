/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat tool: exit codes, the command table, options, and what the
 * commands (user/cmd/, user/cli.c, user/gpulat.c) share; no engine
 * includes it (scripts/check-layers).
 *
 * Errors: below the commands, functions return 0 (or a count, an fd) or
 * a negative errno; a command's run function returns one of enum
 * gpulat_exit, which main() returns.  gpulat_device_exit() and
 * gpulat_input_exit() turn an errno into the exit code it means.
 */
#ifndef _GPULAT_USER_CMD_H
#define _GPULAT_USER_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "engine/view/view.h"
#include "lib/gpulat_user.h"

#include "lib/array_size.h"

/* Exit codes of the tool. */
enum gpulat_exit {
	GPULAT_EXIT_OK		= 0,
	GPULAT_EXIT_ERROR	= 1,	/* bad usage or input, failure */
	GPULAT_EXIT_NO_MODULE	= 2,	/* /dev/gpulat absent */
	GPULAT_EXIT_INCOMPATIBLE = 3,	/* module ABI major differs */
};

/*
 * The commands, in the order gpulat --help lists them: X(ID, name) makes
 * GPULAT_CMD_ID and names the command's descriptor, cmd_name (struct
 * gpulat_command), which its file in user/cmd/ defines.  Adding a
 * command is one line here and that one file.
 */
#define GPULAT_COMMANDS(X) \
	X(STATUS, status) \
	X(HIST, hist) \
	X(ENABLE, enable) \
	X(DISABLE, disable) \
	X(RESET, reset) \
	X(SNAPSHOT, snapshot) \
	X(TRACE, trace) \
	X(DIAGNOSE, diagnose) \
	X(REPORT, report) \
	X(ATTACH, attach) \
	X(DETACH, detach) \
	X(SERVE, serve) \
	X(WATCH_CGROUP, watch_cgroup) \
	X(DRILL, drill) \
	X(CUDA, cuda)

enum gpulat_cmd {
	GPULAT_CMD_NONE,
	GPULAT_CMD_HELP,		/* gpulat --help */
	GPULAT_CMD_VERSION,		/* gpulat --version */
#define GPULAT_CMD_ENUM(id, name)	GPULAT_CMD_##id,
	GPULAT_COMMANDS(GPULAT_CMD_ENUM)
#undef GPULAT_CMD_ENUM
	GPULAT_NR_CMDS,
};

struct gpulat_opts;

/* What the words after a command's options are. */
enum gpulat_args {
	GPULAT_ARGS_NONE,	/* none */
	GPULAT_ARGS_FAMILIES,	/* FAMILY..., at least one (enable, disable) */
	GPULAT_ARGS_HIST,	/* [FAMILY...] [INTERVAL [COUNT]] */
	GPULAT_ARGS_CGROUPS,	/* PATH..., 1 to GPULAT_CG_WATCH_MAX */
	GPULAT_ARGS_DRILL,	/* cpu|disk|net|irq|clean, exactly one (drill) */
	GPULAT_ARGS_CUDA,	/* [status | attach [LIBRARY] | detach] (cuda) */
};

/* One command: what dispatch, help and parsing need of it. */
struct gpulat_command {
	const char *name;	/* the command word */
	const char *summary;	/* its line in gpulat --help */
	const char *usage;	/* gpulat NAME --help */
	/*
	 * getopt letters of its options; the long names are cli.c's one
	 * table (--json is j, --input i:, ...)
	 */
	const char *optstring;
	enum gpulat_args args;
	bool needs_output;	/* -o FILE is required */
	/* run - the command; returns an enum gpulat_exit */
	int (*run)(const struct gpulat_opts *o);
};

#define GPULAT_CMD_DECLARE(id, name) \
	extern const struct gpulat_command cmd_##name;
GPULAT_COMMANDS(GPULAT_CMD_DECLARE)
#undef GPULAT_CMD_DECLARE

/* gpulat_command_of - the descriptor of @cmd; NULL for NONE, HELP, VERSION */
const struct gpulat_command *gpulat_command_of(enum gpulat_cmd cmd);
/* gpulat_command_lookup - the command named @word; GPULAT_CMD_NONE if none */
enum gpulat_cmd gpulat_command_lookup(const char *word);

/* Most FAMILY arguments of enable and disable (duplicates dropped). */
#define GPULAT_FAMILY_LIST_MAX	64
/* in a command's usage: the families of the table, as help prints them */
#define GPULAT_USAGE_FAMILIES	"@FAMILIES@"

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

/* Defaults of serve's flight recorder: seconds before, after, between. */
#define GPULAT_FLIGHT_BEFORE_S	60.0
#define GPULAT_FLIGHT_AFTER_S	10.0
#define GPULAT_FLIGHT_GAP_S	300.0
#define GPULAT_FLIGHT_KEEP	10
/* the flight folder's bound in bytes (--flight-max-bytes) and its range */
#define GPULAT_FLIGHT_MAX_BYTES	(1ULL << 30)
#define GPULAT_FLIGHT_MAX_BYTES_MIN	(1ULL << 20)
#define GPULAT_FLIGHT_MAX_BYTES_MAX	(1ULL << 40)
/* serve's rolling verdict: its window, seconds (engine/verdict/verdict.h) */
#define GPULAT_VERDICT_S	10.0

struct gpulat_opts {
	enum gpulat_cmd cmd;
	enum gl_source_kind source;	/* --source, GPULAT_SOURCE */
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
	bool has_gpu_interval;
	double gpu_interval_s;	/* --gpu-interval; 0: NVML not sampled */
	/* serve (defaults set by the parser: engine/serve/serve.h, flight.h) */
	const char *listen;	/* --listen ADDR:PORT; NULL: no HTTP */
	const char *textfile;	/* --textfile DIR */
	const char *flight;	/* --flight DIR */
	unsigned long serve_buckets;	/* --buckets: per power of two */
	unsigned long serve_max_keys;	/* --max-keys: per metric */
	bool serve_all_buckets;		/* --all-buckets: none trimmed */
	double flight_before_s, flight_after_s, flight_gap_s;
	unsigned long flight_keep;	/* --flight-keep */
	unsigned long long flight_max_bytes;	/* --flight-max-bytes */
	/* --mode: the files written (bundles, snapshots); else private */
	bool has_file_mode;
	unsigned long file_mode;
	double verdict_s;	/* --verdict: the rolling verdict's window; 0 off */
	/* --trigger FAMILY=DURATION: the recorder's outlier bound, ns */
	uint64_t triggers[GPULAT_FAM_MAX];
	/* watch-cgroup PATH...; hist --cgroup PATH */
	const char *cgroups[GPULAT_CG_WATCH_MAX];
	size_t nr_cgroups;
	const char *cgroup;
	/* cuda: its action, and attach's library (NULL: found) */
	enum { GPULAT_CUDA_STATUS, GPULAT_CUDA_ATTACH, GPULAT_CUDA_DETACH }
		cuda_op;
	const char *cuda_lib;
	/* drill: its kind (enum drill_kind), --target, --force */
	int drill;
	const char *target;
	bool force;
};


/* cli.c: parsing only (opens nothing, prints only errors) */
int gpulat_parse_args(int argc, char **argv, struct gpulat_opts *o,
		      FILE *err);

/* cmd/help.c: gpulat --help, gpulat COMMAND --help */
void gpulat_usage(FILE *f, enum gpulat_cmd cmd);

/* cmd/common.c: what the commands share */
/*
 * gpulat_source_open - the source @o names (--source, GPULAT_SOURCE; auto
 * by default) and its ABI; 0, or -errno after the reason on @err
 */
int gpulat_source_open(const struct gpulat_opts *o, struct gl_source **src,
		       uint32_t *major, uint32_t *minor, FILE *err);
/* gpulat_view_source - name @src in @v (status, hist): "kmod" or "bpf" */
void gpulat_view_source(struct view *v, const struct gl_source *src,
			char *buf, size_t len);
/*
 * gpulat_fresh_wait - a source loaded for this command (BPF, not pinned)
 * has counted nothing yet: say so on stderr and wait @seconds, so that
 * its totals cover that window.  Returns whether it waited.
 */
bool gpulat_fresh_wait(const struct gl_source *src, double seconds);
/* gpulat_fresh_note - the note alone, no wait; whether @src is fresh */
bool gpulat_fresh_note(const struct gl_source *src, double seconds);
/* The window a command on a fresh source shows for its totals. */
#define GPULAT_FRESH_SECONDS	2.0

/*
 * gpulat_pins_swept - what gpulat attaches and detaches killed before
 * they finished left (their process gone, their lock free): removed, as
 * any command on the pinned source would, and said on @f
 */
void gpulat_pins_swept(FILE *f);
/*
 * gpulat_file_mode - the mode of the files a command writes: --mode, or
 * GL_OUT_PRIVATE (outfile.h)
 */
mode_t gpulat_file_mode(const struct gpulat_opts *o);
/* gpulat_device_exit - exit code of a gpulat_source_open() error */
int gpulat_device_exit(int err);
/*
 * gpulat_load_input - read @input, minus @from when given, with the
 * reason on @err: 0 or -errno
 */
int gpulat_load_input(const char *input, const char *from,
		      struct gl_snapshot **out, FILE *err);
/* gpulat_input_exit - exit code of a gpulat_load_input() error */
int gpulat_input_exit(int err);
const char *gpulat_kernel_release(char *buf, size_t len);

/* cmd/status.c */
int status_run(const struct gpulat_opts *o);
void status_print_text(FILE *f, const struct gl_snapshot *s,
		       const struct view *v);
void status_print_json(FILE *f, const struct gl_snapshot *s,
		       const struct view *v);

/* cmd/hist.c */
int hist_run(const struct gpulat_opts *o);

/* cmd/snapshot.c */
int snapshot_run(const struct gpulat_opts *o);

/* cmd/trace.c */
int trace_run(const struct gpulat_opts *o);

/* cmd/diagnose.c (the engine is engine/diagnose*.c) */
int diagnose_run(const struct gpulat_opts *o);

/* cmd/report.c (the engine is engine/report*.c) */
int report_run(const struct gpulat_opts *o);

/* cmd/control.c: enable, disable, reset */
int control_run(const struct gpulat_opts *o);
const char *control_reason(char *buf, size_t len, enum gpulat_cmd cmd,
			   int err);

/* cmd/watch_cgroup.c */
int watch_cgroup_run(const struct gpulat_opts *o);
/*
 * hist_cgroup - hist --cgroup: the cgroup family's series of @o->cgroup
 * and below, totals or (with INTERVAL) per interval, watching it then
 */
int hist_cgroup(const struct gpulat_opts *o);

/* cmd/version.c: gpulat --version; gpulat_version() is "0.1.0-12-gabc" */
int version_run(FILE *out);
const char *gpulat_version(void);

#endif /* _GPULAT_USER_CMD_H */
