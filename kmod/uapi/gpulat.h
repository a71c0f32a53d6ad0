/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gpulat - latency at the source for GPU servers.
 *
 * The binary ABI of /dev/gpulat, shared by the module, the gpulat tool
 * and the BPF programs of bpf/ (which fill the same series and records).
 * Documentation/abi.rst is the prose version of this file.
 *
 * Rules: only __u32/__u64 (and fixed char arrays), naturally aligned,
 * explicit padding that must be zero, every ioctl argument starts with its
 * own size so it can grow.  Counters are cumulative: reading never clears,
 * a reader gets interval data by differencing two snapshots.
 */
#ifndef _UAPI_GPULAT_H
#define _UAPI_GPULAT_H

/* BPF programs (bpf/) take the kernel's types from their vmlinux.h. */
#ifndef __VMLINUX_H__
#include <linux/ioctl.h>
#include <linux/types.h>
#endif

/* A reader refuses a different major; minors only add. */
#define GPULAT_ABI_MAJOR	1
#define GPULAT_ABI_MINOR	5

#define GPULAT_DEVICE_PATH	"/dev/gpulat"

/*
 * Histogram scheme (log-linear, nanoseconds).
 *
 * Slot 0 counts values below 2^MIN_SHIFT ns (underflow).  Each power of two
 * [2^k, 2^(k+1)) for MIN_SHIFT <= k < MAX_SHIFT is split into 2^SUB_BITS
 * equal sub-buckets, so a bucket is at most 1/2^SUB_BITS (12.5%) of its
 * lower bound wide.  The last slot counts values >= 2^MAX_SHIFT (overflow).
 * With the values below: 512 ns .. 137.4 s in 224 buckets, 226 slots.
 */
#define GPULAT_HIST_SUB_BITS	3
#define GPULAT_HIST_MIN_SHIFT	9
#define GPULAT_HIST_MAX_SHIFT	37
#define GPULAT_HIST_NR_BUCKETS	\
	(2 + ((GPULAT_HIST_MAX_SHIFT - GPULAT_HIST_MIN_SHIFT) << GPULAT_HIST_SUB_BITS))

/* Probe families.  Numbers are never reused. */
enum gpulat_family_id {
	GPULAT_FAM_SCHED	= 1,
	GPULAT_FAM_BLOCK	= 2,
	GPULAT_FAM_NET		= 3,
	GPULAT_FAM_IRQ		= 4,
	GPULAT_FAM_SOFTIRQ	= 5,
	GPULAT_FAM_NVIDIA	= 6,
	GPULAT_FAM_MM		= 7,
	GPULAT_FAM_CGROUP	= 8,	/* since ABI 1.3 */
	GPULAT_FAM_CUDA		= 9,	/* since ABI 1.5 */
	GPULAT_FAM_MAX,
};

/* Series of GPULAT_FAM_SCHED (struct gpulat_series.id). */
enum gpulat_sched_series {
	GPULAT_SCHED_WAKEUP	= 0,	/* sched_wakeup{,_new} -> switch-in */
	GPULAT_SCHED_PREEMPT	= 1,	/* switched out runnable -> switch-in */
};

/* Drop counters of GPULAT_FAM_SCHED (struct gpulat_counter.id). */
enum gpulat_sched_counter {
	GPULAT_SCHED_NO_START	= 0,	/* switch-in without a start stamp */
	GPULAT_SCHED_EVICTED	= 1,	/* stamp overwritten by another task */
	GPULAT_SCHED_NEGATIVE	= 2,	/* end before start, or a wait over 6.5 days */
};

/*
 * Series of GPULAT_FAM_BLOCK, one per disk (key: the disk's dev_t in the
 * kernel's encoding, MAJOR << 20 | MINOR; key_name: the disk name) and
 * operation: id = GPULAT_BLOCK_SERIES(op, kind).
 */
