/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat trace's Xids from NVML: on drivers without the nvidia_dev_xid
 * tracepoint, the GPU sampler's child waits for NVML's Xid events and
 * the trace prints them among the module's records.  An NVML Xid is
 * held for GS_XID_SAME_NS so that one the tracepoint also saw prints
 * once, as the tracepoint's.
 */
#ifndef _GPULAT_USER_TRACE_NVML_H
#define _GPULAT_USER_TRACE_NVML_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gpusample.h"

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

#endif /* _GPULAT_USER_TRACE_NVML_H */
