/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GPU timeline: NVML sampled once per interval (1 s by default) in a
 * child process, beside a watch.  The child writes fixed-size samples
 * and the Xid events it waits for (nvmlEventSetWait) into memory it
 * shares with gpulat; gpulat never calls NVML itself, so a driver call
 * that never returns stops the samples, not gpulat.  The call the child
 * is in is published before each call: at the end of the window the
 * child gets a second to finish it, then the call is named as hung and
 * the child killed.
 */
#ifndef _GPULAT_USER_GPUSAMPLE_H
#define _GPULAT_USER_GPUSAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define GS_MAX_GPUS	16	/* sampled; more are counted, not sampled */
#define GS_MAX_PROCS	8	/* per GPU and sample: the most memory first */
#define GS_MAX_XIDS	64	/* kept; more are counted in xids_lost */
#define GS_MAX_SLOTS	3600	/* samples kept; older ones are counted lost */
#define GS_INTERVAL_S	1.0	/* the default sampling interval */
#define GS_INTERVAL_MIN	0.2	/* the shortest one accepted */
#define GS_INTERVAL_MAX	60.0
#define GS_NA		UINT32_MAX	/* an answer NVML did not give */
/*
 * A sampling call still running this long after the window is hung
 * (nvmlInit gets $GPULAT_NVML_TIMEOUT; an event wait 0.5 s past its own
 * 200 ms)
 */
#define GS_CALL_BOUND_S	1.0
#define GS_WAIT_MAX_S	0.2
#define GS_WAIT_SLACK_S	0.5	/* a wait past its own timeout by this: hung */
/*
 * An Xid of NVML's events and one of the driver's tracepoint are the
 * same Xid when their codes and devices agree and they are this close
 * (NVML's is known to lie between two event waits).
 */
#define GS_XID_SAME_NS	2000000000ULL

/* Which answers of a GPU's sample are valid. */
enum {
	GS_F_UTIL	= 1 << 0,	/* util_gpu, util_mem */
	GS_F_MEM	= 1 << 1,	/* mem_used, mem_total */
	GS_F_REASONS	= 1 << 2,	/* reasons */
	GS_F_LINK	= 1 << 3,	/* cur_gen, cur_width */
	GS_F_MAXLINK	= 1 << 4,	/* max_gen, max_width */
	GS_F_REPLAY	= 1 << 5,	/* replays */
	GS_F_PERSIST	= 1 << 6,	/* persistence */
	GS_F_PROCS	= 1 << 7,	/* procs, procs_total */
	GS_F_PUTIL	= 1 << 8,	/* procs[].sm where not GS_NA */
};

/* The clock event reason of a GPU at its power limit (sw power cap). */
#define GS_POWER_CAP	0x4ULL

/* gs_gib - bytes in GiB */
static inline double gs_gib(uint64_t b)
{
	return b / (1024.0 * 1024 * 1024);
}

struct gs_proc {
	int32_t pid;		/* as NVML gives it: the host's pid */
	uint32_t sm;		/* percent of the SMs over the period; GS_NA */
	uint64_t mem;		/* bytes of GPU memory; UINT64_MAX unknown */
};

struct gs_gpu_sample {
	uint32_t ok;		/* GS_F_* */
	uint32_t util_gpu, util_mem;	/* percent */
	uint64_t mem_used, mem_total;	/* bytes */
	uint64_t reasons;	/* clock event reasons, nvml.c's bits */
	uint32_t cur_gen, cur_width, max_gen, max_width;
	uint32_t replays;	/* PCIe replay counter, since the driver loaded */
	int32_t persistence;	/* 1 enabled */
	uint32_t nr_procs;	/* in procs[] */
	uint32_t procs_total;	/* NVML's count */
	struct gs_proc procs[GS_MAX_PROCS];
};

struct gs_sample {
	uint64_t time_ns;	/* CLOCK_MONOTONIC when the sample began */
	uint32_t nr_gpus;	/* gpu[] filled */
	uint32_t pad;
	struct gs_gpu_sample gpu[GS_MAX_GPUS];
};