enum gpulat_block_op {
	GPULAT_BLOCK_READ	= 0,
	GPULAT_BLOCK_WRITE	= 1,
	GPULAT_BLOCK_FLUSH	= 2,
	GPULAT_BLOCK_DISCARD	= 3,
	GPULAT_BLOCK_OTHER	= 4,
	GPULAT_BLOCK_NR_OPS,
};

enum gpulat_block_kind {
	GPULAT_BLOCK_QUEUE	= 0,	/* block_rq_insert -> block_rq_issue */
	GPULAT_BLOCK_DEVICE	= 1,	/* block_rq_issue -> block_rq_complete */
};

#define GPULAT_BLOCK_SERIES(op, kind)	((op) * 2 + (kind))

enum gpulat_block_counter {
	GPULAT_BLOCK_NO_START	= 0,	/* complete without an issue stamp */
	GPULAT_BLOCK_FULL	= 1,	/* in-flight table full */
	GPULAT_BLOCK_EXPIRED	= 2,	/* stamp reclaimed after the timeout */
	GPULAT_BLOCK_NEGATIVE	= 3,
	GPULAT_BLOCK_KEYS_FULL	= 4,	/* more disks than block_max_disks */
};

/*
 * Series of GPULAT_FAM_NET, per network device (key: ifindex in bits 0-31;
 * for a device outside the initial network namespace, that namespace's
 * inode number in bits 32-63; key_name: the device name, and "/net:INODE"
 * outside the initial namespace).
 */
enum gpulat_net_series {
	GPULAT_NET_TX		= 0,	/* net_dev_queue -> net_dev_xmit */
	GPULAT_NET_BACKLOG	= 1,	/* netif_rx -> netif_receive_skb */
};

enum gpulat_net_counter {
	GPULAT_NET_NO_START	= 0,	/* xmit without a queue stamp */
	GPULAT_NET_FULL		= 1,	/* in-flight table full */
	GPULAT_NET_EXPIRED	= 2,	/* never sent or received (dropped) */
	GPULAT_NET_NEGATIVE	= 3,
	GPULAT_NET_KEYS_FULL	= 4,
};

/*
 * GPULAT_FAM_IRQ: hard IRQ handler duration, irq_handler_entry -> _exit,
 * one series per handler (key: IRQ number in bits 0-31, a handler
 * discriminator in bits 32-63; key_name: the handler's name).
 */
enum gpulat_irq_series {
	GPULAT_IRQ_HANDLER	= 0,
};

enum gpulat_irq_counter {
	GPULAT_IRQ_NO_START	= 0,	/* exit without its entry on this CPU */
	GPULAT_IRQ_NEGATIVE	= 1,
	GPULAT_IRQ_KEYS_FULL	= 2,	/* more handlers than irq_max_handlers */
	GPULAT_IRQ_UNPAIRED	= 3,	/* entry whose exit never came here */
};

/*
 * GPULAT_FAM_SOFTIRQ: per CPU and vector (key: vector number, key_name:
 * its name); id = GPULAT_SOFTIRQ_SERIES(vec, kind).
 */
enum gpulat_softirq_kind {
	GPULAT_SOFTIRQ_WAIT	= 0,	/* softirq_raise -> softirq_entry */
	GPULAT_SOFTIRQ_RUN	= 1,	/* softirq_entry -> softirq_exit */
};

#define GPULAT_SOFTIRQ_NR_VECS		10
#define GPULAT_SOFTIRQ_SERIES(vec, kind)	((vec) * 2 + (kind))

enum gpulat_softirq_counter {
	GPULAT_SOFTIRQ_NO_START	= 0,	/* entry or exit without its start */
	GPULAT_SOFTIRQ_NEGATIVE	= 1,
};

/*
 * GPULAT_FAM_NVIDIA: the NVIDIA driver's interrupt paths (handlers whose
 * name matches the nvidia_pattern parameter) and kthreads.
 */
