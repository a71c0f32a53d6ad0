// SPDX-License-Identifier: GPL-2.0
/* Human units of the text views (user/lib/units.c). */
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "lib/units.h"

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

/* The one decimal parser of kernel text: CPU lists and host facts. */
TEST(units_decimal)
{
	const char *t = "042,7", *p = t;
	const char *big = "99999999999999999999x";
	uint64_t v = 1;

	ASSERT_TRUE(units_dec(&p, t + strlen(t), &v));
	ASSERT_EQ(42, v);
	ASSERT_EQ(t + 3, p);
	ASSERT_FALSE(units_dec(&p, t + strlen(t), &v));	/* at the comma */
	ASSERT_EQ(42, v);
	ASSERT_EQ(t + 3, p);
	p = t + 4;
	ASSERT_FALSE(units_dec(&p, t + 4, &v));		/* nothing before end */
	p = big;
	ASSERT_TRUE(units_dec(&p, big + strlen(big), &v));
	ASSERT_EQ(UINT64_MAX, v);			/* saturates */
	ASSERT_EQ('x', *p);
}

TEST_HARNESS_MAIN
