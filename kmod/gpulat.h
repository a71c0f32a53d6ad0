/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat internals: the per-CPU histogram, and the registry through which a
 * probe family declares its tracepoints, series and drop counters.
 */
#ifndef _GPULAT_KMOD_H
#define _GPULAT_KMOD_H

#include <linux/percpu.h>
#include <linux/types.h>

#include "gpulat_hist.h"
#include "gpulat_series.h"
#include "gpulat_tps.h"

/*
 * One histogram on one CPU.  Only the owning CPU writes it, with this_cpu
 * operations; readers on other CPUs see each u64 whole.
 */
struct gpulat_hist {
	u64 count;
	u64 sum_ns;
	u64 max_ns;
	u64 slots[GPULAT_HIST_NR_BUCKETS];
};

/*
 * gpulat_hist_record - file one sample on this CPU
 *
 * The slot is bumped before count (ordered for other CPUs by smp_wmb(), a
 * compiler barrier on x86) so that a reader that loads count first never
 * sees count ahead of the slots.  The max update is not atomic
 * against a probe nesting on the same CPU; the families call this with
 * interrupts off, where nothing nests.
 */
static __always_inline void gpulat_hist_record(struct gpulat_hist __percpu *h,
					       u64 ns)
{
	this_cpu_inc(h->slots[gpulat_hist_slot(ns)]);
	this_cpu_add(h->sum_ns, ns);
	if (ns > this_cpu_read(h->max_ns))
		this_cpu_write(h->max_ns, ns);
	smp_wmb();	/* slot before count; pairs with the snapshot's rmb */
	this_cpu_inc(h->count);
}

/*
 * The same in 48-bit slots, each a u32 low part and a u16 high part (6
 * bytes instead of 8): 1,384 bytes instead of 1,832, for a family with
 * many per-CPU series.  A slot counts to 2^48 (a million samples a second
 * in one slot of one CPU for 8.9 years).  count, sum_ns and max_ns lead
 * both layouts, so gpulat_fam_hist() serves them for either.
 *
 * lo counts 0 .. U32_MAX - 1; at the next sample it reads U32_MAX while hi
 * goes up by one, then 0: the slot is hi * U32_MAX + lo, and a reader
 * that sees U32_MAX or lo going back reads again.
 */
struct gpulat_phist {
	u64 count;
	u64 sum_ns;
	u64 max_ns;
	u32 lo[GPULAT_HIST_NR_BUCKETS];
	u16 hi[GPULAT_HIST_NR_BUCKETS];
};

/* gpulat_phist_record - as gpulat_hist_record(), same rules */
static __always_inline void gpulat_phist_record(struct gpulat_phist __percpu *h,
						u64 ns)
{
	u32 s = gpulat_hist_slot(ns), lo = this_cpu_read(h->lo[s]);

	if (likely(lo < U32_MAX - 1)) {
		this_cpu_write(h->lo[s], lo + 1);
	} else {
		this_cpu_write(h->lo[s], U32_MAX);
		smp_wmb();	/* readers see the carry under way */
		this_cpu_inc(h->hi[s]);
		smp_wmb();	/* hi up before lo restarts */
		this_cpu_write(h->lo[s], 0);
	}
	this_cpu_add(h->sum_ns, ns);
	if (ns > this_cpu_read(h->max_ns))
		this_cpu_write(h->max_ns, ns);
	smp_wmb();	/* slot before count; pairs with the snapshot's rmb */
	this_cpu_inc(h->count);
}

/*
 * A tracepoint a family hooks, found by name at attach time.  probe is
 * the family's own, or GPULAT_TP_MUX for one that families share, whose
 * probe in mux.c does the family's work.
 */
struct gpulat_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;		/* NULL until found */
	u32 state;			/* enum gpulat_probe_state */
	u32 error;			/* positive errno when FAILED */
	unsigned int hit_idx;		/* index into the family's counters */
};