/* An Xid NVML's event API delivered. */
struct gs_xid {
	/*
	 * CLOCK_MONOTONIC: it happened after lo_ns (the previous event wait
	 * returned) and before time_ns (this one returned it)
	 */
	uint64_t lo_ns;
	uint64_t time_ns;
	uint32_t gpu;		/* index; GS_NA: a device not listed */
	uint32_t code;
};

struct gs_gpu_info {
	char name[96];
	char bus_id[32];	/* as NVML gives it: 00000000:3B:00.0 */
};

/* The NVML calls the child makes, by the name gpulat reports. */
enum gs_call {
	GS_CALL_NONE,
	GS_CALL_LOAD,		/* dlopen, nvmlInit and the first reading */
	GS_CALL_HANDLE,
	GS_CALL_UTIL,
	GS_CALL_MEM,
	GS_CALL_REASONS,
	GS_CALL_LINK,
	GS_CALL_REPLAY,
	GS_CALL_PERSIST,
	GS_CALL_PROCS,
	GS_CALL_PUTIL,
	GS_CALL_EVENTS,		/* nvmlEventSetCreate, nvmlDeviceRegisterEvents */
	GS_CALL_WAIT,		/* nvmlEventSetWait: bounded by its own timeout */
	GS_CALL_SHUTDOWN,
	GS_NR_CALLS,
};

/* What the calls of one kind cost (an event wait is not counted). */
struct gs_cost {
	uint64_t count, sum_ns, max_ns;
};

/* What a sampler saw, copied out of the shared memory when it stopped. */
struct gs_timeline {
	bool started;		/* a sampler ran (false: none asked for) */
	bool start_failed;	/* asked for, but fork or mmap failed */
	bool present;		/* NVML answered nvmlInit */
	char absent[512];	/* why not, when !present */
	char lib[256];
	char driver[96];
	char missing[512];	/* functions the library lacks */
	bool hung;		/* a call did not return within its bound */
	char hung_why[256];
	char cut[256];		/* a call cut short by the stop, under its bound */
	bool events;		/* Xids come from NVML's event API */
	char events_why[256];	/* why not, when !events */
	double interval_s;
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC of the window */
	uint32_t nr_gpus;	/* NVML's count */
	uint32_t nr_sampled;	/* at most GS_MAX_GPUS of them */
	struct gs_gpu_info info[GS_MAX_GPUS];
	struct gs_sample *samples;	/* oldest first */
	size_t nr_samples;
	uint64_t samples_lost;	/* overwritten: more than GS_MAX_SLOTS */
	struct gs_xid *xids;
	size_t nr_xids;
	uint64_t xids_lost;
	struct gs_cost cost[GS_NR_CALLS];	/* by enum gs_call */
	uint64_t cpu_ns;	/* the sampler's CPU time, user + system */
};

extern const char *const gs_call_names[GS_NR_CALLS];

struct gs_shared;

struct gs_sampler {
	struct gs_shared *sh;
	size_t map_len;
	pid_t pid;		/* the child; 0: none */
	int start_err;		/* -errno: gs_start() failed */
	double interval_s;
	uint64_t start_ns;
};

/*
 * gs_interval - the sampling interval: @given when >= 0 (--gpu-interval;
 * 0 turns sampling off), else $GPULAT_NVML_INTERVAL when set, else
 * GS_INTERVAL_S; -1 when the environment's value is bad (why in @why)
 */
double gs_interval(double given, char *why, size_t len);

/*
 * gs_start - fork the sampler for a window of about @window_s seconds
 * (0: as long as it runs) at one sample per @interval_s.  Returns at
 * once: the child loads NVML.  0, or -errno (fork, mmap) with @s empty.
 */
int gs_start(struct gs_sampler *s, double interval_s, double window_s);
/*
 * gs_start_xids - a sampler that only waits for Xid events (gpulat
 * trace: no GPU is polled); 0 or -errno
 */
int gs_start_xids(struct gs_sampler *s);
/*
 * gs_xids_read - the Xids that came since *@cursor (0 at first), at
 * most @max into @out, *@cursor moved past them; those no longer kept
 * are added to *@lost.  The GPU's bus id, as NVML gives it, in each
 * @bus[i] (GS_MAX_GPUS: none).  Reads memory only: never blocks.
 */
