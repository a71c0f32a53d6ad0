/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgpulat - read /dev/gpulat snapshots from userspace.
 *
 * A struct gl_snapshot owns a validated, normalized copy of one snapshot
 * blob (see uapi/gpulat.h): series are sorted by (family, id, key, cpu),
 * every entry is copied to the VER0 layout with all hist_nr_buckets slots,
 * and every name is NUL-terminated.  Nothing here trusts the blob.
 *
 * Functions return 0 or a negative errno unless documented otherwise; those
 * taking err/errlen also leave a one-line reason there.
 */
#ifndef _GPULAT_USER_H
#define _GPULAT_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lib/family.h"
#include "lib/source.h"
#include "uapi/gpulat.h"

struct gl_snapshot;

/* gl_open - open the device and check that its ABI major is ours; fd or -errno */
int gl_open(char *err, size_t errlen);
/* gl_no_module - whether a gl_open() error means the module is not loaded */
bool gl_no_module(int ret);
/* gl_version - ABI version of the module behind @fd */
int gl_version(int fd, uint32_t *major, uint32_t *minor);
/* gl_reset - zero every histogram and counter of the module */
int gl_reset(int fd);
/*
 * gl_family_switch - attach (@on) or detach a family's probes; 0, or
 * -ENOENT (no such family in the module), -ENODEV (its tracepoints are
 * missing on this kernel), -EINVAL, -ENOMEM or a registration's errno
 */
int gl_family_switch(int fd, uint32_t family, bool on);

/* gl_snapshot_take - fetch, validate and own one snapshot of the device */
int gl_snapshot_take(int fd, struct gl_snapshot **out);
/* gl_snapshot_take_err - gl_snapshot_take with a reason in @err */
int gl_snapshot_take_err(int fd, struct gl_snapshot **out, char *err,
			 size_t errlen);
/* gl_snapshot_parse - validate a blob and make an owned copy of it */
int gl_snapshot_parse(const void *buf, size_t len, struct gl_snapshot **out,
		      char *err, size_t errlen);
/* gl_snapshot_diff - what happened between @old and @new (see lib/diff.c) */
int gl_snapshot_diff(const struct gl_snapshot *old,
		     const struct gl_snapshot *new, struct gl_snapshot **out);
/* gl_snapshot_free - free a snapshot (or drop one owner); NULL is fine */
void gl_snapshot_free(struct gl_snapshot *s);
/*
 * gl_snapshot_ref - one more owner of @s, which nobody changes once made:
 * each owner calls gl_snapshot_free; not for use from two threads at once
 */
struct gl_snapshot *gl_snapshot_ref(const struct gl_snapshot *s);

/* gl_snapshot_read - read and parse a blob saved by gl_snapshot_write */
int gl_snapshot_read(const char *path, struct gl_snapshot **out,
		     char *err, size_t errlen);
/* gl_snapshot_write - write the blob of @s (raw bytes as taken, or rebuilt) */
int gl_snapshot_write(const struct gl_snapshot *s, FILE *f);
/* gl_snapshot_blob - the blob of @s and its length; NULL on no memory */
const void *gl_snapshot_blob(const struct gl_snapshot *s, size_t *len);

/* gl_snapshot_header - header of @s (a diff: reset_time_ns = interval start) */
const struct gpulat_snap_header *gl_snapshot_header(const struct gl_snapshot *s);

size_t gl_snapshot_nr_series(const struct gl_snapshot *s);
/* gl_snapshot_series - series @i, with GPULAT_HIST_NR_BUCKETS slots; NULL past end */
const struct gpulat_series *gl_snapshot_series(const struct gl_snapshot *s,
					       size_t i);
/* gl_snapshot_max_exact - false when max_ns of series @i is only a bound */
bool gl_snapshot_max_exact(const struct gl_snapshot *s, size_t i);

size_t gl_snapshot_nr_counters(const struct gl_snapshot *s);
const struct gpulat_counter *gl_snapshot_counter(const struct gl_snapshot *s,
						 size_t i);
size_t gl_snapshot_nr_probes(const struct gl_snapshot *s);
const struct gpulat_probe *gl_snapshot_probe(const struct gl_snapshot *s,
					     size_t i);