/*
 * A histogram series of a family: one gpulat_hist per CPU, or, in a
 * family's keyed set, one shared gpulat_ghist per key.  A per-CPU series
 * may carry a fixed key (a softirq vector).
 */
struct gpulat_series_desc {
	u32 id;
	const char *name;		/* "sched.wakeup" */
	const char *what;		/* "sched_wakeup -> switch-in", for debugfs */
	u64 key;
	const char *key_name;		/* NULL: none */
};

/* A row of a GPULAT_DECL_<FAMILY>() list (gpulat_series.h). */
#define GPULAT_SERIES_DESC(fam, id_, name_, what_, key, rule, metric)	\
	{ .id = (id_), .name = (name_), .what = (what_),		\
	  GPULAT_SERIES_DESC_KEY key },
#define GPULAT_SERIES_DESC_KEY(kind, key_, key_name_)			\
	.key = (key_), .key_name = (key_name_)

struct gpulat_keyed;
struct gpulat_base;

/*
 * A probe family.  Everything a family's probes write lives in one per-CPU
 * block of pcpu_size bytes: histograms at hist_offset (nr_series of them,
 * in series order) and u64 counters at counter_offset.  Counters 0 ..
 * nr_drops-1 are drop counters (names in drop_names); the probe hit
 * counters follow at the indexes named in each gpulat_tp.
 */
struct gpulat_family {
	u32 id;				/* enum gpulat_family_id */
	const char *name;
	struct gpulat_tp *tps;
	unsigned int nr_tps;
	const struct gpulat_series_desc *series;
	unsigned int nr_series;
	const char * const *drop_names;
	unsigned int nr_drops;
	size_t pcpu_size;
	size_t hist_offset;		/* GPULAT_HISTS_APART: see hists */
	size_t counter_offset;
	/*
	 * With hist_offset == GPULAT_HISTS_APART each per-CPU series gets an
	 * allocation of its own, for families whose histograms would pass
	 * the percpu allocator's 32 KiB cap in one block.
	 */
	struct gpulat_hist __percpu **hists;
	bool packed;			/* hists are struct gpulat_phist */
	struct gpulat_keyed *keyed;	/* NULL: no keyed series */
	struct gpulat_base *base;	/* the data at the last reset, or NULL */
	/*
	 * at load, before anything is allocated: refuse a module parameter
	 * of the family's that sizes a table this machine cannot hold
	 * (sized.h; keyed series are checked by the registry); may be NULL
	 */
	int (*check)(struct gpulat_family *fam);
	int (*init)(struct gpulat_family *fam, void __percpu *pcpu);
	void (*exit)(struct gpulat_family *fam);
	/*
	 * forget start stamps before the probes attach again, so that no
	 * interval spans a time the family was off; may be NULL
	 */
	void (*clear)(struct gpulat_family *fam);
	/* after the probes attached: find what was there before; may be NULL */
	void (*started)(struct gpulat_family *fam);
	/* after the probes detached (switch off, unload); may be NULL */
	void (*stopped)(struct gpulat_family *fam);
	/* copy up to @max timeline events, oldest first; may be NULL */
	unsigned int (*events)(struct gpulat_family *fam,
			       struct gpulat_event *out, unsigned int max);
	size_t extra_bytes;		/* memory beyond the per-CPU block */
	/* no probes of its own: other families' probes file its samples */
	bool no_probes;
	bool enabled;			/* module parameter: on at load */
	bool attached;			/* probes on; under gpulat_lock */
	void __percpu *pcpu;		/* NULL until first switched on */
};

/*
 * A probe whose prototype drifted from the running kernel's tracepoint must
 * fail to build: the kernel's own register_trace_<tp>() checks the type,
 * inside sizeof so that nothing references the unexported tracepoint.
 */
#define GPULAT_CHECK_PROBE(tp, fn) ((void)sizeof(register_trace_##tp(fn, NULL)))

#define GPULAT_TP_MUX		NULL