size_t gs_xids_read(const struct gs_sampler *s, uint64_t *cursor,
		    struct gs_xid *out, char (*bus)[32], size_t max,
		    uint64_t *lost);
/* gs_bus_kernel - NVML's "00000000:3B:00.0" as the kernel names it */
char *gs_bus_kernel(char *buf, size_t len, const char *nvml_bus);
/*
 * gs_xid_same - whether two Xids are one: the same code, the same device
 * (the kernel's name; an unknown one, "", agrees with any), and times
 * [lo, hi] (a tracepoint's is one instant) no further apart than
 * GS_XID_SAME_NS
 */
bool gs_xid_same(uint32_t code_a, const char *dev_a, uint64_t lo_a,
		 uint64_t hi_a, uint32_t code_b, const char *dev_b,
		 uint64_t lo_b, uint64_t hi_b);
/*
 * gs_stop - end the sampler and copy what it saw into @t
 * (gs_timeline_free() it).  The child gets a second to end; one still
 * in a call then is killed, the call named as hung when it ran past its
 * bound (GS_CALL_BOUND_S; nvmlInit $GPULAT_NVML_TIMEOUT), else as cut
 * short.  Never waits on NVML longer than that.  Safe on a sampler that
 * never started or could not (@t then says so).  0 or -ENOMEM.
 */
int gs_stop(struct gs_sampler *s, struct gs_timeline *t);
void gs_timeline_free(struct gs_timeline *t);

/*
 * gs_cost_text - what sampling cost: the calls' time per sample, the
 * slowest call, the sampler's CPU time
 */
char *gs_cost_text(char *buf, size_t len, const struct gs_timeline *t);
/* gs_cost_json - the same as members of the open JSON object */
struct json;
void gs_cost_json(struct json *j, const struct gs_timeline *t);

/*
 * gs_print_text - one line per sample and GPU, time from the window's
 * start, then the Xids: the report's gpu-timeline.txt
 */
void gs_print_text(FILE *f, const struct gs_timeline *t);
/* gs_print_json - the timeline as one JSON object */
void gs_print_json(FILE *f, const struct gs_timeline *t);

/*
 * gpulat trace's Xids from NVML: on drivers without the nvidia_dev_xid
 * tracepoint, the GPU sampler's child waits for NVML's Xid events and
 * the trace prints them among the module's records.  An NVML Xid is
 * held for GS_XID_SAME_NS so that one the tracepoint also saw prints
 * once, as the tracepoint's.
 */
/* held or remembered; past it the oldest prints at once, counted */
#define TN_MAX	64

struct tn_xid {
	uint64_t lo_ns, time_ns;	/* the tracepoint's: both its time */
	uint32_t code;
	char device[32];	/* the kernel's name */
	bool matched;
};

struct trace_nvml {
	struct gs_sampler s;
	bool on;
	uint64_t cursor;
	struct tn_xid held[TN_MAX];	/* NVML's, not yet printed */
	size_t nr_held;
	struct tn_xid seen[TN_MAX];	/* the tracepoint's, newest last */
	size_t nr_seen;
	uint64_t printed, merged, lost;
	uint64_t early;		/* printed before their hold ended (storm) */
	void (*print)(uint64_t time_ns, uint32_t code, const char *device,
		      void *arg);
	void *arg;
};

/*
 * tn_start - the Xid waiter (no GPU polled); @print(...) prints one
 * NVML Xid.  0 or -errno (the trace then goes on without it).
 */
int tn_start(struct trace_nvml *t,
	     void (*print)(uint64_t time_ns, uint32_t code,
			   const char *device, void *arg), void *arg);
/* tn_kernel_xid - an Xid record of the tracepoint, as it is printed */
void tn_kernel_xid(struct trace_nvml *t, uint64_t time_ns, uint32_t code,
		   const char *device);
/* tn_tick - take NVML's new Xids; print those held long enough */
void tn_tick(struct trace_nvml *t, uint64_t now_ns);
/* tn_stop - print what is held, stop the waiter; what NVML said in @tl */
void tn_stop(struct trace_nvml *t, struct gs_timeline *tl);

#endif /* _GPULAT_USER_GPUSAMPLE_H */