enum gpulat_nvidia_series {
	GPULAT_NV_HARDIRQ	= 0,	/* handler entry -> exit, key as IRQ */
	GPULAT_NV_THREAD_WAKE	= 1,	/* irq/N-nvidia woken -> switch-in */
	GPULAT_NV_THREAD_RUN	= 2,	/* irq/N-nvidia switch-in -> out */
	GPULAT_NV_KTHREAD_WAKE	= 3,	/* driver kthread woken -> switch-in */
};

enum gpulat_nvidia_counter {
	GPULAT_NV_NO_START	= 0,
	GPULAT_NV_NEGATIVE	= 1,
	GPULAT_NV_KEYS_FULL	= 2,
	GPULAT_NV_XID_LOST	= 3,	/* Xid events overwritten in the ring */
};

/*
 * GPULAT_FAM_MM: per CPU, the CPU the stall ended on.  GPULAT_MM_COMPACTION
 * is compaction on behalf of an allocation (a stall of the allocating
 * task); GPULAT_MM_COMPACTION_BG is compaction by kcompactd or on request
 * (vm.compact_memory), which no allocation waits for.
 */
enum gpulat_mm_series {
	GPULAT_MM_DIRECT_RECLAIM = 0,	/* mm_vmscan_direct_reclaim_begin -> _end */
	GPULAT_MM_COMPACTION	= 1,	/* mm_compaction_begin -> _end, direct */
	GPULAT_MM_COMPACTION_BG	= 2,	/* mm_compaction_begin -> _end, other */
	/*
	 * since ABI 1.3: reclaim by a task charging a memory cgroup over
	 * its memory.high or memory.max
	 */
	GPULAT_MM_MEMCG_RECLAIM	= 3,	/* mm_vmscan_memcg_reclaim_begin -> _end */
};

enum gpulat_mm_counter {
	GPULAT_MM_NO_START	= 0,	/* end without a start stamp */
	GPULAT_MM_NEGATIVE	= 1,
	GPULAT_MM_EVICTED	= 2,	/* stamp overwritten by another task */
};

/*
 * GPULAT_FAM_CGROUP (since ABI 1.3): the waits of the tasks of chosen
 * cgroups (GPULAT_IOC_CGROUP), one keyed series set per cgroup (v2) that
 * holds such a task (key: its cgroup id, the cgroup2 directory's inode
 * number; key_name: the directory's name).  A task counts in the cgroup it
 * is in when its sample ends, if that cgroup is a watched one or below
 * one; the subject is always the task that waited (or issued the I/O),
 * never the task running at the end event.  The family has no probes of
 * its own: the sched, block and mm probes file its samples too.
 */
enum gpulat_cgroup_series {
	GPULAT_CG_WAKEUP	= 0,	/* as sched.wakeup */
	GPULAT_CG_PREEMPT	= 1,	/* as sched.preempt */
	GPULAT_CG_BLOCK		= 2,	/* request's first event -> complete */
	GPULAT_CG_MEMCG		= 3,	/* as mm.memcg_reclaim */
};

enum gpulat_cgroup_counter {
	GPULAT_CG_KEYS_FULL	= 0,	/* a watched task's cgroup had no key left */
};

/*
 * GPULAT_FAM_CUDA (since ABI 1.5): a GPU job's waits in the CUDA driver
 * library's synchronising calls (GPULAT_IOC_CUDA hands the library and
 * its functions' offsets over), one keyed series set per process (key:
 * its tgid; key_name: its comm).  Only a thread's outermost call is
 * timed.  A call woken by the NVIDIA driver's interrupt path (its hard
 * IRQ, its irq/N-nvidia threads or kthreads) is split into GPU, DRIVER,
 * RUNQ, PREEMPTED and RETURN, which add up to its CALL; any other call
 * (spinning, or woken by something else) into ONCPU, PREEMPTED and OTHER.
 * PREEMPTED is filed for every call, 0 included.
 */
