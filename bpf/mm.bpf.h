/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mm family in BPF: memory stalls per CPU (the CPU where the stall
 * ended), as the module measures them (kmod/probe_mm.c):
 *
 *   mm.direct_reclaim  mm_vmscan_direct_reclaim_begin -> _end
 *   mm.compaction      mm_compaction_begin -> _end, for an allocation
 *   mm.compaction_bg   mm_compaction_begin -> _end, kcompactd or on request
 *   mm.memcg_reclaim   mm_vmscan_memcg_reclaim_begin -> _end: a task
 *                      charging a memory cgroup over its memory.high or
 *                      memory.max (or its v1 limit), and in cgroup.memcg
 *                      under the task's cgroup (v2) when watched
 *
 * Begin and end run in the same task, which may sleep and migrate in
 * between: start stamps per task, in one table indexed by the low pid
 * bits with one entry per kind (reclaim, compaction), in the module's
 * layout (GPULAT_PST_*, gpulat_stamp.h; the flag: compaction not for an
 * allocation, reclaim of a memory cgroup: it never nests in direct
 * reclaim, nor this in it).  Direct compaction runs with PF_MEMALLOC set
 * (__alloc_pages_direct_compact()),
 * kcompactd, proactive compaction and vm.compact_memory without it.
 *
 * No argument is read: the prototypes differ (compaction: the scanner
 * positions on 5.10, the compact_control on 6.1 and later; reclaim: a
 * memcg argument in later kernels, kmod/compat/mm.h), what they mark
 * does not, and GL_TP's programs take none.
 * Tracepoints (GL_BPF_HIT()): 0 mm_vmscan_direct_reclaim_end,
 * 1 mm_vmscan_direct_reclaim_begin, 2 mm_compaction_end,
 * 3 mm_compaction_begin (none without CONFIG_COMPACTION),
 * 4 mm_vmscan_memcg_reclaim_end, 5 mm_vmscan_memcg_reclaim_begin (none
 * without CONFIG_MEMCG).
 */
#ifndef _GPULAT_BPF_MM_H
#define _GPULAT_BPF_MM_H

#include "cgroup.bpf.h"
#include "tp.bpf.h"
#include "trace.bpf.h"

#define GL_MM_RECLAIM		0	/* the two entries of a pid */
#define GL_MM_COMPACTION	1
#define GL_PF_MEMALLOC		0x00000800	/* include/linux/sched.h */

/* a stamp per kind for each of 2^gl_pst_bits[mm] pids, sized at load */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2U << GPULAT_PST_MIN_BITS);
	__type(key, __u32);
	__type(value, __u64);
} gl_mm_st SEC(".maps");

static __always_inline __u64 *gl_mm_slot(__u32 pid, __u32 kind)
{
	__u32 i = (pid & ((1U << gl_pst_bits[GPULAT_FAM_MM]) - 1)) << 1 | kind;

	return bpf_map_lookup_elem(&gl_mm_st, &i);
}

/*
 * gl_mm_start - @t (pid @pid) begins a stall of @kind at @now.  The
 * module swaps the stamp in atomically; BPF has no exchange before 5.12:
 * read, then write (a pid sharing the entry on another CPU at that very
 * moment may go uncounted in mm.evicted).
 */
static __always_inline void gl_mm_start(__u32 pid, __u32 kind, __u64 flags,
					__u64 now)
{
	__u64 *slot = gl_mm_slot(pid, kind), old;

	if (!slot)
		return;
	old = *slot;
	*slot = gl_stamp(now, flags | gl_pst_tag(pid, gl_pst_bits[GPULAT_FAM_MM]));
	if (old && !gl_pst_owns(old, pid, gl_pst_bits[GPULAT_FAM_MM]))
		gl_count(GPULAT_FAM_MM, GPULAT_MM_EVICTED);
}

