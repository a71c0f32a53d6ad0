// SPDX-License-Identifier: GPL-2.0
/* gl_snapshot_parse on valid and malformed blobs; read and write. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "blob.h"
#include "gpulat_hist.h"
#include "gpulat_user.h"

#define HDR(buf)	((struct gpulat_snap_header *)(buf))

/* parse_err - parse @buf; the errno, with the message in @err */
static int parse_err(const void *buf, size_t len, char *err, size_t errlen)
{
	struct gl_snapshot *s = (void *)1;
	int ret;

	err[0] = '\0';
	ret = gl_snapshot_parse(buf, len, &s, err, errlen);
	if (!ret)
		gl_snapshot_free(s);
	else if (s)
		return -1000;	/* *out must be NULL on failure */
	return ret;
}

FIXTURE(sched) {
	struct blob b;
	unsigned char *buf;
	size_t len;
	char err[256];
};

FIXTURE_SETUP(sched)
{
	blob_sched(&self->b, 4);
	self->buf = blob_build(&self->b, &self->len);
}

FIXTURE_TEARDOWN(sched)
{
	free(self->buf);
	blob_release(&self->b);
}

TEST_F(sched, valid)
{
	const struct gpulat_series *sr;
	struct gl_snapshot *s;
	struct gl_hist h;
	uint64_t v;

	ASSERT_EQ(0, gl_snapshot_parse(self->buf, self->len, &s, self->err,
				       sizeof(self->err)));
	ASSERT_EQ(8, gl_snapshot_nr_series(s));
	ASSERT_EQ(3, gl_snapshot_nr_counters(s));
	ASSERT_EQ(3, gl_snapshot_nr_probes(s));
	ASSERT_EQ(NULL, gl_snapshot_series(s, 8));
	/* sorted by family, id, key, cpu */
	sr = gl_snapshot_series(s, 0);
	ASSERT_STREQ("sched.wakeup", sr->name);
	ASSERT_EQ(0, sr->cpu);
	sr = gl_snapshot_series(s, 4);
	ASSERT_STREQ("sched.preempt", sr->name);
	ASSERT_EQ(GPULAT_SCHED_PREEMPT, sr->id);
	ASSERT_TRUE(gl_snapshot_max_exact(s, 0));
	/* 4 CPUs x (100 + 10..13) */
	ASSERT_EQ(4, gl_hist_merge(s, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP,
				   GPULAT_CPU_NONE, &h));
	ASSERT_EQ(446, h.count);
	ASSERT_EQ(446, gl_hist_total(&h));
	ASSERT_EQ(40000, h.max_ns);
	ASSERT_EQ(100, h.slots[gpulat_hist_slot(3000)]);
	ASSERT_EQ(1, gl_hist_merge(s, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP,
				   2, &h));
	ASSERT_EQ(112, h.count);
	ASSERT_EQ(100ULL * 3200 + 12 * 40000, h.sum_ns);
	ASSERT_EQ(0, gl_hist_merge(s, GPULAT_FAM_SCHED, 7, GPULAT_CPU_NONE,
				   &h));
	ASSERT_EQ(0, h.count);
	ASSERT_EQ(0, gl_counter(s, GPULAT_FAM_SCHED, GPULAT_SCHED_NEGATIVE,
				&v));
	ASSERT_EQ(2, v);
	ASSERT_EQ(-ENOENT, gl_counter(s, GPULAT_FAM_SCHED, 9, &v));
	ASSERT_STREQ("sched_wakeup_new", gl_snapshot_probe(s, 2)->tracepoint);
	ASSERT_EQ(22, gl_snapshot_probe(s, 2)->error);
	ASSERT_EQ(1, gl_snapshot_header(s)->generation);
	gl_snapshot_free(s);
}

/* A newer minor: bigger header and entries, trailing bytes: all fine. */
TEST_F(sched, valid_larger_entries)
{
	struct gl_snapshot *s;
	unsigned char *buf;
	size_t len;

	self->b.hdr.abi_minor = 7;
	self->b.header_extra = 24;
	self->b.series_extra = 8;
	self->b.counter_extra = 16;
	self->b.probe_extra = 40;
	buf = blob_build(&self->b, &len);
	buf = realloc(buf, len + 100);
	memset(buf + len, 0xcc, 100);
	ASSERT_EQ(0, gl_snapshot_parse(buf, len + 100, &s, self->err,
				       sizeof(self->err)));
	ASSERT_EQ(8, gl_snapshot_nr_series(s));
	ASSERT_STREQ("sched.negative", gl_snapshot_counter(s, 2)->name);
	ASSERT_EQ(65432, gl_snapshot_probe(s, 1)->hits);
	gl_snapshot_free(s);
	free(buf);
}