enum gpulat_cuda_series {
	GPULAT_CUDA_CALL	= 0,	/* entry -> return */
	GPULAT_CUDA_GPU		= 1,	/* entry -> the NVIDIA interrupt */
	GPULAT_CUDA_DRIVER	= 2,	/* that interrupt -> sched_waking */
	GPULAT_CUDA_RUNQ	= 3,	/* that waking -> switch-in */
	GPULAT_CUDA_PREEMPTED	= 4,	/* switched out runnable -> in, summed */
	GPULAT_CUDA_RETURN	= 5,	/* that switch-in -> return */
	GPULAT_CUDA_ONCPU	= 6,	/* not the driver's wakeup: on CPU */
	GPULAT_CUDA_OTHER	= 7,	/* not the driver's wakeup: asleep */
};

enum gpulat_cuda_counter {
	GPULAT_CUDA_NO_SLOT	= 0,	/* a call's thread found no free slot */
	GPULAT_CUDA_NO_ENTRY	= 1,	/* a return without its entry */
	GPULAT_CUDA_NEGATIVE	= 2,
	GPULAT_CUDA_KEYS_FULL	= 3,	/* more processes than cuda_max_keys */
	GPULAT_CUDA_EXITED	= 4,	/* a thread exited inside a call */
	GPULAT_CUDA_NESTED	= 5,	/* a call inside a call, not timed */
};

/* Functions GPULAT_IOC_CUDA places probes on at most. */
#define GPULAT_CUDA_FN_MAX	16

/* Cgroups GPULAT_IOC_CGROUP watches at most at once. */
#define GPULAT_CG_WATCH_MAX	8

#define GPULAT_CPU_NONE		0xffffffffU
#define GPULAT_NAME_LEN		32

/*
 * GPULAT_IOC_VERSION: ABI version of the running module.
 * Returns 0, or -EINVAL (flags/size), -E2BIG, -EFAULT.
 */
struct gpulat_version {
	__u32 size;		/* in: sizeof(struct gpulat_version) */
	__u32 flags;		/* in: must be 0 */
	__u32 major;		/* out: GPULAT_ABI_MAJOR */
	__u32 minor;		/* out: GPULAT_ABI_MINOR */
};

#define GPULAT_VERSION_SIZE_VER0	16

/*
 * GPULAT_IOC_SNAPSHOT: copy every series, counter and probe state into
 * buf in one call.  The buffer then holds a struct gpulat_snap_header
 * followed by the sections it describes.
 *
 * needed is set to the bytes the snapshot takes on success and on -ENOSPC.
 * buf_size == 0 only asks for that size (returns 0).  A buffer shorter than
 * needed gets nothing and the call fails with -ENOSPC.  Other errors:
 * -EINVAL (size, flags), -E2BIG, -EFAULT, -ENOMEM.  The size can grow between two calls
 * (series appear at run time): retry with the new needed.
 */
struct gpulat_snapshot_req {
	__u32 size;		/* in: sizeof(struct gpulat_snapshot_req) */
	__u32 flags;		/* in: must be 0 */
	__u64 buf;		/* in: user pointer */
	__u64 buf_size;		/* in: bytes at buf */
	__u64 needed;		/* out: bytes the snapshot takes */
};

#define GPULAT_SNAPSHOT_SIZE_VER0	32

/* GPULAT_IOC_RESET: zero every histogram and counter, bump generation. */
struct gpulat_reset {
	__u32 size;		/* in: sizeof(struct gpulat_reset) */
	__u32 flags;		/* in: must be 0 */
};

#define GPULAT_RESET_SIZE_VER0		8

/*
 * GPULAT_IOC_FAMILY: switch a family's probes on or off at run time.
 * Its histograms keep their data while it is off.  Returns 0, or -EINVAL
 * (size, flags, enable not 0/1), -ENOENT (no such family), -ENODEV (its
 * tracepoints are missing on this kernel), -ENOMEM, or the errno of a
 * failed registration.
 */
