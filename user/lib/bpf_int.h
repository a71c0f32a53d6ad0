/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgpulat internals: the state of the BPF source, shared by
 * bpf_source.c (load, attach, pin), bpf_snap.c (snapshot, reset) and
 * bpf_trace.c (the outlier trace).
 */
#ifndef _GPULAT_USER_BPF_INT_H
#define _GPULAT_USER_BPF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpulat_bpf.h"
#include "lib/procname.h"
#include "uapi/gpulat.h"

#define GL_BPF_MAX_MAPS		64
#define GL_BPF_NAME		64

struct ring_buffer;
struct gpulat_bpf;

/* One tracepoint of a family: its program and link. */
struct gl_bpf_tpst {
	int prog_fd;		/* -1: not loaded (missing, or failed) */
	int link_fd;		/* -1: not attached */
	bool raw;		/* raw_tp variant (no BTF for it) */
	uint32_t state;		/* enum gpulat_probe_state */
	uint32_t error;		/* positive errno when failed */
};

struct gl_bpf {
	struct gpulat_bpf *skel;	/* loaded by this process; NULL: pinned */
	bool pinned;			/* opened from (or pinned in) pin_dir */
	char pin_dir[128];		/* GL_BPF_PIN_DIR; a temporary while pinned */
	struct {
		char name[GL_BPF_NAME];
		int fd;
	} maps[GL_BPF_MAX_MAPS];
	unsigned int nr_maps;
	struct gl_bpf_tpst tp[GPULAT_FAM_MAX][GL_BPF_NR_TPS];
	int iter_fd[GPULAT_FAM_MAX];	/* a family's iter_prog; -1: none */
	/*
	 * the cuda family's uprobe programs (its row's up_prog: entry,
	 * return) and the links this process placed, per function of
	 * gpulat_cuda.h and kind (bpf_cuda.c); -1: none
	 */
	int up_prog[2];
	int up_link[GPULAT_CUDA_FN_MAX][2];
	uint64_t want;			/* families to attach (1 << id); 0: all */
	unsigned int ncpus;		/* possible CPUs: per-CPU values */
	int data_fd;			/* the .data map (struct gl_bpf_conf) */
	size_t data_size, conf_off;
	int lock_fd;			/* pin_dir, flock()ed; -1: none */
	unsigned int lock_depth;
	/* this process's thresholds (thr_set: 1 << family), not shared */
	uint64_t thr[GPULAT_FAM_MAX];
	uint64_t thr_set;
	/* the trace: this reader's slot of gl_conf.rdr and gl_rings */
	struct ring_buffer *rb;
	bool reader;
	int slot;			/* -1: none */
	int ring_fd;			/* its ring buffer; -1: none */
	unsigned char *stage;		/* records fetched, not yet returned */
	size_t stage_len, stage_off, stage_cap;
	uint64_t *lost_seen;		/* per CPU */
	struct procname_cache names;	/* the culprits' comm and tgid */
	size_t series_hint;		/* series of the last snapshot */
	/* per family: its keys' maxima as last read (bpf_snap.c) */
	struct bs_kmax_cache *kmax[GPULAT_FAM_MAX];
	/* gl_pcpu and gl_events, mapped read-only at the first snapshot */
	const unsigned char *pcpu_mem, *ev_mem;
	size_t pcpu_len, ev_len;
};

/* bpf_source.c */
int gl_bpf_map_fd(const struct gl_bpf *b, const char *name);
int gl_bpf_conf_get(const struct gl_bpf *b, struct gl_bpf_conf *c);
int gl_bpf_conf_put(struct gl_bpf *b, const struct gl_bpf_conf *c);
uint64_t gl_bpf_now_ns(void);
/* gl_bpf_alloc - an empty source (no fds), its pins at GL_BPF_PIN_DIR */
struct gl_bpf *gl_bpf_alloc(void);
/* gl_bpf_conf_init - the settings' defaults, unless made already */
int gl_bpf_conf_init(struct gl_bpf *b);

/* bpf_pin.c */
int gl_bpf_open_pinned(struct gl_bpf *b, char *err, size_t errlen);
/* gl_bpf_cgroup_switch - the cgroup family on or off (in the settings) */
int gl_bpf_cgroup_switch(struct gl_bpf *b, bool on);

/* bpf_snap.c */
/* gl_bpf_snap_free - what the snapshots of @b keep between them */
void gl_bpf_snap_free(struct gl_bpf *b);

/* bpf_load.c */
void gl_bpf_log_init(void);
struct gpulat_bpf *gl_bpf_skel_open(void);
/* gl_bpf_precheck - why the BPF source cannot run here, or 0 */
int gl_bpf_precheck(char *err, size_t errlen);
/* gl_bpf_load - open and load the skeleton (a refused family left out) */
int gl_bpf_load(struct gl_bpf *b, char *err, size_t errlen);
/* gl_bpf_collect - the map and program fds of the loaded skeleton */
int gl_bpf_collect(struct gl_bpf *b);

/* bpf_attach.c */
/* gl_bpf_pin_path - where @name of @kind (maps, progs, links) is pinned */
void gl_bpf_pin_path(const struct gl_bpf *b, char *buf, size_t len,
		     const char *kind, const char *name);
/* gl_bpf_prog_name - the program of tracepoint @i of family @f */
const char *gl_bpf_prog_name(char *buf, size_t len, uint32_t f,
			     unsigned int i, bool raw);
/*
 * gl_bpf_driver_absent - why family @f waits (its driver is not loaded),
 * in @why; NULL when it need not
 */
const char *gl_bpf_driver_absent(uint32_t f, char *why, size_t len);
/* gl_bpf_attach_all - every family @b wants; those held back marked */
int gl_bpf_attach_all(struct gl_bpf *b);
/* gl_bpf_family_loads - whether @b loads family @f's programs */
bool gl_bpf_family_loads(const struct gl_bpf *b, uint32_t f);
/* gl_bpf_family_wanted - whether @b attaches family @f */
bool gl_bpf_family_wanted(const struct gl_bpf *b, uint32_t f);
/* gl_bpf_family_on - attach family @f's programs; undone on a failure */
int gl_bpf_family_on(struct gl_bpf *b, uint32_t f);
/*
 * gl_bpf_family_absent - why family @f cannot time anything here (its
 * driver not loaded, its library missing), in @why; NULL when it can
 */
const char *gl_bpf_family_absent(const struct gl_bpf *b, uint32_t f,
				 char *why, size_t len);
/* gl_bpf_attached_mark - note family @f attached or not in the settings */
void gl_bpf_attached_mark(struct gl_bpf *b, uint32_t f, bool on);

/*
 * gl_bpf_lock - serialise changes of the settings between the processes
 * that share a pinned source (flock() on its folder); nests; nothing
 * for a source of one process's own
 */
void gl_bpf_lock(struct gl_bpf *b);
void gl_bpf_unlock(struct gl_bpf *b);

/* bpf_trace.c */
void gl_bpf_trace_close(struct gl_bpf *b);
void gl_bpf_readers_fix(struct gl_bpf *b, struct gl_bpf_conf *c);
int gl_bpf_reader_gates(struct gl_bpf *b);

#endif /* _GPULAT_USER_BPF_INT_H */
