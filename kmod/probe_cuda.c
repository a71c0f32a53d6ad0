// SPDX-License-Identifier: GPL-2.0
/*
 * cuda family: a GPU job's waits in the CUDA driver library's
 * synchronising calls (gpulat_cuda.h), per process, split where they
 * happen.  The tool hands the library and its functions' file offsets
 * over (GPULAT_IOC_CUDA); the family places an entry and a return uprobe
 * at each, on the library's inode: one placement covers every process
 * that maps it, containers included.
 *
 *   cuda.call       entry -> return (the outermost call of a thread)
 *   A call the driver woke (its hard IRQ, irq/N-nvidia or a kthread,
 *   gpulat_nv_waker_irq()), at its last such sched_waking W, behind the
 *   hard IRQ whose handler entered at I:
 *   cuda.gpu        entry -> I, less the preemption before I
 *   cuda.driver     I -> W
 *   cuda.runq       W -> the first switch-in S after it (preempted on its
 *                   way to sleep or not: the wait for a CPU after W)
 *   cuda.return     S -> return, less the preemption after S
 *   Any other call (spinning, or woken by another task):
 *   cuda.oncpu      its time on CPU
 *   cuda.other      the rest, less preemption: asleep or waiting to run
 *   Both:
 *   cuda.preempted  switched out runnable -> switch-in, summed
 *
 * The parts of a call add up to its cuda.call.  Without the nvidia family
 * on, no wakeup is the driver's.  The state lives in probe_cuda.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <trace/events/sched.h>

#include "fault.h"
#include "gpulat.h"
#include "gpulat_drops.h"
#include "probe_cuda.h"
#include "trace.h"
#include "compat/uprobe.h"

struct gpulat_cuda_pcpu __percpu *gpulat_cuda_pc;
u64 *gpulat_cuda_tids;
struct gpulat_cuda_call *gpulat_cuda_calls;
atomic_t gpulat_cuda_inflight;

/* the uprobe handlers time calls while this is set (the family is on) */
static bool cuda_on;

static const struct gpulat_series_desc cuda_keyed_series[] = {
	GPULAT_DECL_CUDA(GPULAT_SERIES_DESC)
};

static struct gpulat_keyed cuda_keyed = {
	.series		= cuda_keyed_series,
	.nr_series	= ARRAY_SIZE(cuda_keyed_series),
	.max_keys	= 256,
	.param		= "cuda_max_keys",
};

module_param_named(cuda_max_keys, cuda_keyed.max_keys, uint, 0444);
MODULE_PARM_DESC(cuda_max_keys,
		 "processes with GPU wait series (default 256, 14.3 KiB each, at most 65535)");

/* The library's probes; under gpulat_lock. */
static struct {
	struct gpulat_uprobe up[GPULAT_CUDA_FN_MAX];
	bool placed[GPULAT_CUDA_FN_MAX];
	struct inode *inode;
	unsigned int nr;
} cuda_lib;

static void cuda_count(unsigned int c)
{
	this_cpu_inc(gpulat_cuda_pc->counters[c]);
}

static void cuda_fill(struct gpulat_key *k, const void *arg)
{
	const struct task_struct *t = arg;

	scnprintf(k->name, sizeof(k->name), "%s", t->group_leader->comm);
}

/* cuda_claim - a free slot for @pid, or -1 */
static int cuda_claim(pid_t pid)
{
	u64 *b = &gpulat_cuda_tids[hash_32((u32)pid, CUDA_BUCKET_BITS) *
				   CUDA_WAYS];
	unsigned int i;

	for (i = 0; i < CUDA_WAYS; i++)
		if (!READ_ONCE(b[i]) && !cmpxchg(&b[i], 0, (u32)pid))
			return b - gpulat_cuda_tids + i;
	return -1;
}

static void cuda_release(int i)
{
	WRITE_ONCE(gpulat_cuda_tids[i], 0);
	atomic_dec(&gpulat_cuda_inflight);
}

static int cuda_entry(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct gpulat_cuda_call *c;
	int i, idx;
	u64 now;

	if (!READ_ONCE(cuda_on))
		return 0;
	/* no switch of this thread while its stamps change */
	preempt_disable();
	i = cuda_find(current->pid);
	if (i >= 0) {
		gpulat_cuda_calls[i].depth++;
		cuda_count(GPULAT_CUDA_NESTED);
		goto out;
	}
	i = cuda_claim(current->pid);
	if (i < 0) {
		cuda_count(GPULAT_CUDA_NO_SLOT);
		goto out;
	}
	idx = gpulat_key_get(&cuda_keyed, current->tgid, cuda_fill, current);
	now = ktime_get_mono_fast_ns();
	c = &gpulat_cuda_calls[i];
	*c = (struct gpulat_cuda_call) {
		.entry = now, .on = now, .depth = 1,
		.idx = idx < 0 ? NV_NOKEY : idx,
	};
	atomic_inc(&gpulat_cuda_inflight);
out:
	preempt_enable();
	return 0;
}