struct gpulat_family_req {
	__u32 size;		/* in: sizeof(struct gpulat_family_req) */
	__u32 flags;		/* in: must be 0 */
	__u32 family;		/* in: enum gpulat_family_id */
	__u32 enable;		/* in: 1 on, 0 off */
};

#define GPULAT_FAMILY_SIZE_VER0		16

/*
 * GPULAT_IOC_THRESHOLD (since ABI 1.2): read or set a family's outlier
 * threshold.  A sample of the family at or over it is written to the
 * outlier trace (see struct gpulat_rec_header) while a reader has the
 * trace open.  threshold_ns == 0 switches the family's trace off.  With
 * GPULAT_THRESHOLD_SET the module takes threshold_ns; either way it
 * returns the family's threshold in threshold_ns.  Returns 0, or -EINVAL
 * (size, flags, pad), -ENOENT (no such family), -E2BIG, -EFAULT.
 */
struct gpulat_threshold_req {
	__u32 size;		/* in: sizeof(struct gpulat_threshold_req) */
	__u32 flags;		/* in: 0 or GPULAT_THRESHOLD_SET */
	__u32 family;		/* in: enum gpulat_family_id */
	__u32 pad;		/* in: zero */
	__u64 threshold_ns;	/* in with SET; out: the threshold now */
};

#define GPULAT_THRESHOLD_SET		1U
#define GPULAT_THRESHOLD_SIZE_VER0	24

/*
 * GPULAT_IOC_CGROUP (since ABI 1.3): the cgroups the cgroup family
 * watches.  Without flags, reads the set; with GPULAT_CGROUP_SET
 * (CAP_SYS_ADMIN), replaces it by the cgroup2 directories open at
 * fd[0..nr) (nr 0: none, the family idles).  The set lasts until the next
 * SET or unload; the series of cgroups already seen stay.
 */
#define GPULAT_CGROUP_SET	0x1

struct gpulat_cgroup_req {
	__u32 size;		/* in: sizeof(struct gpulat_cgroup_req) */
	__u32 flags;		/* in: 0 or GPULAT_CGROUP_SET */
	__u32 nr;		/* in with SET: entries of fd; out: watched */
	__u32 pad;		/* in: zero */
	__s32 fd[GPULAT_CG_WATCH_MAX];	/* in with SET: cgroup2 directories */
	__u64 id[GPULAT_CG_WATCH_MAX];	/* out: the watched cgroups' ids */
};

#define GPULAT_CGROUP_SIZE_VER0		112

/*
 * GPULAT_IOC_CUDA (since ABI 1.5): the library the cuda family probes.
 * Without flags, reads what is attached.  With GPULAT_CUDA_SET
 * (CAP_SYS_ADMIN), detaches what was, then, when fd >= 0, places an
 * entry and a return probe at each non-zero offset[i] of the regular file
 * open at fd (offset[i]: the file offset of gpulat_cuda.h's function i).
 * Probes cover every process that maps that inode, containers included.
 * They last until the next SET or unload.  Returns 0, or -EINVAL (size,
 * flags, not a regular file, an offset past its end), -EPERM, -EBADF,
 * -ENOENT (the family was never set up: cuda=0), -ENOMEM, or the errno
 * of a failed placement (nothing is left attached).
 */
#define GPULAT_CUDA_SET		0x1

struct gpulat_cuda_req {
	__u32 size;		/* in: sizeof(struct gpulat_cuda_req) */
	__u32 flags;		/* in: 0 or GPULAT_CUDA_SET */
	__s32 fd;		/* in with SET: the library, or -1: none */
	__u32 nr;		/* out: probes placed (functions) */
	__u64 ino;		/* out: the attached inode, 0: none */
	__u64 dev;		/* out: its device (new_encode_dev) */
	__u64 offset[GPULAT_CUDA_FN_MAX];	/* in with SET; out */
};

