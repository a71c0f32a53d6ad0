/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Start stamps packed in one u64 with the bits that say whose they are,
 * written and read whole, so that they never tear: the time,
 * CLOCK_MONOTONIC ns modulo 2^(64 - shift), in the top bits, a tag in the
 * low @shift bits.
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
#ifndef _GPULAT_KMOD_STAMP_H
#define _GPULAT_KMOD_STAMP_H

#include <linux/bits.h>
#include <linux/types.h>

/* pids are below PID_MAX_LIMIT = 2^22 */
#define GPULAT_PID_BITS		22
#define GPULAT_PID_MASK		GENMASK_ULL(GPULAT_PID_BITS - 1, 0)

/* gpulat_stamp - @now, packed above the tag @tag (below bit @shift) */
static __always_inline u64 gpulat_stamp(u64 now, unsigned int shift, u64 tag)
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
static __always_inline s64 gpulat_stamp_delta(u64 st, u64 now,
					      unsigned int shift)
{
	return (s64)((now << shift) - (st & ~GENMASK_ULL(shift - 1, 0))) >>
	       shift;
}

/* The pid-indexed tables of sched and mm: at least 2^10 entries. */
#define GPULAT_PST_MIN_BITS	10
#define GPULAT_PST_PID_HI	GENMASK_ULL(GPULAT_PID_BITS - \
					    GPULAT_PST_MIN_BITS - 1, 0)
#define GPULAT_PST_FLAG		BIT_ULL(12)
#define GPULAT_PST_USED		BIT_ULL(13)
#define GPULAT_PST_TS_SHIFT	14

/* gpulat_pst_tag - the tag of @pid in a table of 2^@bits entries */
static __always_inline u64 gpulat_pst_tag(pid_t pid, u32 bits)
{
	return GPULAT_PST_USED | ((u32)pid >> bits);
}

/* gpulat_pst_owns - whether @entry is a stamp of @pid */
static __always_inline bool gpulat_pst_owns(u64 entry, pid_t pid, u32 bits)
{
	return (entry & (GPULAT_PST_USED | GPULAT_PST_PID_HI)) ==
	       gpulat_pst_tag(pid, bits);
}

/* gpulat_pst_delta - @now minus the time of table entry @entry, signed */
static __always_inline s64 gpulat_pst_delta(u64 entry, u64 now)
{
	return gpulat_stamp_delta(entry, now, GPULAT_PST_TS_SHIFT);
}

#endif /* _GPULAT_KMOD_STAMP_H */