static void cuda_file(u32 idx, unsigned int series, s64 ns)
{
	gpulat_ghist_record(gpulat_key_hist(&cuda_keyed, idx, series), ns);
}

/*
 * cuda_file_all - file a call's @parts (the driver's wakeup ended it, or
 * not: @woken; @in the switch-in that ended its run queue wait).  When
 * the host's share is over the family's threshold, trace each part that
 * is not 0, the call first, each at its end event.  The run queue wait
 * was on the CPU of its switch-in: if the thread is still there, who
 * held it then is named.  Who held the CPU of the IRQ thread is the
 * nvidia family's record of that wakeup.
 */
static void cuda_file_all(const struct gpulat_cuda_call *c, const s64 *parts,
			  bool woken, u64 in, u64 now)
{
	static const u8 woken_ids[] = {
		GPULAT_CUDA_CALL, GPULAT_CUDA_GPU, GPULAT_CUDA_DRIVER,
		GPULAT_CUDA_RUNQ, GPULAT_CUDA_PREEMPTED, GPULAT_CUDA_RETURN,
	};
	static const u8 other_ids[] = {
		GPULAT_CUDA_CALL, GPULAT_CUDA_ONCPU, GPULAT_CUDA_PREEMPTED,
		GPULAT_CUDA_OTHER,
	};
	const u8 *ids = woken ? woken_ids : other_ids;
	unsigned int i, n = woken ? ARRAY_SIZE(woken_ids) :
				    ARRAY_SIZE(other_ids);
	u64 key = cuda_keyed.keys[c->idx].key, host;

	for (i = 0; i < n; i++)
		cuda_file(c->idx, ids[i], parts[ids[i]]);
	host = woken ? parts[GPULAT_CUDA_DRIVER] + parts[GPULAT_CUDA_RUNQ] +
		       parts[GPULAT_CUDA_PREEMPTED] + parts[GPULAT_CUDA_RETURN] :
		       parts[GPULAT_CUDA_PREEMPTED];
	if (!gpulat_trace_over(GPULAT_FAM_CUDA, host))
		return;
	for (i = 0; i < n; i++) {
		unsigned int id = ids[i], flags = 0;
		u64 end = now;

		if (!parts[id])
			continue;
		/* each record at its part's end event */
		if (id == GPULAT_CUDA_GPU)
			end = c->irq;
		else if (id == GPULAT_CUDA_DRIVER)
			end = c->wake;
		else if (id == GPULAT_CUDA_RUNQ)
			end = in;
		if (id == GPULAT_CUDA_RUNQ && c->in_cpu == smp_processor_id())
			flags = GPULAT_OUT_CPU_WAIT;
		gpulat_trace_sample(GPULAT_FAM_CUDA, id, key, end, parts[id],
				    current, 0, flags);
	}
}

/* cuda_split - file call @c, returning at @now */
static void cuda_split(const struct gpulat_cuda_call *c, u64 now)
{
	u64 wake = READ_ONCE(c->wake), irq = c->irq, in = c->in;
	s64 call = now - c->entry, pre = c->pre, oncpu, before, after;
	s64 parts[CUDA_NR_SERIES] = { 0 };

	if (c->idx == NV_NOKEY) {
		cuda_count(GPULAT_CUDA_KEYS_FULL);
		return;
	}
	oncpu = c->oncpu + now - c->on;
	/* the driver's wakeup, with its interrupt inside the call */
	if (wake && irq >= c->entry && irq <= wake && wake <= now) {
		if (!in || in < wake)
			in = wake;	/* woken before it slept */
		before = c->pre_wake + c->pre_part;
		after = pre - c->pre_wake;
		if (call < 0 || in > now || after > (s64)(now - in) ||
		    before > irq - c->entry) {
			cuda_count(GPULAT_CUDA_NEGATIVE);
			return;
		}
		parts[GPULAT_CUDA_CALL] = call;
		parts[GPULAT_CUDA_GPU] = irq - c->entry - before;
		parts[GPULAT_CUDA_DRIVER] = wake - irq;
		parts[GPULAT_CUDA_RUNQ] = in - wake;
		parts[GPULAT_CUDA_PREEMPTED] = before + after;
		parts[GPULAT_CUDA_RETURN] = now - in - after;
		cuda_file_all(c, parts, true, in, now);
		return;
	}
	if (call < 0 || oncpu < 0 || oncpu + pre > call) {
		cuda_count(GPULAT_CUDA_NEGATIVE);
		return;
	}
	parts[GPULAT_CUDA_CALL] = call;
	parts[GPULAT_CUDA_ONCPU] = oncpu;
	parts[GPULAT_CUDA_PREEMPTED] = pre;
	parts[GPULAT_CUDA_OTHER] = call - oncpu - pre;
	cuda_file_all(c, parts, false, 0, now);
}

