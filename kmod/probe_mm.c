// SPDX-License-Identifier: GPL-2.0
/*
 * mm family: memory stalls per CPU, as four series.
 *
 *   mm.direct_reclaim  mm_vmscan_direct_reclaim_begin -> _end
 *   mm.compaction      mm_compaction_begin -> _end, for an allocation
 *   mm.compaction_bg   mm_compaction_begin -> _end, kcompactd or on request
 *   mm.memcg_reclaim   mm_vmscan_memcg_reclaim_begin -> _end: a task
 *                      charging a memory cgroup over memory.high or
 *                      memory.max reclaims from it (also counted in the
 *                      cgroup family, for a watched task)
 *
 * A sample belongs to the CPU where the stall ended.  Begin and end run in
 * the same task, which may sleep and migrate in between, so the start
 * stamp is kept per task: in one table of 2^bits pid entries, each with one
 * u64 per kind (reclaim, compaction, memcg reclaim), indexed by the low pid bits, in the
 * layout of stamp.h; the flag bit: compaction not on behalf of an
 * allocation.
 *
 * Direct compaction is the allocator's: __alloc_pages_direct_compact()
 * sets PF_MEMALLOC around it, and the allocator never compacts or reclaims
 * for a task that already has PF_MEMALLOC.  kcompactd, proactive
 * compaction and vm.compact_memory run compact_zone() without it.  So the
 * flag at mm_compaction_begin tells a stall from background work.
 *
 * Neither kind nests in itself or in the other (the PF_MEMALLOC recursion
 * guard again); a kind per entry keeps each correct if one ever did.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include <linux/timekeeping.h>

#include "fault.h"
#include "gpulat.h"
#include "gpulat_defaults.h"
#include "gpulat_drops.h"
#include "probe_cgroup.h"
#include "sized.h"
#include "stamp.h"
#include "trace.h"
/* before the event headers: it declares the structs their prototypes name */
#include "compat/mm.h"

#include <trace/events/vmscan.h>
#if IS_ENABLED(CONFIG_COMPACTION)
#include <trace/events/compaction.h>
#endif

#define STAMP_BG		GPULAT_PST_FLAG

/* The two stamps of one pid entry. */
enum {
	MM_KIND_RECLAIM,
	MM_KIND_COMPACTION,
	MM_KIND_MEMCG,
	MM_NR_KINDS,
};

enum {
	MM_HITS_AFTER = GPULAT_MM_EVICTED,	/* the last drop counter */
	GPULAT_TPS_MM(GPULAT_TP_HIT)
	MM_NR_COUNTERS,
};

struct mm_pcpu {
	struct gpulat_hist hist[4];	/* enum gpulat_mm_series */
	u64 counters[MM_NR_COUNTERS];
};

/* more pid entries than pids would never be used */
#define MM_SLOTS_MAX		(1ULL << GPULAT_PID_BITS)

static unsigned int mm_slots;
module_param(mm_slots, uint, 0444);
MODULE_PARM_DESC(mm_slots,
		 "pid entries of the stall stamp table (0: "
		 __stringify(GPULAT_MM_SLOTS_PER_CPU)
		 " per possible CPU; at most 4194304)");

static struct mm_pcpu __percpu *mm_pc;
static u64 *mm_stamps;
static u32 mm_bits;

static __always_inline u64 *mm_slot(pid_t pid, unsigned int kind)
{
	u32 p = (u32)pid & ((1U << mm_bits) - 1);

	return &mm_stamps[p * MM_NR_KINDS + kind];
}

static __always_inline u64 mm_tag(pid_t pid)
{
	return gpulat_pst_tag(pid, mm_bits);
}

static __always_inline bool mm_owns(u64 entry, pid_t pid)
{
	return gpulat_pst_owns(entry, pid, mm_bits);
}

/*
 * mm_start - current begins a stall of @kind at @now
 *
 * The exchange is atomic against another pid sharing the entry on another
 * CPU, so every stamp it replaces is seen here and counted.
 */
static __always_inline void mm_start(unsigned int kind, u64 flags, u64 now)
{
	pid_t pid = current->pid;
	u64 old;

	old = xchg(mm_slot(pid, kind),
		   gpulat_stamp(now, GPULAT_PST_TS_SHIFT, flags | mm_tag(pid)));
	if (unlikely(old && !mm_owns(old, pid)))
		this_cpu_inc(mm_pc->counters[GPULAT_MM_EVICTED]);
}

