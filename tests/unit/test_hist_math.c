// SPDX-License-Identifier: GPL-2.0
/* Slot, bound and quantile arithmetic of gpulat_hist.h, and its wrappers. */
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "gpulat_hist.h"
#include "lib/gpulat_user.h"

#define NR	GPULAT_HIST_NR_BUCKETS
#define OVF	(1ULL << GPULAT_HIST_MAX_SHIFT)

/* Expected slot of @v, computed the slow way: scan every lower bound. */
static uint32_t slow_slot(uint64_t v)
{
	uint32_t i;

	for (i = NR - 1; i > 0; i--)
		if (v >= gpulat_hist_lower(i))
			return i;
	return 0;
}

TEST(scheme_constants)
{
	ASSERT_EQ(226, NR);
	ASSERT_EQ(225, GPULAT_HIST_OVERFLOW);
	ASSERT_EQ(512, gpulat_hist_lower(1));
	ASSERT_EQ(576, gpulat_hist_lower(2));
	ASSERT_EQ(0, gpulat_hist_lower(0));
	ASSERT_EQ(512, gpulat_hist_upper(0));
	ASSERT_EQ(OVF, gpulat_hist_lower(NR - 1));
	ASSERT_EQ(OVF, gpulat_hist_upper(NR - 2));
	ASSERT_EQ(~0ULL, gpulat_hist_upper(NR - 1));
}

TEST(slot_fixed_points)
{
	ASSERT_EQ(0, gpulat_hist_slot(0));
	ASSERT_EQ(0, gpulat_hist_slot(1));
	ASSERT_EQ(0, gpulat_hist_slot(511));
	ASSERT_EQ(1, gpulat_hist_slot(512));
	ASSERT_EQ(1, gpulat_hist_slot(575));
	ASSERT_EQ(2, gpulat_hist_slot(576));
	ASSERT_EQ(8, gpulat_hist_slot(1023));
	ASSERT_EQ(9, gpulat_hist_slot(1024));
	ASSERT_EQ(NR - 2, gpulat_hist_slot(OVF - 1));
	ASSERT_EQ(NR - 1, gpulat_hist_slot(OVF));
	ASSERT_EQ(NR - 1, gpulat_hist_slot(OVF + 1));
	ASSERT_EQ(NR - 1, gpulat_hist_slot(UINT64_MAX));
}

/* Every sub-bucket edge of every octave: v-1, v, v+1. */
TEST(slot_every_edge)
{
	uint32_t k, j, slot;
	uint64_t v;
	int edges = 0;

	for (k = GPULAT_HIST_MIN_SHIFT; k < GPULAT_HIST_MAX_SHIFT; k++) {
		for (j = 0; j < 8; j++) {
			v = (1ULL << k) + ((uint64_t)j << (k - 3));
			slot = 1 + (k - GPULAT_HIST_MIN_SHIFT) * 8 + j;
			ASSERT_EQ(slot, gpulat_hist_slot(v));
			ASSERT_EQ(slot - 1, gpulat_hist_slot(v - 1));
			ASSERT_EQ(slot, gpulat_hist_slot(v + 1));
			ASSERT_EQ(slow_slot(v - 1), gpulat_hist_slot(v - 1));
			edges++;
		}
	}
	ASSERT_EQ(224, edges);
}

/*
 * The BPF programs' slot (the shift cascade: clang 14 cannot compile
 * __builtin_clzll for BPF) is the module's and the tool's at every slot
 * boundary, one below and one above, and at every power of two.
 */
TEST(cascade_slot_every_edge)
{
	uint64_t v, probe[3];
	uint32_t s, k, i;
	int n = 0;

	for (s = 1; s < GPULAT_HIST_OVERFLOW; s++) {
		v = gpulat_hist_lower(s);
		probe[0] = v - 1;
		probe[1] = v;
		probe[2] = v + 1;
		for (i = 0; i < 3; i++) {
			v = probe[i];
			if (v < (1ULL << GPULAT_HIST_MIN_SHIFT))
				continue;
			ASSERT_EQ(63 - __builtin_clzll(v),
				  gpulat_hist_msb_cascade(v));
			ASSERT_EQ(gpulat_hist_slot(v),
				  gpulat_hist_slot_msb(v,
						       gpulat_hist_msb_cascade(v)));
			n++;
		}
	}
	ASSERT_EQ(224 * 3 - 1, n);
	for (k = 0; k < 64; k++)
		for (i = 0; i < 3; i++) {
			v = (1ULL << k) + i - 1;
			if (v)
				ASSERT_EQ(63 - __builtin_clzll(v),
					  gpulat_hist_msb_cascade(v));
		}
}

