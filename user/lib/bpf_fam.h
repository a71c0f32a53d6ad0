/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgpulat: what the BPF source's reader knows of each family's
 * programs and maps (bpf/), one row per family in bpf_fam.c.  The series
 * names come from the family table (family.c), the drop counters' names
 * from kmod/gpulat_drops.h, both shared with the module.
 */
#ifndef _GPULAT_USER_BPF_FAM_H
#define _GPULAT_USER_BPF_FAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most in-flight entries a family's table has (the module's clamp). */
#define GL_BPF_INFLIGHT_MAX	(1U << 22)
struct gl_bpf;

/* One tracepoint a family hooks, and its program (bpf/<family>.bpf.h). */
struct gl_bpf_tp {
	const char *tracepoint;	/* "sched_switch"; "nvidia:x" in a module */
	/*
	 * the program attached as tp_btf; prog + "_raw" is the same body as
	 * raw_tp, used where the kernel's BTF lacks the tracepoint
	 */
	const char *prog;
	/* a tracepoint some kernels or drivers lack: missing, not failed */
	bool optional;
};

/* A tracepoint of another family whose programs file this one's samples. */
struct gl_bpf_ride {
	uint32_t family;
	unsigned int tp;	/* index in that family's tps */
};

struct gl_bpf_family {
	uint32_t id;			/* enum gpulat_family_id; 0: none */
	const struct gl_bpf_tp *tps;	/* GL_BPF_HIT(i) counts tps[i] */
	unsigned int nr_tps;		/* <= GL_BPF_NR_TPS */
	const char *const *drops;	/* indexed by counter id */
	unsigned int nr_drops;		/* <= GL_BPF_NR_DROPS */
	/* per-CPU series 0..nr_pcpu-1 at gl_pcpu[pcpu_base + id] */
	uint32_t pcpu_base, nr_pcpu;
	/* per-CPU series id is GPULAT_SOFTIRQ_SERIES(vec, kind): key vec */
	bool pcpu_vector;
	/*
	 * keyed series: map <keyed>_keys (key -> struct gl_bpf_key_hdr and
	 * nr_keyed struct gl_bpf_hist, series id i at hist i) and
	 * <keyed>_kmax (per CPU, nr_keyed maxima); NULL: none
	 */
	const char *keyed;
	uint32_t nr_keyed;
	/* keyed series a key lists: those with samples only (nvidia mixes keys) */
	bool keyed_sparse;
	/*
	 * in-flight stamps: hash map <inflight> (address -> struct
	 * gl_bpf_flight), sized at load as the module sizes its table
	 * (inflight_per_cpu per possible CPU, at least inflight_min, a power
	 * of two); at each snapshot the entries older than expire_ns are
	 * removed and counted as drop expired_id (gpulat_bpf.h); NULL: none
	 */
	const char *inflight;
	uint32_t inflight_per_cpu, inflight_min;
	uint64_t expire_ns;
	uint32_t expired_id;
	/* a per-CPU array of the family's state, zeroed when it is switched on */
	const char *pcpu_state;
	/*
	 * start stamps by pid (sched, mm): array map <stamps> of
	 * stamp_kinds << bits entries, 2^bits the module's table
	 * (stamps_per_cpu per possible CPU, at least 2^10, a power of two),
	 * bits in the programs' gl_pst_bits[id]; NULL: none
	 */
	const char *stamps;
	uint32_t stamps_per_cpu, stamp_kinds;
	/*
	 * the module's family ops: clear runs before the programs attach
	 * (none of them attached), the task iterator iter_prog (bpf/, an
	 * "iter/task" program) once after; NULL: none
	 */
	int (*clear)(struct gl_bpf *b);
	const char *iter_prog;
	/*
	 * a family without programs (cgroup): switched on and off in the
	 * settings (gl_bpf_conf.cg_on), its probes those of the programs
	 * that file its samples; nr_tps is 0
	 */
	const struct gl_bpf_ride *rides;
	unsigned int nr_rides;
	/*
	 * the driver whose events the family times (/sys/module/<driver>):
	 * where it is not loaded the family's programs, which would run on
	 * every scheduler event for nothing, wait for it unless asked for
	 * by name; NULL: none
	 */
	const char *driver;
	/*
	 * programs placed as a uprobe (up_prog[0], "uprobe") and a uretprobe
	 * (up_prog[1], "uretprobe") at each function of a user library the
	 * family probes (the CUDA driver library's, bpf_cuda.c): lib_on
	 * places them once the family's tracepoints attached (nothing, and
	 * 0, without the library; @refresh: again at each refresh, quiet,
	 * for a family attached before its library came), lib_off takes them
	 * off before those detach, lib_absent says why they cannot be placed
	 * (the library counts as the family's driver: without it the family
	 * is held back unless asked for by name); NULL: none
	 */
	const char *up_prog[2];
	int (*lib_on)(struct gl_bpf *b, bool refresh);
	void (*lib_off)(struct gl_bpf *b);
	const char *(*lib_absent)(const struct gl_bpf *b, char *why,
				  size_t len);
};

/* bpf_nvidia.c */
int gl_bpf_nv_clear(struct gl_bpf *b);

/* bpf_cuda.c */
int gl_bpf_cuda_clear(struct gl_bpf *b);
int gl_bpf_cuda_on(struct gl_bpf *b, bool refresh);
void gl_bpf_cuda_off(struct gl_bpf *b);
const char *gl_bpf_cuda_absent(const struct gl_bpf *b, char *why,
			       size_t len);

/* gl_bpf_family - the row of @family; NULL when the BPF source has none */
const struct gl_bpf_family *gl_bpf_family(uint32_t family);

#endif /* _GPULAT_USER_BPF_FAM_H */
