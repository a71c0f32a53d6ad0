// SPDX-License-Identifier: GPL-2.0
/*
 * Outlier trace in the tool: record decoding (nothing trusted), printing,
 * durations and the trace/diagnose/report options.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kselftest_harness.h"

#include "blob.h"
#include "cmd/cmd.h"
#include "engine/view/view.h"
#include "lib/cgroup.h"
#include "lib/units.h"

#define ARGV(...)	((char *[]){ "gpulat", __VA_ARGS__, NULL })
#define ARGC(...)	((int)(sizeof((char *[]){ "gpulat", __VA_ARGS__ }) / sizeof(char *)))
#define parse(o, ...)	parse_argv(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o)

static char parse_err[1024];

static int parse_argv(int argc, char **argv, struct gpulat_opts *o)
{
	FILE *f = fmemopen(parse_err, sizeof(parse_err), "w");
	int ret = gpulat_parse_args(argc, argv, o, f);

	fclose(f);
	return ret;
}

static struct gpulat_rec_sample sample(void)
{
	struct gpulat_rec_sample s;

	memset(&s, 0, sizeof(s));
	s.hdr.size = sizeof(s);
	s.hdr.type = GPULAT_REC_SAMPLE;
	s.hdr.cpu = 1;
	s.hdr.time_ns = 123456789012ULL;
	s.family = GPULAT_FAM_SCHED;
	s.series = GPULAT_SCHED_WAKEUP;
	s.latency_ns = 12500000;
	s.pid = 42;
	s.tgid = 42;
	strcpy(s.comm, "victim");
	s.flags = GPULAT_REC_F_CULPRITS | GPULAT_REC_F_IRQ_TIME |
		  GPULAT_REC_F_SOFTIRQ_TIME;
	s.nr_culprits = 2;
	s.culprits[0].pid = 77;
	s.culprits[0].tgid = 77;
	s.culprits[0].ns = 11000000;
	strcpy(s.culprits[0].comm, "xmrig");
	s.culprits[1].pid = 78;
	s.culprits[1].tgid = -1;
	s.culprits[1].ns = 1000000;
	s.irq_ns = 200000;
	s.softirq_ns = 100000;
	s.other_ns = 500000;
	return s;
}

TEST(parse_sample_event_lost)
{
	unsigned char buf[512];
	struct gpulat_rec_sample s = sample();
	struct gpulat_rec_event e = { .hdr = { .size = sizeof(e),
		.type = GPULAT_REC_EVENT, .cpu = 3, .time_ns = 5 } };
	struct gpulat_rec_lost l = { .hdr = { .size = sizeof(l),
		.type = GPULAT_REC_LOST, .cpu = 0, .time_ns = 6 }, .lost = 99 };
	struct gl_trace_rec r;
	size_t off = 0, len = 0;

	e.event.type = GPULAT_EVENT_XID;
	e.event.code = 79;
	strcpy(e.event.device, "0000:3b:00.0");
	memcpy(buf + len, &s, sizeof(s));
	len += sizeof(s);
	memcpy(buf + len, &e, sizeof(e));
	len += sizeof(e);
	memcpy(buf + len, &l, sizeof(l));
	len += sizeof(l);

	ASSERT_EQ(1, gl_trace_parse(buf, len, &off, &r));
	EXPECT_EQ(GPULAT_REC_SAMPLE, r.type);
	EXPECT_EQ(1, r.cpu);
	EXPECT_EQ(12500000ULL, r.u.sample.latency_ns);
	EXPECT_STREQ("xmrig", r.u.sample.culprits[0].comm);
	ASSERT_EQ(1, gl_trace_parse(buf, len, &off, &r));
	EXPECT_EQ(GPULAT_REC_EVENT, r.type);
	EXPECT_EQ(79, r.u.event.event.code);
	ASSERT_EQ(1, gl_trace_parse(buf, len, &off, &r));
	EXPECT_EQ(GPULAT_REC_LOST, r.type);
	EXPECT_EQ(99, r.u.lost.lost);
	EXPECT_EQ(0, gl_trace_parse(buf, len, &off, &r));
	EXPECT_EQ(len, off);
}

TEST(parse_refuses_malformed)
{
	struct gpulat_rec_sample s = sample();
	unsigned char buf[512];
	struct gl_trace_rec r;
	size_t off;

	/* size 0, odd size, past the end, shorter than the first version */
	s.hdr.size = 0;
	memcpy(buf, &s, sizeof(s));
	off = 0;
	EXPECT_EQ(-EINVAL, gl_trace_parse(buf, sizeof(s), &off, &r));
	EXPECT_EQ(0, off);
	s.hdr.size = 20;
	memcpy(buf, &s, sizeof(s));
	EXPECT_EQ(-EINVAL, gl_trace_parse(buf, sizeof(s), &off, &r));
	s.hdr.size = sizeof(s);
	memcpy(buf, &s, sizeof(s));
	EXPECT_EQ(-EINVAL, gl_trace_parse(buf, sizeof(s) - 8, &off, &r));
	s.hdr.size = 64;
	memcpy(buf, &s, sizeof(s));
	EXPECT_EQ(-EINVAL, gl_trace_parse(buf, sizeof(s), &off, &r));
	/* a header cut short */
	EXPECT_EQ(-EINVAL, gl_trace_parse(buf, 8, &off, &r));
}

