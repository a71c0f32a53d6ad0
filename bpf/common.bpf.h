/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every family's BPF programs share: the histogram and counter
 * maps of gpulat_bpf.h, the record functions (the module's, in BPF), the
 * keyed-series lookup, and the settings the tool writes.
 *
 * Hot path rules as in the module: O(1), no locks, per-CPU where the
 * data is per CPU, no string copies but when a key is first seen and
 * when an outlier is recorded.
 */
#ifndef _GPULAT_BPF_COMMON_H
#define _GPULAT_BPF_COMMON_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "gpulat_hist.h"
#include "gpulat_stamp.h"
#include "gpulat_bpf.h"

/*
 * A map update's or delete's error is read as an int (int e = ...),
 * never as the helper's long: where the map's ops return int (5.10,
 * 6.1; 6.12's return long) the verifier calls the op itself, so the
 * 64-bit result holds -EEXIST in its low 32 bits only and compares
 * unequal to -17 as a long.
 */
#define GL_E2BIG	7
#define GL_EEXIST	17
#define GL_U64_MAX	(~0ULL)

/* the build fails unless @cond holds (static_assert where C has none) */
#define GL_BUILD_ASSERT(cond)	((void)sizeof(char[(cond) ? 1 : -1]))

static __always_inline void gl_barrier(void)
{
	asm volatile("" ::: "memory");
}

/* Written by the tool (skeleton's bss); zero until it sets them. */
extern struct gl_bpf_conf gl_conf;

/*
 * The per-CPU series, CPU-major (gl_pcpu_index()); the loader makes
 * room for every possible CPU.  A plain array the tool maps and reads
 * in place: a per-CPU array's lookup copies every CPU's value twice
 * through a kernel buffer (400 KB per series at 224 CPUs).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, GL_BPF_PCPU_NR);
	__type(key, __u32);
	__type(value, struct gl_bpf_hist);
} gl_pcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GPULAT_FAM_MAX);
	__type(key, __u32);
	__type(value, struct gl_bpf_cnt);
} gl_cnt SEC(".maps");

/*
 * Stale in-flight entries the tool removed, by family id (gl_bpf_flight):
 * written by the tool only, added to the family's expired counter.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GPULAT_FAM_MAX);
	__type(key, __u32);
	__type(value, __u64);
} gl_swept SEC(".maps");

/*
 * GL_NO_COUNT - a counter index gl_count() ignores: for a keyed family
 * whose keys_full is counted when a sample would be filed, not when its
 * start is stamped (the module's NO_KEY key index)
 */
#define GL_NO_COUNT	(GL_BPF_NR_DROPS + GL_BPF_NR_TPS)

/* gl_count - bump counter @idx of family @fam on this CPU */
static __always_inline void gl_count(__u32 fam, __u32 idx)
{
	struct gl_bpf_cnt *c = bpf_map_lookup_elem(&gl_cnt, &fam);

	if (c && idx < GL_BPF_NR_DROPS + GL_BPF_NR_TPS)
		c->c[idx]++;
}

/*
 * gl_hist_record - file one sample on this CPU, slot before count (as
 * the module's gpulat_hist_record(): a reader that loads count first
 * never sees it ahead of the slots).
 */
static __always_inline void gl_hist_record(struct gl_bpf_hist *h, __u64 ns)
{
	__u64 s = gpulat_hist_slot(ns);

	/* one register for the check and the use, as the verifier wants */
	barrier_var(s);
	if (s < GPULAT_HIST_NR_BUCKETS)
		h->slots[s]++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	gl_barrier();
	h->count++;
}

/* gl_pcpu_record - file @ns in per-CPU series @idx (GL_BPF_PCPU_*) */
static __always_inline void gl_pcpu_record(__u32 idx, __u64 ns)
{
	__u32 key = gl_pcpu_index(bpf_get_smp_processor_id(), idx);
	struct gl_bpf_hist *h = bpf_map_lookup_elem(&gl_pcpu, &key);

	if (h)
		gl_hist_record(h, ns);
}

/*
 * gl_ghist_record - file one sample from any CPU into a keyed series:
 * atomic adds; @max is this CPU's largest sample of the series.
 */
static __always_inline void gl_ghist_record(struct gl_bpf_hist *h,
					    __u64 *max, __u64 ns)
{
	__u64 s = gpulat_hist_slot(ns);

	barrier_var(s);
	if (s < GPULAT_HIST_NR_BUCKETS)
		__sync_fetch_and_add(&h->slots[s], 1);
	__sync_fetch_and_add(&h->sum_ns, ns);
	if (ns > *max)
		*max = ns;
	__sync_fetch_and_add(&h->count, 1);
}

/*
 * GL_KEYED(fam, famid, full, nser, nkeys) - a keyed family's maps:
 * fam##_keys (key -> struct gl_keyed_##fam: the name, then nser
 * histograms) and fam##_kmax (key -> this CPU's maxima), room for nkeys
 * keys, and fam##_key_get(key, &created, &max): the key's value, made on
 * its first event, or NULL when the maps are full (counted as drop @full
 * of family @famid; GL_NO_COUNT: not counted here).  @created says this
 * call made it (the caller then names it), @max points to this CPU's
 * maxima.  Two CPUs making one key
 * at once: one wins, both use it.
 */
/*
 * The zero value of a keyed family's new key, one for all of them: the
 * kernel charges .rodata whole, and a zero per family cost 13 KB more.
 * Room for GL_KEYED_NSER_MAX histograms (the block family's ten).
 */
#define GL_KEYED_NSER_MAX	10
static const struct {
	struct gl_bpf_key_hdr hdr;
	struct gl_bpf_hist h[GL_KEYED_NSER_MAX];
} gl_keyed_zero;

/* no build where a value of type @t is larger than gl_keyed_zero */
#define GL_ZERO_FITS(t)	\
	((void)sizeof(char[1 - 2 * !!(sizeof(t) > sizeof(gl_keyed_zero))]))

#define GL_KEYED(fam, famid, full, nser, nkeys)				\
	enum { fam##_nser = (nser), fam##_nkeys = (nkeys) };		\
	struct gl_keyed_##fam {						\
		struct gl_bpf_key_hdr hdr;				\
		struct gl_bpf_hist h[fam##_nser];			\
	};								\
	struct gl_kmax_##fam {						\
		__u64 max[fam##_nser];					\
	};								\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(max_entries, fam##_nkeys);			\
		__type(key, __u64);					\
		__type(value, struct gl_keyed_##fam);			\
	} fam##_keys SEC(".maps");					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_HASH);			\
		__uint(max_entries, fam##_nkeys);			\
		__type(key, __u64);					\
		__type(value, struct gl_kmax_##fam);			\
	} fam##_kmax SEC(".maps");					\
	static const struct gl_kmax_##fam fam##_kmax_zero;		\
	static __always_inline struct gl_keyed_##fam *			\
	fam##_key_get(__u64 key, bool *created,				\
		      struct gl_kmax_##fam **max)			\
	{								\
		struct gl_keyed_##fam *v;				\
		struct gl_kmax_##fam *m;				\
		int e;							\
									\
		GL_ZERO_FITS(struct gl_keyed_##fam);			\
		*created = false;					\
		v = bpf_map_lookup_elem(&fam##_keys, &key);		\
		m = bpf_map_lookup_elem(&fam##_kmax, &key);		\
		if (v && m) {						\
			*max = m;					\
			return v;					\
		}							\
		e = bpf_map_update_elem(&fam##_kmax, &key,		\
					&fam##_kmax_zero, BPF_NOEXIST);	\
		if (!e || e == -GL_EEXIST)				\
			e = bpf_map_update_elem(&fam##_keys, &key,	\
						&gl_keyed_zero,		\
						BPF_NOEXIST);		\
		*created = !e;						\
		v = bpf_map_lookup_elem(&fam##_keys, &key);		\
		m = bpf_map_lookup_elem(&fam##_kmax, &key);		\
		if (!v || !m) {						\
			gl_count(famid, full);				\
			return NULL;					\
		}							\
		if (*created)						\
			v->hdr.created_ns = bpf_ktime_get_ns();		\
		*max = m;						\
		return v;						\
	}

/* Set before load by the tests (gpulat.bpf.c); constant to the verifier. */
extern const volatile __u32 gl_test_reject;

/*
 * gl_reject - when the tests ask (GPULAT_BPF_TEST_REJECT), make family
 * @fam's programs read above the stack, which the verifier refuses; the
 * value is known at load, so otherwise the check is pruned away
 */
static __always_inline void gl_reject(__u32 fam)
{
	if (gl_test_reject == fam)
		asm volatile("r0 = *(u64 *)(r10 + 8)" ::: "r0");
}

/*
 * gl_hit - tracepoint @i of family @fam ran (struct gpulat_probe.hits);
 * each program's first call
 */
static __always_inline void gl_hit(__u32 fam, __u32 i)
{
	gl_reject(fam);
	gl_count(fam, GL_BPF_HIT(i));
}

/*
 * Start stamps of the sched and mm families: the module's packed layout
 * and packing (kmod/gpulat_stamp.h), in array maps indexed by the low pid
 * bits and sized at load as the module sizes its tables (so many entries
 * per possible CPU, at least 2^10: user/lib/bpf_load.c), never by pid_max.
 */
#define GL_PST_FLAG		GPULAT_PST_FLAG

/* the tables' index bits by family, set at load */
extern const volatile __u32 gl_pst_bits[GPULAT_FAM_MAX];

static __always_inline __u64 gl_pst_tag(__u32 pid, __u32 bits)
{
	return gpulat_pst_tag(pid, bits);
}

static __always_inline bool gl_pst_owns(__u64 entry, __u32 pid, __u32 bits)
{
	return gpulat_pst_owns(entry, pid, bits);
}

static __always_inline __u64 gl_stamp(__u64 now, __u64 tag)
{
	return gpulat_stamp(now, GPULAT_PST_TS_SHIFT, tag);
}

static __always_inline __s64 gl_pst_delta(__u64 entry, __u64 now)
{
	return gpulat_pst_delta(entry, now);
}

/*
 * The task state a switched-out task had: task_struct.state became
 * __state in Linux 5.14 (the field is read as the kernel has it).
 */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline long gl_task_state(struct task_struct *t)
{
	struct task_struct___pre514 *o = (void *)t;

	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ(o, state);
}

#endif /* _GPULAT_BPF_COMMON_H */
