// SPDX-License-Identifier: GPL-2.0
/*
 * The request classification of gpulat_ops.h, which the module and the
 * BPF programs compile alike: each operation its series, every other one
 * (write zeroes, zone commands, driver-private) "other".
 */
#include "kselftest_harness.h"

#include "gpulat_ops.h"

TEST(each_operation_its_series)
{
	ASSERT_EQ(GPULAT_BLOCK_READ, gpulat_block_op(GPULAT_REQ_OP_READ));
	ASSERT_EQ(GPULAT_BLOCK_WRITE, gpulat_block_op(GPULAT_REQ_OP_WRITE));
	ASSERT_EQ(GPULAT_BLOCK_FLUSH, gpulat_block_op(GPULAT_REQ_OP_FLUSH));
	ASSERT_EQ(GPULAT_BLOCK_DISCARD,
		  gpulat_block_op(GPULAT_REQ_OP_DISCARD));
}

TEST(the_rest_is_other)
{
	unsigned int op;

	/* REQ_OP_SECURE_ERASE 5, WRITE_ZEROES 9, ZONE_* 10-15, DRV_* 34-35 */
	for (op = 4; op < 256; op++)
		ASSERT_EQ(GPULAT_BLOCK_OTHER, gpulat_block_op(op))
			TH_LOG("op %u", op);
}

TEST_HARNESS_MAIN
