// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup family: the waits of the tasks of watched cgroups, as keyed
 * series, one key per leaf cgroup (v2) that holds such a task.
 *
 *   cgroup.wakeup         as sched.wakeup, of the task switched in
 *   cgroup.preempt        as sched.preempt, of the task switched in
 *   cgroup.block          block request: its first event (insert, or issue
 *                         without insert) -> block_rq_complete; the cgroup
 *                         of the task that ran the first event
 *   cgroup.memcg_reclaim  as mm.memcg_reclaim, of the reclaiming task
 *
 * The family has no probes of its own: the sched, block and mm probes
 * file its samples (probe_cgroup.h).  The key is the cgroup id of the
 * task's cgroup when the sample ends (for block, at the first event),
 * counted when that cgroup is a watched one or below one.
 *
 * The watch set (GPULAT_IOC_CGROUP) holds a reference on each watched
 * cgroup; it is replaced under gpulat_lock and published with RCU, and
 * an old set is put only after every probe that could see it has left
 * (the probes run with preemption off, inside RCU read sections).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "fault.h"
#include "gpulat.h"
#include "gpulat_drops.h"
#include "keyed.h"
#include "probe_cgroup.h"
#include "compat/cgroup.h"

struct gpulat_cg_watch {
	unsigned int nr;
	struct cgroup *cg[GPULAT_CG_WATCH_MAX];
};

struct cg_pcpu {
	u64 counters[GPULAT_CG_KEYS_FULL + 1];
};

struct gpulat_cg_watch __rcu *gpulat_cg_live;
/* the set GPULAT_IOC_CGROUP made; under gpulat_lock */
static struct gpulat_cg_watch *cg_set;
static struct cg_pcpu __percpu *cg_pc;

static const struct gpulat_series_desc cg_series[] = {
	GPULAT_DECL_CGROUP(GPULAT_SERIES_DESC)
};

static struct gpulat_keyed cg_keyed = {
	.series		= cg_series,
	.nr_series	= ARRAY_SIZE(cg_series),
	.max_keys	= 64,
	.param		= "cgroup_max_keys",
};

/*
 * cg_key_fill - name a key after its cgroup directory, at first sight.
 * A rename may free the name under us (no lock can be taken here): it is
 * read a byte at a time without faulting, at worst torn.
 */
static void cg_key_fill(struct gpulat_key *k, const void *arg)
{
	const struct cgroup *cg = arg;
	const char *name = READ_ONCE(cg->kn->name);
	unsigned int i;

	for (i = 0; i < sizeof(k->name) - 1; i++) {
		if (copy_from_kernel_nofault(&k->name[i], name + i, 1) ||
		    !k->name[i])
			break;
	}
	k->name[i] = '\0';
}

/* cg_key_of - @cg's key if it lies in @w, else GPULAT_CG_NO_KEY */
static u32 cg_key_of(struct gpulat_cg_watch *w, struct cgroup *cg)
{
	unsigned int i;
	int idx;

	for (i = 0; i < w->nr; i++)
		if (cgroup_is_descendant(cg, w->cg[i]))
			break;
	if (i == w->nr)
		return GPULAT_CG_NO_KEY;
	idx = gpulat_key_get(&cg_keyed, cgroup_id(cg), cg_key_fill, cg);
	if (unlikely(idx < 0)) {
		this_cpu_inc(cg_pc->counters[GPULAT_CG_KEYS_FULL]);
		return GPULAT_CG_NO_KEY;
	}
	return idx;
}

/* gpulat_cg_file_task - the slow path of gpulat_cg_task() */
void gpulat_cg_file_task(struct task_struct *t, unsigned int series, u64 ns)
{
	struct gpulat_cg_watch *w;
	u32 idx;

	rcu_read_lock();
	w = rcu_dereference(gpulat_cg_live);
	if (w) {
		idx = cg_key_of(w, task_dfl_cgroup(t));
		if (idx != GPULAT_CG_NO_KEY)
			gpulat_ghist_record(gpulat_key_hist(&cg_keyed, idx,
							    series), ns);
	}
	rcu_read_unlock();
}

/* gpulat_cg_key_current - current's key if watched (a request's start) */
u32 gpulat_cg_key_current(void)
{
	struct gpulat_cg_watch *w;
	u32 idx = GPULAT_CG_NO_KEY;

	rcu_read_lock();
	w = rcu_dereference(gpulat_cg_live);
	if (w)
		idx = cg_key_of(w, task_dfl_cgroup(current));
	rcu_read_unlock();
	return idx;
}

void gpulat_cg_file_key(u32 key_idx, unsigned int series, u64 ns)
{
	if (key_idx < cg_keyed.max_keys)
		gpulat_ghist_record(gpulat_key_hist(&cg_keyed, key_idx, series),
				    ns);
}

/* cg_publish - what the probes see: the set while the family is on */
static void cg_publish(bool on)
{
	lockdep_assert_held(&gpulat_lock);
	rcu_assign_pointer(gpulat_cg_live,
			   on && cg_set && cg_set->nr ? cg_set : NULL);
}

static void cg_watch_put(struct gpulat_cg_watch *w)
{
	unsigned int i;

	if (!w)
		return;
	for (i = 0; i < w->nr; i++)
		cgroup_put(w->cg[i]);
	gl_kfree(w);
}

