/* SPDX-License-Identifier: GPL-2.0 */
/* gpulat diagnose: rank the layers by how likely each causes the spikes. */
#ifndef _GPULAT_USER_DIAGNOSE_H
#define _GPULAT_USER_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/watch/watch.h"
#include "lib/cpuset.h"

struct diag_result;

/*
 * diag_analyze - the verdict over a finished watch (its window, its
 * totals since load as the baseline, its trace records).  0 or -ENOMEM.
 */
int diag_analyze(const struct watch *w, struct diag_result **out);
void diag_print_text(FILE *f, const struct diag_result *r);
void diag_print_json(FILE *f, const struct diag_result *r);
void diag_free(struct diag_result *r);
/*
 * diag_set_source - the source the diagnosis read: @kind "kmod" or "bpf",
 * @detail as gl_source_describe() says it (pinned by whom, or its own)
 */
void diag_set_source(struct diag_result *r, const char *kind,
		     const char *detail);

/* The layers a verdict ranks. */
enum diag_layer {
	DIAG_DRIVER,		/* nvidia family, nvidia IRQ handlers, Xids */
	DIAG_NETWORK,		/* net family, NET_RX/NET_TX softirqs */
	DIAG_STORAGE,		/* block family */
	DIAG_SCHED,		/* sched family, other IRQs and softirqs */
	DIAG_MEMORY,		/* mm family */
	DIAG_NR_LAYERS,
};

/*
 * CPU time of the threads of this host while a watch ran, from /proc:
 * the evidence of who held the CPUs when the outlier trace cannot say.
 */
struct diag_task {
	int32_t pid;		/* thread id */
	int32_t tgid;		/* its process */
	uint32_t cpu;		/* CPU it last ran on */
	uint64_t cpu_ns;	/* CPU time (user + system) */
	char comm[GPULAT_COMM_LEN];
	/* bytes it had read from and written to storage (/proc/.../io) */
	uint64_t io_bytes;
};

/*
 * diag_task_parse - one /proc/PID/task/TID/stat line into @t (its name,
 * CPU time at @hz ticks a second, last CPU); 0 or -EINVAL
 */
int diag_task_parse(const char *buf, struct diag_task *t, long hz);

/*
 * diag_io_parse - read_bytes + write_bytes of a /proc/PID/io text (what
 * a task submitted to storage, or dirtied for writeback), saturating
 */
uint64_t diag_io_parse(const char *buf);

/*
 * diag_stat_parse - a /proc/PID/stat line: its name (cut to @len - 1),
 * its parent and its start (clock ticks after boot); 0 or -EINVAL
 */
int diag_stat_parse(const char *buf, char *comm, size_t len, int *ppid,
		    unsigned long long *start);

struct diag_tasks {
	struct diag_task *v;
	size_t n;
	/* a scan: CLOCK_MONOTONIC ns in its middle; 0 unknown */
	uint64_t time_ns;
	/* a delta: seconds between its two scans; 0 unknown */
	double span_s;
};

/*
 * diag_tasks_read - CPU time so far of every thread in /proc (under
 * $GPULAT_SYSROOT when set), timestamped; 0 or -errno
 */
int diag_tasks_read(struct diag_tasks *t);
/*
 * diag_tasks_delta - CPU time each thread of @after used since @before
 * (a thread absent from @before counts from zero), and the time between
 * the two scans; 0 or -ENOMEM
 */
int diag_tasks_delta(const struct diag_tasks *before,
		     const struct diag_tasks *after, struct diag_tasks *out);
void diag_tasks_free(struct diag_tasks *t);

/*
 * /proc through a watch: what every thread used (CPU time, storage
 * bytes), those gone before its end included (diagnose_scan.c)
 */
struct diag_scan {
	struct diag_tasks last, used;
	size_t cap;
	uint64_t first_ns, next_ns;
	bool ok;
};

/* diag_scan_begin - the first scan; 0 or -errno (the scan is then off) */
int diag_scan_begin(struct diag_scan *s);
/* diag_scan_tick - a scan when a second has passed (watch_set_tick()) */
void diag_scan_tick(void *arg);
/*
 * diag_scan_end - the last scan, and into @used what each thread used
 * since the first (a thread gone: until its last scan), span_s the time
 * between the first and the last; 0, or -errno when a scan failed
 */
int diag_scan_end(struct diag_scan *s, struct diag_tasks *used);


/*
 * diag_analyze_tasks - diag_analyze() that also names the processes that
 * used the CPUs of the slow waits, from @used (a diag_tasks_delta() over
 * the watch; NULL: none).  0 or -ENOMEM.  Before advising to release a
 * culprit it checks that /proc/PID (under $GPULAT_SYSROOT when set) is
 * still the task of that name.
 */
int diag_analyze_tasks(const struct watch *w, const struct diag_tasks *used,
		       struct diag_result **out);

struct gs_timeline;
/*
 * diag_analyze_gpu - diag_analyze_tasks() with the GPU side: the NVML
 * timeline @gpu sampled over the watch (NULL: none), judged by the
 * triage rule, its Xids merged with the tracepoint's
 */
int diag_analyze_gpu(const struct watch *w, const struct diag_tasks *used,
		     const struct gs_timeline *gpu, struct diag_result **out);