/*
 * gpulat_tps.h in the module: GPULAT_TP_ROW, a family's table row of a
 * tracepoint this kernel has; GPULAT_TP_HIT, its hit counter's enum
 * constant, <fam>_HIT_<hit>, after the family's drop counters.  A DRIVER
 * tracepoint is neither: its probe is the driver's (probe_nvidia_xid.c).
 */
#define GPULAT_TP_ROW(fam, hit, tp, kprobe, prog, needs)		\
	GPULAT_TP_IF_##needs({ .name = (tp), .probe = (kprobe),	\
			       .hit_idx = fam##_HIT_##hit })
#define GPULAT_TP_HIT(fam, hit, tp, kprobe, prog, needs)		\
	GPULAT_TP_HIT_##needs(fam##_HIT_##hit)

#define GPULAT_TP_IF_ALWAYS(...)	__VA_ARGS__,
#if IS_ENABLED(CONFIG_MEMCG)
#define GPULAT_TP_IF_MEMCG(...)	__VA_ARGS__,
#else
#define GPULAT_TP_IF_MEMCG(...)
#endif
#if IS_ENABLED(CONFIG_COMPACTION)
#define GPULAT_TP_IF_COMPACTION(...)	__VA_ARGS__,
#else
#define GPULAT_TP_IF_COMPACTION(...)
#endif
#define GPULAT_TP_IF_DRIVER(...)
/* a counter for every tracepoint the kernel may have: the ABI's layout */
#define GPULAT_TP_HIT_ALWAYS(hit)	hit,
#define GPULAT_TP_HIT_MEMCG(hit)	hit,
#define GPULAT_TP_HIT_COMPACTION(hit)	hit,
#define GPULAT_TP_HIT_DRIVER(hit)

#define GPULAT_HISTS_APART	((size_t)-1)

static inline struct gpulat_hist *gpulat_fam_hist(struct gpulat_family *fam,
						  int cpu, unsigned int idx)
{
	struct gpulat_hist *h;

	if (fam->hists)
		return per_cpu_ptr(fam->hists[idx], cpu);
	h = per_cpu_ptr(fam->pcpu, cpu) + fam->hist_offset;
	return h + idx;
}

/* gpulat_phist_slot - slot @s of a packed histogram, from any CPU */
static inline u64 gpulat_phist_slot(const struct gpulat_phist *p,
				    unsigned int s)
{
	unsigned int tries = 0;
	u32 lo, lo2;
	u16 hi;

	do {
		lo = READ_ONCE(p->lo[s]);
		smp_rmb();	/* pairs with gpulat_phist_record() */
		hi = READ_ONCE(p->hi[s]);
		smp_rmb();	/* lo again: it did not wrap meanwhile */
		lo2 = READ_ONCE(p->lo[s]);
		if (lo != U32_MAX && lo2 != U32_MAX && lo2 >= lo)
			break;
		cpu_relax();
	} while (++tries < 1000);	/* a writer preempted mid-carry (RT) */
	return (u64)hi * U32_MAX + (lo2 == U32_MAX ? 0 : lo2);
}

/*
 * gpulat_fam_slots - add the slots of series @idx on @cpu to @out (or
 * store them, with @add false), from any CPU; the histogram is looked up
 * once, not per slot (snapshots read every slot of every CPU)
 */
static inline void gpulat_fam_slots(struct gpulat_family *fam, int cpu,
				    unsigned int idx, u64 *out, bool add)
{
	const struct gpulat_hist *h = gpulat_fam_hist(fam, cpu, idx);
	const struct gpulat_phist *p = (const void *)h;
	bool carried;
	unsigned int s;
	u64 v;

	/*
	 * No slot of a packed histogram holds more than its count (bar the
	 * few samples being filed): below 2^31 none can have carried, nor
	 * carry while we read, and the low words are the whole story.
	 */
	carried = fam->packed && READ_ONCE(p->count) >= (1ULL << 31);
	for (s = 0; s < GPULAT_HIST_NR_BUCKETS; s++) {
		if (!fam->packed)
			v = READ_ONCE(h->slots[s]);
		else if (!carried)
			v = READ_ONCE(p->lo[s]);
		else
			v = gpulat_phist_slot(p, s);
		out[s] = add ? out[s] + v : v;
	}
}