static int cuda_return(struct uprobe_consumer *uc, unsigned long func,
		       struct pt_regs *regs)
{
	struct gpulat_cuda_call *c;
	int i;

	preempt_disable();
	i = cuda_find(current->pid);
	if (i < 0) {
		/* an entry before the family was on: not timed */
		if (READ_ONCE(cuda_on))
			cuda_count(GPULAT_CUDA_NO_ENTRY);
		goto out;
	}
	c = &gpulat_cuda_calls[i];
	if (--c->depth)
		goto out;
	if (READ_ONCE(cuda_on))
		cuda_split(c, ktime_get_mono_fast_ns());
	cuda_release(i);
out:
	preempt_enable();
	return 0;
}

/*
 * sched_waking of @p, in the waker's context: the driver's wakeup of a
 * thread inside a call marks where the GPU's part ends.  The waker holds
 * @p's pi_lock, and @p sleeps or is about to: its stamps are ours.
 */
static void cuda_probe_waking(void *data, struct task_struct *p)
{
	struct gpulat_cuda_call *c;
	u64 irq;
	int i;

	cuda_count(CUDA_HIT_WAKING);
	if (likely(!atomic_read(&gpulat_cuda_inflight)) || !p->pid)
		return;
	i = cuda_find(p->pid);
	if (i < 0)
		return;
	irq = gpulat_nv_waker_irq();
	if (!irq)
		return;
	c = &gpulat_cuda_calls[i];
	c->irq = irq;
	c->pre_wake = c->pre;
	/* preempted on its way to sleep, before the interrupt: not the GPU's */
	c->pre_part = c->off && c->off < irq ? irq - c->off : 0;
	c->in = 0;
	WRITE_ONCE(c->wake, ktime_get_mono_fast_ns());
}

/* sched_process_exit: a thread that dies inside a call frees its slot */
static void cuda_probe_exit(void *data, struct task_struct *p)
{
	int i;

	cuda_count(CUDA_HIT_PEXIT);
	if (likely(!atomic_read(&gpulat_cuda_inflight)))
		return;
	i = cuda_find(p->pid);
	if (i < 0)
		return;
	cuda_count(GPULAT_CUDA_EXITED);
	cuda_release(i);
}

/* --- The library's probes (gpulat_lock held) --------------------------- */

static void cuda_detach(void)
{
	unsigned int i;

	for (i = 0; i < GPULAT_CUDA_FN_MAX; i++)
		if (cuda_lib.placed[i])
			gpulat_uprobe_unregister(&cuda_lib.up[i]);
	/* no handler of ours runs after this */
	gpulat_uprobe_sync();
	for (i = 0; i < GPULAT_CUDA_FN_MAX; i++)
		cuda_lib.placed[i] = false;
	if (cuda_lib.inode)
		iput(cuda_lib.inode);
	cuda_lib.inode = NULL;
	cuda_lib.nr = 0;
}

static int cuda_attach(int fd, const u64 *offset)
{
	struct inode *inode;
	struct file *f;
	unsigned int i;
	int ret = 0;

	f = fget(fd);
	if (!f)
		return -EBADF;
	inode = igrab(file_inode(f));
	fput(f);
	if (!inode)
		return -ENOENT;
	if (!S_ISREG(inode->i_mode)) {
		iput(inode);
		return -EINVAL;
	}
	for (i = 0; i < GPULAT_CUDA_FN_MAX; i++)
		if (offset[i] >= i_size_read(inode)) {
			if (offset[i]) {
				iput(inode);
				return -EINVAL;
			}
		}
	cuda_lib.inode = inode;
	for (i = 0; i < GPULAT_CUDA_FN_MAX && !ret; i++) {
		struct gpulat_uprobe *u = &cuda_lib.up[i];

		if (!offset[i])
			continue;
		*u = (struct gpulat_uprobe) {
			.inode = inode, .offset = offset[i],
			.uc = { .handler = cuda_entry,
				.ret_handler = cuda_return },
		};
		ret = GL_CALL(-ENOMEM, gpulat_uprobe_register(u));
		if (!ret) {
			cuda_lib.placed[i] = true;
			cuda_lib.nr++;
		}
	}
	if (ret)
		cuda_detach();
	return ret;
}

