/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat diagnose, inside: the verdict's structures and the functions
 * its files share.  diagnose.c judges and ranks (the analysis core),
 * diagnose_rules.c holds the rules as data, diagnose_culprits.c names
 * the processes, diagnose_advice.c writes the advice and the notes,
 * diagnose_print.c prints text and JSON, diagnose_tasks.c reads /proc.
 */
#ifndef _GPULAT_USER_DIAGNOSE_INT_H
#define _GPULAT_USER_DIAGNOSE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/diagnose/diagnose.h"
#include "engine/diagnose/diagnose_cg.h"
#include "engine/diagnose/diagnose_gpu.h"
#include "lib/array_size.h"
#include "lib/cpuset.h"

/* A baseline needs this many samples before it counts. */
#define DIAG_BASELINE_MIN	200
/* The normal bound: this many times the baseline's p99 ... */
#define DIAG_BASELINE_MULT	4
/* ... but at most the expected p99 and at least a tenth of it. */
#define DIAG_FLOOR_DIV		10
/* An abnormal layer has this many samples over their bound ... */
#define DIAG_MIN_OVER		3
/* ... or one sample this many times over it. */
#define DIAG_BIG_RATIO		10
/* A process using this share of a CPU is worth naming. */
#define DIAG_HOG_SHARE		0.25
/* A task holding the CPU in this share of the outlier waits is a cause ... */
#define DIAG_TRACE_SHARE	0.10
/* ... and in this share, worth listing. */
#define DIAG_TRACE_LIST		0.02
/* CPUs with at least this fraction of the worst CPU's waits are "slow" ... */
#define DIAG_CPU_SLOW		0.10
/*
 * ... and "hot" with this fraction: tasks wait on every CPU alike only
 * when every CPU is hot.  Half was too low: with hogs on CPU 1 alone,
 * emulation or a busy CPU 0 reached half of CPU 1's now and then.
 */
#define DIAG_CPU_ALIKE		0.75

#define DIAG_MAX_EVIDENCE	3
#define DIAG_MAX_CULPRITS	3
/* processes with a cryptominer's name, at any share: all of them named */
#define DIAG_MAX_MINERS		8
#define DIAG_MAX_AFFECTED	3
#define DIAG_MAX_ADVICE		8
#define DIAG_MAX_NOTES		6
#define DIAG_MAX_XIDS		8
#define DIAG_TEXT_LEN		1024	/* room for two cgroup paths */
/* A space where a line must not wrap ("CPU 1"); printed as a space. */
#define DIAG_NBSP		'\x1f'

/* Where an item's normal bound comes from. */
/* How a series counts: its layer, expected p99 and weight in percent. */
struct diag_rule {
	enum diag_layer layer;
	uint64_t expect_ns;
	unsigned int weight;
};

/* A process seen in the trace or in /proc, and what it did. */
struct diag_proc {
	int32_t pid, tgid;
	char comm[GPULAT_COMM_LEN];
	uint64_t ns;
	uint64_t count;
	struct cpuset cpus;
};

/* A process that moved a large part of the storage I/O in the watch. */
struct diag_io_user {
	int32_t pid;		/* the process */
	char comm[GPULAT_COMM_LEN];
	uint64_t bytes;		/* read from and written to storage */
	double share;		/* of every process's bytes */
};

struct diag_procs {
	struct diag_proc *v;
	size_t n, cap;
};

/* Where an Xid was seen: one Xid seen by both counts once. */
enum {
	DIAG_XID_FROM_KERNEL	= 1 << 0,	/* the driver's tracepoint */
	DIAG_XID_FROM_NVML	= 1 << 1,	/* NVML's event API */
};

struct diag_xid_seen {
	uint64_t lo_ns;		/* NVML's: it happened after this */
	uint64_t time_ns;
	uint32_t code;
	uint32_t from;		/* DIAG_XID_FROM_* */
	char device[32];	/* the kernel's name: 0000:3b:00.0 */
	bool in_window;
};