TEST(valid_empty)
{
	struct gl_snapshot *s;
	struct blob b;
	char err[128];
	size_t len;
	void *buf;

	blob_init(&b);
	buf = blob_build(&b, &len);
	ASSERT_EQ(GPULAT_SNAP_HEADER_SIZE_VER1, len);
	ASSERT_EQ(0, gl_snapshot_parse(buf, len, &s, err, sizeof(err)));
	ASSERT_EQ(0, gl_snapshot_nr_series(s));
	ASSERT_EQ(0, gl_snapshot_nr_events(s));
	ASSERT_EQ(NULL, gl_snapshot_event(s, 0));
	gl_snapshot_free(s);
	free(buf);
	/* ABI 1.0: the header alone is 176 bytes */
	b.ver0 = true;
	buf = blob_build(&b, &len);
	ASSERT_EQ(GPULAT_SNAP_HEADER_SIZE_VER0, len);
	ASSERT_EQ(0, gl_snapshot_parse(buf, len, &s, err, sizeof(err)));
	ASSERT_EQ(0, gl_snapshot_nr_events(s));
	gl_snapshot_free(s);
	free(buf);
}

TEST_F(sched, truncated)
{
	size_t cut[] = { 0, 1, 8, GPULAT_SNAP_HEADER_SIZE_VER0 - 1,
			 GPULAT_SNAP_HEADER_SIZE_VER0,
			 GPULAT_SNAP_HEADER_SIZE_VER1 - 1,
			 GPULAT_SNAP_HEADER_SIZE_VER1, self->len - 1 };
	size_t i;

	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		ASSERT_EQ(-EBADMSG, parse_err(self->buf, cut[i], self->err,
					      sizeof(self->err)));
		ASSERT_NE(NULL, strstr(self->err, "truncated"));
	}
}

TEST_F(sched, bad_magic)
{
	HDR(self->buf)->magic = 0x74616c68;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "magic"));
}

TEST_F(sched, major_mismatch)
{
	HDR(self->buf)->abi_major = GPULAT_ABI_MAJOR + 1;
	ASSERT_EQ(-EPROTONOSUPPORT, parse_err(self->buf, self->len, self->err,
					      sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "incompatible"));
}

TEST_F(sched, header_size)
{
	HDR(self->buf)->header_size = GPULAT_SNAP_HEADER_SIZE_VER0 - 8;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	HDR(self->buf)->header_size = self->len + 1;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
}

TEST_F(sched, total_size)
{
	HDR(self->buf)->total_size = self->len + 1;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	HDR(self->buf)->total_size = 100;	/* below the header */
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	/* shorter total_size than the sections need */
	HDR(self->buf)->total_size = self->len - 8;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "probe section"));
}

TEST_F(sched, scheme_mismatch)
{
	HDR(self->buf)->hist_nr_buckets = GPULAT_HIST_NR_BUCKETS + 8;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "scheme"));
	HDR(self->buf)->hist_nr_buckets = GPULAT_HIST_NR_BUCKETS;
	HDR(self->buf)->hist_sub_bits = 4;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
}

TEST_F(sched, section_out_of_bounds)
{
	struct gpulat_snap_header *h = HDR(self->buf);

	h->series.count++;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "series section"));
	h->series.count--;
	h->counters.offset = self->len - 8;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	h->counters.offset = 16;	/* inside the header */
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	h->counters.offset = self->len + 4096;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
}

/* offset + count * entry_size wraps 64 bits: must not pass. */
TEST_F(sched, offset_overflow)
{
	struct gpulat_snap_header *h = HDR(self->buf);

	h->probes.offset = UINT64_MAX - 16;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	h->probes.offset = -(uint64_t)GPULAT_PROBE_SIZE_VER0 * 3 + 8;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	h->probes.offset = GPULAT_SNAP_HEADER_SIZE_VER0;
	h->probes.count = UINT32_MAX;
	h->probes.entry_size = UINT32_MAX;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
}

