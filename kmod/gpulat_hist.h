/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Histogram arithmetic shared by the module, the gpulat tool and the BPF
 * programs (bpf/), so that every side files a value into the same slot
 * and reads the same bounds back.  Pure integer code: no kernel-only or libc-only calls.
 * The scheme itself (bounds, slot count) is ABI: see uapi/gpulat.h.
 */
#ifndef _GPULAT_HIST_H
#define _GPULAT_HIST_H

#include "uapi/gpulat.h"

#define GPULAT_HIST_SUBS	(1U << GPULAT_HIST_SUB_BITS)
#define GPULAT_HIST_OVERFLOW	(GPULAT_HIST_NR_BUCKETS - 1)

/*
 * gpulat_hist_msb_cascade - index of the highest set bit of @v (v != 0),
 * without a branch: each step halves the width searched, adding 1 to
 * (v >> k) only carries into bit k when some bit at or above k is set.
 */
static inline __u32 gpulat_hist_msb_cascade(__u64 v)
{
	__u32 r = 0, s;

	s = (__u32)(((v >> 32) + 0xffffffffULL) >> 32) << 5;
	v >>= s;
	r |= s;
	s = (__u32)(((v >> 16) + 0xffffULL) >> 16) << 4;
	v >>= s;
	r |= s;
	s = (__u32)(((v >> 8) + 0xffULL) >> 8) << 3;
	v >>= s;
	r |= s;
	s = (__u32)(((v >> 4) + 0xfULL) >> 4) << 2;
	v >>= s;
	r |= s;
	s = (__u32)(((v >> 2) + 0x3ULL) >> 2) << 1;
	v >>= s;
	r |= s;
	return r | (__u32)(v >> 1);
}

/*
 * gpulat_hist_msb - highest set bit of @v (v != 0).  clang 14 cannot
 * compile __builtin_clzll for BPF: the BPF programs use the cascade, and
 * the unit tests check that both agree at every slot boundary.
 */
static inline __u32 gpulat_hist_msb(__u64 v)
{
#if defined(__bpf__) || defined(GPULAT_HIST_CASCADE)
	return gpulat_hist_msb_cascade(v);
#else
	return 63 - __builtin_clzll(v);
#endif
}

/*
 * gpulat_hist_slot_msb - slot of @ns within the buckets' range, given
 * @msb, its highest set bit
 */
static inline __u32 gpulat_hist_slot_msb(__u64 ns, __u32 msb)
{
	__u32 sub = (ns >> (msb - GPULAT_HIST_SUB_BITS)) & (GPULAT_HIST_SUBS - 1);

	return 1 + ((msb - GPULAT_HIST_MIN_SHIFT) << GPULAT_HIST_SUB_BITS) + sub;
}

/* gpulat_hist_slot - slot of a nanosecond value: O(1), no loop */
static inline __u32 gpulat_hist_slot(__u64 ns)
{
	if (ns < (1ULL << GPULAT_HIST_MIN_SHIFT))
		return 0;
	if (ns >= (1ULL << GPULAT_HIST_MAX_SHIFT))
		return GPULAT_HIST_OVERFLOW;
	return gpulat_hist_slot_msb(ns, gpulat_hist_msb(ns));
}

/* gpulat_hist_lower - smallest value that lands in @slot */
static inline __u64 gpulat_hist_lower(__u32 slot)
{
	__u32 k, j;

	if (slot == 0)
		return 0;
	if (slot >= GPULAT_HIST_OVERFLOW)
		return 1ULL << GPULAT_HIST_MAX_SHIFT;
	k = GPULAT_HIST_MIN_SHIFT + ((slot - 1) >> GPULAT_HIST_SUB_BITS);
	j = (slot - 1) & (GPULAT_HIST_SUBS - 1);
	return (1ULL << k) + ((__u64)j << (k - GPULAT_HIST_SUB_BITS));
}

/*
 * gpulat_hist_upper - first value above @slot (exclusive bound); the
 * overflow slot has no bound and answers ~0.
 */
static inline __u64 gpulat_hist_upper(__u32 slot)
{
	if (slot >= GPULAT_HIST_OVERFLOW)
		return ~0ULL;
	return gpulat_hist_lower(slot + 1);
}

/*
 * gpulat_hist_quantile - value below which @ppm parts per million of the
 * samples lie.
 *
 * Method: the rank is ceil(total * ppm / 1e6) (at least 1); the slot holding
 * that rank is found by a cumulative sum, and the value is interpolated
 * linearly inside the slot, as if its samples were spread evenly over
 * [lower, upper).  The exact maximum caps every answer, and stands in for
 * the missing upper bound of the overflow slot.  Returns 0 for no samples.
 */
static inline __u64 gpulat_hist_quantile(const __u64 *slots, __u32 nr,
					 __u64 max_ns, __u32 ppm)
{
	__u64 total = 0, rank, cum = 0, lo, hi, w, r, n, frac;
	__u32 i;

	if (nr > GPULAT_HIST_NR_BUCKETS)
		nr = GPULAT_HIST_NR_BUCKETS;
	for (i = 0; i < nr; i++)
		total += slots[i];
	if (!total)
		return 0;
	if (ppm > 1000000)
		ppm = 1000000;
	/* ceil(total * ppm / 1e6) without overflowing 64 bits */
	rank = (total / 1000000) * ppm +
	       ((total % 1000000) * ppm + 999999) / 1000000;
	if (!rank)
		rank = 1;

	for (i = 0; i < nr; i++) {
		n = slots[i];
		if (!n || cum + n < rank) {
			cum += n;
			continue;
		}
		lo = gpulat_hist_lower(i);
		hi = gpulat_hist_upper(i);
		if (hi > max_ns)
			hi = max_ns;
		if (lo > hi)
			lo = hi;
		w = hi - lo;
		r = rank - cum;
		/* frac = r / n in 1/2^20 steps; keep r << 20 within 64 bits */
		while (n >= (1ULL << 43)) {
			n >>= 1;
			r >>= 1;
		}
		if (!n)
			n = 1;
		frac = (r << 20) / n;
		return lo + (w >> 20) * frac + (((w & 0xfffff) * frac) >> 20);
	}
	return max_ns;
}

#endif /* _GPULAT_HIST_H */