struct diag_layer_res {
	bool measured;
	char why_not[96];
	bool abnormal;
	double score;
	uint64_t samples;
	double over;
	double excess;
	double worst_ratio;	/* largest max / ref of its items */
	size_t top[DIAG_MAX_EVIDENCE];
	size_t nr_top;
	struct diag_culprit culprits[DIAG_MAX_CULPRITS];
	size_t nr_culprits;
	struct diag_culprit miners[DIAG_MAX_MINERS];
	size_t nr_miners;
	/* diag_root_cause(): this layer's waits are another's doing */
	enum diag_layer effect_of;	/* DIAG_NR_LAYERS: none */
	double effect_share;	/* of the outlier waits, held by its tasks */
	char effect_who[48];	/* the largest of them: "kswapd0 (pid 45)" */
	uint32_t caused;	/* the layers that are this one's effect, 1 << l */
	struct diag_proc affected[DIAG_MAX_AFFECTED];
	size_t nr_affected;
	/* storage: the processes whose I/O it was, from /proc */
	struct diag_io_user io[DIAG_MAX_CULPRITS];
	size_t nr_io;
	uint64_t trace_wait_ns;	/* outlier wait time the culprits share */
	struct diag_xid_seen xids[DIAG_MAX_XIDS];
	size_t nr_xids, xids_in_window;
	char advice[DIAG_MAX_ADVICE][DIAG_TEXT_LEN];
	size_t nr_advice;
	char notes[DIAG_MAX_NOTES][DIAG_TEXT_LEN];
	size_t nr_notes;
	char why_normal[DIAG_TEXT_LEN];	/* a measured normal layer's */
	uint64_t drops;
	unsigned int rank;
};

/* One GPU job's waits in the window (diagnose_jobs.c). */
#define DIAG_MAX_JOBS		4
#define DIAG_JOB_PARTS		(GPULAT_CUDA_OTHER + 1)
struct diag_job {
	int32_t tgid;
	char comm[GPULAT_NAME_LEN];
	uint64_t p50, p99;			/* of its calls */
	uint64_t count[DIAG_JOB_PARTS];	/* by series id */
	uint64_t sum[DIAG_JOB_PARTS];
	/* its cgroup (v2 path) and the container or unit it names; "": gone */
	char cgroup[256];
	char container[160];
};

struct diag_result {
	double duration_s;
	char kernel[65];
	/* where the series came from: "kmod", "bpf"; how it was opened */
	char source[8];
	char source_detail[192];
	bool trace_ok, interrupted, has_tasks;
	uint64_t trace_lost;
	size_t nr_trace;
	struct cpuset slow;	/* CPUs with slow waits */
	size_t nr_slow;
	struct cpuset hot;		/* where the contention is */
	size_t nr_hot;
	size_t nr_seen;		/* CPUs with sched series */
	bool alike;		/* tasks wait on every CPU alike */
	struct diag_item *items;
	size_t nr_items;
	struct diag_layer_res layer[DIAG_NR_LAYERS];
	enum diag_layer rank[DIAG_NR_LAYERS];
	bool abnormal;
	/* by cgroup, per layer (diagnose_cgroups.c); NULL: none seen */
	struct diag_cg_layer *cg;
	/* the GPU side (diagnose_gpu.c); NULL: not sampled */
	struct diag_gpu_res *gpu;
	/* the GPU jobs' waits, most host share first (diagnose_jobs.c) */
	struct diag_job jobs[DIAG_MAX_JOBS];
	size_t nr_jobs, nr_jobs_seen;
};

/* The Xid codes, by what they mean for the layer. */
enum diag_xid_class {
	DIAG_XID_OTHER,
	DIAG_XID_STALL,		/* the GPU or its link stalls */
	DIAG_XID_RESET,		/* the GPU needs a reset */
	DIAG_XID_PROCESS,	/* one process's fault, recovered */
	DIAG_XID_NR_CLASSES,
};

/* --- diagnose_rules.c: the rules as data ------------------------------ */

extern const char *const diag_names[DIAG_NR_LAYERS];
extern const char *const diag_titles[DIAG_NR_LAYERS];
/* diag_layer_family - the family whose probes measure layer @l */
uint32_t diag_layer_family(enum diag_layer l);

/*
 * diag_rule_of - how series @sr counts (its row of the family table);
 * false for one that does not (background compaction: no task waits
 * for it)
 */
bool diag_rule_of(const struct gpulat_series *sr, struct diag_rule *r);
/* diag_xid_meaning - what Xid @code means, and its class in *@cls */
const char *diag_xid_meaning(uint32_t code, enum diag_xid_class *cls);

/* --- diagnose.c: the analysis core ------------------------------------ */

/* diag_weighted - what @it adds to its layer's score, ns */
static inline double diag_weighted(const struct diag_item *it)
{
	return it->excess * it->weight / 100.0;
}

/* diag_key_name - the name of (@fam, @key) among @s's series, or "" */
const char *diag_key_name(const struct gl_snapshot *s, uint32_t fam,
			  uint64_t key);
