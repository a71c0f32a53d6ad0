/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NVML test double's timeline: the state its GPUs answer from and
 * the script ($FAKE_NVML_SCRIPT) that changes it over time.  The syntax
 * is described in fake_script.c.  Nothing here is exported from the
 * library.
 */
#ifndef _GPULAT_FAKE_SCRIPT_H
#define _GPULAT_FAKE_SCRIPT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/nvml/nvml.h"

#define FAKE_HIDDEN		__attribute__((visibility("hidden")))

#define FAKE_MAX_GPUS		8
#define FAKE_MAX_PROCS		64	/* in one procs line */
#define FAKE_MAX_LINES		4096	/* of a script */
#define FAKE_LINE_MAX		1024	/* characters of one line, with '\n' */
#define FAKE_MAX_POOL		16384	/* processes in all procs lines */
#define FAKE_MAX_FNS		32	/* entries of fake_fns[] */
#define FAKE_NO_SM		(~0U)	/* a process with no SM sample */
#define FAKE_SCRIPT_ERROR	999	/* nvmlInit_v2's answer to a bad script */

struct fake_proc {
	unsigned int pid;
	unsigned long long mem;		/* bytes; NVML_VALUE_NOT_AVAILABLE */
	unsigned int sm;		/* percent; FAKE_NO_SM */
};

struct fake_gpu {
	const char *name;
	char bus_id[32];
	unsigned long long reasons;
	unsigned int cur_gen, cur_width, max_gen, max_width;
	int persistence;
	nvmlUtilization_t util;
	long long replays;		/* < 0: not supported */
	unsigned long long mem_used, mem_total;	/* MiB */
	unsigned int nr_procs;
	struct fake_proc procs[FAKE_MAX_PROCS];
};

/* The functions a script can hang or fail: this build's exported names. */
extern const char *const fake_fns[] FAKE_HIDDEN;
extern const unsigned int fake_nr_fns FAKE_HIDDEN;

enum fake_kind {
	FK_UTIL, FK_MEM, FK_REASONS, FK_LINK, FK_REPLAY, FK_PERSIST,
	FK_PROCS, FK_XID, FK_HANG, FK_FAIL,
};

struct fake_event {
	uint64_t t_ns;			/* since the first nvmlInit_v2 */
	unsigned int line;
	enum fake_kind kind;
	unsigned int gpu;
	unsigned long long v[4];	/* the values, in the line's order */
	unsigned int fn;		/* hang, fail: index in fake_fns[] */
	unsigned int nr_procs, proc0;	/* procs: in fake_st.pool[] */
	bool delivered;			/* an Xid the event wait gave */
};

/* The GPUs as they are now, and what was applied to them. */
struct fake_state {
	unsigned int nr_gpus;
	bool events_off;
	struct fake_gpu gpu[FAKE_MAX_GPUS];
	bool hang[FAKE_MAX_FNS];	/* per fake_fns[] entry */
	nvmlReturn_t fail[FAKE_MAX_FNS];	/* 0: none */
	unsigned int nr_ev, applied;
	struct fake_event ev[FAKE_MAX_LINES];	/* by time, then line */
	unsigned int nr_pool;
	struct fake_proc pool[FAKE_MAX_POOL];	/* of the procs events */
};

extern struct fake_state fake_st FAKE_HIDDEN;

/*
 * fake_script_load - reset fake_st to the fixed GPUs, then read @path
 * into it when not NULL; 0, or -1 with "fake_nvml: PATH:LINE: what" on
 * stderr
 */
int fake_script_load(const char *path) FAKE_HIDDEN;
/* fake_script_advance - apply every event due at @now_ns */
void fake_script_advance(uint64_t now_ns) FAKE_HIDDEN;
/* fake_fn_index - @name's index in fake_fns[], -1 when not there */
int fake_fn_index(const char *name) FAKE_HIDDEN;

#endif /* _GPULAT_FAKE_SCRIPT_H */
