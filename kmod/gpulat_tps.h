/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Every family's tracepoints, declared once, in attach order: each end
 * before the start that sets it, so that no interval that began before
 * the attach is timed.  The module's tables (kmod/probe_*.c, with
 * GPULAT_TP_ROW, gpulat.h), the BPF source's rows (user/lib/bpf_fam.c)
 * and both sources' hit counters expand these lists: a family's hit
 * counters follow its drop counters in this order in both.  Pure macros:
 * the kernel, the BPF objects and the tool compile it alike.
 *
 * GPULAT_TPS_<FAMILY>(T) calls T(fam, hit, tp, kprobe, prog, needs):
 *   fam     the family, upper case (GPULAT_FAM_<fam>)
 *   hit     its hit counter: <fam>_HIT_<hit> in the module,
 *           GL_HIT_<fam>_<hit> in the BPF programs
 *   tp      the tracepoint ("system:name" for a driver's own)
 *   kprobe  the module's probe; GPULAT_TP_MUX where the one probe of a
 *           shared tracepoint serves it (mux.c)
 *   prog    the BPF program (tp_btf; prog + "_raw" as raw_tp)
 *   needs   ALWAYS; MEMCG or COMPACTION, the kernel option without
 *           which the tracepoint is absent; DRIVER, the NVIDIA driver's
 *           own, which the module takes from the driver when it loads
 *           (probe_nvidia_xid.c) and the BPF source attaches when there.
 *           Only an ALWAYS one is required: the rest are missing, not
 *           failed, where absent.
 */
#ifndef _GPULAT_TPS_H
#define _GPULAT_TPS_H

#define GPULAT_TPS_SCHED(T)						\
	T(SCHED, SWITCH, "sched_switch", GPULAT_TP_MUX, gl_switch, ALWAYS) \
	T(SCHED, WAKEUP, "sched_wakeup", GPULAT_TP_MUX, gl_sched_wakeup,	\
	  ALWAYS)							\
	T(SCHED, WAKEUP_NEW, "sched_wakeup_new", sched_probe_wakeup_new,	\
	  gl_sched_wakeup_new, ALWAYS)

#define GPULAT_TPS_BLOCK(T)						\
	T(BLOCK, COMPLETE, "block_rq_complete", block_probe_complete,	\
	  gl_block_complete, ALWAYS)					\
	T(BLOCK, MERGE, "block_rq_merge", block_probe_merge,		\
	  gl_block_merge, ALWAYS)					\
	T(BLOCK, REQUEUE, "block_rq_requeue", block_probe_requeue,	\
	  gl_block_requeue, ALWAYS)					\
	T(BLOCK, ISSUE, "block_rq_issue", block_probe_issue,		\
	  gl_block_issue, ALWAYS)					\
	T(BLOCK, INSERT, "block_rq_insert", block_probe_insert,		\
	  gl_block_insert, ALWAYS)

#define GPULAT_TPS_NET(T)						\
	T(NET, XMIT, "net_dev_xmit", net_probe_xmit, gl_net_xmit, ALWAYS) \
	T(NET, START_XMIT, "net_dev_start_xmit", net_probe_start_xmit,	\
	  gl_net_start_xmit, ALWAYS)					\
	T(NET, QUEUE, "net_dev_queue", net_probe_queue, gl_net_queue,	\
	  ALWAYS)							\
	T(NET, RECEIVE, "netif_receive_skb", net_probe_receive,		\
	  gl_net_receive, ALWAYS)					\
	T(NET, RX, "netif_rx", net_probe_rx, gl_net_rx, ALWAYS)

#define GPULAT_TPS_IRQ(T)						\
	T(IRQ, EXIT, "irq_handler_exit", GPULAT_TP_MUX, gl_irq_exit,	\
	  ALWAYS)							\
	T(IRQ, ENTRY, "irq_handler_entry", GPULAT_TP_MUX, gl_irq_entry,	\
	  ALWAYS)

/* exit, entry, raise: each before the one that starts its interval */
#define GPULAT_TPS_SOFTIRQ(T)						\
	T(SOFTIRQ, EXIT, "softirq_exit", softirq_probe_exit,		\
	  gl_softirq_exit, ALWAYS)					\
	T(SOFTIRQ, ENTRY, "softirq_entry", softirq_probe_entry,		\
	  gl_softirq_entry, ALWAYS)					\
	T(SOFTIRQ, RAISE, "softirq_raise", softirq_probe_raise,		\
	  gl_softirq_raise, ALWAYS)

#define GPULAT_TPS_MM(T)						\
	T(MM, RECLAIM_END, "mm_vmscan_direct_reclaim_end",		\
	  mm_probe_reclaim_end, gl_mm_reclaim_end, ALWAYS)		\
	T(MM, RECLAIM_BEGIN, "mm_vmscan_direct_reclaim_begin",		\
	  mm_probe_reclaim_begin, gl_mm_reclaim_begin, ALWAYS)		\
	T(MM, MEMCG_END, "mm_vmscan_memcg_reclaim_end",			\
	  mm_probe_memcg_end, gl_mm_memcg_end, MEMCG)			\
	T(MM, MEMCG_BEGIN, "mm_vmscan_memcg_reclaim_begin",		\
	  mm_probe_memcg_begin, gl_mm_memcg_begin, MEMCG)		\
	T(MM, COMPACTION_END, "mm_compaction_end",			\
	  mm_probe_compaction_end, gl_mm_compaction_end, COMPACTION)	\
	T(MM, COMPACTION_BEGIN, "mm_compaction_begin",			\
	  mm_probe_compaction_begin, gl_mm_compaction_begin, COMPACTION)

/* the process lifetime events name the driver's threads (probe_nvidia.c) */
#define GPULAT_TPS_NVIDIA(T)						\
	T(NVIDIA, PEXIT, "sched_process_exit", gpulat_nv_probe_exit,	\
	  gl_nv_exit, ALWAYS)						\
	T(NVIDIA, FORK, "sched_process_fork", gpulat_nv_probe_fork,	\
	  gl_nv_fork, ALWAYS)						\
	T(NVIDIA, RENAME, "task_rename", gpulat_nv_probe_rename,	\
	  gl_nv_rename, ALWAYS)						\
	T(NVIDIA, SWITCH, "sched_switch", GPULAT_TP_MUX, gl_nv_switch,	\
	  ALWAYS)							\
	T(NVIDIA, WAKEUP, "sched_wakeup", GPULAT_TP_MUX, gl_nv_wakeup,	\
	  ALWAYS)							\
	T(NVIDIA, IRQ_EXIT, "irq_handler_exit", GPULAT_TP_MUX,		\
	  gl_nv_irq_exit, ALWAYS)					\
	T(NVIDIA, IRQ_ENTRY, "irq_handler_entry", GPULAT_TP_MUX,	\
	  gl_nv_irq_entry, ALWAYS)					\
	T(NVIDIA, XID, "nvidia:nvidia_dev_xid", NULL, gl_nv_xid, DRIVER)

/*
 * The job's waits: its calls' entries and returns are uprobes on the
 * library GPULAT_IOC_CUDA names, not tracepoints.  sched_waking, not
 * sched_wakeup: only it runs in the waker's context (a wakeup of a task
 * on another CPU may be traced there, from an IPI).
 */
#define GPULAT_TPS_CUDA(T)						\
	T(CUDA, PEXIT, "sched_process_exit", cuda_probe_exit,		\
	  gl_cuda_exit, ALWAYS)						\
	T(CUDA, SWITCH, "sched_switch", GPULAT_TP_MUX, gl_cuda_switch,	\
	  ALWAYS)							\
	T(CUDA, WAKING, "sched_waking", cuda_probe_waking,		\
	  gl_cuda_waking, ALWAYS)

/*
 * Every family's, in families.h's order, as both sources list their
 * probes (the cgroup family hooks none of its own)
 */
#define GPULAT_TPS_ALL(T)						\
	GPULAT_TPS_SCHED(T)						\
	GPULAT_TPS_BLOCK(T)						\
	GPULAT_TPS_NET(T)						\
	GPULAT_TPS_IRQ(T)						\
	GPULAT_TPS_SOFTIRQ(T)						\
	GPULAT_TPS_NVIDIA(T)						\
	GPULAT_TPS_MM(T)						\
	GPULAT_TPS_CUDA(T)

#endif /* _GPULAT_TPS_H */
