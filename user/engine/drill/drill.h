/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat drill: inject one known, bounded, self-cleaning fault and check
 * that gpulat catches it end to end (Documentation/drills.rst).
 *
 *   drill.c          the run: checks, watch, inject, diagnose, clean up
 *   drill_undo.c     the cleanup stack and the children
 *   drill_state.c    the record on disk of what a drill makes, and the
 *                    sweep of what a killed drill left
 *   drill_verdict.c  what the diagnosis and the trace say: pass or fail
 *   drill_print.c    the report, text and JSON
 *   drill_sys.c      files, fixed-argv commands, the NVIDIA CPUs
 *   drill_cpu.c, drill_disk.c, drill_net.c, drill_irq.c: the faults
 */
#ifndef _GPULAT_USER_DRILL_H
#define _GPULAT_USER_DRILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "engine/diagnose/diagnose.h"
#include "lib/gpulat_user.h"

/* The version of the JSON report; bumped when a member changes meaning. */
#define DRILL_JSON_VERSION	1
#define DRILL_DEFAULT_S		5.0
#define DRILL_MAX_S		60.0
/* Things one drill makes at most (devices, links, children...). */
#define DRILL_MAX_UNDO		16
/* Names the drill gives what it makes: prefix and its pid. */
#define DRILL_PREFIX		"gpulat-drill"

/* Exit codes of gpulat drill (kselftest's skip is 4). */
enum drill_exit {
	DRILL_EXIT_PASS		= 0,
	DRILL_EXIT_FAIL		= 1,
	DRILL_EXIT_USAGE	= 2,
	DRILL_EXIT_SKIP		= 4,
};

enum drill_kind {
	DRILL_CPU,
	DRILL_DISK,
	DRILL_NET,
	DRILL_IRQ,
	DRILL_NR_KINDS,
	/* gpulat drill clean: no fault, the sweep alone */
	DRILL_CLEAN = DRILL_NR_KINDS,
};

enum drill_verdict {
	DRILL_PASS,
	DRILL_FAIL,
	DRILL_SKIP,
};

/* drill_kind_lookup - the drill named @s; -1 if none */
int drill_kind_lookup(const char *s);
const char *drill_kind_name(enum drill_kind k);
const char *drill_verdict_name(enum drill_verdict v);
int drill_exit_of(enum drill_verdict v);

/* One thing made, and how to remove it (the cleanup stack). */
struct drill_undo {
	char what[128];		/* "null_blk device gpulat-drill-42" */
	int (*fn)(struct drill_undo *u);	/* 0 removed, else -errno */
	char arg[160];
	pid_t pid;		/* a child: killed and reaped */
	bool workload;		/* stopped before the final snapshot */
	bool done;		/* undone */
	int ret;		/* what fn returned */
};

struct drill_stack {
	struct drill_undo v[DRILL_MAX_UNDO];
	size_t n;
};