TEST(parse_normalizes)
{
	struct gpulat_rec_sample s = sample();
	struct gpulat_rec_header unknown = { .size = 24, .type = 77 };
	unsigned char buf[512];
	struct gl_trace_rec r;
	size_t off = 0;

	/* a newer, longer record: the known part is read, the rest skipped */
	memset(buf, 0xff, sizeof(buf));
	memset(s.comm, 'x', sizeof(s.comm));
	s.nr_culprits = 1000;
	s.hdr.size = sizeof(s) + 16;
	memcpy(buf, &s, sizeof(s));
	memcpy(buf + sizeof(s) + 16, &unknown, sizeof(unknown));
	ASSERT_EQ(1, gl_trace_parse(buf, sizeof(s) + 40, &off, &r));
	EXPECT_EQ(sizeof(s) + 16, off);
	EXPECT_EQ(GPULAT_COMM_LEN - 1, strlen(r.u.sample.comm));
	EXPECT_EQ(GPULAT_NR_CULPRITS, r.u.sample.nr_culprits);
	/* an unknown type is handed over with its header, and skipped */
	ASSERT_EQ(1, gl_trace_parse(buf, sizeof(s) + 40, &off, &r));
	EXPECT_EQ(77, r.type);
	EXPECT_EQ(sizeof(s) + 40, off);
}

static char *print(const struct gl_trace_rec *r, bool json)
{
	static char out[2048];
	FILE *f = fmemopen(out, sizeof(out), "w");

	if (json)
		trace_print_json(f, r, NULL);
	else
		trace_print_text(f, r, NULL);
	fclose(f);
	return out;
}

TEST(print_names_culprits)
{
	struct gpulat_rec_sample s = sample();
	struct gl_trace_rec r;
	size_t off = 0;
	char *t;

	ASSERT_EQ(1, gl_trace_parse(&s, sizeof(s), &off, &r));
	t = print(&r, false);
	EXPECT_NE(NULL, strstr(t, "123.456789 cpu1 sched.wakeup 12.5ms"));
	EXPECT_NE(NULL, strstr(t, "task victim/42"));
	EXPECT_NE(NULL, strstr(t, "held by xmrig/77 11.0ms, (exited)/78 1.00ms"));
	EXPECT_NE(NULL, strstr(t, "irq 200us, softirq 100us"));
	t = print(&r, true);
	EXPECT_NE(NULL, strstr(t, "\"series\":\"sched.wakeup\""));
	EXPECT_NE(NULL, strstr(t, "\"culprits\":[{\"pid\":77,\"tgid\":77,\"comm\":\"xmrig\",\"ns\":11000000}"));
	EXPECT_NE(NULL, strstr(t, "\"tgid\":null,\"comm\":null"));
	EXPECT_EQ('\n', t[strlen(t) - 1]);
	/* block: the disk as a key, no culprits */
	s.family = GPULAT_FAM_BLOCK;
	s.series = 1;
	s.key = (8 << 20) | 16;
	s.flags = 0;
	s.pid = 0;
	off = 0;
	ASSERT_EQ(1, gl_trace_parse(&s, sizeof(s), &off, &r));
	t = print(&r, false);
	EXPECT_NE(NULL, strstr(t, "block.read.device 12.5ms disk 0x800010"));
	EXPECT_EQ(NULL, strstr(t, "held by"));
}