static int cg_init(struct gpulat_family *fam, void __percpu *pcpu)
{
	/* sched_end() passes its series to gpulat_cg_task() as they are */
	BUILD_BUG_ON((int)GPULAT_CG_WAKEUP != (int)GPULAT_SCHED_WAKEUP ||
		     (int)GPULAT_CG_PREEMPT != (int)GPULAT_SCHED_PREEMPT);
	cg_pc = pcpu;
	return 0;
}

static void cg_started(struct gpulat_family *fam)
{
	cg_publish(true);
}

static void cg_stopped(struct gpulat_family *fam)
{
	cg_publish(false);
	/* no probe files into the family once this returns */
	synchronize_rcu();
}

/*
 * gpulat_cgroup_exit - drop the watched cgroups; at unload (or a failed
 * load), once nothing can issue the ioctl and no probe runs
 */
void gpulat_cgroup_exit(void)
{
	RCU_INIT_POINTER(gpulat_cg_live, NULL);
	cg_watch_put(cg_set);
	cg_set = NULL;
}

/* cg_watch_make - a set from @fd[0..nr), each referenced; NULL for none */
static struct gpulat_cg_watch *cg_watch_make(const s32 *fd, unsigned int nr)
{
	struct gpulat_cg_watch *w;
	struct cgroup *cg;
	unsigned int i;

	if (!nr)
		return NULL;
	w = gl_kzalloc(sizeof(*w));
	if (!w)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < nr; i++) {
		/* -EBADF for a bad fd, a file not a cgroup, a v1 cgroup */
		cg = GL_CALL(ERR_PTR(-ENOMEM), cgroup_get_from_fd(fd[i]));
		if (IS_ERR(cg)) {
			cg_watch_put(w);
			return ERR_CAST(cg);
		}
		w->cg[w->nr++] = cg;
	}
	return w;
}

/* gpulat_cgroup_ioctl - GPULAT_IOC_CGROUP, its argument already copied in */
long gpulat_cgroup_ioctl(struct gpulat_cgroup_req *r)
{
	struct gpulat_cg_watch *w = NULL, *old;
	unsigned int i;

	if ((r->flags & ~GPULAT_CGROUP_SET) || r->pad)
		return -EINVAL;
	if (r->flags & GPULAT_CGROUP_SET) {
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		if (r->nr > GPULAT_CG_WATCH_MAX)
			return -E2BIG;
		w = cg_watch_make(r->fd, r->nr);
		if (IS_ERR(w))
			return PTR_ERR(w);
	}
	mutex_lock(&gpulat_lock);
	old = NULL;
	if (r->flags & GPULAT_CGROUP_SET) {
		old = cg_set;
		cg_set = w;
		cg_publish(gpulat_cgroup_family.attached);
	}
	memset(r->id, 0, sizeof(r->id));
	r->nr = cg_set ? cg_set->nr : 0;
	for (i = 0; i < r->nr; i++)
		r->id[i] = cgroup_id(cg_set->cg[i]);
	mutex_unlock(&gpulat_lock);
	if (old) {
		/* every probe that may hold the old set has left */
		synchronize_rcu();
		cg_watch_put(old);
	}
	return 0;
}

/* debugfs "cgroups": the watch set, ids and paths */
static int cg_show(struct seq_file *m, void *unused)
{
	char *buf = kmalloc(PATH_MAX, GFP_KERNEL);
	unsigned int i;

	mutex_lock(&gpulat_lock);
	seq_printf(m, "watched cgroups %u (at most %u), family %s\n",
		   cg_set ? cg_set->nr : 0, GPULAT_CG_WATCH_MAX,
		   gpulat_cgroup_family.attached ? "on" : "off");
	for (i = 0; cg_set && i < cg_set->nr; i++) {
		struct cgroup *cg = cg_set->cg[i];

		if (buf && cgroup_path(cg, buf, PATH_MAX) < 0)
			buf[0] = '\0';
		seq_printf(m, "  %llu %s\n", cgroup_id(cg), buf ? buf : "?");
	}
	mutex_unlock(&gpulat_lock);
	kfree(buf);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cg);

void gpulat_cgroup_debugfs(struct dentry *dir)
{
	debugfs_create_file("cgroups", 0400, dir, NULL, &cg_fops);
}

static const char * const cg_drop_names[] = GPULAT_CG_DROP_NAMES;

struct gpulat_family gpulat_cgroup_family = {
	.id		= GPULAT_FAM_CGROUP,
	.name		= "cgroup",
	.no_probes	= true,
	.drop_names	= cg_drop_names,
	.nr_drops	= ARRAY_SIZE(cg_drop_names),
	.pcpu_size	= sizeof(struct cg_pcpu),
	.counter_offset	= offsetof(struct cg_pcpu, counters),
	.keyed		= &cg_keyed,
	.init		= cg_init,
	.started	= cg_started,
	.stopped	= cg_stopped,
	.enabled	= true,
};

module_param_named(cgroup, gpulat_cgroup_family.enabled, bool, 0444);
MODULE_PARM_DESC(cgroup, "per-cgroup latency family, for the cgroups GPULAT_IOC_CGROUP watches (default on)");
module_param_named(cgroup_max_keys, cg_keyed.max_keys, uint, 0444);
MODULE_PARM_DESC(cgroup_max_keys,
		 "cgroups with their own series (default 64, at most 65535; more count as keys_full)");
