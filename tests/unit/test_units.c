// SPDX-License-Identifier: GPL-2.0
/* Human units of the text views (user/lib/units.c). */
#include <stdint.h>

#include "kselftest_harness.h"

#include "units.h"

TEST(units_format)
{
	char b[UNITS_LEN];

	ASSERT_STREQ("0ns", units_ns(b, sizeof(b), 0));
	ASSERT_STREQ("999ns", units_ns(b, sizeof(b), 999));
	ASSERT_STREQ("1.00us", units_ns(b, sizeof(b), 1000));
	ASSERT_STREQ("1.54us", units_ns(b, sizeof(b), 1536));
	ASSERT_STREQ("12.3us", units_ns(b, sizeof(b), 12345));
	ASSERT_STREQ("999us", units_ns(b, sizeof(b), 999499));
	ASSERT_STREQ("1.00ms", units_ns(b, sizeof(b), 999500));
	ASSERT_STREQ("12.3ms", units_ns(b, sizeof(b), 12345678));
	ASSERT_STREQ("1.00s", units_ns(b, sizeof(b), 1000000000));
	ASSERT_STREQ("137s", units_ns(b, sizeof(b), 1ULL << 37));
	ASSERT_STREQ("1.84e+10s", units_ns(b, sizeof(b), UINT64_MAX));
	ASSERT_STREQ("1234567890", units_count(b, sizeof(b), 1234567890));
	ASSERT_STREQ("1.84e+19", units_count(b, sizeof(b), UINT64_MAX));
	ASSERT_STREQ("a?b?", units_printable(b, sizeof(b), "a\nb\xff"));
}

TEST_HARNESS_MAIN