TEST_F(sched, entry_size_too_small)
{
	struct gpulat_snap_header *h = HDR(self->buf);

	h->series.entry_size = GPULAT_SERIES_SIZE_VER0;	/* no slots */
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "entry_size"));
	h->series.entry_size = GPULAT_SERIES_SIZE_VER0 +
			       GPULAT_HIST_NR_BUCKETS * 8 - 8;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	h->series.entry_size = GPULAT_SERIES_SIZE_VER0 +
			       GPULAT_HIST_NR_BUCKETS * 8;
	h->counters.entry_size = GPULAT_COUNTER_SIZE_VER0 - 8;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	h->counters.entry_size = GPULAT_COUNTER_SIZE_VER0;
	h->probes.entry_size = 0;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
}

TEST_F(sched, name_not_terminated)
{
	struct gpulat_snap_header *h = HDR(self->buf);
	struct gpulat_series *sr;
	struct gpulat_counter *c;
	struct gpulat_probe *p;
	unsigned char *copy = malloc(self->len);

	memcpy(copy, self->buf, self->len);
	sr = (void *)(self->buf + h->series.offset + h->series.entry_size);
	memset(sr->name, 'A', sizeof(sr->name));
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "NUL"));
	memcpy(self->buf, copy, self->len);
	memset(sr->key_name, 'k', sizeof(sr->key_name));
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	memcpy(self->buf, copy, self->len);
	c = (void *)(self->buf + h->counters.offset);
	memset(c->name, 'c', sizeof(c->name));
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	memcpy(self->buf, copy, self->len);
	p = (void *)(self->buf + h->probes.offset + 2 * h->probes.entry_size);
	memset(p->tracepoint, 't', sizeof(p->tracepoint));
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	memcpy(self->buf, copy, self->len);
	memset(p->family_name, 'f', sizeof(p->family_name));
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	memcpy(self->buf, copy, self->len);
	ASSERT_EQ(0, parse_err(self->buf, self->len, self->err,
			       sizeof(self->err)));
	free(copy);
}

TEST_F(sched, bad_cpu_and_duplicates)
{
	struct gpulat_snap_header *h = HDR(self->buf);
	struct gpulat_series *sr;
	struct gpulat_counter *c;

	sr = (void *)(self->buf + h->series.offset);
	sr->cpu = 4;	/* nr_cpu_ids is 4 */
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	sr->cpu = 1;	/* now two sched.wakeup on CPU 1 */
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "duplicate"));
	sr->cpu = 0;
	c = (void *)(self->buf + h->counters.offset);
	c->id = 1;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	c->id = 0;
	h->nr_cpu_ids = 0;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
}

/* Offsets not multiples of 8 are still read correctly (copied out). */
TEST_F(sched, unaligned_sections)
{
	struct gl_snapshot *s;
	unsigned char *buf;
	size_t len;

	self->b.header_extra = 3;
	self->b.series_extra = 5;
	buf = blob_build(&self->b, &len);
	ASSERT_EQ(0, gl_snapshot_parse(buf, len, &s, self->err,
				       sizeof(self->err)));
	ASSERT_EQ(111, gl_snapshot_series(s, 1)->count);
	gl_snapshot_free(s);
	free(buf);
}

TEST_F(sched, write_read_round_trip)
{
	char path[] = "/tmp/gpulat-test-XXXXXX";
	struct gl_snapshot *s, *r;
	const void *blob;
	size_t len;
	FILE *f;
	int fd;

	ASSERT_EQ(0, gl_snapshot_parse(self->buf, self->len, &s, self->err,
				       sizeof(self->err)));
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	f = fdopen(fd, "wb");
	ASSERT_EQ(0, gl_snapshot_write(s, f));
	fclose(f);
	ASSERT_EQ(0, gl_snapshot_read(path, &r, self->err, sizeof(self->err)));
	blob = gl_snapshot_blob(r, &len);
	ASSERT_EQ(self->len, len);
	ASSERT_EQ(0, memcmp(blob, self->buf, len));
	ASSERT_EQ(8, gl_snapshot_nr_series(r));
	gl_snapshot_free(r);
	/* a truncated file names itself in the error */
	ASSERT_EQ(0, truncate(path, 50));
	ASSERT_EQ(-EBADMSG, gl_snapshot_read(path, &r, self->err,
					     sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, path));
	unlink(path);
	ASSERT_EQ(-ENOENT, gl_snapshot_read(path, &r, self->err,
					    sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "cannot open"));
	gl_snapshot_free(s);
}

