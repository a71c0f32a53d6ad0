/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched family in BPF: run-queue latency per CPU, as the module measures
 * it (kmod/probe_sched.h):
 *
 *   sched.wakeup   sched_wakeup / sched_wakeup_new -> sched_switch (next)
 *   sched.preempt  sched_switch (prev, still runnable) -> sched_switch (next)
 *
 * Start stamps in one array indexed by the low pid bits, in the module's
 * layout; two pids that share an entry count as sched.evicted, and the
 * victim's switch-in as sched.no_start, as there.  Tracepoints (hit
 * counters, GL_BPF_HIT()): 0 sched_switch, 1 sched_wakeup,
 * 2 sched_wakeup_new.
 */
#ifndef _GPULAT_BPF_SCHED_H
#define _GPULAT_BPF_SCHED_H

#include "cgroup.bpf.h"
#include "tp.bpf.h"
#include "trace.bpf.h"

/* 2^gl_pst_bits[sched] stamps, sized at load (bpf_fam.c) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1U << GPULAT_PST_MIN_BITS);
	__type(key, __u32);
	__type(value, __u64);
} gl_sched_st SEC(".maps");

static __always_inline __u64 *gl_sched_slot(__u32 pid)
{
	__u32 i = pid & ((1U << gl_pst_bits[GPULAT_FAM_SCHED]) - 1);

	return bpf_map_lookup_elem(&gl_sched_st, &i);
}

/* sched_start - stamp @pid as runnable since @now (see the module's) */
static __always_inline void gl_sched_start(__u32 pid, __u64 kind, __u64 now,
					   bool keep)
{
	__u64 *slot = gl_sched_slot(pid), old;

	if (!slot)
		return;
	old = *slot;
	if (gl_pst_owns(old, pid, gl_pst_bits[GPULAT_FAM_SCHED])) {
		if (keep && (old & GL_PST_FLAG))
			return;
	} else if (old) {
		gl_count(GPULAT_FAM_SCHED, GPULAT_SCHED_EVICTED);
	}
	*slot = gl_stamp(now, kind | gl_pst_tag(pid, gl_pst_bits[GPULAT_FAM_SCHED]));
}

/* sched_end - @p (pid @pid) runs at @now: file its wait */
static __always_inline void gl_sched_end(struct task_struct *p, __u32 pid,
					 __u64 now)
{
	__u64 *slot = gl_sched_slot(pid), old;
	__u32 series;
	__s64 delta;

	if (!slot)
		return;
	old = *slot;
	if (!gl_pst_owns(old, pid, gl_pst_bits[GPULAT_FAM_SCHED])) {
		gl_count(GPULAT_FAM_SCHED, GPULAT_SCHED_NO_START);
		return;
	}
	*slot = 0;
	delta = gl_pst_delta(old, now);
	if (delta < 0) {
		gl_count(GPULAT_FAM_SCHED, GPULAT_SCHED_NEGATIVE);
		return;
	}
	series = old & GL_PST_FLAG ? GPULAT_SCHED_PREEMPT : GPULAT_SCHED_WAKEUP;
	gl_pcpu_record(GL_BPF_PCPU_SCHED + series, delta);
	/* cgroup.wakeup and .preempt have sched's ids */
	if (gl_conf.cg_nr)
		gl_cg_file(p, series, delta);
	gl_trace_check(GPULAT_FAM_SCHED, series, 0, now, delta, p,
		       GL_OUT_CPU_WAIT);
}

GL_TP(sched_wakeup, gl_sched_wakeup, struct task_struct *p)
{
	gl_hit(GPULAT_FAM_SCHED, GL_HIT_SCHED_WAKEUP);
	gl_sched_start(BPF_CORE_READ(p, pid), 0, bpf_ktime_get_ns(), true);
	return 0;
}

GL_TP(sched_wakeup_new, gl_sched_wakeup_new, struct task_struct *p)
{
	gl_hit(GPULAT_FAM_SCHED, GL_HIT_SCHED_WAKEUP_NEW);
	gl_sched_start(BPF_CORE_READ(p, pid), 0, bpf_ktime_get_ns(), true);
	return 0;
}

GL_TP(sched_switch, gl_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 prev_pid = BPF_CORE_READ(prev, pid);
	__u32 next_pid = BPF_CORE_READ(next, pid);
	__u64 now = bpf_ktime_get_ns();

	gl_hit(GPULAT_FAM_SCHED, GL_HIT_SCHED_SWITCH);
	/* pid 0 is the idle task: neither its start nor its end is a wait */
	if (prev_pid && (preempt || gl_task_state(prev) == 0))
		gl_sched_start(prev_pid, GL_PST_FLAG, now, false);
	if (next_pid)
		gl_sched_end(next, next_pid, now);
	/* after the check above: a wait's history ends before its end */
	if (gl_trace_on())
		gl_trace_switch(now, prev_pid, next_pid, next);
	return 0;
}

#endif /* _GPULAT_BPF_SCHED_H */
