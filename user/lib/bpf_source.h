/* SPDX-License-Identifier: GPL-2.0 */
/* libgpulat internals: the BPF source behind struct gl_source (source.c). */
#ifndef _GPULAT_USER_BPF_SOURCE_H
#define _GPULAT_USER_BPF_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct gl_snapshot;
struct gl_bpf;

enum gl_bpf_mode {
	GL_BPF_PRIVATE,		/* loaded and attached for this process */
	GL_BPF_PINNED,		/* the one gpulat attach pinned */
};

/*
 * gl_bpf_open - the source @mode names; a private one attaches the
 * families of @families (bit 1 << family id; 0: all)
 */
struct gl_bpf *gl_bpf_open(enum gl_bpf_mode mode, uint64_t families,
			   int *ret, char *err, size_t errlen);
void gl_bpf_close(struct gl_bpf *b);
bool gl_bpf_fresh(const struct gl_bpf *b);
const char *gl_bpf_describe(const struct gl_bpf *b, char *buf, size_t len);
int gl_bpf_snapshot(struct gl_bpf *b, struct gl_snapshot **out, char *err,
		    size_t errlen);
int gl_bpf_reset(struct gl_bpf *b);
int gl_bpf_family_switch(struct gl_bpf *b, uint32_t family, bool on);
int gl_bpf_threshold(struct gl_bpf *b, uint32_t family, bool set,
		     uint64_t *ns);
struct gl_cgroup_watch;
int gl_bpf_cgroup_set(struct gl_bpf *b, const struct gl_cgroup_watch *w,
		      unsigned int n);
int gl_bpf_cgroup_get(struct gl_bpf *b, uint64_t *ids, unsigned int *n);
int gl_bpf_poll_fd(struct gl_bpf *b);
ssize_t gl_bpf_trace_read(struct gl_bpf *b, void *buf, size_t len);
bool gl_bpf_trace_pending(struct gl_bpf *b);
/*
 * gl_bpf_trace_self_left - records about a reader's own thread, left out
 * of every reader's trace, since load (trace_self_left)
 */
int gl_bpf_trace_self_left(struct gl_bpf *b, uint64_t *n);
int gl_bpf_pin(char *err, size_t errlen);
int gl_bpf_unpin(char *err, size_t errlen);
bool gl_bpf_pinned(void);
/* gl_bpf_pin_sweep - remove what attaches and detaches since killed left */
void gl_bpf_pin_sweep(void);
/* gl_bpf_attached_by - who pinned @b: "gpulat attach (pid P, uid U, at T)" */
const char *gl_bpf_attached_by(const struct gl_bpf *b, char *buf,
			       size_t len);
bool gl_bpf_is_pinned(const struct gl_bpf *b);
/*
 * gl_bpf_refresh - attach the families held back for a driver that has
 * loaded since (a long-running reader calls it now and then)
 */
int gl_bpf_refresh(struct gl_bpf *b);
/*
 * gl_bpf_cuda_get - where the cuda family's uprobes lie (bpf_cuda.c), as
 * the module's GPULAT_IOC_CUDA answers it; ino 0: none placed
 */
struct gl_cuda_attached;
int gl_bpf_cuda_get(struct gl_bpf *b, struct gl_cuda_attached *a);
/* gl_bpf_family_held - why family @f is held back, or NULL */
const char *gl_bpf_family_held(struct gl_bpf *b, uint32_t f, char *why,
			       size_t len);

#endif /* _GPULAT_USER_BPF_SOURCE_H */
