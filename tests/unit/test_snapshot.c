// SPDX-License-Identifier: GPL-2.0
/*
 * gl_snapshot_parse on valid and malformed blobs; read and write; the
 * family names and requests on a device that is not gpulat's.  The events
 * section is test_events.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "blob.h"
#include "gpulat_hist.h"
#include "lib/gpulat_user.h"
#include "lib/libinternal.h"

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
		ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, cut[i], self->err,
						   sizeof(self->err)));
		ASSERT_NE(NULL, strstr(self->err, "truncated"));
	}
}

TEST_F(sched, bad_magic)
{
	BLOB_HDR(self->buf)->magic = 0x74616c68;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "magic"));
}

TEST_F(sched, major_mismatch)
{
	BLOB_HDR(self->buf)->abi_major = GPULAT_ABI_MAJOR + 1;
	ASSERT_EQ(-EPROTONOSUPPORT,
		  blob_parse_err(self->buf, self->len, self->err,
				 sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "incompatible"));
}

TEST_F(sched, header_size)
{
	BLOB_HDR(self->buf)->header_size = GPULAT_SNAP_HEADER_SIZE_VER0 - 8;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	BLOB_HDR(self->buf)->header_size = self->len + 1;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
}

TEST_F(sched, total_size)
{
	BLOB_HDR(self->buf)->total_size = self->len + 1;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	BLOB_HDR(self->buf)->total_size = 100;	/* below the header */
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	/* shorter total_size than the sections need */
	BLOB_HDR(self->buf)->total_size = self->len - 8;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "probe section"));
}

TEST_F(sched, scheme_mismatch)
{
	BLOB_HDR(self->buf)->hist_nr_buckets = GPULAT_HIST_NR_BUCKETS + 8;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "scheme"));
	BLOB_HDR(self->buf)->hist_nr_buckets = GPULAT_HIST_NR_BUCKETS;
	BLOB_HDR(self->buf)->hist_sub_bits = 4;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
}

TEST_F(sched, section_out_of_bounds)
{
	struct gpulat_snap_header *h = BLOB_HDR(self->buf);

	h->series.count++;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "series section"));
	h->series.count--;
	h->counters.offset = self->len - 8;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	h->counters.offset = 16;	/* inside the header */
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	h->counters.offset = self->len + 4096;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
}

/* offset + count * entry_size wraps 64 bits: must not pass. */
TEST_F(sched, offset_overflow)
{
	struct gpulat_snap_header *h = BLOB_HDR(self->buf);

	h->probes.offset = UINT64_MAX - 16;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	h->probes.offset = -(uint64_t)GPULAT_PROBE_SIZE_VER0 * 3 + 8;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	h->probes.offset = GPULAT_SNAP_HEADER_SIZE_VER0;
	h->probes.count = UINT32_MAX;
	h->probes.entry_size = UINT32_MAX;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
}

TEST_F(sched, entry_size_too_small)
{
	struct gpulat_snap_header *h = BLOB_HDR(self->buf);

	h->series.entry_size = GPULAT_SERIES_SIZE_VER0;	/* no slots */
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "entry_size"));
	h->series.entry_size = GPULAT_SERIES_SIZE_VER0 +
			       GPULAT_HIST_NR_BUCKETS * 8 - 8;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	h->series.entry_size = GPULAT_SERIES_SIZE_VER0 +
			       GPULAT_HIST_NR_BUCKETS * 8;
	h->counters.entry_size = GPULAT_COUNTER_SIZE_VER0 - 8;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	h->counters.entry_size = GPULAT_COUNTER_SIZE_VER0;
	h->probes.entry_size = 0;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
}

TEST_F(sched, name_not_terminated)
{
	struct gpulat_snap_header *h = BLOB_HDR(self->buf);
	struct gpulat_series *sr;
	struct gpulat_counter *c;
	struct gpulat_probe *p;
	unsigned char *copy = malloc(self->len);

	memcpy(copy, self->buf, self->len);
	sr = (void *)(self->buf + h->series.offset + h->series.entry_size);
	memset(sr->name, 'A', sizeof(sr->name));
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "NUL"));
	memcpy(self->buf, copy, self->len);
	memset(sr->key_name, 'k', sizeof(sr->key_name));
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	memcpy(self->buf, copy, self->len);
	c = (void *)(self->buf + h->counters.offset);
	memset(c->name, 'c', sizeof(c->name));
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	memcpy(self->buf, copy, self->len);
	p = (void *)(self->buf + h->probes.offset + 2 * h->probes.entry_size);
	memset(p->tracepoint, 't', sizeof(p->tracepoint));
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	memcpy(self->buf, copy, self->len);
	memset(p->family_name, 'f', sizeof(p->family_name));
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	memcpy(self->buf, copy, self->len);
	ASSERT_EQ(0, blob_parse_err(self->buf, self->len, self->err,
				    sizeof(self->err)));
	free(copy);
}