/* gpulat_fam_hist_bytes - one CPU's histogram of a series kept apart */
static inline size_t gpulat_fam_hist_bytes(const struct gpulat_family *fam)
{
	return fam->packed ? sizeof(struct gpulat_phist) :
			     sizeof(struct gpulat_hist);
}

static inline u64 *gpulat_fam_counters(struct gpulat_family *fam, int cpu)
{
	return per_cpu_ptr(fam->pcpu, cpu) + fam->counter_offset;
}

/*
 * gpulat_<name>_family, one per line of families.h, and the registry's
 * array of them (registry.c, indexed by id - 1), in one declaration
 */
#define GPULAT_FAMILY(name, id, threshold_us, keeps, tool)	gpulat_##name##_family,
extern struct gpulat_family
#include "families.h"
	*gpulat_families[];
#undef GPULAT_FAMILY

/* registry.c */
extern unsigned int gpulat_nr_families;
/*
 * The module's locks, outer to inner; no path takes them in another order
 * (Documentation/robustness.rst tells what each guards and why):
 *
 *   gpulat_lock (mutex, registry.c)      snapshot, reset, family switches,
 *                                        debugfs family files, the cgroup
 *                                        watch set; inside it
 *                                        tracepoints_mutex, the jump label
 *                                        lock, RCU, nv_set_lock
 *   gpulat_trace_lock (mutex, trace.c)   trace readers, thresholds; never
 *                                        held with gpulat_lock
 *   gpulat_reader.lock (mutex,           one open file's reads; with no
 *     trace_read.c)                      other gpulat lock held
 *   nv_xid_lock (mutex,                  the driver's Xid tracepoint, inside
 *     probe_nvidia_xid.c)                tracepoint_module_list_mutex;
 *                                        takes tracepoints_mutex
 *   nv_set_lock (raw spinlock,           the nvidia thread set; innermost
 *     probe_nvidia_set.c)
 *   fault_lock (spinlock, fault.c)       test build only; innermost
 *
 * A function whose comment says it runs under a lock asserts it
 * (lockdep_assert_held()).  The probes take no lock but nv_set_lock.
 */
extern struct mutex gpulat_lock;
extern u64 gpulat_reset_time_ns;
extern u32 gpulat_generation;

int gpulat_registry_check(void);
int gpulat_registry_init(void);
void gpulat_registry_exit(void);
struct gpulat_family *gpulat_family_by_id(u32 id);
int gpulat_family_switch(struct gpulat_family *fam, bool on);
u64 gpulat_counter_sum(struct gpulat_family *fam, unsigned int idx);
u64 gpulat_fam_count(struct gpulat_family *fam, int cpu, unsigned int idx);
void gpulat_fam_read(struct gpulat_family *fam, int cpu, unsigned int idx,
		     struct gpulat_hist *out);
void gpulat_hist_sum(struct gpulat_family *fam, unsigned int idx,
		     const struct cpumask *cpus, struct gpulat_hist *out,
		     struct gpulat_hist *scratch);
void gpulat_base_free(struct gpulat_family *fam);
int gpulat_reset_all(void);

/* snapshot.c */
long gpulat_snapshot_to_user(void __user *buf, u64 buf_size, u64 *needed);

/* probe_cgroup.c */
struct gpulat_cgroup_req;
struct dentry;
long gpulat_cgroup_ioctl(struct gpulat_cgroup_req *r);
void gpulat_cgroup_exit(void);
long gpulat_cuda_ioctl(struct gpulat_cuda_req *r);
void gpulat_cgroup_debugfs(struct dentry *dir);

/* debugfs.c */
void gpulat_debugfs_init(void);
void gpulat_debugfs_exit(void);

#endif /* _GPULAT_KMOD_H */
