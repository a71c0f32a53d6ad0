/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The maps of the BPF source as both sides see them: the BPF programs
 * (bpf/gpulat.bpf.c) fill them, libgpulat (user/lib/bpf_source.c) reads them
 * into the snapshot layout of uapi/gpulat.h.  Only fixed-size types; the
 * user side includes this after uapi/gpulat.h, the BPF side after
 * vmlinux.h.
 */
#ifndef _GPULAT_BPF_H
#define _GPULAT_BPF_H

#include "uapi/gpulat.h"
#include "gpulat_hold.h"
#include "gpulat_stamp.h"
#include "gpulat_tps.h"

/* One histogram, as the module's struct gpulat_hist. */
struct gl_bpf_hist {
	__u64 count;
	__u64 sum_ns;
	__u64 max_ns;		/* 0 in a keyed hist: see gl_bpf_kmax */
	__u64 slots[GPULAT_HIST_NR_BUCKETS];
};

/*
 * Per-CPU series, one map for every family (gl_pcpu, an array with
 * GL_BPF_PCPU_NR entries per possible CPU), at these indexes; series id
 * N of a family is index BASE + N, on CPU c at gl_pcpu_index(c, idx).
 */
#define GL_BPF_PCPU_SCHED	0			/* 2 series */
#define GL_BPF_PCPU_SOFTIRQ	2			/* 2 per vector */
#define GL_BPF_PCPU_MM		(GL_BPF_PCPU_SOFTIRQ + 2 * GPULAT_SOFTIRQ_NR_VECS)
#define GL_BPF_PCPU_NR		(GL_BPF_PCPU_MM + 4)

/*
 * A CPU's series lie together: only the cold top slots of its last
 * series share a cache line with the next CPU's first.
 */
static inline __u32 gl_pcpu_index(__u32 cpu, __u32 idx)
{
	return cpu * GL_BPF_PCPU_NR + idx;
}

/*
 * Counters, per CPU, one entry of gl_cnt per family id: the family's
 * drop counters (enum gpulat_<family>_counter) at their ids, then a hit
 * counter per tracepoint the family hooks at GL_BPF_HIT(i).
 */
#define GL_BPF_NR_DROPS		8
#define GL_BPF_NR_TPS		8
#define GL_BPF_HIT(i)		(GL_BPF_NR_DROPS + (i))

/*
 * Each family's tracepoints are gpulat_tps.h's: GPULAT_TPS_<FAMILY>()
 * expands into the hit counters' indexes, GL_HIT_<FAMILY>_<NAME> (the
 * programs' gl_hit()), and into the tool's rows (user/lib/bpf_fam.c),
 * which attach "prog" (tp_btf; "prog_raw" as raw_tp) and count hits
 * alike.  One the kernel or the driver may lack (needs other than ALWAYS)
 * is optional: missing, not failed.
 */
#define GL_BPF_HIT_ENUM(fam, hit, tp, kprobe, prog, needs) GL_HIT_##fam##_##hit,
#define GL_BPF_OPTIONAL_ALWAYS		0
#define GL_BPF_OPTIONAL_MEMCG		1
#define GL_BPF_OPTIONAL_COMPACTION	1
#define GL_BPF_OPTIONAL_DRIVER		1
enum { GPULAT_TPS_SCHED(GL_BPF_HIT_ENUM) GL_HIT_SCHED_NR };
enum { GPULAT_TPS_BLOCK(GL_BPF_HIT_ENUM) GL_HIT_BLOCK_NR };
enum { GPULAT_TPS_NET(GL_BPF_HIT_ENUM) GL_HIT_NET_NR };
enum { GPULAT_TPS_IRQ(GL_BPF_HIT_ENUM) GL_HIT_IRQ_NR };
enum { GPULAT_TPS_SOFTIRQ(GL_BPF_HIT_ENUM) GL_HIT_SOFTIRQ_NR };
enum { GPULAT_TPS_MM(GL_BPF_HIT_ENUM) GL_HIT_MM_NR };
enum { GPULAT_TPS_NVIDIA(GL_BPF_HIT_ENUM) GL_HIT_NVIDIA_NR };
enum { GPULAT_TPS_CUDA(GL_BPF_HIT_ENUM) GL_HIT_CUDA_NR };
struct gl_bpf_cnt {
	__u64 c[GL_BPF_NR_DROPS + GL_BPF_NR_TPS];
};

/*
 * A keyed family (disk, network device, IRQ handler) keeps a hash map
 * <family>_keys from its ABI key (struct gpulat_series.key) to a value
 * that starts with this header and holds its series' histograms, shared
 * by every CPU and updated with atomic adds; the largest sample of each
 * series is kept per CPU in <family>_kmax (one __u64 per series), since
 * BPF has no atomic compare-exchange before Linux 5.12.  A key that does
 * not fit the map counts in the family's keys_full counter.
 */
struct gl_bpf_key_hdr {
	char name[GPULAT_NAME_LEN];	/* key_name; "" until the creator set it */
	__u64 created_ns;		/* when its first event came */
	/*
	 * the kernel object the name was read from (block: the gendisk):
	 * while the key's events come from it, the name is not read again
	 */
	__u64 named_by;
};

