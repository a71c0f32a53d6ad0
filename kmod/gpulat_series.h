/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Every histogram series of every family, declared once: the module's
 * series tables (kmod/probe_*.c), the tool's family table and so the BPF
 * source's series names (user/lib/family.c), the Prometheus metrics and
 * the tables of Documentation/ (scripts/gendoc.c, make gen) all expand
 * these lists.  Pure macros: the kernel, the BPF objects and the tool
 * compile it alike.
 *
 * GPULAT_DECL_<FAMILY>(S) calls, in series id order,
 *   S(fam, id, name, what, key, rule, metric)
 *     fam     the family, as families.h names it
 *     id      the series id (uapi/gpulat.h)
 *     name    "sched.wakeup": struct gpulat_series.name
 *     what    its start event -> its end event (debugfs, the docs)
 *     key     (kind, value, name): the key's kind (enum gl_key_kind
 *             without GL_KEY_), and a fixed key and its name, or 0, NULL
 *     rule    (layer, p99_us, weight, judged, driver): what a diagnosis
 *             judges it by (enum gl_layer without GL_LAYER_, expected
 *             p99 in us, weight in percent, 0 when not judged, and the
 *             prefix of a key name that counts for the driver layer)
 *     metric  (metric, labels): its Prometheus metric (GPULAT_METRICS)
 *             and the labels that tell it from the metric's others
 * A macro taking key, rule or metric expands it as NAME key, NAME a
 * function-like macro of the group's arity.
 *
 * GPULAT_METRICS(M) calls M(id, name, help, key_is_gpu) per metric.
 */
#ifndef _GPULAT_SERIES_H
#define _GPULAT_SERIES_H

#define GPULAT_METRICS(M)						\
	M(RUNQUEUE, "gpulat_runqueue_latency_seconds",			\
	  "Run-queue latency: wakeup (kind=wakeup) or preemption "	\
	  "(kind=preempt) to running on a CPU", 0)			\
	M(BLOCK, "gpulat_block_latency_seconds",			\
	  "Block I/O latency: insert to issue (stage=queue), "		\
	  "issue to completion (stage=device)", 0)			\
	M(NET, "gpulat_net_latency_seconds",				\
	  "Network latency: queued to the device to its "		\
	  "completion (stage=tx), enqueued to the backlog to "		\
	  "processed (stage=backlog)", 0)				\
	M(IRQ, "gpulat_irq_handler_seconds",				\
	  "Hard IRQ handler duration: irq_handler_entry to "		\
	  "irq_handler_exit", 0)					\
	M(SOFTIRQ, "gpulat_softirq_latency_seconds",			\
	  "Softirq latency: raised to running (stage=wait), entry "	\
	  "to exit (stage=run)", 0)					\
	M(NVIDIA_IRQ, "gpulat_nvidia_irq_latency_seconds",		\
	  "NVIDIA driver interrupts: hard handler duration "		\
	  "(path=hardirq), its irq/N-nvidia thread woken to "		\
	  "running (thread_wake) and its run (thread_run)", 1)		\
	M(NVIDIA_KTHREAD, "gpulat_nvidia_kthread_wake_latency_seconds",	\
	  "NVIDIA driver kernel threads: woken to running", 0)		\
	M(MM, "gpulat_mm_stall_seconds",				\
	  "Memory stalls: direct reclaim begin to end, compaction "	\
	  "begin to end (direct or background), reclaim of a "		\
	  "memory cgroup over memory.high or memory.max begin to "	\
	  "end", 0)							\
	M(CGROUP, "gpulat_cgroup_latency_seconds",			\
	  "Latency of the tasks of watched cgroups: run-queue "		\
	  "waits (kind=wakeup, preempt), block requests they "		\
	  "started from the first event to completion "			\
	  "(kind=block), memory cgroup reclaim "			\
	  "(kind=memcg_reclaim)", 0)					\
	M(CUDA, "gpulat_cuda_wait_seconds",				\
	  "A GPU job's synchronising CUDA calls, per process: entry "	\
	  "to return (part=call), split into GPU, driver, runq, "	\
	  "preempted and return, or oncpu, preempted and other", 0)

