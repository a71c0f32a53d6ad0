// SPDX-License-Identifier: GPL-2.0
/*
 * The status view (user/cmd/status.c) as text and JSON: families and why
 * one is off, tracepoints, drops, Xid events, the kernel release.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "gpulat_hist.h"
#include "views.h"

TEST_F(view, status_views)
{
	char *t = render(self->s, &self->v, VIEW_STATUS_TEXT);
	char abi[64];

	ASSERT_LT(longest_line(t), 80);
	/* the test snapshot is of this tool's ABI */
	snprintf(abi, sizeof(abi), "abi:          module %u.%u, tool %u.%u",
		 GPULAT_ABI_MAJOR, GPULAT_ABI_MINOR, GPULAT_ABI_MAJOR,
		 GPULAT_ABI_MINOR);
	ASSERT_TRUE(has_line(t, abi));
	ASSERT_TRUE(has_line(t, "kernel:       6.1.0-test"));
	/* one tracepoint failed, two attached: the family runs */
	ASSERT_TRUE(has_line(t, "family sched: attached"));
	/* families the module does not have: one line each */
	ASSERT_TRUE(has_line(t, "family block: unavailable, no tracepoints in this module"));
	ASSERT_TRUE(has_line(t, "xid events:   none"));
	ASSERT_TRUE(has_line(t, "  tracepoint  sched_switch               attached  hits 123456"));
	ASSERT_TRUE(has_line(t, "  tracepoint  sched_wakeup_new           failed    hits 0  (EINVAL)"));
	ASSERT_TRUE(has_line(t, "  drops:      sched.no_start 0, sched.evicted 1, sched.negative 2"));
	free(t);
	t = render(self->s, &self->v, VIEW_STATUS_JSON);
	ASSERT_NE(NULL, strstr(t, "\"state\":\"failed\",\"error\":22"));
	ASSERT_NE(NULL, strstr(t, "\"events\":[]"));
	ASSERT_EQ(0, check_json(t, "status", GPULAT_FAM_MAX - 1));
	free(t);
	t = render(NULL, &self->v, VIEW_STATUS_JSON);
	ASSERT_NE(NULL, strstr(t, "\"loaded\":false"));
	ASSERT_EQ(0, check_json(t, "status", 0));
	free(t);
}

/* A snapshot names the kernel it came from; that beats this host's uname. */
TEST(kernel_release_from_blob)
{
	struct gl_snapshot *s;
	struct blob b;
	struct view v;
	char *t;

	blob_sched(&b, 2);
	/* no terminating NUL: the parser must add one */
	memset(b.hdr.kernel_release, 'x', sizeof(b.hdr.kernel_release));
	memcpy(b.hdr.kernel_release, "6.12.0-guest", 12);
	s = blob_parse(&b);
	ASSERT_NE(NULL, s);
	memset(&v, 0, sizeof(v));
	v.kernel = "6.1.0-host";
	t = render(s, &v, VIEW_STATUS_TEXT);
	ASSERT_TRUE(has_line(t, "kernel:       6.12.0-guest"
			     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
	free(t);
	t = render(s, &v, VIEW_HIST_JSON);
	ASSERT_NE(NULL, strstr(t, "\"kernel\":\"6.12.0-guest"));
	free(t);
	gl_snapshot_free(s);
	blob_release(&b);
}

/* Longest tracepoint names, states, hits and errnos stay below 80. */
TEST(hostile_probes)
{
	static const char tp[] = "tp_0123456789012345678901234567890123456789abc";
	struct gl_snapshot *s;
	struct view v = { 0 };
	struct blob b;
	char *t;

	blob_init(&b);
	blob_add_probe(&b, GPULAT_FAM_IRQ, GPULAT_PROBE_FAILED, UINT32_MAX,
		       "irq", tp, UINT64_MAX);
	blob_add_probe(&b, GPULAT_FAM_IRQ, UINT32_MAX, 0, "irq", tp, 5);
	blob_add_probe(&b, GPULAT_FAM_BLOCK, GPULAT_PROBE_MISSING, 0, "block",
		       tp, 0);
	blob_add_probe(&b, GPULAT_FAM_BLOCK, GPULAT_PROBE_MISSING, 0, "block",
		       "block_rq_issue", 0);
	s = blob_parse(&b);
	ASSERT_NE(NULL, s);
	t = render(s, &v, VIEW_STATUS_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "family irq: unavailable, registration failed: errno 4294967295"));
	ASSERT_TRUE(has_line(t, "  tracepoint  tp_012345678901234567 failed    hits 1.84e+19  (errno 4294967295)"));
	ASSERT_TRUE(has_line(t, "  tracepoint  tp_01234567890123456789012345678901234567 state 4294967295 hits 5"));
	ASSERT_TRUE(has_line(t, "  missing:    tp_0123456789012345678901234567890123456789abc, block_rq_issue"));
	free(t);
	t = render(s, &v, VIEW_STATUS_JSON);
	ASSERT_EQ(0, check_json(t, "status", GPULAT_FAM_MAX - 1));
	free(t);
	gl_snapshot_free(s);
	blob_release(&b);
}

/* status: each family's state and why, drops, the Xid events. */
TEST_F(fam, status_text)
{
	char *t;

	self->v.kernel = "6.12.0-test";
	t = render(self->s, &self->v, VIEW_STATUS_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "families:     sched unavailable, block attached, net off, irq unavailable,"));
	/* a family after mm would follow on this line */
	ASSERT_NE(NULL, strstr(t, "\n              softirq unavailable, nvidia unavailable, mm attached"));
	ASSERT_TRUE(has_line(t, "xid events:   2"));
	/* snapshot at 10 s: 2 s and 0.5 s before */
	ASSERT_TRUE(has_line(t, "     2.00s ago  0000:3b:00.0   Xid 79"));
	ASSERT_TRUE(has_line(t, "     500ms ago  0000:86:00.0   Xid 13"));
	ASSERT_TRUE(has_line(t, "family sched: unavailable, no tracepoints in this module"));
	ASSERT_TRUE(has_line(t, "family block: attached"));
	ASSERT_TRUE(has_line(t, "  tracepoint  block_rq_issue             attached  hits 24"));
	ASSERT_TRUE(has_line(t, "family net: off (switched off, or not switched on at load)"));
	ASSERT_TRUE(has_line(t, "  tracepoint  net_dev_xmit               disabled  hits 6"));
	ASSERT_TRUE(has_line(t, "  drops:      net.expired 2"));
	ASSERT_TRUE(has_line(t, "family irq: unavailable, registration failed: EBUSY"));
	ASSERT_TRUE(has_line(t, "  failed:     irq_handler_entry, EBUSY (errno 16)"));
	ASSERT_TRUE(has_line(t, "family softirq: unavailable, tracepoints missing on this kernel"));
	ASSERT_TRUE(has_line(t, "  missing:    softirq_raise, softirq_exit"));
	ASSERT_TRUE(has_line(t, "  series:     5"));
	ASSERT_TRUE(has_line(t, "family nvidia: unavailable, no tracepoints in this module"));
	ASSERT_TRUE(has_line(t, "  drops:      nvidia.xid_lost 3"));
	ASSERT_TRUE(has_line(t, "family mm: attached"));
	free(t);
}

