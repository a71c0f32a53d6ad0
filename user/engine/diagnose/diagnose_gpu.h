/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat diagnose, the GPU side: the NVML timeline of the watch
 * (gpusample.h) judged by the operators' triage rule, the GPU
 * processes joined with the CPU culprits, throttling and the PCIe link
 * as causes of their own (diagnose_gpu.c), printed by
 * diagnose_gpu_print.c.  The rules' numbers are here, once.
 */
#ifndef _GPULAT_USER_DIAGNOSE_GPU_H
#define _GPULAT_USER_DIAGNOSE_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/gpusample/gpusample.h"
#include "lib/json.h"

/* A GPU whose mean utilisation is below this waits for its host ... */
#define DIAG_GPU_IDLE_PCT	30
/* ... and above this is busy; */
#define DIAG_GPU_BUSY_PCT	90
/* its memory is full at this share of the total. */
#define DIAG_GPU_FULL_PERMILLE	950
/*
 * A process with this mean share of a GPU's SMs, or this share of its
 * memory (per mille), hogs it when it shares the GPU with another
 * process, is a miner or is also a CPU culprit: a job alone on its GPU
 * is just using it.
 */
#define DIAG_GPU_HOG_SM		50
#define DIAG_GPU_HOG_PERMILLE	250
/* A link's speed below its maximum counts only at this utilisation. */
#define DIAG_GPU_LINK_BUSY_PCT	50

#define DIAG_GPU_MAX_PROCS	8
/* The descriptors of a process looked at for a /dev/nvidia* one. */
#define DIAG_GPU_MAX_FDS	4096
#define DIAG_GPU_MAX_CAUSES	12

/* The triage rule's answer. */
enum diag_triage {
	DIAG_TRIAGE_NONE,	/* no GPU sampled */
	DIAG_TRIAGE_HOST,	/* GPUs idle while latency is abnormal */
	DIAG_TRIAGE_DRIVER,	/* GPUs idle, the driver layer ranked first */
	DIAG_TRIAGE_JOB,	/* busy with full memory: the job's resources */
	DIAG_TRIAGE_BUSY,	/* busy, memory not full */
	DIAG_TRIAGE_IDLE,	/* idle and nothing abnormal */
	DIAG_TRIAGE_MIXED,	/* between the two: the rule does not apply */
	DIAG_NR_TRIAGE,
};

enum diag_gpu_cause_kind {
	DIAG_GC_MEMORY,		/* busy with its memory full */
	DIAG_GC_THROTTLE,	/* clock event reasons: thermal, power, hw */
	DIAG_GC_LINK,		/* PCIe link below its maximum */
	DIAG_GC_REPLAY,		/* PCIe replays during the watch */
	DIAG_GC_HOG,		/* a process holding a GPU */
	DIAG_GC_HUNG,		/* an NVML call that did not return */
	DIAG_NR_GC,
};

struct diag_gpu_one {
	uint32_t index;
	char name[96], bus_id[32];
	char dev[32];			/* the kernel's name: 0000:3b:00.0 */
	uint32_t samples;		/* with utilisation */
	double util_mean, mem_util_mean;
	uint32_t util_max;
	uint64_t mem_used_max, mem_total;
	uint64_t bad_reasons;		/* throttle bits seen */
	uint32_t throttled;		/* samples with one */
	uint32_t power_capped;		/* samples at the power limit */
	double first_throttle_s;	/* into the window */
	uint32_t link_samples, width_low, gen_low_busy;
	uint32_t min_gen, min_width, max_gen, max_width;
	uint32_t min_gen_busy;		/* the lowest gen while busy */
	bool replay_known;
	uint32_t replays_delta;
	int persistence;		/* -1 unknown */
};

/* Whether NVML's pid is this pid namespace's GPU process. */
enum diag_gpu_owner {
	DIAG_OWNER_OTHER,	/* gone, or no /dev/nvidia* open here */
	DIAG_OWNER_OURS,
	DIAG_OWNER_UNKNOWN,	/* its descriptors may not be read */
};

struct diag_gpu_proc {
	int32_t pid;
	uint32_t gpu;
	char comm[GPULAT_COMM_LEN];
	bool alive;			/* /proc/PID is there now */
	bool ours;			/* and has /dev/nvidia* open: this
					 * pid namespace's GPU process */
	enum diag_gpu_owner owner;
	/* processes that used its GPU at once, at most, it included */
	uint32_t sharing;
	uint32_t seen;			/* samples listing it */
	double sm_mean;			/* -1: no utilisation sample */
	uint64_t mem_max;		/* bytes */
	bool hog, miner;
	/* the same process named a CPU culprit (its layer, what it did) */
	bool cpu_culprit;
	char cpu_doing[160];
};

struct diag_gpu_cause {
	enum diag_gpu_cause_kind kind;
	uint32_t gpu;			/* GS_NA: not one GPU's */
	char text[512];
};

struct diag_gpu_res {
	bool present;
	char absent[512];
	char lib[256], driver[96];
	bool hung;
	char hung_why[256];
	char cut[256];			/* a call cut short by the stop */
	bool events;
	char events_why[256];
	double interval_s;
	size_t nr_samples;
	uint64_t samples_lost;
	uint32_t nr_gpus, nr_sampled;
	struct diag_gpu_one gpu[GS_MAX_GPUS];
	struct diag_gpu_proc procs[DIAG_GPU_MAX_PROCS];
	size_t nr_procs;
	uint64_t procs_lost;		/* processes past DIAG_GPU_MAX_PROCS */
	struct diag_gpu_cause causes[DIAG_GPU_MAX_CAUSES];
	size_t nr_causes;
	uint64_t causes_lost;		/* past DIAG_GPU_MAX_CAUSES */
	size_t xids_nvml, xids_both;	/* in the window */
	uint64_t xids_lost;		/* NVML's, past the sampler's ring */
	enum diag_triage triage;
	char triage_text[512];
	char cost_text[512];		/* what sampling cost */
	struct gs_timeline cost;	/* its numbers: cost, cpu_ns, span */
};

struct diag_result;
struct watch;

/*
 * diag_gpu_xids - NVML's Xids of @t into the driver layer, once each
 * beside the tracepoint's (before the layers are judged)
 */
void diag_gpu_xids(struct diag_result *r, const struct gs_timeline *t);
/* diag_gpu - the GPU side of @r from @t (after the ranking); 0 or -ENOMEM */
int diag_gpu(struct diag_result *r, const struct gs_timeline *t);
/* diag_gpu_triage_name - "host", "job", ... */
const char *diag_gpu_triage_name(enum diag_triage t);
const char *diag_gpu_cause_name(enum diag_gpu_cause_kind k);
void diag_gpu_print(FILE *f, const struct diag_result *r);
void diag_gpu_json(struct json *j, const struct diag_result *r);

#endif /* _GPULAT_USER_DIAGNOSE_GPU_H */
