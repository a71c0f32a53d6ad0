/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroup family's hooks in the sched, block and mm probes.  While no
 * cgroup is watched (or the family is off) gpulat_cg_live is NULL and a
 * hook costs one load and a branch; otherwise the slow path in
 * probe_cgroup.c tests the subject's cgroup against the watched ones (at
 * most GPULAT_CG_WATCH_MAX descendant tests) and files into its key.
 */
#ifndef _GPULAT_KMOD_PROBE_CGROUP_H
#define _GPULAT_KMOD_PROBE_CGROUP_H

#include <linux/compiler.h>
#include <linux/sched.h>
#include <linux/types.h>

struct gpulat_cg_watch;
/* the watch set the probes use: NULL while none or the family is off */
extern struct gpulat_cg_watch __rcu *gpulat_cg_live;

#define GPULAT_CG_NO_KEY	U32_MAX

void gpulat_cg_file_task(struct task_struct *t, unsigned int series, u64 ns);
u32 gpulat_cg_key_current(void);
void gpulat_cg_file_key(u32 key_idx, unsigned int series, u64 ns);

static __always_inline bool gpulat_cg_watching(void)
{
	return unlikely(!!READ_ONCE(gpulat_cg_live));
}

/* gpulat_cg_task - @t waited @ns: file it if its cgroup is watched */
static __always_inline void gpulat_cg_task(struct task_struct *t,
					   unsigned int series, u64 ns)
{
	if (gpulat_cg_watching())
		gpulat_cg_file_task(t, series, ns);
}

/* gpulat_cg_key - a key index gpulat_cg_key_current() gave, or none */
static __always_inline void gpulat_cg_key(u32 key_idx, unsigned int series,
					  u64 ns)
{
	if (key_idx != GPULAT_CG_NO_KEY && gpulat_cg_watching())
		gpulat_cg_file_key(key_idx, series, ns);
}

#endif /* _GPULAT_KMOD_PROBE_CGROUP_H */