TEST_F(fam, status_json)
{
	char *t = render(self->s, &self->v, VIEW_STATUS_JSON);

	ASSERT_EQ(0, check_json(t, "status", GPULAT_FAM_MAX - 1));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"softirq\",\"state\":\"unavailable\",\"reason\":\"tracepoints missing on this kernel\",\"missing\":[\"softirq_raise\",\"softirq_exit\"],\"error\":null,\"error_name\":null,\"series\":5,"));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"irq\",\"state\":\"unavailable\",\"reason\":\"registration failed\",\"missing\":[],\"error\":16,\"error_name\":\"EBUSY\",\"series\":2,"));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"net\",\"state\":\"off\",\"reason\":\"switched off, or not switched on at load\","));
	ASSERT_NE(NULL, strstr(t, "{\"family\":\"block\",\"state\":\"attached\",\"reason\":null,"));
	ASSERT_NE(NULL, strstr(t, "\"drops\":{\"nvidia.xid_lost\":3}"));
	ASSERT_NE(NULL, strstr(t, "\"events\":[{\"type\":\"xid\",\"code\":79,\"device\":\"0000:3b:00.0\",\"cpu\":1,\"time_ns\":8000000000,\"age_ns\":2000000000},{\"type\":\"xid\",\"code\":13,"));
	free(t);
}

/* More events than shown, odd ones, hostile devices; ABI 1.0 has none. */
TEST(status_events)
{
	struct gl_snapshot *s;
	struct view v = { 0 };
	char abi[64];
	struct blob b;
	uint32_t i;
	char *t;

	blob_init(&b);
	for (i = 0; i < 12; i++)
		blob_add_event(&b, 1000000000ULL * i, GPULAT_EVENT_XID, 100 + i,
			       0, "0000:3b:00.0");
	blob_add_event(&b, UINT64_MAX, 7, UINT32_MAX, GPULAT_CPU_NONE,
		       "\x1b[2J0123456789012345678901234567");
	s = blob_parse(&b);
	ASSERT_NE(NULL, s);
	t = render(s, &v, VIEW_STATUS_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "xid events:   13, the last 10:"));
	ASSERT_EQ(NULL, strstr(t, "Xid 102"));
	ASSERT_TRUE(has_line(t, "     7.00s ago  0000:3b:00.0   Xid 103"));
	/* a time after the snapshot's reads as now */
	ASSERT_TRUE(has_line(t, "       0ns ago  ?[2J01234567890123456789 type 7 code 4294967295"));
	ASSERT_EQ(NULL, strstr(t, "\x1b"));
	free(t);
	t = render(s, &v, VIEW_STATUS_JSON);
	ASSERT_EQ(0, check_json(t, "status", GPULAT_FAM_MAX - 1));
	ASSERT_NE(NULL, strstr(t, "{\"type\":7,\"code\":4294967295,\"device\":\"\\u001b[2J012345678901234567890123456\",\"cpu\":null,\"time_ns\":18446744073709551615,\"age_ns\":0}]"));
	free(t);
	gl_snapshot_free(s);
	b.ver0 = true;
	s = blob_parse(&b);
	ASSERT_NE(NULL, s);
	t = render(s, &v, VIEW_STATUS_TEXT);
	snprintf(abi, sizeof(abi), "abi:          module 1.0, tool %u.%u",
		 GPULAT_ABI_MAJOR, GPULAT_ABI_MINOR);
	ASSERT_TRUE(has_line(t, abi));
	ASSERT_TRUE(has_line(t, "xid events:   none"));
	free(t);
	gl_snapshot_free(s);
	blob_release(&b);
}

TEST_HARNESS_MAIN
