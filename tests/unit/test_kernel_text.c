// SPDX-License-Identifier: GPL-2.0
/*
 * The parsers of kernel text behind gpulat report: CPU lists,
 * /proc/interrupts, /dev/kmsg records and the small ones (bracketed
 * choices, AER files); pure functions, also fuzzed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "engine/report/hostfacts.h"

TEST(cpulist)
{
	static const char *const bad[] = {
		"3-1", "a", "1,,2", "8192", "1-", ",1", "1,", "0-8192", "1 2",
	};
	struct cpuset m;
	char buf[128];
	size_t i;

	ASSERT_EQ(0, cpuset_parse(&m, "0-3,8,10-11\n"));
	ASSERT_EQ(0xd0fULL, m.w[0]);
	ASSERT_STREQ("0-3,8,10-11", cpuset_format(buf, sizeof(buf), &m));
	ASSERT_EQ(0, cpuset_parse(&m, "8191"));
	ASSERT_EQ(1ULL << 63, m.w[CPUSET_WORDS - 1]);
	ASSERT_STREQ("8191", cpuset_format(buf, sizeof(buf), &m));
	ASSERT_EQ(0, cpuset_parse(&m, "\n"));
	ASSERT_STREQ("", cpuset_format(buf, sizeof(buf), &m));
	ASSERT_EQ(0, cpuset_parse(&m, "62-65"));
	ASSERT_EQ(3ULL << 62, m.w[0]);
	ASSERT_EQ(3ULL, m.w[1]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, cpuset_parse(&m, bad[i])) TH_LOG("'%s'", bad[i]);
	/* A short buffer cuts, it does not overflow. */
	ASSERT_EQ(0, cpuset_parse(&m, "0,2,4,6,8"));
	ASSERT_STREQ("0,2", cpuset_format(buf, 4, &m));
}

static const char interrupts_text[] =
"           CPU0       CPU1       CPU2       CPU3       \n"
"  0:         35          0          0          0   IO-APIC   2-edge      timer\n"
" 11:          0        400          0          0   IO-APIC  11-fasteoi   eth0, nvidia\n"
" 29:          1          0          0          0   IO-APIC  29-fasteoi   nvidiafb\n"
"134:          0          5     120000          0  IR-PCI-MSI-0000:3b:00.0    0-edge      nvidia\n"
"NMI:          1          2          3          4   Non-maskable interrupts\n"
"ERR:          7\n"
"garbage line without a colon\n";

TEST(interrupts)
{
	const struct hf_irq_line *l;
	struct hf_interrupts in;

	ASSERT_EQ(0, hf_interrupts_parse(interrupts_text,
					 strlen(interrupts_text), &in));
	ASSERT_EQ(4, in.nr_cols);
	ASSERT_EQ(3, in.cpu[3]);
	ASSERT_EQ(6, in.nr);
	l = hf_interrupts_find(&in, 134);
	ASSERT_NE(NULL, l);
	EXPECT_EQ(120000, l->counts[2]);
	EXPECT_EQ(120005, l->total);
	EXPECT_STREQ("IR-PCI-MSI-0000:3b:00.0    0-edge      nvidia", l->desc);
	EXPECT_TRUE(hf_desc_has_action(l->desc, "nvidia"));
	l = hf_interrupts_find(&in, 11);
	ASSERT_NE(NULL, l);
	EXPECT_EQ(400, l->counts[1]);
	EXPECT_TRUE(hf_desc_has_action(l->desc, "nvidia"));
	EXPECT_TRUE(hf_desc_has_action(l->desc, "eth0"));
	l = hf_interrupts_find(&in, 29);
	ASSERT_NE(NULL, l);
	EXPECT_FALSE(hf_desc_has_action(l->desc, "nvidia"));
	EXPECT_STREQ("NMI", in.line[4].name);
	EXPECT_EQ(-1, in.line[4].irq);
	EXPECT_EQ(10, in.line[4].total);
	EXPECT_STREQ("ERR", in.line[5].name);
	EXPECT_EQ(7, in.line[5].total);
	EXPECT_EQ(NULL, hf_interrupts_find(&in, 12));
	hf_interrupts_free(&in);

	/* CPU columns follow the header: offline CPUs have none. */
	ASSERT_EQ(0, hf_interrupts_parse("  CPU0 CPU2\n 5: 1 2 x\n", 22, &in));
	ASSERT_EQ(2, in.nr_cols);
	EXPECT_EQ(2, in.cpu[1]);
	EXPECT_EQ(2, in.line[0].counts[1]);
	EXPECT_STREQ("x", in.line[0].desc);
	hf_interrupts_free(&in);
	EXPECT_EQ(-EINVAL, hf_interrupts_parse("5: 1 2\n", 7, &in));
	EXPECT_EQ(-EINVAL, hf_interrupts_parse("", 0, &in));
}

TEST(kmsg)
{
	static const char rec[] =
		"4,1234,5678901,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x\n"
		" SUBSYSTEM=pci\n";
	const char *msg;
	size_t len;
	uint64_t us;

	ASSERT_EQ(0, hf_kmsg_parse(rec, strlen(rec), &us, &msg, &len));
	EXPECT_EQ(5678901, us);
	EXPECT_EQ(0, strncmp(msg, "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x",
			     len));
	EXPECT_EQ(strlen("NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x"), len);
	EXPECT_TRUE(hf_kmsg_wanted(msg, len));
	ASSERT_EQ(0, hf_kmsg_parse("6,2,100,-,caller=T1;eth0: up", 28, &us,
				   &msg, &len));
	EXPECT_EQ(100, us);
	EXPECT_EQ(8, len);
	EXPECT_FALSE(hf_kmsg_wanted(msg, len));
	EXPECT_EQ(-EINVAL, hf_kmsg_parse("x,1,2;a", 7, &us, &msg, &len));
	EXPECT_EQ(-EINVAL, hf_kmsg_parse("1,2,3,-", 7, &us, &msg, &len));
	EXPECT_EQ(-EINVAL, hf_kmsg_parse("1,2", 3, &us, &msg, &len));
	EXPECT_EQ(-EINVAL, hf_kmsg_parse(" SUBSYSTEM=pci", 14, &us, &msg, &len));
}

TEST(small_parsers)
{
	char buf[32];
	uint64_t v;

	ASSERT_EQ(0, hf_bracket_choice("always [madvise] never\n", buf,
				       sizeof(buf)));
	EXPECT_STREQ("madvise", buf);
	EXPECT_EQ(-EINVAL, hf_bracket_choice("always madvise", buf, sizeof(buf)));
	EXPECT_EQ(-EINVAL, hf_bracket_choice("[] x", buf, sizeof(buf)));
	EXPECT_EQ(-EINVAL, hf_bracket_choice("[open", buf, sizeof(buf)));
	ASSERT_EQ(0, hf_aer_total("RxErr 3\nBadTLP 2\nTOTAL_ERR_COR 5\n", &v));
	EXPECT_EQ(5, v);
	EXPECT_EQ(-EINVAL, hf_aer_total("RxErr 3\n", &v));
	EXPECT_EQ(-EINVAL, hf_aer_total("TOTAL_ERR_FATAL\n", &v));
	EXPECT_EQ(16.0, hf_link_speed("16.0 GT/s PCIe"));
	EXPECT_EQ(2.5, hf_link_speed("2.5 GT/s"));
	EXPECT_EQ(0, hf_link_speed("Unknown"));
}

TEST_HARNESS_MAIN
