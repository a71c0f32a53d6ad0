// SPDX-License-Identifier: GPL-2.0
/* The one CPU set of the tool (user/lib/cpuset.c) and its limit. */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"

#include "lib/cpuset.h"

TEST(add_has_weight_and_the_limit)
{
	struct cpuset s;

	cpuset_clear(&s);
	EXPECT_EQ(0, cpuset_weight(&s));
	EXPECT_EQ(0, cpuset_add(&s, 0));
	EXPECT_EQ(0, cpuset_add(&s, 100));
	EXPECT_EQ(0, cpuset_add(&s, CPUSET_MAX_CPUS - 1));
	EXPECT_EQ(-EINVAL, cpuset_add(&s, CPUSET_MAX_CPUS));
	EXPECT_EQ(-EINVAL, cpuset_add(&s, UINT32_MAX));
	EXPECT_EQ(3, cpuset_weight(&s));
	EXPECT_TRUE(cpuset_has(&s, 100));
	EXPECT_FALSE(cpuset_has(&s, 36));
	EXPECT_FALSE(cpuset_has(&s, CPUSET_MAX_CPUS));
}

TEST(next_walks_in_order)
{
	struct cpuset s;
	uint32_t c, seen[4], n = 0;

	cpuset_clear(&s);
	EXPECT_EQ(CPUSET_MAX_CPUS, cpuset_next(&s, 0));
	cpuset_add(&s, 3);
	cpuset_add(&s, 64);
	cpuset_add(&s, 65);
	cpuset_add(&s, CPUSET_MAX_CPUS - 1);
	for (c = cpuset_next(&s, 0); c < CPUSET_MAX_CPUS && n < 4;
	     c = cpuset_next(&s, c + 1))
		seen[n++] = c;
	ASSERT_EQ(4, n);
	EXPECT_EQ(3, seen[0]);
	EXPECT_EQ(64, seen[1]);
	EXPECT_EQ(65, seen[2]);
	EXPECT_EQ(CPUSET_MAX_CPUS - 1, seen[3]);
	EXPECT_EQ(CPUSET_MAX_CPUS, cpuset_next(&s, CPUSET_MAX_CPUS));
}

TEST(meets_subset_or)
{
	struct cpuset a, b;

	ASSERT_EQ(0, cpuset_parse(&a, "0-3"));
	ASSERT_EQ(0, cpuset_parse(&b, "2,200"));
	EXPECT_TRUE(cpuset_meets(&a, &b));
	EXPECT_FALSE(cpuset_subset(&b, &a));
	cpuset_or(&a, &b);
	EXPECT_TRUE(cpuset_subset(&b, &a));
	EXPECT_EQ(5, cpuset_weight(&a));
	ASSERT_EQ(0, cpuset_parse(&b, "4-5"));
	EXPECT_FALSE(cpuset_meets(&b, &a));
}

TEST_HARNESS_MAIN