/* drill_push - remember a thing made; the slot, or NULL when full */
struct drill_undo *drill_push(struct drill_stack *s, int (*fn)(struct drill_undo *),
			      const char *arg, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* drill_push_child - a child to kill (SIGKILL) and reap */
struct drill_undo *drill_push_child(struct drill_stack *s, pid_t pid,
				    bool workload, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* drill_unwind - undo in reverse order (@workload_only: children first) */
void drill_unwind(struct drill_stack *s, bool workload_only);
/* drill_restored - whether everything made is gone */
bool drill_restored(const struct drill_stack *s);
/* drill_undo_child - SIGKILL and reap u->pid (also for tests) */
int drill_undo_child(struct drill_undo *u);

/* What the drill expects to see, set by its inject step. */
struct drill_expect {
	uint32_t family;	/* the family that measures the layer */
	enum diag_layer layer;
	uint64_t threshold_ns;	/* the trace threshold it needs at most */
	int32_t victim_pid;	/* records of this task (0: any) */
	int32_t culprit_pid;	/* the culprit to be named (0: none) */
	bool has_key;		/* records on this key (disk, interface) */
	uint64_t key;
	char key_name[64];
};

/* What the trace and the diagnosis showed, for the verdict. */
struct drill_seen {
	bool family_on;		/* the family's probes attached */
	bool trace_ok;
	uint64_t first_ns;	/* first matching outlier record; 0: none */
	uint64_t nr_match;	/* outlier records of the expected kind */
	bool ranked;		/* diagnose ranked some layer first */
	enum diag_layer top;	/* that layer */
	bool top_abnormal;
	bool culprit_named;	/* the culprit among the top layer's */
	bool key_named;		/* the key in the top layer's evidence */
	char top_culprit[64];	/* what it named first: "comm (pid N)" */
	char top_where[192];	/* its first evidence: "block.read.device nullb0" */
	/*
	 * the verdict as the fault went on, every DRILL_STEP_NS over the
	 * window so far: when it first ranked the right layer first with
	 * the culprit (0: never), and how often it was tried
	 */
	uint64_t right_ns;
	uint32_t nr_steps;
};

/* How often a drill asks for the verdict while the fault is in place. */
#define DRILL_STEP_NS	500000000ULL

struct drill {
	enum drill_kind kind;
	double duration_s;
	const char *target;	/* --target; NULL: the default */
	bool force, json;
	char name[48];		/* DRILL_PREFIX "-PID" */
	/* the fault, for the report */
	char fault[256];	/* "CPU hog (nice 0) pinned on CPU 3" */
	char where[96];		/* "CPU 3", "nullb1", "gldA42" */
	double fault_s;		/* how long it was in place */
	uint64_t inject_ns;	/* CLOCK_MONOTONIC of the injection */
	struct drill_expect expect;
	struct drill_seen seen;
	struct drill_stack undo;
	enum drill_verdict verdict;
	char reason[256];
	char source[96];	/* the source described */
	void *priv;		/* the drill's own state */
	/* what dead drills left, removed before this one (NULL: not looked) */
	const struct drill_sweep *swept;
};

/* One kind of drill. */
struct drill_ops {
	uint32_t family;	/* the family that measures the fault */
	enum diag_layer layer;	/* the layer diagnose must rank first */
	uint64_t threshold_ns;	/* the trace threshold it needs at most */
	/*
	 * check - safe and possible here?  0, or DRILL_SKIP (not possible)
	 * or DRILL_FAIL (refused) with the reason in d->reason
	 */
	int (*check)(struct drill *d);
	/*
	 * inject - make the fault and start the workload, pushing each thing
	 * made on d->undo; sets d->expect, d->fault, d->where.  0, or as
	 * check with the reason
	 */
	int (*inject)(struct drill *d);
};

extern const struct drill_ops drill_cpu_ops, drill_disk_ops, drill_net_ops,
	drill_irq_ops;

/* drill_check - names, expectations, and whether it may run (0, or the verdict) */
int drill_check(struct drill *d);
/* drill_run - the whole drill; fills @d (verdict, reason, seen, undo) */
void drill_run(struct drill *d, struct gl_source *src);
/* drill_set - the verdict and its reason; returns @v */
int drill_set(struct drill *d, enum drill_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* drill_verdict.c */
/* drill_family_on - whether a probe of @family is attached in @s */
bool drill_family_on(const struct gl_snapshot *s, uint32_t family);
/* drill_match - whether @r is an outlier of the kind @e expects */
bool drill_match(const struct drill_expect *e, const struct gl_trace_rec *r);
/* drill_scan - first_ns and nr_match from @n records after @since_ns */
void drill_scan(struct drill_seen *seen, const struct drill_expect *e,
		const struct gl_trace_rec *recs, size_t n, uint64_t since_ns);
/* drill_observe - what @r says of the expected layer and culprit */
void drill_observe(struct drill_seen *seen, const struct drill_expect *e,
		   const struct diag_result *r);
/* drill_judge - the verdict of a drill that ran, from d->seen */
void drill_judge(struct drill *d);
/*
 * drill_right - whether @s (one diagnosis) ranks @e's layer first,
 * abnormal, naming its culprit or key where @e has one
 */
bool drill_right(const struct drill_seen *s, const struct drill_expect *e);

/* drill_print.c */
void drill_print_text(FILE *f, const struct drill *d);
void drill_print_json(FILE *f, const struct drill *d);
struct json;
/*
 * drill_json_swept - @sw as an array: "swept" (removed, @rm) or
 * "drill_leftovers" (what is still there)
 */
void drill_json_swept(struct json *j, const struct drill_sweep *sw, bool rm);

/* drill_sys.c */
uint64_t drill_now_ns(void);
/* drill_write - write @val to file @path; 0 or -errno */
int drill_write(const char *path, const char *val);
/* drill_read - the first line of @path into @buf; 0 or -errno */
int drill_read(const char *path, char *buf, size_t len);
/* drill_exists - whether @path exists */
bool drill_exists(const char *path);
/*
 * drill_cmd - run @argv (argv[0] a full path) and wait; 0 when it
 * exited 0, else -errno or 1 with its stderr's first line in @why
 */
int drill_cmd(char *const argv[], char *why, size_t len);
/* drill_which - the full path of program @name in PATH into @buf */
int drill_which(const char *name, char *buf, size_t len);
/*
 * drill_nvidia_cpu - whether @cpu may run an NVIDIA IRQ thread
 * (irq/N-nvidia) or a kthread of the driver (nv_queue, nvidia-modeset...),
 * from their affinity in /proc; the task's name in @who
 */
bool drill_nvidia_cpu(unsigned int cpu, char *who, size_t len);
/*
 * drill_fork - a child named @comm ("gldrill-hog": ps tells it) that dies
 * with the drill, and by SIGALRM @bound_s + 5 s after it started
 */
pid_t drill_fork(double bound_s, const char *comm);
/*
 * drill_journal_child - record child @pid (named @comm) just forked; 0,
 * or DRILL_FAIL with the reason
 */
int drill_journal_child(struct drill *d, pid_t pid, const char *comm);
/* drill_pin - pin the calling task on @cpu; 0 or -errno */
int drill_pin(unsigned int cpu);

/* drill_state.c: what a drill makes, on disk before it is made */
#define DRILL_STATE_DIR		"/run/gpulat/drills"
/* another folder for the records (tests) */
#define DRILL_STATE_ENV		"GPULAT_DRILL_STATE"
/* GPULAT_DRILL_PAUSE=N: stop at step N until killed (tests) */
#define DRILL_PAUSE_ENV		"GPULAT_DRILL_PAUSE"
/* Lines one record holds at most. */
#define DRILL_MAX_LEFT		(DRILL_MAX_UNDO + 4)

/* the record folder: $GPULAT_DRILL_STATE, else DRILL_STATE_DIR */
const char *drill_state_dir(void);
/*
 * drill_journal - append one line (Documentation/drills.rst) to this
 * drill's record and fsync it, before the thing it names is made; 0, or
 * DRILL_FAIL with the reason set
 */
int drill_journal(struct drill *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* drill_journal_end - delete the record when everything made is gone */
void drill_journal_end(const struct drill *d);
/* drill_journal_forget - in a forked child: not the record's holder */
void drill_journal_forget(void);
/* drill_pause_point - one step of the drill (GPULAT_DRILL_PAUSE) */
void drill_pause_point(void);

/* Removals the drills and the sweep share; 0 when gone, else -errno. */
bool drill_run_netns_mounted(void);
int drill_rm_netns_mount(void);
int drill_rm_netns(const char *name);
int drill_rm_link(const char *name);
int drill_rm_nullb(const char *cfg);
int drill_rm_module(const char *modprobe, unsigned int tries);

/* One thing a dead drill's record names. */
struct drill_left {
	char what[160];
	bool present;		/* still there, as far as can be seen */
	bool removed;		/* removed by this sweep */
	int ret;		/* its removal failed: -errno (-EPERM refused) */
};

/* What one drill killed before it cleaned up left. */
struct drill_dead {
	int pid;
	char kind[16];
	long long when;		/* its start, unix time */
	char file[320];		/* its record */
	struct drill_left v[DRILL_MAX_LEFT];
	size_t n;
};

struct drill_sweep {
	struct drill_dead dead[8];
	size_t n;
	int nr_more;		/* dead drills past the array */
	size_t nr_live;		/* records of running drills, untouched */
};

/*
 * drill_sweep - the records of dead drills (their lock free): what they
 * left, removed with @rm (root).  Running drills' are never touched.  0
 * or -errno
 */
int drill_sweep(struct drill_sweep *sw, bool rm);
/* drill_sweep_print - each dead drill and its things, as left or removed */
void drill_sweep_print(FILE *f, const struct drill_sweep *sw, bool rm,
		       const char *indent);
/* drill_sweep_failed - whether a removal failed or was refused */
bool drill_sweep_failed(const struct drill_sweep *sw);

#endif /* _GPULAT_USER_DRILL_H */