/*
 * In-flight start stamps (the module's struct gpulat_flight), for the
 * block and net families: a hash map <family>_flight from a request's or
 * an skb's address to this, sized at load as the module sizes its table
 * (user/lib/bpf_source.c).  A program cannot look for a stale entry to
 * take over when the map is full, as the module does (a walk of the map
 * per event), so the tool removes the entries older than the module's
 * timeout each time it takes a snapshot, and counts them in the family's
 * expired counter through gl_swept (user/lib/bpf_snap.c).  ts 0: released
 * (its delete failed), free to take.
 */
struct gl_bpf_flight {
	__u64 ts;		/* CLOCK_MONOTONIC, ns */
	__u64 key;		/* the ABI key of the series it files in */
	__u32 aux;		/* the family's: request state, net series */
	__u32 cg_watched;	/* block: files in the cgroup family at its end */
	__u64 cg;		/* block: cgroup id of the task that started it */
	__u64 first;		/* block: its first event (the cgroup series') */
};

/*
 * The pid-indexed stamp tables (sched, mm): pids are below 2^22, a table
 * has at least 2^10 entries (gpulat_stamp.h).
 */
#define GL_BPF_PID_BITS		GPULAT_PID_BITS
#define GL_BPF_PST_MIN_BITS	GPULAT_PST_MIN_BITS

/* Keys kept per keyed family (the module's defaults). */
#define GL_BPF_BLOCK_KEYS	32
#define GL_BPF_NET_KEYS		32
#define GL_BPF_IRQ_KEYS		256
#define GL_BPF_NV_KEYS		128
#define GL_BPF_CG_KEYS		64
#define GL_BPF_CUDA_KEYS	256
/* Levels below the cgroup2 root a watched cgroup may lie at (the root: 0). */
#define GL_BPF_CG_LEVELS	32

/*
 * Settings the tool writes into the programs' .bss while they run (the
 * skeleton maps it), read on every event.
 */
/*
 * Readers of the trace at once, each with a ring buffer of its own in
 * gl_rings (a BPF ring buffer has one consumer: two readers of one ring
 * would split its records between them).
 */
#define GL_BPF_READERS		4

/*
 * One reader (a slot of gl_conf.rdr and of gl_rings), set by the tool
 * under the pin folder's lock: its process and start time (a slot whose
 * process is gone, or is another by then, is free), the thread that
 * reads (records about it are left out of every reader's trace and
 * counted, as the module leaves out its readers' tasks), and its
 * thresholds (ns by family, ~0: off).  tgid 0: free.
 */
struct gl_bpf_reader {
	__u32 tgid;
	__u32 pid;
	__u64 start;		/* /proc/PID/stat starttime, clock ticks */
	__u64 gate[GPULAT_FAM_MAX];
};

/* What the trace left out, per CPU (gl_trace_cnt). */
struct gl_bpf_trace_cnt {
	__u64 lost[GL_BPF_READERS];	/* no room in that reader's ring */
	__u64 self_left;		/* about a reader's own thread */
};

struct gl_bpf_conf {
	/*
	 * outlier threshold, ns by family: the lowest of the readers'
	 * (rdr[].gate), ~0 while nobody reads the trace
	 */
	__u64 gate[GPULAT_FAM_MAX];
	/*
	 * GL_KEEPS_*: the per-CPU histories to keep (those of the attached
	 * families), 0 while nobody reads the trace
	 */
	__u32 keep_history;
	__u32 nr_readers;		/* rdr[] slots taken */
	/* CLOCK_MONOTONIC since when the histories count (older: stale) */
	__u64 since_ns;
	/* the holders' epochs, 2^hold_shift ns (gpulat_hold.h), from gate[] */
	__u32 hold_shift;
	__u32 hold_pad;
	/*
	 * The tool's own state, kept here so that a pinned source keeps it
	 * between commands: thresholds by family (ns, 0: not traced), the
	 * time of the load or last reset, the resets so far, whether it has
	 * been set up, and whether a tool reads the trace.
	 */
	__u64 threshold[GPULAT_FAM_MAX];
	__u64 reset_ns;
	__u32 generation;
	__u32 ready;
	/*
	 * The cgroup family: the watch set the tool chose (cg_set entries
	 * of cg_watch, the cgroup2 id and level of each), whether the
	 * family is on, and what the programs read: cg_nr, cg_set while on
	 * (0: the family idles, a load and a branch per sample).
	 */
	struct {
		__u64 id;
		__u32 level;
		__u32 pad;
	} cg_watch[GPULAT_CG_WATCH_MAX];
	__u32 cg_nr;
	__u32 cg_set;
	__u32 cg_on;
	__u32 cg_pad;
	/*
	 * Who pinned it (gpulat attach): pid, uid and CLOCK_REALTIME
	 * seconds; all 0 for a source loaded for one command.
	 */
	__u32 attach_pid;
	__u32 attach_uid;
	__u64 attach_time;
	/*
	 * Families held back (1 << id): asked for, but their driver is not
	 * loaded; the tool attaches them when it is (gl_bpf_refresh()).
	 */
	__u32 held;
	__u32 held_pad;
	struct gl_bpf_reader rdr[GL_BPF_READERS];
	/*
	 * Families attached (1 << id), kept by the tool as it attaches and
	 * detaches them: the cuda family's programs take no wakeup for the
	 * driver's while the nvidia family is off, as the module's.
	 */
	__u32 attached;
	__u32 attached_pad;
	/*
	 * The cuda family's library as its uprobes were placed
	 * (user/lib/bpf_cuda.c): its inode and device (new_encode_dev(), as
	 * GPULAT_IOC_CUDA answers), and the file offset of each function of
	 * gpulat_cuda.h probed (0: not); cuda_ino 0: none placed.
	 */
	__u64 cuda_ino;
	__u64 cuda_dev;
	__u64 cuda_off[GPULAT_CUDA_FN_MAX];
};