/* VER0 records name no cgroup; VER1 ones do, with the flag alone. */
TEST(parse_cgroups)
{
	struct gpulat_rec_sample s = sample();
	unsigned char buf[512];
	struct gl_trace_rec r;
	size_t off = 0;

	s.flags |= GPULAT_REC_F_CGROUP;
	s.cgroup_id = 4242;
	s.culprit_cgroup[0] = 4343;
	s.hdr.size = GPULAT_REC_SAMPLE_SIZE_VER1;
	ASSERT_EQ(1, gl_trace_parse(&s, sizeof(s), &off, &r));
	EXPECT_EQ(4242, r.u.sample.cgroup_id);
	EXPECT_EQ(4343, r.u.sample.culprit_cgroup[0]);
	EXPECT_EQ(0, r.u.sample.culprit_cgroup[1]);
	/* VER0: what follows is the next record's, never read as ids */
	memset(buf, 0xee, sizeof(buf));
	s.hdr.size = GPULAT_REC_SAMPLE_SIZE_VER0;
	memcpy(buf, &s, GPULAT_REC_SAMPLE_SIZE_VER0);
	off = 0;
	ASSERT_EQ(1, gl_trace_parse(buf, GPULAT_REC_SAMPLE_SIZE_VER0, &off, &r));
	EXPECT_EQ(0, r.u.sample.cgroup_id);
	EXPECT_EQ(0, r.u.sample.culprit_cgroup[0]);
	EXPECT_FALSE(r.u.sample.flags & GPULAT_REC_F_CGROUP);
	/* VER1 without the flag: unknown */
	s.hdr.size = GPULAT_REC_SAMPLE_SIZE_VER1;
	s.flags &= ~GPULAT_REC_F_CGROUP;
	off = 0;
	ASSERT_EQ(1, gl_trace_parse(&s, sizeof(s), &off, &r));
	EXPECT_EQ(0, r.u.sample.cgroup_id);
}

#define H64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* Cgroups print as paths with the container named, on a fake mount. */
TEST(print_cgroups)
{
	char tree[] = "/tmp/gpulat-tcg-XXXXXX", p[PATH_MAX + 32];
	struct gpulat_rec_sample s = sample();
	struct gl_trace_rec r;
	struct stat st;
	size_t off = 0;
	char *t;

	ASSERT_NE(NULL, mkdtemp(tree));
	snprintf(p, sizeof(p), "%s/system.slice", tree);
	ASSERT_EQ(0, mkdir(p, 0755));
	snprintf(p, sizeof(p), "%s/system.slice/docker-" H64 ".scope", tree);
	ASSERT_EQ(0, mkdir(p, 0755));
	ASSERT_EQ(0, stat(p, &st));
	gl_cg_set_root(tree);
	s.flags |= GPULAT_REC_F_CGROUP;
	s.cgroup_id = 1;	/* no such directory */
	s.culprit_cgroup[0] = st.st_ino;
	ASSERT_EQ(1, gl_trace_parse(&s, sizeof(s), &off, &r));
	t = print(&r, false);
	EXPECT_NE(NULL, strstr(t, "task victim/42 cgroup 1 | held by xmrig/77 11.0ms cgroup /system.slice/docker-" H64 ".scope (docker 0123456789ab), (exited)/78 1.00ms, other"));
	t = print(&r, true);
	EXPECT_NE(NULL, strstr(t, "\"cgroup\":{\"id\":1,\"path\":null,\"container\":null}"));
	EXPECT_NE(NULL, strstr(t, "\"ns\":11000000,\"cgroup\":{\"id\":"));
	EXPECT_NE(NULL, strstr(t, ".scope\",\"container\":{\"kind\":\"docker\",\"id\":\"" H64 "\",\"short_id\":\"0123456789ab\"}}}"));
	/* the second culprit's cgroup is unknown: null */
	EXPECT_NE(NULL, strstr(t, "\"ns\":1000000,\"cgroup\":null}"));
	gl_cg_set_root(NULL);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/system.slice", tree);
	rmdir(p);
	rmdir(tree);
}

/* Names come from the snapshot where the module sends them, else the table. */
TEST(names_from_snapshot)
{
	struct gl_snapshot *names;
	char buf[GPULAT_NAME_LEN + 16];
	struct blob b;

	blob_init(&b);
	blob_add_series(&b, GPULAT_FAM_SCHED, 7, 0, 0, "sched.later", "");
	blob_add_series(&b, GPULAT_FAM_BLOCK, 1, GPULAT_CPU_NONE, 5, NULL,
			"sda");
	names = blob_parse(&b);
	ASSERT_NE(NULL, names);
	EXPECT_STREQ("sched.later",
		     trace_series_name(buf, sizeof(buf), names,
				       GPULAT_FAM_SCHED, 7));
	EXPECT_STREQ("family1.series7",
		     trace_series_name(buf, sizeof(buf), NULL,
				       GPULAT_FAM_SCHED, 7));
	EXPECT_STREQ("sched.wakeup",
		     trace_series_name(buf, sizeof(buf), names,
				       GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP));
	EXPECT_STREQ("sda", trace_key_name(names, GPULAT_FAM_BLOCK, 5));
	EXPECT_EQ(NULL, trace_key_name(names, GPULAT_FAM_BLOCK, 6));
	EXPECT_EQ(NULL, trace_key_name(NULL, GPULAT_FAM_BLOCK, 5));
	EXPECT_STREQ("RCU", trace_key_name(NULL, GPULAT_FAM_SOFTIRQ, 9));
	EXPECT_EQ(NULL, trace_key_name(NULL, GPULAT_FAM_SOFTIRQ, 10));
	gl_snapshot_free(names);
	blob_release(&b);
}