/* CPU-bound threads taking turns wait slices of ms: preempt counts half */
#define GPULAT_DECL_SCHED(S)						\
	S(sched, GPULAT_SCHED_WAKEUP, "sched.wakeup",			\
	  "sched_wakeup/sched_wakeup_new -> switch-in",			\
	  (NONE, 0, NULL), (SCHED, 1000, 100, 1, NULL),			\
	  (RUNQUEUE, "kind=\"wakeup\""))				\
	S(sched, GPULAT_SCHED_PREEMPT, "sched.preempt",			\
	  "switched out runnable -> switch-in",				\
	  (NONE, 0, NULL), (SCHED, 5000, 50, 1, NULL),			\
	  (RUNQUEUE, "kind=\"preempt\""))

/* A disk's two series of one operation; flushes and discards take longer */
#define GPULAT_DECL_BLOCK_OP(S, op, opname, p99_us)			\
	S(block, GPULAT_BLOCK_SERIES(op, GPULAT_BLOCK_QUEUE),		\
	  "block." opname ".queue", "block_rq_insert -> block_rq_issue", \
	  (DISK, 0, NULL), (STORAGE, p99_us, 100, 1, NULL),		\
	  (BLOCK, "op=\"" opname "\",stage=\"queue\""))			\
	S(block, GPULAT_BLOCK_SERIES(op, GPULAT_BLOCK_DEVICE),		\
	  "block." opname ".device",					\
	  "block_rq_issue -> block_rq_complete",			\
	  (DISK, 0, NULL), (STORAGE, p99_us, 100, 1, NULL),		\
	  (BLOCK, "op=\"" opname "\",stage=\"device\""))

#define GPULAT_DECL_BLOCK(S)						\
	GPULAT_DECL_BLOCK_OP(S, GPULAT_BLOCK_READ, "read", 20000)	\
	GPULAT_DECL_BLOCK_OP(S, GPULAT_BLOCK_WRITE, "write", 20000)	\
	GPULAT_DECL_BLOCK_OP(S, GPULAT_BLOCK_FLUSH, "flush", 50000)	\
	GPULAT_DECL_BLOCK_OP(S, GPULAT_BLOCK_DISCARD, "discard", 50000)	\
	GPULAT_DECL_BLOCK_OP(S, GPULAT_BLOCK_OTHER, "other", 20000)

#define GPULAT_DECL_NET(S)						\
	S(net, GPULAT_NET_TX, "net.tx", "net_dev_queue -> net_dev_xmit", \
	  (NETDEV, 0, NULL), (NETWORK, 1000, 100, 1, NULL),		\
	  (NET, "stage=\"tx\""))					\
	S(net, GPULAT_NET_BACKLOG, "net.backlog",			\
	  "netif_rx -> netif_receive_skb",				\
	  (NETDEV, 0, NULL), (NETWORK, 1000, 100, 1, NULL),		\
	  (NET, "stage=\"backlog\""))

/* An NVIDIA handler is the driver's; others take CPU time. */
#define GPULAT_DECL_IRQ(S)						\
	S(irq, GPULAT_IRQ_HANDLER, "irq.handler",			\
	  "irq_handler_entry -> irq_handler_exit",			\
	  (IRQ, 0, NULL), (SCHED, 100, 100, 1, "nvidia"), (IRQ, ""))

/*
 * A vector's two series, keyed by the vector (names as the kernel's
 * softirq_to_name[]).  NET_TX and NET_RX are the network's, the others
 * take CPU time (half weight).  net_rx_action() stops after 2 ms; so may
 * a wait.
 */
#define GPULAT_DECL_SOFTIRQ_VEC(S, vec, vname, layer, weight)		\
	S(softirq, GPULAT_SOFTIRQ_SERIES(vec, GPULAT_SOFTIRQ_WAIT),	\
	  "softirq.wait", "first softirq_raise -> softirq_entry",	\
	  (VECTOR, vec, vname), (layer, 2000, weight, 1, NULL),		\
	  (SOFTIRQ, "stage=\"wait\""))					\
	S(softirq, GPULAT_SOFTIRQ_SERIES(vec, GPULAT_SOFTIRQ_RUN),	\
	  "softirq.run", "softirq_entry -> softirq_exit",		\
	  (VECTOR, vec, vname), (layer, 2000, weight, 1, NULL),		\
	  (SOFTIRQ, "stage=\"run\""))

