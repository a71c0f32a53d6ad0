/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup family in BPF: the waits of the tasks of watched cgroups, one
 * keyed series set per leaf cgroup (v2) such a task is in (key: its
 * cgroup id, key_name: the directory's name), as the module keeps them:
 *
 *   cgroup.wakeup, .preempt  as sched.*, filed by the sched programs
 *   cgroup.block             a request's first event -> complete, in the
 *                            cgroup of the task that started it (block)
 *   cgroup.memcg_reclaim     as mm.memcg_reclaim (mm)
 *
 * No programs of its own: the family is a switch in the settings
 * (gl_conf.cg_nr, 0 while off or with nothing watched), read once per
 * sample.  The watch set is in the settings too: up to
 * GPULAT_CG_WATCH_MAX (id, level) pairs; a task's cgroup at level L is
 * a watched one or below it when L >= level and its ancestor at that
 * level has that id, read from the cgroup's ancestors (6.1 and later:
 * pointers, ancestors[]; before: their ids, ancestor_ids[]).
 */
#ifndef _GPULAT_BPF_CGROUP_H
#define _GPULAT_BPF_CGROUP_H

#include "common.bpf.h"

enum { GL_CG_NR_SERIES = 4 };

GL_KEYED(cg, GPULAT_FAM_CGROUP, GPULAT_CG_KEYS_FULL, GL_CG_NR_SERIES,
	 GL_BPF_CG_KEYS);

/* 6.1 replaced cgroup.ancestor_ids[] by ancestors[] */
struct cgroup___pre61 {
	__u64 ancestor_ids[0];
} __attribute__((preserve_access_index));

/* gl_cg_of - @t's cgroup in the default (v2) hierarchy */
static __always_inline struct cgroup *gl_cg_of(struct task_struct *t)
{
	return BPF_CORE_READ(t, cgroups, dfl_cgrp);
}

/* gl_cg_id - the id of cgroup @cg (its kernfs node's: the inode), or 0 */
static __always_inline __u64 gl_cg_id(struct cgroup *cg)
{
	return cg ? BPF_CORE_READ(cg, kn, id) : 0;
}

/* gl_cg_task_id - the cgroup (v2) id of task @t; 0: none */
static __always_inline __u64 gl_cg_task_id(struct task_struct *t)
{
	return t ? gl_cg_id(gl_cg_of(t)) : 0;
}

/*
 * The id of @cg's ancestor at @level (<= its own), by layout: both are
 * flexible arrays indexed by level.  Apart and not inlined, so that the
 * compiler cannot compute both addresses before the test of which the
 * kernel has (the other's relocation is poisoned).
 */
static __noinline __u64 gl_cg_ancestor_pre61(struct cgroup *cg, __u32 level)
{
	struct cgroup___pre61 *o = (void *)cg;
	__u64 *ids, id = 0;

	ids = (__u64 *)__builtin_preserve_access_index(&o->ancestor_ids);
	bpf_probe_read_kernel(&id, sizeof(id),
			      ids + (level & (GL_BPF_CG_LEVELS - 1)));
	return id;
}

static __noinline __u64 gl_cg_ancestor_61(struct cgroup *cg, __u32 level)
{
	struct cgroup **anc, *a = NULL;

	anc = (struct cgroup **)__builtin_preserve_access_index(&cg->ancestors);
	bpf_probe_read_kernel(&a, sizeof(a),
			      anc + (level & (GL_BPF_CG_LEVELS - 1)));
	return gl_cg_id(a);
}

static __always_inline __u64 gl_cg_ancestor(struct cgroup *cg, __u32 level)
{
	struct cgroup___pre61 *o = (void *)cg;

	if (bpf_core_field_exists(o->ancestor_ids))
		return gl_cg_ancestor_pre61(cg, level);
	return gl_cg_ancestor_61(cg, level);
}

/*
 * gl_cg_watched - whether @cg is a watched cgroup or lies below one; a
 * level of GL_BPF_CG_LEVELS or more is never matched (nor set).  Not
 * inlined: one copy of the loop for every program.
 */
static __noinline bool gl_cg_watched(struct cgroup *cg)
{
	__u32 i, n = gl_conf.cg_nr, wl;
	int level;

	if (!cg)
		return false;
	level = BPF_CORE_READ(cg, level);
	for (i = 0; i < GPULAT_CG_WATCH_MAX; i++) {
		if (i >= n)
			break;
		wl = gl_conf.cg_watch[i].level;
		if (wl > (__u32)level || wl >= GL_BPF_CG_LEVELS)
			continue;
		if (gl_cg_ancestor(cg, wl) == gl_conf.cg_watch[i].id)
			return true;
	}
	return false;
}

/* gl_cg_key - the series of leaf cgroup @cg (@id), made and named if new */
static __always_inline struct gl_keyed_cg *gl_cg_key(struct cgroup *cg,
						     __u64 id,
						     struct gl_kmax_cg **m)
{
	struct gl_keyed_cg *v;
	const char *name;
	bool created;

	v = cg_key_get(id, &created, m);
	if (v && created) {
		name = BPF_CORE_READ(cg, kn, name);
		__builtin_memset(v->hdr.name, 0, sizeof(v->hdr.name));
		if (name)
			bpf_probe_read_kernel_str(v->hdr.name,
						  sizeof(v->hdr.name), name);
	}
	return v;
}

/* gl_cg_record - file @ns in series @series of key @v */
static __always_inline void gl_cg_record(struct gl_keyed_cg *v,
					 struct gl_kmax_cg *m, __u32 series,
					 __u64 ns)
{
	barrier_var(series);
	if (series < GL_CG_NR_SERIES)
		gl_ghist_record(&v->h[series], &m->max[series], ns);
}

/*
 * gl_cg_file - task @t waited @ns (@series): file it under its cgroup if
 * watched; the caller checked gl_conf.cg_nr
 */
static __always_inline void gl_cg_file(struct task_struct *t, __u32 series,
				       __u64 ns)
{
	struct cgroup *cg = gl_cg_of(t);
	struct gl_keyed_cg *v;
	struct gl_kmax_cg *m;

	if (!gl_cg_watched(cg))
		return;
	v = gl_cg_key(cg, gl_cg_id(cg), &m);
	if (v)
		gl_cg_record(v, m, series, ns);
}

#endif /* _GPULAT_BPF_CGROUP_H */