/*
 * mm_end - current's stall of @kind ended at @now: file it
 *
 * The entry is cleared only if it still holds the stamp read, so a stamp
 * another pid wrote meanwhile survives.
 */
static __always_inline void mm_end(unsigned int kind, u64 now)
{
	pid_t pid = current->pid;
	u64 *slot = mm_slot(pid, kind), old = READ_ONCE(*slot);
	unsigned int series;
	s64 delta;

	if (!mm_owns(old, pid)) {
		this_cpu_inc(mm_pc->counters[GPULAT_MM_NO_START]);
		return;
	}
	cmpxchg(slot, old, 0);
	/* signed 50-bit difference: a stamp from the future is negative */
	delta = gpulat_pst_delta(old, now);
	if (unlikely(delta < 0)) {
		this_cpu_inc(mm_pc->counters[GPULAT_MM_NEGATIVE]);
		return;
	}
	if (kind == MM_KIND_RECLAIM)
		series = GPULAT_MM_DIRECT_RECLAIM;
	else if (kind == MM_KIND_MEMCG)
		series = GPULAT_MM_MEMCG_RECLAIM;
	else if (old & STAMP_BG)
		series = GPULAT_MM_COMPACTION_BG;
	else
		series = GPULAT_MM_COMPACTION;
	/*
	 * The probes run in task context with preemption off, and no mm
	 * event fires in interrupt context: nothing nests into the record.
	 */
	gpulat_hist_record(&mm_pc->hist[series], delta);
	if (kind == MM_KIND_MEMCG)
		gpulat_cg_task(current, GPULAT_CG_MEMCG, delta);
	gpulat_trace_check(GPULAT_FAM_MM, series, 0, now, delta, current, 0);
}

static void mm_probe_reclaim_begin(GPULAT_MM_RECLAIM_BEGIN_ARGS)
{
	u64 now = ktime_get_mono_fast_ns();

	this_cpu_inc(mm_pc->counters[MM_HIT_RECLAIM_BEGIN]);
	mm_start(MM_KIND_RECLAIM, 0, now);
}

/*
 * mm_end_now - mm_end() at the current time, with interrupts off: no
 * record from an interrupt comes between, the trace stays in time order
 */
static void mm_end_now(unsigned int kind)
{
	unsigned long flags;

	local_irq_save(flags);
	mm_end(kind, ktime_get_mono_fast_ns());
	local_irq_restore(flags);
}

static void mm_probe_reclaim_end(GPULAT_MM_RECLAIM_END_ARGS)
{
	this_cpu_inc(mm_pc->counters[MM_HIT_RECLAIM_END]);
	mm_end_now(MM_KIND_RECLAIM);
}

#if IS_ENABLED(CONFIG_MEMCG)
/* memcg reclaim shares its class, and so its prototype, with direct's */
static void mm_probe_memcg_begin(GPULAT_MM_RECLAIM_BEGIN_ARGS)
{
	u64 now = ktime_get_mono_fast_ns();

	this_cpu_inc(mm_pc->counters[MM_HIT_MEMCG_BEGIN]);
	mm_start(MM_KIND_MEMCG, 0, now);
}

static void mm_probe_memcg_end(GPULAT_MM_RECLAIM_END_ARGS)
{
	this_cpu_inc(mm_pc->counters[MM_HIT_MEMCG_END]);
	mm_end_now(MM_KIND_MEMCG);
}
#endif

#if IS_ENABLED(CONFIG_COMPACTION)
static void mm_probe_compaction_begin(GPULAT_MM_COMPACTION_BEGIN_ARGS)
{
	u64 now = ktime_get_mono_fast_ns();

	this_cpu_inc(mm_pc->counters[MM_HIT_COMPACTION_BEGIN]);
	mm_start(MM_KIND_COMPACTION,
		 (current->flags & PF_MEMALLOC) ? 0 : STAMP_BG, now);
}

static void mm_probe_compaction_end(GPULAT_MM_COMPACTION_END_ARGS)
{
	this_cpu_inc(mm_pc->counters[MM_HIT_COMPACTION_END]);
	mm_end_now(MM_KIND_COMPACTION);
}
#endif