#define GPULAT_CUDA_SIZE_VER0		160

/*
 * The size encoded in a command number is frozen at the first version of
 * its struct: a struct that grows keeps its command, and its own size
 * field tells the module how much the caller passed.
 */
#define GPULAT_IOC_MAGIC	0xB7
#define GPULAT_IOC_VERSION	_IOC(_IOC_READ | _IOC_WRITE, GPULAT_IOC_MAGIC, \
				     0x00, GPULAT_VERSION_SIZE_VER0)
#define GPULAT_IOC_SNAPSHOT	_IOC(_IOC_READ | _IOC_WRITE, GPULAT_IOC_MAGIC, \
				     0x01, GPULAT_SNAPSHOT_SIZE_VER0)
#define GPULAT_IOC_RESET	_IOC(_IOC_WRITE, GPULAT_IOC_MAGIC, \
				     0x02, GPULAT_RESET_SIZE_VER0)
#define GPULAT_IOC_FAMILY	_IOC(_IOC_WRITE, GPULAT_IOC_MAGIC, \
				     0x03, GPULAT_FAMILY_SIZE_VER0)
#define GPULAT_IOC_THRESHOLD	_IOC(_IOC_READ | _IOC_WRITE, GPULAT_IOC_MAGIC, \
				     0x04, GPULAT_THRESHOLD_SIZE_VER0)
#define GPULAT_IOC_CGROUP	_IOC(_IOC_READ | _IOC_WRITE, GPULAT_IOC_MAGIC, \
				     0x05, GPULAT_CGROUP_SIZE_VER0)
#define GPULAT_IOC_CUDA		_IOC(_IOC_READ | _IOC_WRITE, GPULAT_IOC_MAGIC, \
				     0x06, GPULAT_CUDA_SIZE_VER0)

/* --- The snapshot blob ------------------------------------------------- */

#define GPULAT_SNAP_MAGIC	0x74616c67U	/* "glat" little-endian */

/* Where a section of the blob lies; entries are entry_size bytes apart. */
struct gpulat_snap_section {
	__u64 offset;		/* from the start of the blob */
	__u32 count;		/* number of entries */
	__u32 entry_size;	/* bytes per entry, >= the VER0 size */
};

struct gpulat_snap_header {
	__u32 magic;		/* GPULAT_SNAP_MAGIC */
	__u32 header_size;	/* sizeof(struct gpulat_snap_header) */
	__u32 abi_major;
	__u32 abi_minor;
	__u64 total_size;	/* bytes in the whole blob */
	__u64 time_ns;		/* CLOCK_MONOTONIC when taken */
	__u64 reset_time_ns;	/* CLOCK_MONOTONIC of load or last reset */
	__u32 generation;	/* bumped by every reset */
	__u32 nr_cpu_ids;	/* highest possible CPU number + 1 */
	__u32 hist_sub_bits;	/* GPULAT_HIST_SUB_BITS */
	__u32 hist_min_shift;	/* GPULAT_HIST_MIN_SHIFT */
	__u32 hist_max_shift;	/* GPULAT_HIST_MAX_SHIFT */
	__u32 hist_nr_buckets;	/* slots per histogram */
	struct gpulat_snap_section series;	/* struct gpulat_series */
	struct gpulat_snap_section counters;	/* struct gpulat_counter */
	struct gpulat_snap_section probes;	/* struct gpulat_probe */
	char kernel_release[64];	/* utsname()->release, NUL padded */
	/* since ABI 1.1 (header_size >= GPULAT_SNAP_HEADER_SIZE_VER1) */
	struct gpulat_snap_section events;	/* struct gpulat_event */
};

#define GPULAT_SNAP_HEADER_SIZE_VER0	176
#define GPULAT_SNAP_HEADER_SIZE_VER1	192

