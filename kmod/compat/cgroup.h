/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroup (v2) of a task, as the trace records and the cgroup family
 * name it.  What gpulat uses is the same on every supported kernel, so
 * there is no features-cgroup.mk:
 *
 *   task_dfl_cgroup()       the task's cgroup in the default (v2)
 *                           hierarchy; inline since 4.x
 *   cgroup_id()             the kernfs node id, which is the cgroup2
 *                           directory's inode number (5.5 on); inline
 *   cgroup_is_descendant()  inline; 5.10 compares ancestor_ids[level] with
 *                           the ancestor's id, 6.1 on (7f203bc89eb6)
 *                           compares ancestors[level] with the ancestor
 *                           itself: the same answer for a live cgroup,
 *                           which a watched one is (we hold a reference)
 *   cgroup_get_from_fd()    exported (GPL); refuses a cgroup not on the
 *                           default hierarchy (-EBADF), as 6.1's
 *                           cgroup_v1v2_get_from_fd() split left it
 *
 * On a host with v1 controllers beside a unified hierarchy (systemd's
 * hybrid), the v2 cgroup of a task is its systemd unit's cgroup under
 * the unified mount: that is the id gpulat reports.
 */
#ifndef _GPULAT_KMOD_COMPAT_CGROUP_H
#define _GPULAT_KMOD_COMPAT_CGROUP_H

#include <linux/cgroup.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

#ifdef CONFIG_CGROUPS
/* gpulat_task_cgroup_id - @t's cgroup v2 id; 0 when it has none */
static __always_inline u64 gpulat_task_cgroup_id(struct task_struct *t)
{
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(t));
	rcu_read_unlock();
	return id;
}
#else
static __always_inline u64 gpulat_task_cgroup_id(struct task_struct *t)
{
	return 0;
}
#endif

#endif /* _GPULAT_KMOD_COMPAT_CGROUP_H */