#define GPULAT_DECL_SOFTIRQ(S)						\
	GPULAT_DECL_SOFTIRQ_VEC(S, 0, "HI", SCHED, 50)			\
	GPULAT_DECL_SOFTIRQ_VEC(S, 1, "TIMER", SCHED, 50)		\
	GPULAT_DECL_SOFTIRQ_VEC(S, 2, "NET_TX", NETWORK, 100)		\
	GPULAT_DECL_SOFTIRQ_VEC(S, 3, "NET_RX", NETWORK, 100)		\
	GPULAT_DECL_SOFTIRQ_VEC(S, 4, "BLOCK", SCHED, 50)		\
	GPULAT_DECL_SOFTIRQ_VEC(S, 5, "IRQ_POLL", SCHED, 50)		\
	GPULAT_DECL_SOFTIRQ_VEC(S, 6, "TASKLET", SCHED, 50)		\
	GPULAT_DECL_SOFTIRQ_VEC(S, 7, "SCHED", SCHED, 50)		\
	GPULAT_DECL_SOFTIRQ_VEC(S, 8, "HRTIMER", SCHED, 50)		\
	GPULAT_DECL_SOFTIRQ_VEC(S, 9, "RCU", SCHED, 50)

#define GPULAT_DECL_NVIDIA(S)						\
	S(nvidia, GPULAT_NV_HARDIRQ, "nvidia.hardirq",			\
	  "irq_handler_entry -> irq_handler_exit",			\
	  (IRQ, 0, NULL), (DRIVER, 100, 100, 1, NULL),			\
	  (NVIDIA_IRQ, "path=\"hardirq\""))				\
	S(nvidia, GPULAT_NV_THREAD_WAKE, "nvidia.thread.wake",		\
	  "sched_wakeup of irq/N-nvidia -> switch-in",			\
	  (IRQ, 0, NULL), (DRIVER, 500, 100, 1, NULL),			\
	  (NVIDIA_IRQ, "path=\"thread_wake\""))				\
	S(nvidia, GPULAT_NV_THREAD_RUN, "nvidia.thread.run",		\
	  "irq/N-nvidia switch-in -> switch-out",			\
	  (IRQ, 0, NULL), (DRIVER, 1000, 100, 1, NULL),			\
	  (NVIDIA_IRQ, "path=\"thread_run\""))				\
	S(nvidia, GPULAT_NV_KTHREAD_WAKE, "nvidia.kthread.wake",	\
	  "sched_wakeup of a driver kthread -> switch-in",		\
	  (PID, 0, NULL), (DRIVER, 1000, 100, 1, NULL),			\
	  (NVIDIA_KTHREAD, ""))

/*
 * Background compaction is not judged: no task waits for it.  A memory
 * cgroup at its memory.high or memory.max: its own tasks stall.
 */
#define GPULAT_DECL_MM(S)						\
	S(mm, GPULAT_MM_DIRECT_RECLAIM, "mm.direct_reclaim",		\
	  "mm_vmscan_direct_reclaim_begin -> _end",			\
	  (NONE, 0, NULL), (MEMORY, 1000, 100, 1, NULL),		\
	  (MM, "kind=\"direct_reclaim\""))				\
	S(mm, GPULAT_MM_COMPACTION, "mm.compaction",			\
	  "mm_compaction_begin -> _end, allocating task",		\
	  (NONE, 0, NULL), (MEMORY, 1000, 100, 1, NULL),		\
	  (MM, "kind=\"compaction\""))					\
	S(mm, GPULAT_MM_COMPACTION_BG, "mm.compaction_bg",		\
	  "mm_compaction_begin -> _end, kcompactd or on request",	\
	  (NONE, 0, NULL), (MEMORY, 1000, 100, 0, NULL),		\
	  (MM, "kind=\"compaction_bg\""))				\
	S(mm, GPULAT_MM_MEMCG_RECLAIM, "mm.memcg_reclaim",		\
	  "mm_vmscan_memcg_reclaim_begin -> _end",			\
	  (NONE, 0, NULL), (MEMORY, 1000, 100, 1, NULL),		\
	  (MM, "kind=\"memcg_reclaim\""))

/*
 * Per-cgroup copies of samples the sched, block and mm series already
 * count: not judged again (a diagnosis ranks cgroups from them apart).
 */
