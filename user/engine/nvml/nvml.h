/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GPU state through NVML, loaded with dlopen() when present: no NVIDIA
 * header and no link-time dependency.  The library is
 * "libnvidia-ml.so.1" from the loader's search path, or the file named by
 * $GPULAT_NVML_LIB.  A missing library, symbol or answer is stated as
 * absent, never an error.
 */
#ifndef _GPULAT_USER_NVML_H
#define _GPULAT_USER_NVML_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

/*
 * The few types of NVML's C ABI used here, as nvml.h declares them (the
 * test double in tests/nvml/ implements them from these declarations).
 */
typedef int nvmlReturn_t;		/* 0: NVML_SUCCESS */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
	unsigned int gpu, memory;	/* percent of the last sample period */
} nvmlUtilization_t;
typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device;
	unsigned int pciDeviceId, pciSubSystemId;
	char busId[32];			/* 00000000:3B:00.0 */
} nvmlPciInfo_t;

/*
 * The process tables: v1 (the unversioned call), v2 (_v2, and _v3 on most
 * drivers; _v3 had 32-byte entries in 535.43-535.86).
 */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;	/* bytes */
} nvmlProcessInfo_v1_t;
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;	/* bytes; ~0ULL: unknown */
	unsigned int gpuInstanceId, computeInstanceId;	/* MIG; ~0U: none */
} nvmlProcessInfo_v2_t;
/* One process's share of the GPU over a sample period (percent). */
typedef struct {
	unsigned int pid;
	unsigned long long timeStamp;	/* wall clock, microseconds */
	unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;
typedef struct {
	unsigned long long total, free, used;	/* bytes */
} nvmlMemory_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;
typedef struct {
	nvmlDevice_t device;
	unsigned long long eventType;
	unsigned long long eventData;	/* the Xid code, for an Xid */
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlEventData_t;

#define NVML_SUCCESS			0
#define NVML_ERROR_INVALID_ARGUMENT	2
#define NVML_ERROR_NOT_SUPPORTED	3
#define NVML_ERROR_NOT_FOUND		6
#define NVML_ERROR_INSUFFICIENT_SIZE	7
#define NVML_ERROR_TIMEOUT		10
#define NVML_EVENT_XID			0x8ULL	/* nvmlEventTypeXidCriticalError */
#define NVML_VALUE_NOT_AVAILABLE	(~0ULL)

#define NVML_SONAME	"libnvidia-ml.so.1"
#define NVML_MAX_GPUS	64

/* One answer: its value is valid when ret is NVML_SUCCESS. */
struct nvml_gpu {
	nvmlReturn_t handle_ret;	/* no handle: nothing else asked */
	nvmlReturn_t name_ret, pci_ret, reasons_ret, link_ret, max_link_ret,
		     persist_ret, util_ret, replay_ret;
	char name[96];
	char bus_id[32];
	unsigned long long reasons;	/* clock event reasons bitmask */
	unsigned int cur_gen, cur_width, max_gen, max_width;
	int persistence;		/* 1 enabled, 0 disabled */
	nvmlUtilization_t util;
	unsigned int replays;		/* PCIe replay counter */
};

struct nvml_info {
	bool present;			/* the library answered nvmlInit */
	char absent[512];		/* why not, when !present */
	char lib[256];			/* the library asked for */
	nvmlReturn_t driver_ret;
	char driver[96];
	nvmlReturn_t count_ret;
	unsigned int nr_gpus;		/* the count NVML gave */
	unsigned int nr_listed;		/* at most NVML_MAX_GPUS of them */
	struct nvml_gpu gpu[NVML_MAX_GPUS];
	/* functions the library lacks, "name, name" */
	char missing[512];
	const char *(*error_string)(nvmlReturn_t);
	void *handle;
};

/* nvml_collect - load NVML and ask it; always fills @n (see n->present) */
void nvml_collect(struct nvml_info *n);
/*
 * nvml_sym_at - the first of @names (NULL-terminated) the loaded library
 * has, its index in *@which (when not NULL); NULL, with names[0] added
 * to n->missing, when it has none
 */
void *nvml_sym_at(struct nvml_info *n, const char *const *names, int *which);
#define NVML_SYM_AT(n, which, ...) \
	nvml_sym_at(n, (const char *const[]){ __VA_ARGS__, NULL }, which)
#define NVML_SYM(n, ...)	NVML_SYM_AT(n, NULL, __VA_ARGS__)
/* nvml_close - shut NVML down and unload it */
void nvml_close(struct nvml_info *n);
/* nvml_error_text - "not supported", "Unknown Error (NVML error 999)" */
const char *nvml_error_text(const struct nvml_info *n, nvmlReturn_t ret,
			    char *buf, size_t len);
/* nvml_print_text - the state of every GPU, or "absent: why" */
void nvml_print_text(FILE *f, const struct nvml_info *n);
/* nvml_reasons_text - "hw slowdown, sw thermal slowdown" for a reasons mask; "none" when 0 */
char *nvml_reasons_text(char *buf, size_t len, unsigned long long reasons);

/*
 * gpulat report: NVML asked in a child process.  nvmlInit and the queries
 * can block for a long time on a GPU that fell off the bus, or crash
 * inside the vendor library; the child's answer (a header, then the text
 * of nvml.txt, on a pipe) is awaited for a while, then the child killed.
 */
/* How long the child gets by default ($GPULAT_NVML_TIMEOUT overrides). */
#define NVML_CHILD_SECONDS	10.0

/* What the child answered. */
struct nvml_answer {
	bool present;		/* NVML answered nvmlInit */
	char absent[512];	/* why not, when !present */
	char *text;		/* nvml.txt as nvml_print_text() wrote it; free() */
};

/* nvml_child_timeout - $GPULAT_NVML_TIMEOUT seconds (0 < s <= 3600), else the default */
double nvml_child_timeout(void);
/*
 * nvml_child_ask - NVML's answer from a child process, within @timeout_s:
 * 0 with @a filled, or -errno (-ETIMEDOUT: no answer in time, -EIO: the
 * child ended or crashed first, -EPROTO: it sent garbage) with why not
 * in @why
 */
int nvml_child_ask(double timeout_s, struct nvml_answer *a, char *why,
		   size_t whylen);

/*
 * nvml_close_fds - in a child about to call NVML: close every descriptor
 * above 2 but @keep, so that a child stuck in the driver holds none of
 * the parent's (the device, a report's files)
 */
void nvml_close_fds(int keep);

#endif /* _GPULAT_USER_NVML_H */