TEST(families)
{
	static const char *const names[] = {
		[GPULAT_FAM_SCHED] = "sched", [GPULAT_FAM_BLOCK] = "block",
		[GPULAT_FAM_NET] = "net", [GPULAT_FAM_IRQ] = "irq",
		[GPULAT_FAM_SOFTIRQ] = "softirq",
		[GPULAT_FAM_NVIDIA] = "nvidia", [GPULAT_FAM_MM] = "mm",
	};
	uint32_t f;

	ASSERT_STREQ("sched", gl_family_name(GPULAT_FAM_SCHED));
	ASSERT_EQ(NULL, gl_family_name(0));
	ASSERT_EQ(NULL, gl_family_name(GPULAT_FAM_MAX));
	ASSERT_EQ(GPULAT_FAM_SCHED, gl_family_lookup("sched"));
	ASSERT_EQ(-ENOENT, gl_family_lookup("sche"));
	ASSERT_EQ(-ENOENT, gl_family_lookup(""));
	ASSERT_EQ(-ENOENT, gl_family_lookup("softirqs"));
	ASSERT_EQ(7, gl_family_count());
	/* the table is in family order and round-trips */
	for (f = GPULAT_FAM_SCHED; f < GPULAT_FAM_MAX; f++) {
		ASSERT_EQ(f, gl_family_at(f - 1));
		ASSERT_STREQ(names[f], gl_family_name(f));
		ASSERT_EQ((int)f, gl_family_lookup(names[f]));
	}
	ASSERT_EQ(0, gl_family_at(7));
	ASSERT_STREQ("failed", gl_probe_state_name(GPULAT_PROBE_FAILED));
	ASSERT_EQ(NULL, gl_probe_state_name(4));
}

/* Not the gpulat device: every request fails with the ioctl's errno. */
TEST(requests_on_another_device)
{
	int fd = open("/dev/null", O_RDONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(-ENOTTY, gl_family_switch(fd, GPULAT_FAM_BLOCK, true));
	ASSERT_EQ(-ENOTTY, gl_family_switch(fd, GPULAT_FAM_BLOCK, false));
	ASSERT_EQ(-ENOTTY, gl_reset(fd));
	close(fd);
	ASSERT_EQ(-EBADF, gl_family_switch(fd, GPULAT_FAM_SCHED, true));
}

/* --- The events section (ABI 1.1) --- */

FIXTURE(events) {
	struct blob b;
	unsigned char *buf;
	size_t len;
	char err[256];
};

FIXTURE_SETUP(events)
{
	blob_families(&self->b);
	self->buf = blob_build(&self->b, &self->len);
}

FIXTURE_TEARDOWN(events)
{
	free(self->buf);
	blob_release(&self->b);
}

/* EVT - event @i of the blob in @buf */
#define EVT(buf, i) ((struct gpulat_event *)((buf) + HDR(buf)->events.offset + \
					     (i) * HDR(buf)->events.entry_size))

TEST_F(events, valid)
{
	const struct gpulat_event *e;
	struct gl_snapshot *s;

	ASSERT_EQ(GPULAT_SNAP_HEADER_SIZE_VER1, HDR(self->buf)->header_size);
	ASSERT_EQ(0, gl_snapshot_parse(self->buf, self->len, &s, self->err,
				       sizeof(self->err)));
	ASSERT_EQ(16, gl_snapshot_nr_series(s));
	ASSERT_EQ(11, gl_snapshot_nr_probes(s));
	ASSERT_EQ(2, gl_snapshot_nr_events(s));
	e = gl_snapshot_event(s, 0);	/* module order: oldest first */
	ASSERT_EQ(8000000000ULL, e->time_ns);
	ASSERT_EQ(GPULAT_EVENT_XID, e->type);
	ASSERT_EQ(79, e->code);
	ASSERT_EQ(1, e->cpu);
	ASSERT_STREQ("0000:3b:00.0", e->device);
	ASSERT_EQ(13, gl_snapshot_event(s, 1)->code);
	ASSERT_EQ(NULL, gl_snapshot_event(s, 2));
	ASSERT_EQ(2, gl_snapshot_header(s)->events.count);
	gl_snapshot_free(s);
}