/*
 * One histogram.  hist_nr_buckets __u64 slots follow the fixed part
 * (entry_size covers both).  Slot 0 is underflow, the last is overflow.
 * count is the number of samples and equals the sum of the slots once
 * events stop; a snapshot taken while events arrive may see the slots
 * ahead of count by the samples being recorded at that instant.
 */
struct gpulat_series {
	__u32 family;		/* enum gpulat_family_id */
	__u32 id;		/* series within the family */
	__u32 cpu;		/* CPU, or GPULAT_CPU_NONE */
	__u32 pad;		/* zero */
	__u64 key;		/* family key (disk, netdev, IRQ), 0 if none */
	char name[GPULAT_NAME_LEN];	/* "sched.wakeup", NUL padded */
	char key_name[GPULAT_NAME_LEN];	/* key as text, "" if none */
	__u64 count;		/* samples */
	__u64 sum_ns;		/* sum of the samples */
	__u64 max_ns;		/* largest sample */
	__u64 buckets[];	/* hist_nr_buckets slots */
};

#define GPULAT_SERIES_SIZE_VER0		112

/* A drop counter (summed over CPUs): a sample that could not be used. */
struct gpulat_counter {
	__u32 family;		/* enum gpulat_family_id */
	__u32 id;		/* e.g. enum gpulat_sched_counter */
	char name[GPULAT_NAME_LEN];	/* "sched.no_start", NUL padded */
	__u64 value;
};

#define GPULAT_COUNTER_SIZE_VER0	48

enum gpulat_probe_state {
	GPULAT_PROBE_ATTACHED	= 0,
	GPULAT_PROBE_DISABLED	= 1,	/* family switched off */
	GPULAT_PROBE_MISSING	= 2,	/* tracepoint not in this kernel */
	GPULAT_PROBE_FAILED	= 3,	/* registration failed, see error */
};

/* One tracepoint a family hooks, and whether it is attached. */
struct gpulat_probe {
	__u32 family;		/* enum gpulat_family_id */
	__u32 state;		/* enum gpulat_probe_state */
	__u32 error;		/* positive errno for GPULAT_PROBE_FAILED */
	__u32 pad;		/* zero */
	char family_name[16];	/* "sched" */
	char tracepoint[48];	/* "sched_switch" */
	__u64 hits;		/* times the probe ran */
};

#define GPULAT_PROBE_SIZE_VER0		88

enum gpulat_event_type {
	GPULAT_EVENT_XID	= 1,	/* an NVIDIA Xid */
};

/*
 * A timestamped event for the timeline (the last ones the module kept,
 * oldest first).  For GPULAT_EVENT_XID: code is the Xid, device the GPU's
 * PCI address ("0000:3b:00.0").
 */
struct gpulat_event {
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__u32 type;		/* enum gpulat_event_type */
	__u32 code;
	__u32 cpu;
	__u32 pad;		/* zero */
	char device[32];	/* NUL padded */
};

#define GPULAT_EVENT_SIZE_VER0		56

/* --- The outlier trace (since ABI 1.2) ------------------------------- */

/*
 * read() on /dev/gpulat returns whole trace records, each starting with a
 * struct gpulat_rec_header; the next record starts hdr.size bytes later
 * (sizes are multiples of 8 and may grow: skip what you do not know).  A
 * file's first read() or poll() makes it a trace reader, which sees the
 * records written from then on.  Records come from per-CPU rings and are
 * merged by time within one read().  read() blocks until a record is
 * there (-EAGAIN with O_NONBLOCK); a buffer smaller than the next record
 * fails with -EINVAL; poll() reports EPOLLIN when a record is there.
 * Records a reader did not fetch before its ring wrapped arrive as one
 * GPULAT_REC_LOST record per CPU with their number: loss is never silent.
 */
enum gpulat_rec_type {
	GPULAT_REC_SAMPLE	= 1,	/* struct gpulat_rec_sample */
	GPULAT_REC_EVENT	= 2,	/* struct gpulat_rec_event (Xid...) */
	GPULAT_REC_LOST		= 3,	/* struct gpulat_rec_lost */
};