enum diag_ref {
	DIAG_REF_EXPECTED,	/* the expected p99 of the series */
	DIAG_REF_BASELINE,	/* DIAG_BASELINE_MULT x the baseline's p99 */
	DIAG_REF_FLOOR,		/* the floor: expected / DIAG_FLOOR_DIV */
};

/* One series of the window, judged. */
struct diag_item {
	enum diag_layer layer;
	uint32_t family, id, cpu;
	uint64_t key;
	char name[GPULAT_NAME_LEN];
	char where[2 * GPULAT_NAME_LEN + 48];	/* "CPU 1", "nullb0", ... */
	char key_name[GPULAT_NAME_LEN];		/* printable */
	uint64_t count, p50, p99, p999, max;
	bool max_exact;
	uint64_t expect, ref;
	enum diag_ref ref_from;
	uint64_t base_count, base_p99;
	uint64_t threshold;	/* the family's trace threshold; 0: none */
	double over_threshold;
	double over;		/* samples above ref */
	double excess;		/* ns above ref, summed over those samples */
	unsigned int weight;
};

/* A process named as a cause. */
struct diag_culprit {
	int32_t pid;		/* thread (trace) or process (CPU time) */
	int32_t tgid;		/* its process; -1: unknown (it had exited) */
	char comm[GPULAT_COMM_LEN];
	/*
	 * from_trace: time it held the CPU inside the outlier waits, and
	 * share = that / all outlier wait time.  Else: CPU time it used
	 * during the watch, and share = that / the watch (1.0 = one CPU).
	 */
	uint64_t ns;
	double share;
	struct cpuset cpus;		/* the CPUs it was seen on */
	bool from_trace;
	/*
	 * from_trace, and /proc says it used this share of a CPU on the
	 * slow CPUs too (0: not known): a cause, whatever part of the
	 * waits' time the trace could name
	 */
	double cpu_share;
	bool miner;		/* its name is that of a known cryptominer */
	/*
	 * a group (from_trace, pid its largest, tgid -1): this many
	 * processes of one name, none named alone, each held the CPU a
	 * moment (what a loop starting programs makes)
	 */
	uint32_t nr_procs;
};

/* One layer's verdict. */
struct diag_layer_info {
	bool measured;		/* its families attached during the watch */
	bool abnormal;
	unsigned int rank;	/* 1 = most likely cause */
	double score;		/* weighted ns of waits beyond normal per s */
	uint64_t samples;	/* in the window */
	uint64_t over;		/* samples above their normal bound */
	size_t xids;		/* Xid events during the watch */
	size_t nr_culprits;
	size_t nr_advice;
};

/* diag_layer_name - "driver", "network", "storage", "scheduler", "memory" */
const char *diag_layer_name(enum diag_layer l);
/* diag_abnormal - whether any layer is abnormal */
bool diag_abnormal(const struct diag_result *r);
/* diag_ranked - layer at @rank (1 = most likely); DIAG_NR_LAYERS past end */
enum diag_layer diag_ranked(const struct diag_result *r, unsigned int rank);
void diag_layer_get(const struct diag_result *r, enum diag_layer l,
		    struct diag_layer_info *out);
/* diag_culprit - culprit @i of layer @l, most time first; NULL past end */
const struct diag_culprit *diag_culprit(const struct diag_result *r,
					enum diag_layer l, size_t i);
/*
 * diag_named_pids - the processes the diagnosis names (culprits, miners,
 * the tasks outliers happened to, the tasks of its cgroup rows), each
 * once, into @out (at most @max); how many
 */
size_t diag_named_pids(const struct diag_result *r, int32_t *out, size_t max);
/*
 * diag_first_task - who layer @l names first: its first culprit (a task
 * that held the CPU), else the first task its outliers happened to; the
 * pid, and the name into @comm; 0 when none
 */
int32_t diag_first_task(const struct diag_result *r, enum diag_layer l,
			char *comm, size_t len);
/*
 * diag_first_cgroup - the path of the cgroup layer @l ranks first (the
 * holders' for the scheduler, the issuers' or reclaimers' for storage
 * and memory), or NULL
 */
const char *diag_first_cgroup(const struct diag_result *r, enum diag_layer l);
/* diag_advice - next step @i of layer @l; NULL past end */
const char *diag_advice(const struct diag_result *r, enum diag_layer l,
			size_t i);

/*
 * diag_rules_check - whether every family of the ABI has its diagnosis
 * rules and every rule is sound; 0, or -EINVAL with the first fault in @why
 */
int diag_rules_check(char *why, size_t len);

/* The bar of an abnormal layer: waits beyond normal, ns per s watched. */
#define DIAG_BAR_NS_PER_S	5000000.0

/* diag_top_item - the evidence item @k of layer @l, or NULL */
const struct diag_item *diag_top_item(const struct diag_result *r,
				      enum diag_layer l, size_t k);

/* diag_read_file - @path's text, NUL-ended, in @buf; 0 or -errno */
int diag_read_file(const char *path, char *buf, size_t len);
/* diag_root - the folder read in place of / ($GPULAT_SYSROOT), or "" */
const char *diag_root(void);

#endif /* _GPULAT_USER_DIAGNOSE_H */
