/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gpulat - latency at the source for GPU servers.
 *
 * The binary ABI of /dev/gpulat, shared by the module and the gpulat tool
 * (and by the planned BPF implementation of the same probes).
 * Documentation/abi.rst is the prose version of this file.
 *
 * Rules: only __u32/__u64 (and fixed char arrays), naturally aligned,
 * explicit padding that must be zero, every ioctl argument starts with its
 * own size so it can grow.  Counters are cumulative: reading never clears,
 * a reader gets interval data by differencing two snapshots.
 */
#ifndef _UAPI_GPULAT_H
#define _UAPI_GPULAT_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* A reader refuses a different major; minors only add. */
#define GPULAT_ABI_MAJOR	1
#define GPULAT_ABI_MINOR	0

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
};

#define GPULAT_SNAP_HEADER_SIZE_VER0	176

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

#endif /* _UAPI_GPULAT_H */