/* gpulat_cuda_ioctl - GPULAT_IOC_CUDA, its argument already copied in */
long gpulat_cuda_ioctl(struct gpulat_cuda_req *r)
{
	unsigned int i;
	long ret = 0;

	if (r->flags & ~GPULAT_CUDA_SET)
		return -EINVAL;
	if ((r->flags & GPULAT_CUDA_SET) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&gpulat_lock);
	if (!gpulat_cuda_family.pcpu) {
		ret = -ENOENT;
		goto out;
	}
	if (r->flags & GPULAT_CUDA_SET) {
		cuda_detach();
		if (r->fd >= 0)
			ret = cuda_attach(r->fd, r->offset);
		if (ret)
			goto out;
	}
	r->nr = cuda_lib.nr;
	r->ino = cuda_lib.inode ? cuda_lib.inode->i_ino : 0;
	r->dev = cuda_lib.inode ? new_encode_dev(cuda_lib.inode->i_sb->s_dev) : 0;
	for (i = 0; i < GPULAT_CUDA_FN_MAX; i++)
		r->offset[i] = cuda_lib.placed[i] ? cuda_lib.up[i].offset : 0;
out:
	mutex_unlock(&gpulat_lock);
	return ret;
}

/* --- Family ------------------------------------------------------------ */

static int cuda_init(struct gpulat_family *fam, void __percpu *pcpu)
{
	GPULAT_CHECK_PROBE(sched_process_exit, cuda_probe_exit);
	GPULAT_CHECK_PROBE(sched_waking, cuda_probe_waking);

	gpulat_cuda_pc = pcpu;
	gpulat_cuda_tids = gl_kvcalloc(CUDA_SLOTS, sizeof(u64));
	gpulat_cuda_calls = gl_kvcalloc(CUDA_SLOTS, sizeof(*gpulat_cuda_calls));
	if (!gpulat_cuda_tids || !gpulat_cuda_calls)
		return -ENOMEM;		/* cuda_exit() frees what was taken */
	fam->extra_bytes += CUDA_SLOTS * (sizeof(u64) +
					  sizeof(*gpulat_cuda_calls));
	return 0;
}

/*
 * cuda_exit - undo cuda_init(), whatever step it reached: at unload, when
 * no ioctl runs, or under gpulat_lock
 */
static void cuda_exit(struct gpulat_family *fam)
{
	cuda_detach();
	gl_kvfree(gpulat_cuda_tids);
	gl_kvfree(gpulat_cuda_calls);
	gpulat_cuda_tids = NULL;
	gpulat_cuda_calls = NULL;
}

/* cuda_clear - no call is in flight before the probes attach */
static void cuda_clear(struct gpulat_family *fam)
{
	memset(gpulat_cuda_tids, 0, CUDA_SLOTS * sizeof(u64));
	atomic_set(&gpulat_cuda_inflight, 0);
}

static void cuda_started(struct gpulat_family *fam)
{
	WRITE_ONCE(cuda_on, true);
}

static void cuda_stopped(struct gpulat_family *fam)
{
	WRITE_ONCE(cuda_on, false);
}

static struct gpulat_tp cuda_tps[] = {
	GPULAT_TPS_CUDA(GPULAT_TP_ROW)
};

static const char * const cuda_drop_names[] = GPULAT_CUDA_DROP_NAMES;

struct gpulat_family gpulat_cuda_family = {
	.id		= GPULAT_FAM_CUDA,
	.name		= "cuda",
	.tps		= cuda_tps,
	.nr_tps		= ARRAY_SIZE(cuda_tps),
	.drop_names	= cuda_drop_names,
	.nr_drops	= ARRAY_SIZE(cuda_drop_names),
	.pcpu_size	= sizeof(struct gpulat_cuda_pcpu),
	.hist_offset	= 0,
	.counter_offset	= offsetof(struct gpulat_cuda_pcpu, counters),
	.keyed		= &cuda_keyed,
	.init		= cuda_init,
	.exit		= cuda_exit,
	.clear		= cuda_clear,
	.started	= cuda_started,
	.stopped	= cuda_stopped,
	.enabled	= true,
};

module_param_named(cuda, gpulat_cuda_family.enabled, bool, 0444);
MODULE_PARM_DESC(cuda, "GPU job wait family, timing calls once GPULAT_IOC_CUDA names the library (default on)");