struct gpulat_rec_header {
	__u16 size;		/* bytes in this record, header included */
	__u16 type;		/* enum gpulat_rec_type */
	__u32 cpu;		/* CPU the record was written on */
	__u64 time_ns;		/* CLOCK_MONOTONIC of the end event */
};

#define GPULAT_COMM_LEN		16
#define GPULAT_NR_CULPRITS	3

/* A task that ran on the CPU while the sample's task waited for it. */
struct gpulat_culprit {
	__s32 pid;		/* 0: nobody (slot unused) */
	__s32 tgid;		/* -1: the task had exited when named */
	__u64 ns;		/* its time on the CPU inside the wait */
	char comm[GPULAT_COMM_LEN];	/* NUL padded; "" when exited */
};

/* flags of struct gpulat_rec_sample */
#define GPULAT_REC_F_CULPRITS	0x1	/* culprits and other_ns are valid */
#define GPULAT_REC_F_IRQ_TIME	0x2	/* irq_ns is valid (irq family on) */
#define GPULAT_REC_F_SOFTIRQ_TIME 0x4	/* softirq_ns is valid (softirq on) */
#define GPULAT_REC_F_PARTIAL	0x8	/* culprits: not back to the wait's start */
#define GPULAT_REC_F_CGROUP	0x10	/* cgroup_id, culprit_cgroup valid (1.3) */
/* irq_ns, softirq_ns: history shorter than the wait (1.4; before: PARTIAL) */
#define GPULAT_REC_F_SPANS_PARTIAL 0x20

/*
 * One sample at or over its family's threshold: the latency that ended at
 * hdr.time_ns, the task it happened to, and, for a wait for a CPU
 * (sched.*, nvidia thread and kthread wake), who held that CPU: the
 * tasks that ran on it during the wait (most time first; other_ns is the
 * rest of the wait not covered by them) and the hard IRQ and softirq
 * handler time that landed on it.
 */
struct gpulat_rec_sample {
	struct gpulat_rec_header hdr;
	__u32 family;		/* enum gpulat_family_id */
	__u32 series;		/* struct gpulat_series.id */
	__u64 latency_ns;
	__u64 key;		/* as struct gpulat_series.key */
	__s32 pid;		/* the task it happened to; 0: none (a device) */
	__s32 tgid;
	char comm[GPULAT_COMM_LEN];
	__u32 flags;		/* GPULAT_REC_F_* */
	__u32 nr_culprits;	/* valid entries in culprits[] */
	__u64 irq_ns;		/* hard IRQ time on this CPU in the wait */
	__u64 softirq_ns;	/* softirq time on this CPU in the wait */
	__u64 other_ns;		/* wait not covered by culprits[] */
	struct gpulat_culprit culprits[GPULAT_NR_CULPRITS];
	/*
	 * since ABI 1.3 (hdr.size >= GPULAT_REC_SAMPLE_SIZE_VER1): the
	 * cgroup (v2) id of the task (for block, of the task that started
	 * the request), and of each culprit at its latest switch-in in the
	 * wait; 0: none or unknown
	 */
	__u64 cgroup_id;
	__u64 culprit_cgroup[GPULAT_NR_CULPRITS];
};

#define GPULAT_REC_SAMPLE_SIZE_VER0	192
#define GPULAT_REC_SAMPLE_SIZE_VER1	224

/* A timeline event (an Xid) as the snapshot's events section has it. */
struct gpulat_rec_event {
	struct gpulat_rec_header hdr;
	struct gpulat_event event;
};

#define GPULAT_REC_EVENT_SIZE_VER0	72

/* Records this reader lost on hdr.cpu since the previous such record. */
struct gpulat_rec_lost {
	struct gpulat_rec_header hdr;
	__u64 lost;
};

#define GPULAT_REC_LOST_SIZE_VER0	24

#endif /* _UAPI_GPULAT_H */
