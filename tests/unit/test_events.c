// SPDX-License-Identifier: GPL-2.0
/*
 * The events section of a snapshot (ABI 1.1): parsing valid and malformed
 * ones, keyed merges beside it, ABI 1.0 blobs without it, and its
 * write/read round trip.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "blob.h"
#include "gpulat_hist.h"
#include "lib/gpulat_user.h"

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
#define EVT(buf, i) \
	((struct gpulat_event *)((buf) + BLOB_HDR(buf)->events.offset + \
				 (i) * BLOB_HDR(buf)->events.entry_size))

TEST_F(events, valid)
{
	const struct gpulat_event *e;
	struct gl_snapshot *s;

	ASSERT_EQ(GPULAT_SNAP_HEADER_SIZE_VER1,
		  BLOB_HDR(self->buf)->header_size);
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
	ASSERT_EQ(GPULAT_EVENT_SIZE_VER0 + 24,
		  BLOB_HDR(buf)->events.entry_size);
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
	ASSERT_EQ(GPULAT_SNAP_HEADER_SIZE_VER0, BLOB_HDR(buf)->header_size);
	ASSERT_EQ(GPULAT_SNAP_HEADER_SIZE_VER0, BLOB_HDR(buf)->series.offset);
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
	BLOB_HDR(self->buf)->events.entry_size = GPULAT_EVENT_SIZE_VER0 - 8;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "event entry_size 48"));
	BLOB_HDR(self->buf)->events.entry_size = 0;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	/* no entries: the entry size does not matter */
	BLOB_HDR(self->buf)->events.count = 0;
	ASSERT_EQ(0, blob_parse_err(self->buf, self->len, self->err,
				    sizeof(self->err)));
}

TEST_F(events, out_of_bounds)
{
	struct gpulat_snap_header *h = BLOB_HDR(self->buf);
	uint64_t off = h->events.offset;

	h->events.count++;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "event section"));
	h->events.count--;
	h->events.offset = off + 1;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	h->events.offset = GPULAT_SNAP_HEADER_SIZE_VER1 - 8; /* in the header */
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	h->events.offset = UINT64_MAX - 16;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	h->events.offset = -(uint64_t)GPULAT_EVENT_SIZE_VER0 * 2 + 8;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	h->events.offset = off;
	h->events.count = UINT32_MAX;
	h->events.entry_size = UINT32_MAX;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	h->events.count = 2;
	h->events.entry_size = GPULAT_EVENT_SIZE_VER0;
	/* total_size that ends inside the last event */
	h->total_size = self->len - 1;
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	h->total_size = self->len;
	ASSERT_EQ(0, blob_parse_err(self->buf, self->len, self->err,
				    sizeof(self->err)));
	/* the blob ends inside the last event */
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len - 1, self->err,
					   sizeof(self->err)));
	ASSERT_NE(NULL, strstr(self->err, "truncated"));
}

TEST_F(events, device_not_terminated)
{
	memset(EVT(self->buf, 1)->device, '0', sizeof(EVT(self->buf, 1)->device));
	ASSERT_EQ(-EBADMSG, blob_parse_err(self->buf, self->len, self->err,
					   sizeof(self->err)));
	ASSERT_STREQ("event 1: device not NUL-terminated", self->err);
	EVT(self->buf, 1)->device[31] = '\0';
	ASSERT_EQ(0, blob_parse_err(self->buf, self->len, self->err,
				    sizeof(self->err)));
}

/* A saved VER1 file reads back with its events. */
TEST_F(events, write_read_round_trip)
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
	ASSERT_EQ(2, gl_snapshot_nr_events(r));
	ASSERT_EQ(13, gl_snapshot_event(r, 1)->code);
	gl_snapshot_free(r);
	unlink(path);
}

TEST_HARNESS_MAIN
