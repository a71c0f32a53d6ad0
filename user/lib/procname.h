/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgpulat: the comm and tgid of a pid from /proc, cached.  The BPF
 * source names a culprit when its record is read, from /proc; a reader
 * that keeps up with many outliers (serve) would open /proc/PID/status
 * once per culprit.  The cache holds PROCNAME_SLOTS entries, one per
 * slot of a hash of the pid (a lookup is O(1), the memory fixed), each
 * trusted for PROCNAME_TTL_NS: a pid reused within that time could be
 * named after the task that had it before, as one named after the wait
 * it ended could anyway.
 */
#ifndef _GPULAT_USER_PROCNAME_H
#define _GPULAT_USER_PROCNAME_H

#include <stdint.h>

#include "uapi/gpulat.h"

#define PROCNAME_SLOTS		256
#define PROCNAME_TTL_NS		1000000000ULL

struct procname_ent {
	int32_t pid;		/* 0: empty */
	int32_t tgid;		/* -1: gone when read */
	uint64_t at_ns;		/* CLOCK_MONOTONIC when read */
	char comm[GPULAT_COMM_LEN];
};

struct procname_cache {
	struct procname_ent e[PROCNAME_SLOTS];
	uint64_t hits, reads;	/* lookups served, /proc files read */
	const char *proc;	/* "/proc"; tests point it elsewhere */
};

/*
 * procname_get - comm and tgid of @pid at @now_ns: from the cache while
 * fresh, else from <proc>/PID/status; tgid -1 and comm "" when gone
 */
void procname_get(struct procname_cache *c, int32_t pid, uint64_t now_ns,
		  int32_t *tgid, char comm[GPULAT_COMM_LEN]);

/*
 * procname_start - the start time of process @pid (/proc/PID/stat,
 * clock ticks since boot), which tells it from a later one with its
 * pid; 0 when it is gone, a zombie included (killed, not yet reaped)
 */
uint64_t procname_start(int32_t pid);

/* procname_read - the same from @proc, uncached */
void procname_read(const char *proc, int32_t pid, int32_t *tgid,
		   char comm[GPULAT_COMM_LEN]);

#endif /* _GPULAT_USER_PROCNAME_H */