/* Keyed series merge over keys, or one key alone. */
TEST_F(events, keyed_merge)
{
	struct gl_snapshot *s;
	struct gl_hist h;
	uint32_t id = GPULAT_BLOCK_SERIES(GPULAT_BLOCK_READ,
					  GPULAT_BLOCK_DEVICE);

	ASSERT_EQ(0, gl_snapshot_parse(self->buf, self->len, &s, self->err,
				       sizeof(self->err)));
	ASSERT_EQ(2, gl_hist_merge(s, GPULAT_FAM_BLOCK, id, GPULAT_CPU_NONE,
				   &h));
	ASSERT_EQ(14, h.count);
	ASSERT_EQ(10ULL * 100000 + 4 * 1000000, h.sum_ns);
	ASSERT_EQ(1000000, h.max_ns);
	ASSERT_EQ(1, gl_hist_merge_key(s, GPULAT_FAM_BLOCK, id, BLOB_SDA,
				       GPULAT_CPU_NONE, &h));
	ASSERT_EQ(10, h.count);
	ASSERT_EQ(100000, h.max_ns);
	ASSERT_EQ(2, gl_hist_merge(s, GPULAT_FAM_SOFTIRQ,
				   GPULAT_SOFTIRQ_SERIES(3, GPULAT_SOFTIRQ_RUN),
				   GPULAT_CPU_NONE, &h));
	ASSERT_EQ(10, h.count);
	ASSERT_EQ(1, gl_hist_merge(s, GPULAT_FAM_SOFTIRQ,
				   GPULAT_SOFTIRQ_SERIES(3, GPULAT_SOFTIRQ_RUN),
				   1, &h));
	ASSERT_EQ(3, h.count);
	gl_snapshot_free(s);
}

/* A newer minor: bigger event entries and header still parse. */
TEST_F(events, larger_entries)
{
	struct gl_snapshot *s;
	unsigned char *buf;
	size_t len;

	self->b.event_extra = 24;
	self->b.header_extra = 40;
	self->b.hdr.abi_minor = 9;
	buf = blob_build(&self->b, &len);
	ASSERT_EQ(GPULAT_EVENT_SIZE_VER0 + 24, HDR(buf)->events.entry_size);
	ASSERT_EQ(0, gl_snapshot_parse(buf, len, &s, self->err,
				       sizeof(self->err)));
	ASSERT_EQ(2, gl_snapshot_nr_events(s));
	ASSERT_STREQ("0000:86:00.0", gl_snapshot_event(s, 1)->device);
	ASSERT_EQ(9500000000ULL, gl_snapshot_event(s, 1)->time_ns);
	gl_snapshot_free(s);
	free(buf);
}

/*
 * ABI 1.0: the 176-byte header has no events section, whatever the bytes
 * after it (the first series here) hold; a header between the two sizes
 * has none either.
 */
TEST_F(events, ver0_has_none)
{
	struct gl_snapshot *s;
	unsigned char *buf;
	size_t len;

	self->b.ver0 = true;
	buf = blob_build(&self->b, &len);
	ASSERT_EQ(GPULAT_SNAP_HEADER_SIZE_VER0, HDR(buf)->header_size);
	ASSERT_EQ(GPULAT_SNAP_HEADER_SIZE_VER0, HDR(buf)->series.offset);
	/* where a VER1 header has events.count, a series has bytes */
	memset(buf + GPULAT_SNAP_HEADER_SIZE_VER0, 0xff, 16);
	ASSERT_EQ(0, gl_snapshot_parse(buf, len, &s, self->err,
				       sizeof(self->err)));
	ASSERT_EQ(0, gl_snapshot_nr_events(s));
	ASSERT_EQ(0, gl_snapshot_header(s)->events.count);
	ASSERT_EQ(0, gl_snapshot_header(s)->events.offset);
	ASSERT_EQ(16, gl_snapshot_nr_series(s));
	gl_snapshot_free(s);
	free(buf);
	self->b.header_extra = 8;	/* 184 bytes */
	buf = blob_build(&self->b, &len);
	ASSERT_EQ(0, gl_snapshot_parse(buf, len, &s, self->err,
				       sizeof(self->err)));
	ASSERT_EQ(0, gl_snapshot_nr_events(s));
	gl_snapshot_free(s);
	free(buf);
}