/*
 * mm_entries - pid entries for mm_slots: 0 is 128 per possible CPU (up to
 * the bound), at least 2^GPULAT_PST_MIN_BITS, rounded up to a power of
 * two; over the bound only as mm_check() reports it
 */
static u64 mm_entries(void)
{
	u64 n = mm_slots;

	if (!n)
		n = min((u64)GPULAT_MM_SLOTS_PER_CPU * num_possible_cpus(),
			MM_SLOTS_MAX);
	return gpulat_sized_pow2(max(n, 1ULL << GPULAT_PST_MIN_BITS));
}

static void mm_sized(struct gpulat_sized *s)
{
	s->param = "mm_slots";
	s->value = mm_slots;
	s->max = MM_SLOTS_MAX;
	s->bytes = mm_entries() * MM_NR_KINDS * sizeof(u64);
}

static int mm_check(struct gpulat_family *fam)
{
	struct gpulat_sized s;

	mm_sized(&s);
	return gpulat_sized_check(&s);
}

static int mm_init(struct gpulat_family *fam, void __percpu *pcpu)
{
	/* mm_check() refused more at load */
	u64 n = min(mm_entries(), MM_SLOTS_MAX);

	GPULAT_CHECK_PROBE(mm_vmscan_direct_reclaim_begin,
			   mm_probe_reclaim_begin);
	GPULAT_CHECK_PROBE(mm_vmscan_direct_reclaim_end, mm_probe_reclaim_end);
#if IS_ENABLED(CONFIG_MEMCG)
	GPULAT_CHECK_PROBE(mm_vmscan_memcg_reclaim_begin, mm_probe_memcg_begin);
	GPULAT_CHECK_PROBE(mm_vmscan_memcg_reclaim_end, mm_probe_memcg_end);
#endif
#if IS_ENABLED(CONFIG_COMPACTION)
	GPULAT_CHECK_PROBE(mm_compaction_begin, mm_probe_compaction_begin);
	GPULAT_CHECK_PROBE(mm_compaction_end, mm_probe_compaction_end);
#endif

	mm_stamps = gl_kvcalloc_sized(n * MM_NR_KINDS, sizeof(u64));
	if (!mm_stamps) {
		struct gpulat_sized s;

		mm_sized(&s);
		gpulat_sized_nomem(&s);
		return -ENOMEM;
	}
	mm_bits = ilog2(n);
	mm_pc = pcpu;
	fam->extra_bytes = n * MM_NR_KINDS * sizeof(u64);
	return 0;
}

/* mm_clear - forget every stamp before the probes attach again */
static void mm_clear(struct gpulat_family *fam)
{
	memset(mm_stamps, 0, (sizeof(u64) * MM_NR_KINDS) << mm_bits);
}

static void mm_exit(struct gpulat_family *fam)
{
	gl_kvfree(mm_stamps);
	mm_stamps = NULL;
}

/*
 * Ends are attached before begins: every stamp a begin writes then meets
 * its end, and no stall that began before the attach leaves a stamp.
 */
static struct gpulat_tp mm_tps[] = {
	GPULAT_TPS_MM(GPULAT_TP_ROW)
};

static const struct gpulat_series_desc mm_series[] = {
	GPULAT_DECL_MM(GPULAT_SERIES_DESC)
};

static const char * const mm_drop_names[] = GPULAT_MM_DROP_NAMES;

struct gpulat_family gpulat_mm_family = {
	.id		= GPULAT_FAM_MM,
	.name		= "mm",
	.tps		= mm_tps,
	.nr_tps		= ARRAY_SIZE(mm_tps),
	.series		= mm_series,
	.nr_series	= ARRAY_SIZE(mm_series),
	.drop_names	= mm_drop_names,
	.nr_drops	= ARRAY_SIZE(mm_drop_names),
	.pcpu_size	= sizeof(struct mm_pcpu),
	.hist_offset	= offsetof(struct mm_pcpu, hist),
	.counter_offset	= offsetof(struct mm_pcpu, counters),
	.check		= mm_check,
	.init		= mm_init,
	.exit		= mm_exit,
	.clear		= mm_clear,
	.enabled	= true,
};

module_param_named(mm, gpulat_mm_family.enabled, bool, 0444);
MODULE_PARM_DESC(mm, "memory stall family: direct and memcg reclaim, compaction (default on)");