TEST_F(sched, bad_cpu_and_duplicates)
{
	struct gpulat_snap_header *h = BLOB_HDR(self->buf);
	struct gpulat_series *sr;
	struct gpulat_counter *c;

	sr = (void *)(self->buf + h->series.offset);
	sr->cpu = 4;	/* nr_cpu_ids is 4 */
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	sr->cpu = 1;	/* now two sched.wakeup on CPU 1 */
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "duplicate"));
	sr->cpu = 0;
	c = (void *)(self->buf + h->counters.offset);
	c->id = 1;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	c->id = 0;
	h->nr_cpu_ids = 0;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
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

/*
 * The series read where they lie (sorted, as the sources write them) or
 * copied and sorted (the fixture's order) read alike, and merge alike.
 */
TEST_F(sched, sorted_in_place_or_copied_alike)
{
	struct gl_snapshot *a, *b;
	struct gl_hist ha, hb;
	uint32_t id, cpu;
	size_t i;

	ASSERT_EQ(0, gl_snapshot_parse(self->buf, self->len, &a, self->err,
				       sizeof(self->err)));
	ASSERT_FALSE(a->series_in_blob);
	/* the blob rebuilt from the sorted copy: sorted */
	ASSERT_EQ(0, gl_snapshot_build_blob(a));
	ASSERT_EQ(0, gl_snapshot_parse(a->blob, a->blob_len, &b, self->err,
				       sizeof(self->err)));
	ASSERT_TRUE(b->series_in_blob);
	ASSERT_EQ(gl_snapshot_nr_series(a), gl_snapshot_nr_series(b));
	for (i = 0; i < gl_snapshot_nr_series(a); i++)
		ASSERT_EQ(0, memcmp(gl_snapshot_series(a, i),
				    gl_snapshot_series(b, i), GL_SERIES_STRIDE));
	for (id = 0; id < 3; id++)
		for (cpu = 0; cpu <= 4; cpu++) {
			uint32_t c = cpu == 4 ? GPULAT_CPU_NONE : cpu;

			ASSERT_EQ(gl_hist_merge(a, GPULAT_FAM_SCHED, id, c, &ha),
				  gl_hist_merge(b, GPULAT_FAM_SCHED, id, c, &hb));
			ASSERT_EQ(0, memcmp(&ha, &hb, sizeof(ha)));
			ASSERT_EQ(gl_hist_merge_key(a, GPULAT_FAM_SCHED, id, 0,
						    c, &ha),
				  gl_hist_merge_key(b, GPULAT_FAM_SCHED, id, 0,
						    c, &hb));
			ASSERT_EQ(0, memcmp(&ha, &hb, sizeof(ha)));
		}
	/* rebuilding the blob of series that lie in it changes nothing */
	ASSERT_EQ(0, gl_snapshot_build_blob(b));
	ASSERT_TRUE(b->series_in_blob);
	gl_snapshot_free(a);
	gl_snapshot_free(b);
}

/* A second owner keeps a snapshot whole until it lets go too. */
TEST_F(sched, shared_until_the_last_owner)
{
	struct gl_snapshot *s, *r;

	ASSERT_EQ(0, gl_snapshot_parse(self->buf, self->len, &s, self->err,
				       sizeof(self->err)));
	r = gl_snapshot_ref(s);
	ASSERT_EQ(s, r);
	gl_snapshot_free(s);
	ASSERT_EQ(8, gl_snapshot_nr_series(r));
	ASSERT_STREQ("sched.wakeup", gl_snapshot_series(r, 0)->name);
	gl_snapshot_free(r);
}

/* An empty series section's offset is never checked, so never used. */
TEST_F(sched, empty_series_offset_unused)
{
	struct gpulat_snap_header *h = BLOB_HDR(self->buf);
	struct gl_snapshot *s;

	h->series.count = 0;
	h->series.offset = ~0ULL - 4096;
	ASSERT_EQ(0, gl_snapshot_parse(self->buf, self->len, &s, self->err,
				       sizeof(self->err)));
	ASSERT_EQ(0, gl_snapshot_nr_series(s));
	gl_snapshot_free(s);
}

TEST_F(sched, write_read_round_trip)
{
	char path[] = "/tmp/gpulat-test-XXXXXX";
	struct gl_snapshot *r;
	const void *blob;
	size_t len;

	ASSERT_EQ(0, blob_round_trip(self->buf, self->len, path, &r,
				     self->err, sizeof(self->err)));
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
	ASSERT_EQ(GPULAT_FAM_MAX - 1, gl_family_count());
	/* the table is in family order, round-trips, and keeps these names */
	for (f = GPULAT_FAM_SCHED; f < GPULAT_FAM_MAX; f++) {
		ASSERT_EQ(f, gl_family_at(f - 1));
		ASSERT_NE(NULL, gl_family_name(f));
		ASSERT_EQ((int)f, gl_family_lookup(gl_family_name(f)));
		if (f < sizeof(names) / sizeof(names[0]))
			ASSERT_STREQ(names[f], gl_family_name(f));
	}
	ASSERT_EQ(0, gl_family_at(GPULAT_FAM_MAX - 1));
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
