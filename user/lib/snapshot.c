// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat snapshots: the owned, normalized copy (struct gl_snapshot),
 * its blob rebuilt, files read and written, and the accessors.  Decoding
 * a blob is decode.c, differencing two snapshots diff.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpulat_hist.h"
#include "lib/gpulat_user.h"
#include "lib/libinternal.h"

/* Largest blob accepted from a file: far above any real machine. */
#define GL_BLOB_MAX	(256UL << 20)

/* gl_set_err - format a one-line reason into err (may be NULL) */
void gl_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* gl_snapshot_alloc - snapshot with room for the given entries, zeroed */
struct gl_snapshot *gl_snapshot_alloc(size_t nr_series, size_t nr_counters,
				      size_t nr_probes, size_t nr_events)
{
	struct gl_snapshot *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->series = calloc(nr_series ? nr_series : 1, GL_SERIES_STRIDE);
	s->exact = calloc(nr_series ? nr_series : 1, sizeof(*s->exact));
	s->counters = calloc(nr_counters ? nr_counters : 1,
			     sizeof(*s->counters));
	s->probes = calloc(nr_probes ? nr_probes : 1, sizeof(*s->probes));
	s->events = calloc(nr_events ? nr_events : 1, sizeof(*s->events));
	if (!s->series || !s->exact || !s->counters || !s->probes ||
	    !s->events) {
		gl_snapshot_free(s);
		return NULL;
	}
	s->nr_series = nr_series;
	s->nr_counters = nr_counters;
	s->nr_probes = nr_probes;
	s->nr_events = nr_events;
	return s;
}

/* gl_snapshot_free - free a snapshot; NULL is fine */
void gl_snapshot_free(struct gl_snapshot *s)
{
	if (!s)
		return;
	if (s->refs) {
		s->refs--;
		return;
	}
	if (!s->series_in_blob)
		free(s->series);
	free(s->blob);
	free(s->exact);
	free(s->counters);
	free(s->probes);
	free(s->events);
	free(s);
}

/* gl_series_at - writable series @i of @s */
struct gpulat_series *gl_series_at(struct gl_snapshot *s, size_t i)
{
	return (struct gpulat_series *)(s->series + i * GL_SERIES_STRIDE);
}

/*
 * gl_snapshot_build_blob - (re)build s->blob from the normalized entries:
 * VER1 header, then series, counters, probes, events back to back.
 */
int gl_snapshot_build_blob(struct gl_snapshot *s)
{
	return gl_snapshot_build_blob_ordered(s, NULL);
}

struct bb_order {
	const struct gl_snapshot *s;
	const unsigned char *const *order;
};

static void bb_order_fill(void *ctx, size_t i, unsigned char *dst)
{
	const struct bb_order *o = ctx;

	memcpy(dst, o->order ? o->order[i] :
	       o->s->series + i * GL_SERIES_STRIDE, GL_SERIES_STRIDE);
}

/* gl_snapshot_build_blob_ordered - see libinternal.h */
int gl_snapshot_build_blob_ordered(struct gl_snapshot *s,
				   const unsigned char *const *order)
{
	struct bb_order o = { s, order };

	/* the series are the blob's own: it holds these entries already */
	if (s->series_in_blob)
		return 0;
	return gl_snapshot_build_blob_fill(s, s->nr_series, bb_order_fill, &o);
}

/* gl_snapshot_build_blob_fill - see libinternal.h */
int gl_snapshot_build_blob_fill(struct gl_snapshot *s, size_t nr_series,
				void (*fill)(void *ctx, size_t i,
					     unsigned char *dst),
				void *ctx)
{
	struct gpulat_snap_header *h = &s->hdr;
	uint64_t off = GPULAT_SNAP_HEADER_SIZE_VER1;
	unsigned char *blob;
	size_t len, i;

	h->magic = GPULAT_SNAP_MAGIC;
	h->header_size = GPULAT_SNAP_HEADER_SIZE_VER1;
	h->series = (struct gpulat_snap_section){
		off, nr_series, GL_SERIES_STRIDE };
	off += nr_series * GL_SERIES_STRIDE;
	h->counters = (struct gpulat_snap_section){
		off, s->nr_counters, sizeof(struct gpulat_counter) };
	off += s->nr_counters * sizeof(struct gpulat_counter);
	h->probes = (struct gpulat_snap_section){
		off, s->nr_probes, sizeof(struct gpulat_probe) };
	off += s->nr_probes * sizeof(struct gpulat_probe);
	h->events = (struct gpulat_snap_section){
		off, s->nr_events, sizeof(struct gpulat_event) };
	off += s->nr_events * sizeof(struct gpulat_event);
	h->total_size = off;
	len = off;
	/* every byte is written below: the sections lie back to back */
	blob = malloc(len);
	if (!blob)
		return -ENOMEM;
	_Static_assert(sizeof(*h) == GPULAT_SNAP_HEADER_SIZE_VER1,
		       "the header written is VER1");
	memcpy(blob, h, sizeof(*h));
	for (i = 0; i < nr_series; i++)
		fill(ctx, i, blob + h->series.offset + i * GL_SERIES_STRIDE);
	memcpy(blob + h->counters.offset, s->counters,
	       s->nr_counters * sizeof(struct gpulat_counter));
	memcpy(blob + h->probes.offset, s->probes,
	       s->nr_probes * sizeof(struct gpulat_probe));
	memcpy(blob + h->events.offset, s->events,
	       s->nr_events * sizeof(struct gpulat_event));
	free(s->blob);
	s->blob = blob;
	s->blob_len = len;
	return 0;
}

