/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgpulat sources: where the series come from.  The module
 * (/dev/gpulat) or the BPF programs of bpf/ fill the same series,
 * counters and trace records; a struct gl_source hides which, so every
 * command works on either (Documentation/bpf.rst).
 *
 *   kmod    /dev/gpulat: the module's totals since load, its trace
 *   bpf     the BPF programs loaded for this process alone (totals
 *           since it started); never a pinned source
 *   pinned  the BPF programs `gpulat attach` pinned in bpffs (totals
 *           since then, kept between commands)
 *   auto    the module when it is loaded, else the pinned source when
 *           the command may use it (said in a note), else bpf
 */
#ifndef _GPULAT_USER_SOURCE_H
#define _GPULAT_USER_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uapi/gpulat.h"

struct gl_snapshot;
struct gl_source;

enum gl_source_kind {
	GL_SOURCE_AUTO,
	GL_SOURCE_KMOD,
	GL_SOURCE_BPF,
	GL_SOURCE_PINNED,	/* asked for; an open source's kind is BPF */
};

/* Environment variable that picks the source when --source is not given. */
#define GL_SOURCE_ENV	"GPULAT_SOURCE"
/* Where `gpulat attach` pins the BPF source. */
#define GL_BPF_PIN_DIR	"/sys/fs/bpf/gpulat"

/* gl_source_parse - "auto", "kmod" (or "module"), "bpf", "pinned"; 0 or -EINVAL */
int gl_source_parse(const char *s, enum gl_source_kind *kind);

/*
 * gl_source_open - open the source @want names; the source, or NULL
 * with the reason (and what to do) on @err and -errno in *@ret (auto:
 * -ENOENT when neither the module nor BPF can serve, as for no module)
 */
struct gl_source *gl_source_open(enum gl_source_kind want, int *ret,
				 char *err, size_t errlen);

/* What a command asks of gl_source_open_req(). */
struct gl_source_req {
	enum gl_source_kind kind;
	/*
	 * auto: never the pinned source, because the command changes
	 * settings other users of it share (thresholds, the watch set)
	 */
	bool own;
	/* a BPF source of its own attaches these (1 << family id); 0: all */
	uint64_t families;
	/* out, may be NULL: auto's word on the source it took, or "" */
	char *note;
	size_t notelen;
};

struct gl_source *gl_source_open_req(const struct gl_source_req *rq,
				     int *ret, char *err, size_t errlen);
void gl_source_close(struct gl_source *src);

enum gl_source_kind gl_source_kind(const struct gl_source *src);
/* gl_source_describe - "module /dev/gpulat (ABI 1.2)", "BPF, pinned ..." */
const char *gl_source_describe(const struct gl_source *src, char *buf,
			       size_t len);
/*
 * gl_source_trace_self_left - records about the trace's own readers left
 * out of the trace since load (the module's debugfs trace_self_left; the
 * BPF source's gl_trace_cnt); 0 or -errno
 */
int gl_source_trace_self_left(struct gl_source *src, uint64_t *n);
/*
 * gl_source_refresh - attach what waited for a driver that has loaded
 * since (BPF: the nvidia family on a host booted without the driver);
 * a long-running reader calls it now and then
 */
int gl_source_refresh(struct gl_source *src);
/* gl_source_family_held - why @family waits for its driver, or NULL */
const char *gl_source_family_held(struct gl_source *src, uint32_t family,
				  char *why, size_t len);
/* gl_source_pinned - whether it is the BPF source gpulat attach pinned */
bool gl_source_pinned(const struct gl_source *src);
/* gl_source_fd - the module's file, -1 for BPF */
int gl_source_fd(const struct gl_source *src);
/*
 * gl_source_fresh - whether the series only start now (BPF loaded for
 * this process): totals say nothing, watch a window instead
 */
bool gl_source_fresh(const struct gl_source *src);
/* gl_source_version - ABI of the source (BPF: this tool's) */
void gl_source_version(const struct gl_source *src, uint32_t *major,
		       uint32_t *minor);

int gl_source_snapshot(struct gl_source *src, struct gl_snapshot **out,
		       char *err, size_t errlen);
int gl_source_reset(struct gl_source *src);
int gl_source_family_switch(struct gl_source *src, uint32_t family, bool on);
int gl_source_threshold(struct gl_source *src, uint32_t family, bool set,
			uint64_t *ns);

/*
 * The cgroups the cgroup family watches (GPULAT_IOC_CGROUP): at most
 * GPULAT_CG_WATCH_MAX, each an open cgroup2 directory with its id (the
 * directory's inode number) and level (its depth under the cgroup2 root,
 * the root being 0), which the BPF source needs to match a task's
 * ancestors in O(1).  @n 0 clears the set.  0 or -errno.
 */
struct gl_cgroup_watch {
	int fd;
	uint64_t id;
	uint32_t level;
};

int gl_source_cgroup_set(struct gl_source *src,
			 const struct gl_cgroup_watch *w, unsigned int n);
/* gl_source_cgroup_get - the watched ids into @ids[GPULAT_CG_WATCH_MAX] */
int gl_source_cgroup_get(struct gl_source *src, uint64_t *ids,
			 unsigned int *n);

/*
 * The library the cuda family probes (GPULAT_IOC_CUDA): @lib's file and
 * offsets, or NULL: none.  The module keeps it until the next set or its
 * unload; the BPF source attaches the library it finds at load.
 */
struct gl_cudalib;
struct gl_cuda_attached {
	uint64_t ino, dev;		/* the library's inode; 0: none */
	unsigned int nr;		/* functions probed */
	uint64_t offset[GPULAT_CUDA_FN_MAX];	/* 0: not probed */
};

int gl_source_cuda_set(struct gl_source *src, const struct gl_cudalib *lib);
int gl_source_cuda_get(struct gl_source *src, struct gl_cuda_attached *a);

/*
 * The outlier trace.  gl_source_poll_fd() is the file to poll for
 * POLLIN; the first call (or read) makes this process a reader, which
 * sees the records written from then on.  gl_source_trace_read() fills
 * @buf with whole records in the ABI layout (-EAGAIN: none now).
 */
int gl_source_poll_fd(struct gl_source *src);
ssize_t gl_source_trace_read(struct gl_source *src, void *buf, size_t len);
/*
 * gl_source_trace_pending - records there that poll() may not report:
 * the BPF source's, fetched or in its ring (whose wakeups can be lost);
 * always false for the module
 */
bool gl_source_trace_pending(struct gl_source *src);

/* gl_source_bpf_pin - pin the BPF source in GL_BPF_PIN_DIR (gpulat attach) */
int gl_source_bpf_pin(char *err, size_t errlen);
/* gl_source_bpf_unpin - remove the pins: the programs detach */
int gl_source_bpf_unpin(char *err, size_t errlen);
/* gl_source_bpf_pinned - whether GL_BPF_PIN_DIR holds a BPF source */
bool gl_source_bpf_pinned(void);

#endif /* _GPULAT_USER_SOURCE_H */
