// SPDX-License-Identifier: GPL-2.0
/*
 * The start stamps' layout and packing of gpulat_stamp.h, which the
 * module, the BPF programs and the tool compile alike.
 */
#include <stdint.h>

#include "kselftest_harness.h"

#include "gpulat_stamp.h"

/* The layout of the header's comment: bits that do not overlap. */
TEST(layout)
{
	ASSERT_EQ(22, GPULAT_PID_BITS);
	ASSERT_EQ((1ULL << 22) - 1, GPULAT_PID_MASK);
	/* the pid bits above the smallest index fit below the flag */
	ASSERT_EQ(0xfffULL, GPULAT_PST_PID_HI);
	ASSERT_EQ(0, GPULAT_PST_PID_HI & (GPULAT_PST_FLAG | GPULAT_PST_USED));
	ASSERT_EQ(GPULAT_PST_FLAG << 1, GPULAT_PST_USED);
	ASSERT_EQ(GPULAT_PST_USED << 1, 1ULL << GPULAT_PST_TS_SHIFT);
}

/* A stamp gives back its time, its owner, and no one else's. */
TEST(round_trip)
{
	const uint64_t t0 = 123456789012345ULL;
	uint32_t bits = GPULAT_PST_MIN_BITS, pid = 4194303, other;
	uint64_t st = gpulat_stamp(t0, GPULAT_PST_TS_SHIFT,
				   GPULAT_PST_FLAG | gpulat_pst_tag(pid, bits));

	ASSERT_EQ(5000, gpulat_pst_delta(st, t0 + 5000));
	ASSERT_TRUE(gpulat_pst_owns(st, pid, bits));
	ASSERT_TRUE(st & GPULAT_PST_FLAG);
	/* the same index, other bits above it */
	other = pid ^ (1U << bits);
	ASSERT_FALSE(gpulat_pst_owns(st, other, bits));
	/* a free entry is no one's, pid 0's included */
	ASSERT_FALSE(gpulat_pst_owns(0, 0, bits));
}

/* A stamp from the future reads negative; so does one past 2^49 ns. */
TEST(delta_signed)
{
	const uint64_t t0 = 1ULL << 40;
	uint64_t st = gpulat_stamp(t0, GPULAT_PST_TS_SHIFT, GPULAT_PST_USED);

	ASSERT_GT(0, gpulat_pst_delta(st, t0 - 1000));
	ASSERT_EQ(-1000, gpulat_pst_delta(st, t0 - 1000));
	ASSERT_GT(0, gpulat_pst_delta(st, t0 + (1ULL << 49)));
	/* the clock's wrap modulo 2^50 ns is no jump */
	st = gpulat_stamp((1ULL << 50) - 10, GPULAT_PST_TS_SHIFT, 0);
	ASSERT_EQ(30, gpulat_pst_delta(st, (1ULL << 50) + 20));
}

TEST_HARNESS_MAIN