/* gl_snapshot_read - read and parse a blob saved by gl_snapshot_write */
int gl_snapshot_read(const char *path, struct gl_snapshot **out,
		     char *err, size_t errlen)
{
	unsigned char *buf = NULL, *nbuf;
	size_t len = 0, cap = 0, n;
	FILE *f;
	int ret;

	*out = NULL;
	f = fopen(path, "rb");
	if (!f) {
		ret = -errno;
		gl_set_err(err, errlen, "cannot open %s: %s", path,
			   strerror(-ret));
		return ret;
	}
	for (;;) {
		if (len == cap) {
			if (cap >= GL_BLOB_MAX) {
				gl_set_err(err, errlen,
					   "%s: larger than %lu MiB, not a snapshot",
					   path, GL_BLOB_MAX >> 20);
				ret = -EFBIG;
				goto out;
			}
			cap = cap ? cap * 2 : 65536;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nbuf;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		ret = -EIO;
		gl_set_err(err, errlen, "cannot read %s", path);
		goto out;
	}
	ret = gl_snapshot_parse(buf, len, out, err, errlen);
	if (ret && err && errlen) {
		char reason[256];

		snprintf(reason, sizeof(reason), "%s", err);
		gl_set_err(err, errlen, "%s: %s", path, reason);
	}
out:
	free(buf);
	fclose(f);
	return ret;
}

/* gl_snapshot_write - write the blob of @s (raw bytes as taken, or rebuilt) */
int gl_snapshot_write(const struct gl_snapshot *s, FILE *f)
{
	const void *blob;
	size_t len;

	blob = gl_snapshot_blob(s, &len);
	if (!blob)
		return -ENOMEM;
	if (fwrite(blob, 1, len, f) != len)
		return -EIO;
	return fflush(f) ? -errno : 0;
}

/*
 * gl_snapshot_blob - the blob of @s and its length; a diff's is built on
 * the first call (a cache: the entries it is built from never change),
 * so that the diffs that no one saves cost no copy.  NULL: no memory.
 */
const void *gl_snapshot_blob(const struct gl_snapshot *s, size_t *len)
{
	struct gl_snapshot *w = (struct gl_snapshot *)s;

	if (!s->blob && gl_snapshot_build_blob(w)) {
		*len = 0;
		return NULL;
	}
	*len = s->blob_len;
	return s->blob;
}

/* gl_snapshot_ref - one more owner of @s: gl_snapshot_free frees at the last */
struct gl_snapshot *gl_snapshot_ref(const struct gl_snapshot *s)
{
	struct gl_snapshot *w = (struct gl_snapshot *)s;

	w->refs++;
	return w;
}

/* gl_snapshot_header - header of @s */
const struct gpulat_snap_header *gl_snapshot_header(const struct gl_snapshot *s)
{
	return &s->hdr;
}

size_t gl_snapshot_nr_series(const struct gl_snapshot *s)
{
	return s->nr_series;
}

/* gl_snapshot_series - series @i; NULL past the end */
const struct gpulat_series *gl_snapshot_series(const struct gl_snapshot *s,
					       size_t i)
{
	if (i >= s->nr_series)
		return NULL;
	return (const struct gpulat_series *)(s->series + i * GL_SERIES_STRIDE);
}

/* gl_snapshot_max_exact - false when max_ns of series @i is only a bound */
bool gl_snapshot_max_exact(const struct gl_snapshot *s, size_t i)
{
	return i < s->nr_series && s->exact[i];
}

size_t gl_snapshot_nr_counters(const struct gl_snapshot *s)
{
	return s->nr_counters;
}

/* gl_snapshot_counter - counter @i, sorted by (family, id); NULL past end */
const struct gpulat_counter *gl_snapshot_counter(const struct gl_snapshot *s,
						 size_t i)
{
	return i < s->nr_counters ? &s->counters[i] : NULL;
}

size_t gl_snapshot_nr_probes(const struct gl_snapshot *s)
{
	return s->nr_probes;
}

/* gl_snapshot_probe - probe @i in the module's order; NULL past end */
const struct gpulat_probe *gl_snapshot_probe(const struct gl_snapshot *s,
					     size_t i)
{
	return i < s->nr_probes ? &s->probes[i] : NULL;
}

size_t gl_snapshot_nr_events(const struct gl_snapshot *s)
{
	return s->nr_events;
}

/* gl_snapshot_event - event @i, oldest first; NULL past the end */
const struct gpulat_event *gl_snapshot_event(const struct gl_snapshot *s,
					     size_t i)
{
	return i < s->nr_events ? &s->events[i] : NULL;
}