/* gl_mm_end - @t (pid @pid) ends its stall of @kind at @now: file it */
static __always_inline void gl_mm_end(struct task_struct *t, __u32 pid,
				      __u32 kind, __u64 now)
{
	__u64 *slot = gl_mm_slot(pid, kind), old;
	__u32 series;
	__s64 delta;

	if (!slot)
		return;
	old = *slot;
	if (!gl_pst_owns(old, pid, gl_pst_bits[GPULAT_FAM_MM])) {
		gl_count(GPULAT_FAM_MM, GPULAT_MM_NO_START);
		return;
	}
	/* cleared only if still this stamp, as the module's cmpxchg */
	if (*slot == old)
		*slot = 0;
	delta = gl_pst_delta(old, now);
	if (delta < 0) {
		gl_count(GPULAT_FAM_MM, GPULAT_MM_NEGATIVE);
		return;
	}
	if (kind == GL_MM_RECLAIM)
		series = old & GL_PST_FLAG ? GPULAT_MM_MEMCG_RECLAIM :
			 GPULAT_MM_DIRECT_RECLAIM;
	else if (old & GL_PST_FLAG)
		series = GPULAT_MM_COMPACTION_BG;
	else
		series = GPULAT_MM_COMPACTION;
	gl_pcpu_record(GL_BPF_PCPU_MM + series, delta);
	if (series == GPULAT_MM_MEMCG_RECLAIM && gl_conf.cg_nr)
		gl_cg_file(t, GPULAT_CG_MEMCG, delta);
	gl_trace_check(GPULAT_FAM_MM, series, 0, now, delta, t, 0);
}

static __always_inline struct task_struct *gl_mm_current(__u32 *pid)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();

	*pid = (__u32)bpf_get_current_pid_tgid();
	return t;
}

GL_TP(mm_vmscan_direct_reclaim_begin, gl_mm_reclaim_begin)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 pid;

	gl_hit(GPULAT_FAM_MM, GL_HIT_MM_RECLAIM_BEGIN);
	gl_mm_current(&pid);
	gl_mm_start(pid, GL_MM_RECLAIM, 0, now);
	return 0;
}

GL_TP(mm_vmscan_direct_reclaim_end, gl_mm_reclaim_end)
{
	struct task_struct *t;
	__u32 pid;

	gl_hit(GPULAT_FAM_MM, GL_HIT_MM_RECLAIM_END);
	t = gl_mm_current(&pid);
	gl_mm_end(t, pid, GL_MM_RECLAIM, bpf_ktime_get_ns());
	return 0;
}

GL_TP(mm_compaction_begin, gl_mm_compaction_begin)
{
	__u64 now = bpf_ktime_get_ns();
	struct task_struct *t;
	__u32 pid;

	gl_hit(GPULAT_FAM_MM, GL_HIT_MM_COMPACTION_BEGIN);
	t = gl_mm_current(&pid);
	gl_mm_start(pid, GL_MM_COMPACTION,
		    BPF_CORE_READ(t, flags) & GL_PF_MEMALLOC ? 0 : GL_PST_FLAG,
		    now);
	return 0;
}

GL_TP(mm_compaction_end, gl_mm_compaction_end)
{
	struct task_struct *t;
	__u32 pid;

	gl_hit(GPULAT_FAM_MM, GL_HIT_MM_COMPACTION_END);
	t = gl_mm_current(&pid);
	gl_mm_end(t, pid, GL_MM_COMPACTION, bpf_ktime_get_ns());
	return 0;
}

GL_TP(mm_vmscan_memcg_reclaim_begin, gl_mm_memcg_begin)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 pid;

	gl_hit(GPULAT_FAM_MM, GL_HIT_MM_MEMCG_BEGIN);
	gl_mm_current(&pid);
	gl_mm_start(pid, GL_MM_RECLAIM, GL_PST_FLAG, now);
	return 0;
}

GL_TP(mm_vmscan_memcg_reclaim_end, gl_mm_memcg_end)
{
	struct task_struct *t;
	__u32 pid;

	gl_hit(GPULAT_FAM_MM, GL_HIT_MM_MEMCG_END);
	t = gl_mm_current(&pid);
	gl_mm_end(t, pid, GL_MM_RECLAIM, bpf_ktime_get_ns());
	return 0;
}

#endif /* _GPULAT_BPF_MM_H */