TEST_F(events, entry_size_too_small)
{
	HDR(self->buf)->events.entry_size = GPULAT_EVENT_SIZE_VER0 - 8;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "event entry_size 48"));
	HDR(self->buf)->events.entry_size = 0;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	/* no entries: the entry size does not matter */
	HDR(self->buf)->events.count = 0;
	ASSERT_EQ(0, parse_err(self->buf, self->len, self->err,
			       sizeof(self->err)));
}

TEST_F(events, out_of_bounds)
{
	struct gpulat_snap_header *h = HDR(self->buf);
	uint64_t off = h->events.offset;

	h->events.count++;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "event section"));
	h->events.count--;
	h->events.offset = off + 1;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	h->events.offset = GPULAT_SNAP_HEADER_SIZE_VER1 - 8; /* in the header */
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	h->events.offset = UINT64_MAX - 16;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	h->events.offset = -(uint64_t)GPULAT_EVENT_SIZE_VER0 * 2 + 8;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	h->events.offset = off;
	h->events.count = UINT32_MAX;
	h->events.entry_size = UINT32_MAX;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	h->events.count = 2;
	h->events.entry_size = GPULAT_EVENT_SIZE_VER0;
	/* total_size that ends inside the last event */
	h->total_size = self->len - 1;
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	h->total_size = self->len;
	ASSERT_EQ(0, parse_err(self->buf, self->len, self->err,
			       sizeof(self->err)));
	/* the blob ends inside the last event */
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len - 1, self->err,
				      sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "truncated"));
}

TEST_F(events, device_not_terminated)
{
	memset(EVT(self->buf, 1)->device, '0', sizeof(EVT(self->buf, 1)->device));
	ASSERT_EQ(-EBADMSG, parse_err(self->buf, self->len, self->err,
				      sizeof(self->err)));
	ASSERT_STREQ("event 1: device not NUL-terminated", self->err);
	EVT(self->buf, 1)->device[31] = '\0';
	ASSERT_EQ(0, parse_err(self->buf, self->len, self->err,
			       sizeof(self->err)));
}

/* A saved VER1 file reads back with its events. */
TEST_F(events, write_read_round_trip)
{
	char path[] = "/tmp/gpulat-test-XXXXXX";
	struct gl_snapshot *s, *r;
	const void *blob;
	size_t len;
	FILE *f;
	int fd;

	ASSERT_EQ(0, gl_snapshot_parse(self->buf, self->len, &s, self->err,
				       sizeof(self->err)));
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	f = fdopen(fd, "wb");
	ASSERT_EQ(0, gl_snapshot_write(s, f));
	fclose(f);
	ASSERT_EQ(0, gl_snapshot_read(path, &r, self->err, sizeof(self->err)));
	blob = gl_snapshot_blob(r, &len);
	ASSERT_EQ(self->len, len);
	ASSERT_EQ(0, memcmp(blob, self->buf, len));
	ASSERT_EQ(2, gl_snapshot_nr_events(r));
	ASSERT_EQ(13, gl_snapshot_event(r, 1)->code);
	gl_snapshot_free(r);
	gl_snapshot_free(s);
	unlink(path);
}

TEST(open_without_module)
{
	char err[256];
	int fd;

	if (!access(GPULAT_DEVICE_PATH, F_OK))
		SKIP(return, "%s exists on this machine", GPULAT_DEVICE_PATH);
	fd = gl_open(err, sizeof(err));
	ASSERT_EQ(-ENOENT, fd);
	ASSERT_TRUE(gl_no_module(fd));
	ASSERT_NE(NULL, strstr(err, "not loaded"));
	/* how to load it depends on the host: test_install.c */
	ASSERT_NE(NULL, strstr(err, "modprobe gpulat") ?: strstr(err, "insmod "));
}

TEST_HARNESS_MAIN