#define GPULAT_DECL_CGROUP(S)						\
	S(cgroup, GPULAT_CG_WAKEUP, "cgroup.wakeup",			\
	  "as sched.wakeup, task of a watched cgroup",			\
	  (CGROUP, 0, NULL), (SCHED, 0, 0, 0, NULL),			\
	  (CGROUP, "kind=\"wakeup\""))					\
	S(cgroup, GPULAT_CG_PREEMPT, "cgroup.preempt",			\
	  "as sched.preempt, task of a watched cgroup",			\
	  (CGROUP, 0, NULL), (SCHED, 0, 0, 0, NULL),			\
	  (CGROUP, "kind=\"preempt\""))					\
	S(cgroup, GPULAT_CG_BLOCK, "cgroup.block",			\
	  "request's first event -> block_rq_complete",			\
	  (CGROUP, 0, NULL), (STORAGE, 0, 0, 0, NULL),			\
	  (CGROUP, "kind=\"block\""))					\
	S(cgroup, GPULAT_CG_MEMCG, "cgroup.memcg_reclaim",		\
	  "as mm.memcg_reclaim, task of a watched cgroup",		\
	  (CGROUP, 0, NULL), (MEMORY, 0, 0, 0, NULL),			\
	  (CGROUP, "kind=\"memcg_reclaim\""))

/*
 * A GPU job's waits, per process (tgid).  Its parts count again what the
 * sched and nvidia series count: a diagnosis reads them apart, as the
 * job's own measure, and never sums them into a layer.
 */
#define GPULAT_CUDA_PART(S, id, name, what, layer, part)		\
	S(cuda, id, name, what, (PROCESS, 0, NULL), (layer, 0, 0, 0, NULL), \
	  (CUDA, "part=\"" part "\""))
#define GPULAT_DECL_CUDA(S)						\
	GPULAT_CUDA_PART(S, GPULAT_CUDA_CALL, "cuda.call",		\
			 "uprobe entry -> uretprobe return",		\
			 DRIVER, "call")				\
	GPULAT_CUDA_PART(S, GPULAT_CUDA_GPU, "cuda.gpu",		\
			 "entry -> the driver's hard IRQ behind the "	\
			 "wakeup, less preemption", DRIVER, "gpu")	\
	GPULAT_CUDA_PART(S, GPULAT_CUDA_DRIVER, "cuda.driver",		\
			 "that hard IRQ's entry -> sched_waking by it, "	\
			 "its IRQ thread or a driver kthread",		\
			 DRIVER, "driver")				\
	GPULAT_CUDA_PART(S, GPULAT_CUDA_RUNQ, "cuda.runq",		\
			 "that sched_waking -> switch-in", SCHED, "runq") \
	GPULAT_CUDA_PART(S, GPULAT_CUDA_PREEMPTED, "cuda.preempted",	\
			 "switched out runnable -> switch-in, summed "	\
			 "over the call", SCHED, "preempted")		\
	GPULAT_CUDA_PART(S, GPULAT_CUDA_RETURN, "cuda.return",		\
			 "that switch-in -> return, less preemption",	\
			 DRIVER, "return")				\
	GPULAT_CUDA_PART(S, GPULAT_CUDA_ONCPU, "cuda.oncpu",		\
			 "entry -> return on CPU, no driver wakeup",	\
			 DRIVER, "oncpu")				\
	GPULAT_CUDA_PART(S, GPULAT_CUDA_OTHER, "cuda.other",		\
			 "entry -> return off CPU, no driver wakeup, "	\
			 "less preemption", SCHED, "other")

/* Every series, family by family in families.h's order. */
#define GPULAT_DECL_ALL(S)						\
	GPULAT_DECL_SCHED(S)						\
	GPULAT_DECL_BLOCK(S)						\
	GPULAT_DECL_NET(S)						\
	GPULAT_DECL_IRQ(S)						\
	GPULAT_DECL_SOFTIRQ(S)						\
	GPULAT_DECL_NVIDIA(S)						\
	GPULAT_DECL_MM(S)						\
	GPULAT_DECL_CGROUP(S)						\
	GPULAT_DECL_CUDA(S)

#endif /* _GPULAT_SERIES_H */
