/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Start stamps packed in one u64 with the bits that say whose they are,
 * shared by the module (stamp.h), the BPF programs (common.bpf.h) and
 * the tool (which sizes the BPF source's tables), so that the layout is
 * stated once.  Written and read whole, a stamp never tears: the time,
 * CLOCK_MONOTONIC ns modulo 2^(64 - shift), in the top bits, a tag in
 * the low @shift bits.  Pure integer code: no kernel-only or libc-only
 * calls.
 *
 * The sched and mm families keep them in tables indexed by the low pid
 * bits, in one layout (GPULAT_PST_*):
 *
 *   bits 63..14  start time, modulo 2^50 ns (13 days)
 *   bit  13      entry in use
 *   bit  12      the family's flag (sched: preempted; mm: background)
 *   bits 11..0   the pid bits above the index (pids are below
 *                PID_MAX_LIMIT = 2^22 and the index has >= 10 bits)
 *
 * The nvidia family tags its stamps with the whole pid (probe_nvidia.h).
 */
#ifndef _GPULAT_STAMP_H
#define _GPULAT_STAMP_H

#include "uapi/gpulat.h"

/* pids are below PID_MAX_LIMIT = 2^22 */
#define GPULAT_PID_BITS		22
#define GPULAT_PID_MASK		((1ULL << GPULAT_PID_BITS) - 1)

/* The pid-indexed tables of sched and mm: at least 2^10 entries. */
#define GPULAT_PST_MIN_BITS	10
#define GPULAT_PST_PID_HI	((1ULL << (GPULAT_PID_BITS - \
					   GPULAT_PST_MIN_BITS)) - 1)
#define GPULAT_PST_FLAG		(1ULL << 12)
#define GPULAT_PST_USED		(1ULL << 13)
#define GPULAT_PST_TS_SHIFT	14

/* gpulat_stamp - @now, packed above the tag @tag (below bit @shift) */
static inline __u64 gpulat_stamp(__u64 now, unsigned int shift, __u64 tag)
{
	return now << shift | tag;
}

/*
 * gpulat_stamp_delta - @now minus the time of stamp @st, signed
 *
 * Subtract in the top bits and read the result signed, so that a stamp
 * from the future (clock skew) is negative, and so is a span over
 * 2^(63 - @shift) ns, which no span a family times lasts.
 */
static inline __s64 gpulat_stamp_delta(__u64 st, __u64 now,
				       unsigned int shift)
{
	return (__s64)((now << shift) - (st & ~((1ULL << shift) - 1))) >>
	       shift;
}

/* gpulat_pst_tag - the tag of @pid in a table of 2^@bits entries */
static inline __u64 gpulat_pst_tag(__u32 pid, __u32 bits)
{
	return GPULAT_PST_USED | (pid >> bits);
}

/* gpulat_pst_owns - whether @entry is a stamp of @pid */
static inline int gpulat_pst_owns(__u64 entry, __u32 pid, __u32 bits)
{
	return (entry & (GPULAT_PST_USED | GPULAT_PST_PID_HI)) ==
	       gpulat_pst_tag(pid, bits);
}

/* gpulat_pst_delta - @now minus the time of table entry @entry, signed */
static inline __s64 gpulat_pst_delta(__u64 entry, __u64 now)
{
	return gpulat_stamp_delta(entry, now, GPULAT_PST_TS_SHIFT);
}

#endif /* _GPULAT_STAMP_H */