/* The histories (the module's GPULAT_KEEPS_*, kmod/trace.h). */
#define GL_KEEPS_SWITCHES	0x1
#define GL_KEEPS_IRQ		0x2
#define GL_KEEPS_SOFTIRQ	0x4

/*
 * What one CPU did lately (the module's struct gpulat_trace_act, written
 * only by that CPU): who got the CPU when, and hard IRQ and softirq
 * handler spans, in rings of powers of two.
 */
#define GL_TRACE_SWITCHES	16
#define GL_TRACE_IRQS		32

struct gl_trace_switch {
	__u64 t;		/* switch-in time */
	__s32 pid;		/* who got the CPU; 0: idle */
	__u32 pad;
	__u64 cg;		/* its cgroup (v2) id */
};

struct gl_trace_span {
	__u64 end;		/* handler exit */
	__u64 ns;		/* handler duration */
};

struct gl_trace_act {
	__u32 sw_pos, irq_pos, sirq_pos, pad;
	struct gl_trace_switch sw[GL_TRACE_SWITCHES];
	struct gl_trace_span irq[GL_TRACE_IRQS];
	struct gl_trace_span sirq[GL_TRACE_IRQS];
};

/*
 * A record of the BPF ring buffer: the module's sample record (its
 * culprits, irq_ns, softirq_ns and other_ns not yet filled), and what the
 * tool fills them from: the histories kept (GL_KEEPS_*; 0 when the
 * sample is no CPU wait), since when they count, the sample's CPU's
 * history when it ended, and, for a wait longer than that history, its
 * CPU's holders (gpulat_hold.h): the checkpoint picked for the wait's
 * start (hold_ok: one was; hold_reached: it reaches back to the start)
 * and the slots as they were at its end.
 */
struct gl_bpf_rec {
	struct gpulat_rec_sample s;
	__u32 keeps;
	__u32 pad;
	__u64 since_ns;
	struct gl_trace_act act;
	__u32 hold_ok;
	__u32 hold_reached;
	struct gpulat_hold_ck hold_ck;
	struct gpulat_hold_slot hold_slot[GPULAT_HOLD_SLOTS];
};

/* Timeline events (Xids) kept for the snapshot, a ring of this many. */
#define GL_BPF_NR_EVENTS	64

/*
 * The events, in gl_events (an array, one per possible CPU, at the
 * CPU's number; the tool maps it and reads it in place): each CPU keeps its
 * own last GL_BPF_NR_EVENTS (no atomic exchange before Linux 5.12 to
 * share one ring), and the snapshot lists the newest GL_BPF_NR_EVENTS
 * of all CPUs, oldest first: the module's ring.  seq is the entry's
 * number on its CPU + 1 once written, 0 while it is written.
 */
struct gl_bpf_event {
	__u64 seq;
	struct gpulat_event ev;
};

struct gl_bpf_events {
	__u64 next;		/* events this CPU recorded */
	struct gl_bpf_event e[GL_BPF_NR_EVENTS];
};

/*
 * The nvidia family's shared state (gl_nv_state, an array of one), set
 * by the tool before the family's programs attach: how many threads it
 * follows, a count of them per pid hash (the filter in front of the
 * thread set), the generation of the handler verdicts, and the handler
 * name prefix (the module's nvidia_pattern; "" matches nothing).
 * user_tasks, for tests on a host without the driver only: user tasks
 * named like the driver's kthreads are followed as kthreads.
 */
#define GL_BPF_NV_FILTER_BITS	12

struct gl_bpf_nv_state {
	__u32 used;
	__u32 gen;
	__u32 pattern_len;
	__u32 user_tasks;
	char pattern[GPULAT_NAME_LEN];
	__u32 filter[1U << GL_BPF_NV_FILTER_BITS];
	/*
	 * the entry time of the driver's last hard IRQ, ns (the module's
	 * gpulat_nv_last_irq), written at each: a cache line away from the
	 * filter, which every scheduler event reads
	 */
	__u64 line_pad[8];
	__u64 last_irq;
};

/* Trace ring buffer bytes (a power of two, a multiple of the page size). */
#define GL_BPF_TRACE_BYTES	(1U << 20)

#endif /* _GPULAT_BPF_H */