/*
 * diag_xid_add - Xid @code on @device between @lo_ns and @time_ns (the
 * tracepoint's: both its time), seen by @from (DIAG_XID_FROM_*), into
 * layer @L once
 */
void diag_xid_add(struct diag_layer_res *L, uint64_t lo_ns, uint64_t time_ns,
		  uint32_t code, const char *device, bool in_window,
		  uint32_t from);
/* --- diagnose_culprits.c: who held the CPUs --------------------------- */

/* diag_trace - culprits and affected tasks from the trace; 0 or -ENOMEM */
int diag_trace(struct diag_result *r, const struct watch *w);
/* diag_slow_cpus - the slow and the hot CPUs; 0 or -ENOMEM */
int diag_slow_cpus(struct diag_result *r);
/* diag_cpu_users - culprits of the scheduler from /proc; 0 or -ENOMEM */
int diag_cpu_users(struct diag_result *r, const struct diag_tasks *used);

/*
 * diag_groups - a group culprit for @L from the holders @held (sorted,
 * most first) that were not named alone: the processes of one name, at
 * least DIAG_GROUP_MIN of them, that held the CPU in DIAG_TRACE_SHARE
 * of the outlier waits together.  0 or -ENOMEM.
 */
#define DIAG_GROUP_MIN		3
int diag_groups(struct diag_layer_res *L, const struct diag_procs *held);

/*
 * DIAG_IO_SHARE - the share of every process's storage bytes in the
 * watch that names a process as the storage layer's I/O user
 */
#define DIAG_IO_SHARE		0.10

/* diag_io_users - the storage layer's I/O users from /proc; 0 or -ENOMEM */
int diag_io_users(struct diag_result *r, const struct diag_tasks *used);
/* diag_alike - whether tasks wait on every CPU alike, where they do not */
void diag_alike(struct diag_result *r);
/* --- diagnose_cause.c: the root cause above its effect --------------- */

/*
 * DIAG_CAUSE_SHARE - the share of the CPU time the scheduler's outlier
 * records name that an abnormal layer's tasks must have held for it to
 * be the cause (and DIAG_TRACE_SHARE of all the outlier wait time)
 */
#define DIAG_CAUSE_SHARE	0.5
/* diag_root_cause - rank a layer above the waits it caused elsewhere */
void diag_root_cause(struct diag_result *r);

/* diag_is_miner - whether @comm is the name of a known cryptominer */
bool diag_is_miner(const char *comm);
/* diag_cause - a culprit that counts as a cause, not one listed only */
bool diag_cause(const struct diag_culprit *c);

/* --- diagnose_advice.c: next steps, notes, why normal ----------------- */

/* diag_advise_all - every layer's advice and notes, why normal ones are */
void diag_advise_all(struct diag_result *r, const struct watch *w);
/* diag_advise - one more next step for @L (none past DIAG_MAX_ADVICE) */
void diag_advise(struct diag_layer_res *L, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * diag_is_kthread - whether @pid is a kernel thread (PF_KTHREAD in the
 * flags of /proc/PID/stat)
 */
bool diag_is_kthread(int32_t pid);

/*
 * diag_advise_groups - for each group culprit of @L (many short-lived
 * processes of one name), what starts them: the parent of one seen alive
 * in /proc, or how to find it
 */
void diag_advise_groups(struct diag_layer_res *L);


/* diag_cpus_text - "CPU 1", "CPUs 0,2,3", "CPUs 0,1,2,3 and 4 more" */
const char *diag_cpus_text(char *buf, size_t len, const struct cpuset *cpus);
/* diag_culprit_doing - "held CPU 1 in 95% of the outlier waits" */
const char *diag_culprit_doing(char *buf, size_t len,
			       const struct diag_culprit *c);
/* --- diagnose_jobs.c: the GPU jobs' own waits --------------------------- */

int diag_jobs(struct diag_result *r, const struct watch *w);
void diag_jobs_print(FILE *f, const struct diag_result *r);
void diag_jobs_json(struct json *j, const struct diag_result *r);

/* diag_score_text - "812ms" (per second watched) */
const char *diag_score_text(char *buf, size_t len, double score);

/* --- diagnose_print.c ------------------------------------------------- */

/*
 * diag_wrap_words - @text after @first, wrapped by words, indented by
 * @indent (a word longer than a line, a path, gets a line of its own)
 */
void diag_wrap_words(FILE *f, const char *first, size_t indent,
		     const char *text);

#endif /* _GPULAT_USER_DIAGNOSE_INT_H */