TEST(durations)
{
	uint64_t ns;

	ASSERT_EQ(0, units_parse_ns("5ms", &ns));
	EXPECT_EQ(5000000ULL, ns);
	ASSERT_EQ(0, units_parse_ns("250us", &ns));
	EXPECT_EQ(250000ULL, ns);
	ASSERT_EQ(0, units_parse_ns("1.5s", &ns));
	EXPECT_EQ(1500000000ULL, ns);
	ASSERT_EQ(0, units_parse_ns("800ns", &ns));
	EXPECT_EQ(800ULL, ns);
	ASSERT_EQ(0, units_parse_ns("0", &ns));
	EXPECT_EQ(0ULL, ns);
	EXPECT_EQ(-EINVAL, units_parse_ns("5", &ns));	/* unit needed */
	EXPECT_EQ(-EINVAL, units_parse_ns("ms", &ns));
	EXPECT_EQ(-EINVAL, units_parse_ns("-1ms", &ns));
	EXPECT_EQ(-EINVAL, units_parse_ns("1e3ms", &ns));
	EXPECT_EQ(-EINVAL, units_parse_ns("1.2.3ms", &ns));
	EXPECT_EQ(-EINVAL, units_parse_ns("2000s", &ns));
	EXPECT_EQ(-EINVAL, units_parse_ns("5 ms", &ns));
	EXPECT_EQ(-EINVAL, units_parse_ns("", &ns));
}

TEST(options)
{
	struct gpulat_opts o;

	ASSERT_EQ(0, parse(&o, "trace", "-t", "sched=2ms", "--threshold",
			   "block=off", "-j", "-d", "2.5"));
	EXPECT_EQ(GPULAT_CMD_TRACE, o.cmd);
	EXPECT_EQ(2000000ULL, o.thresholds[GPULAT_FAM_SCHED]);
	EXPECT_EQ(0ULL, o.thresholds[GPULAT_FAM_BLOCK]);
	EXPECT_EQ((1ULL << GPULAT_FAM_SCHED) | (1ULL << GPULAT_FAM_BLOCK),
		  o.thresholds_set);
	EXPECT_TRUE(o.json);
	EXPECT_EQ(2.5, o.duration_s);
	ASSERT_EQ(0, parse(&o, "report", "-o", "r.tar.gz", "-d", "20",
			   "--interval", "2", "-t", "nvidia=500us"));
	EXPECT_STREQ("r.tar.gz", o.output);
	EXPECT_EQ(2.0, o.report_interval_s);
	EXPECT_EQ(500000ULL, o.thresholds[GPULAT_FAM_NVIDIA]);
	ASSERT_EQ(0, parse(&o, "diagnose", "--duration", "3", "--json"));
	EXPECT_EQ(GPULAT_CMD_DIAGNOSE, o.cmd);

	EXPECT_EQ(GPULAT_EXIT_ERROR, parse(&o, "trace", "-t", "gpu=1ms"));
	EXPECT_NE(NULL, strstr(parse_err, "unknown family 'gpu'"));
	EXPECT_EQ(GPULAT_EXIT_ERROR, parse(&o, "trace", "-t", "sched"));
	EXPECT_NE(NULL, strstr(parse_err, "FAMILY=DURATION"));
	EXPECT_EQ(GPULAT_EXIT_ERROR, parse(&o, "trace", "-t", "sched=5"));
	EXPECT_NE(NULL, strstr(parse_err, "with a unit"));
	EXPECT_EQ(GPULAT_EXIT_ERROR, parse(&o, "trace", "-d", "0"));
	EXPECT_EQ(GPULAT_EXIT_ERROR, parse(&o, "diagnose", "-o", "x"));
	EXPECT_EQ(GPULAT_EXIT_ERROR, parse(&o, "report", "-d", "5",
					   "--interval", "10"));
	EXPECT_NE(NULL, strstr(parse_err, "longer than --duration"));
	EXPECT_EQ(GPULAT_EXIT_ERROR, parse(&o, "hist", "-t", "sched=1ms"));
}

TEST_HARNESS_MAIN