/* Events (Xid...) the module kept, oldest first; none in an ABI 1.0 blob. */
size_t gl_snapshot_nr_events(const struct gl_snapshot *s);
const struct gpulat_event *gl_snapshot_event(const struct gl_snapshot *s,
					     size_t i);

struct gl_hist {
	uint64_t count, sum_ns, max_ns;
	uint64_t slots[GPULAT_HIST_NR_BUCKETS];
	bool max_exact;		/* false: max_ns is an upper bound */
};

/*
 * gl_hist_merge - sum series (family, id) over every key into @out;
 * cpu == GPULAT_CPU_NONE takes all CPUs, else just that one.  Returns the
 * number of series merged (0: none, @out is then empty).
 */
int gl_hist_merge(const struct gl_snapshot *s, uint32_t family, uint32_t id,
		  uint32_t cpu, struct gl_hist *out);
/* gl_hist_merge_key - gl_hist_merge restricted to one key */
int gl_hist_merge_key(const struct gl_snapshot *s, uint32_t family,
		      uint32_t id, uint64_t key, uint32_t cpu,
		      struct gl_hist *out);
/* gl_hist_add_series - add one series to @h */
void gl_hist_add_series(struct gl_hist *h, const struct gpulat_series *sr,
			bool max_exact);
/* gl_hist_total - sum of the slots */
uint64_t gl_hist_total(const struct gl_hist *h);
/* gl_hist_quantile - gpulat_hist_quantile() over @h, @ppm in parts per 1e6 */
uint64_t gl_hist_quantile(const struct gl_hist *h, uint32_t ppm);

/* gl_counter - value of drop counter (family, id): 0 or -ENOENT */
int gl_counter(const struct gl_snapshot *s, uint32_t family, uint32_t id,
	       uint64_t *value);

/* Families and series: family.h (gl_family_name, gl_series_info...). */

/* gl_probe_state_name - "attached", "disabled", "missing", "failed" */
const char *gl_probe_state_name(uint32_t state);

/* --- Outlier trace (ABI 1.2) ------------------------------------------- */

/*
 * gl_threshold - a family's outlier threshold in ns (0: off); with @set,
 * first make it *ns.  0, or -ENOENT (no such family), -ENOTTY (a module
 * older than ABI 1.2), -EINVAL.
 */
int gl_threshold(int fd, uint32_t family, bool set, uint64_t *ns);

/*
 * gl_cgroup_set, gl_cgroup_get - the module's watched cgroups
 * (GPULAT_IOC_CGROUP; struct gl_cgroup_watch: source.h).  0, or -ENOTTY
 * (a module older than ABI 1.3), -E2BIG, -EPERM, -EBADF, -EINVAL.
 */
struct gl_cgroup_watch;
int gl_cgroup_set(int fd, const struct gl_cgroup_watch *w, unsigned int n);
int gl_cgroup_get(int fd, uint64_t *ids, unsigned int *n);
/* gl_cuda_set, gl_cuda_get - the module's probed CUDA library */
int gl_cuda_set(int fd, const struct gl_cudalib *lib);
int gl_cuda_get(int fd, struct gl_cuda_attached *a);

/* One decoded trace record, normalized to this tool's layout. */
struct gl_trace_rec {
	uint32_t type;		/* enum gpulat_rec_type */
	uint32_t cpu;
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
	union {
		struct gpulat_rec_sample sample;	/* GPULAT_REC_SAMPLE */
		struct gpulat_rec_event event;		/* GPULAT_REC_EVENT */
		struct gpulat_rec_lost lost;		/* GPULAT_REC_LOST */
	} u;
};

/* Big enough for one read() of many records. */
#define GL_TRACE_BUF	(64 * 1024)

/*
 * gl_trace_read - one read() of trace records from @fd into @buf; bytes
 * read, or -errno (-EAGAIN: nothing there with O_NONBLOCK)
 */
ssize_t gl_trace_read(int fd, void *buf, size_t len);

/*
 * gl_trace_parse - decode the record at *@off of @buf (@len bytes) into
 * @rec and advance *@off.  Returns 1 for a record, 0 at the end, or
 * -EINVAL for a malformed record (nothing is trusted: sizes, counts and
 * strings are checked; a record of an unknown type is returned with its
 * type and header only).
 */
int gl_trace_parse(const void *buf, size_t len, size_t *off,
		   struct gl_trace_rec *rec);

#endif /* _GPULAT_USER_H */