TEST(bounds_round_trip)
{
	uint32_t i;

	for (i = 0; i < NR; i++) {
		ASSERT_EQ(i, gpulat_hist_slot(gpulat_hist_lower(i)));
		if (i < NR - 1) {
			ASSERT_EQ(i, gpulat_hist_slot(gpulat_hist_upper(i) - 1));
			ASSERT_LT(gpulat_hist_lower(i), gpulat_hist_upper(i));
			ASSERT_EQ(gpulat_hist_upper(i), gpulat_hist_lower(i + 1));
		}
	}
}

/* A bucket is at most 1/8 (12.5%) of its lower bound wide. */
TEST(bucket_width)
{
	uint64_t lo, w;
	uint32_t i;

	for (i = 1; i < NR - 1; i++) {
		lo = gpulat_hist_lower(i);
		w = gpulat_hist_upper(i) - lo;
		ASSERT_LE(w * 8, lo) TH_LOG("slot %u [%llu, +%llu)", i,
					    (unsigned long long)lo,
					    (unsigned long long)w);
	}
}

TEST(quantile_empty)
{
	__u64 slots[NR] = { 0 };

	ASSERT_EQ(0, gpulat_hist_quantile(slots, NR, 0, 500000));
	ASSERT_EQ(0, gpulat_hist_quantile(slots, NR, 1000, 1000000));
}

TEST(quantile_single_sample)
{
	__u64 slots[NR] = { 0 };

	slots[gpulat_hist_slot(1000)] = 1;	/* slot [960, 1024) */
	/* one sample: every quantile is the slot capped by max = 1000 */
	ASSERT_EQ(1000, gpulat_hist_quantile(slots, NR, 1000, 0));
	ASSERT_EQ(1000, gpulat_hist_quantile(slots, NR, 1000, 500000));
	ASSERT_EQ(1000, gpulat_hist_quantile(slots, NR, 1000, 1000000));
}

TEST(quantile_uniform_in_one_slot)
{
	__u64 slots[NR] = { 0 };
	uint32_t s = gpulat_hist_slot(1024);	/* [1024, 1152) */

	slots[s] = 1000;
	/* max above the slot: interpolate over the full width 128 */
	ASSERT_EQ(1024 + 64, gpulat_hist_quantile(slots, NR, 5000, 500000));
	ASSERT_EQ(1024 + 115, gpulat_hist_quantile(slots, NR, 5000, 900000));
	ASSERT_EQ(1152, gpulat_hist_quantile(slots, NR, 5000, 1000000));
	/* rank 1 of 1000 */
	ASSERT_EQ(1024, gpulat_hist_quantile(slots, NR, 5000, 0));
	/* max inside the slot caps the interpolation range */
	ASSERT_EQ(1024 + 32, gpulat_hist_quantile(slots, NR, 1088, 500000));
}

TEST(quantile_two_slots)
{
	__u64 slots[NR] = { 0 };

	slots[gpulat_hist_slot(600)] = 50;	/* [576, 640) */
	slots[gpulat_hist_slot(10000)] = 50;	/* [9216, 10240) */
	/* rank 50 ends the first slot, rank 51 starts the second */
	ASSERT_EQ(640, gpulat_hist_quantile(slots, NR, 10000, 500000));
	ASSERT_EQ(9216 + 20, gpulat_hist_quantile(slots, NR, 10240, 510000));
	ASSERT_EQ(10000, gpulat_hist_quantile(slots, NR, 10000, 1000000));
}

TEST(quantile_overflow_capped_by_max)
{
	__u64 slots[NR] = { 0 };

	slots[NR - 1] = 4;
	ASSERT_EQ(OVF + 100, gpulat_hist_quantile(slots, NR, OVF + 100,
						  1000000));
	ASSERT_EQ(OVF + 50, gpulat_hist_quantile(slots, NR, OVF + 100,
						 500000));
	ASSERT_GE(OVF + 100, gpulat_hist_quantile(slots, NR, OVF + 100, 1));
}

TEST(quantile_ppm_clamped)
{
	__u64 slots[NR] = { 0 };

	slots[1] = 10;
	ASSERT_EQ(gpulat_hist_quantile(slots, NR, 600, 1000000),
		  gpulat_hist_quantile(slots, NR, 600, 4000000000U));
}

TEST(gl_hist_quantile_wraps)
{
	struct gl_hist h;

	memset(&h, 0, sizeof(h));
	h.slots[gpulat_hist_slot(1024)] = 1000;
	h.max_ns = 5000;
	ASSERT_EQ(1088, gl_hist_quantile(&h, 500000));
	ASSERT_EQ(1000, gl_hist_total(&h));
}

TEST_HARNESS_MAIN
