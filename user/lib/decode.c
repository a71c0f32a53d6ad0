// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat snapshot decoding: validate a blob (nothing in it is
 * trusted) into a normalized copy, series sorted by (family, id, key,
 * cpu), every entry in the VER0 layout with all slots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpulat_hist.h"
#include "lib/gpulat_user.h"
#include "lib/libinternal.h"

/* gl_series_cmp - order of series: family, id, key, cpu */
int gl_series_cmp(const void *pa, const void *pb)
{
	const struct gpulat_series *a = pa, *b = pb;

	return gl_series_order(a->family, a->id, a->key, a->cpu,
			       b->family, b->id, b->key, b->cpu);
}

/* gl_counter_cmp - order of counters: family, id */
int gl_counter_cmp(const void *pa, const void *pb)
{
	const struct gpulat_counter *a = pa, *b = pb;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return 0;
}

/* gl_terminated - whether a fixed char array holds a NUL */
static bool gl_terminated(const char *name, size_t len)
{
	return memchr(name, '\0', len) != NULL;
}

/*
 * gl_section_check - @sec must lie inside [header_size, total) with
 * entries of at least @min_entry bytes; computed without overflow.
 */
static int gl_section_check(const struct gpulat_snap_section *sec,
			    const char *what, uint64_t min_entry,
			    uint64_t header_size, uint64_t total,
			    char *err, size_t errlen)
{
	uint64_t bytes;

	if (!sec->count)
		return 0;
	if (sec->entry_size < min_entry) {
		gl_set_err(err, errlen,
			   "%s entry_size %u is below the minimum %llu",
			   what, sec->entry_size,
			   (unsigned long long)min_entry);
		return -EBADMSG;
	}
	/* count and entry_size are 32 bits: the product fits in 64 */
	bytes = (uint64_t)sec->count * sec->entry_size;
	if (sec->offset < header_size || sec->offset > total ||
	    bytes > total - sec->offset) {
		gl_set_err(err, errlen,
			   "%s section (offset %llu, %u x %u bytes) lies outside the %llu-byte blob",
			   what, (unsigned long long)sec->offset, sec->count,
			   sec->entry_size, (unsigned long long)total);
		return -EBADMSG;
	}
	return 0;
}

/*
 * gl_header_check - validate the header of a blob of @len bytes
 *
 * A header shorter than GPULAT_SNAP_HEADER_SIZE_VER1 (ABI 1.0) has no
 * events section: that part of @h reads 0, whatever bytes follow it.
 */
static int gl_header_check(const unsigned char *buf, size_t len,
			   struct gpulat_snap_header *h,
			   char *err, size_t errlen)
{
	int ret;

	if (len < GPULAT_SNAP_HEADER_SIZE_VER0) {
		gl_set_err(err, errlen,
			   "truncated snapshot: %zu bytes, the header alone takes %u",
			   len, GPULAT_SNAP_HEADER_SIZE_VER0);
		return -EBADMSG;
	}
	memset(h, 0, sizeof(*h));
	memcpy(h, buf, GPULAT_SNAP_HEADER_SIZE_VER0);
	if (h->magic != GPULAT_SNAP_MAGIC) {
		gl_set_err(err, errlen,
			   "not a gpulat snapshot (magic 0x%08x, expected 0x%08x)",
			   h->magic, GPULAT_SNAP_MAGIC);
		return -EBADMSG;
	}
	if (h->abi_major != GPULAT_ABI_MAJOR) {
		gl_set_err(err, errlen,
			   "snapshot ABI %u.%u is incompatible with this gpulat (ABI %u.%u)",
			   h->abi_major, h->abi_minor, GPULAT_ABI_MAJOR,
			   GPULAT_ABI_MINOR);
		return -EPROTONOSUPPORT;
	}
	if (h->header_size < GPULAT_SNAP_HEADER_SIZE_VER0) {
		gl_set_err(err, errlen, "bad header_size %u (minimum %u)",
			   h->header_size, GPULAT_SNAP_HEADER_SIZE_VER0);
		return -EBADMSG;
	}
	if (h->header_size > len) {
		gl_set_err(err, errlen,
			   "truncated snapshot: header_size %u, have %zu bytes",
			   h->header_size, len);
		return -EBADMSG;
	}
	/* header_size <= len: the VER1 part is inside the buffer */
	if (h->header_size >= GPULAT_SNAP_HEADER_SIZE_VER1)
		memcpy(h, buf, GPULAT_SNAP_HEADER_SIZE_VER1);
	if (h->total_size < h->header_size || h->total_size > len) {
		gl_set_err(err, errlen,
			   "truncated snapshot: total_size %llu, have %zu bytes",
			   (unsigned long long)h->total_size, len);
		return -EBADMSG;
	}
	if (h->hist_sub_bits != GPULAT_HIST_SUB_BITS ||
	    h->hist_min_shift != GPULAT_HIST_MIN_SHIFT ||
	    h->hist_max_shift != GPULAT_HIST_MAX_SHIFT ||
	    h->hist_nr_buckets != GPULAT_HIST_NR_BUCKETS) {
		gl_set_err(err, errlen,
			   "unknown histogram scheme (sub_bits %u, shifts %u..%u, %u slots; expected %u, %u..%u, %u)",
			   h->hist_sub_bits, h->hist_min_shift,
			   h->hist_max_shift, h->hist_nr_buckets,
			   GPULAT_HIST_SUB_BITS, GPULAT_HIST_MIN_SHIFT,
			   GPULAT_HIST_MAX_SHIFT, GPULAT_HIST_NR_BUCKETS);
		return -EBADMSG;
	}
	if (!h->nr_cpu_ids) {
		gl_set_err(err, errlen, "nr_cpu_ids is 0");
		return -EBADMSG;
	}
	ret = gl_section_check(&h->series, "series", GL_SERIES_STRIDE,
			       h->header_size, h->total_size, err, errlen);
	if (!ret)
		ret = gl_section_check(&h->counters, "counter",
				       GPULAT_COUNTER_SIZE_VER0, h->header_size,
				       h->total_size, err, errlen);
	if (!ret)
		ret = gl_section_check(&h->probes, "probe",
				       GPULAT_PROBE_SIZE_VER0, h->header_size,
				       h->total_size, err, errlen);
	if (!ret)
		ret = gl_section_check(&h->events, "event",
				       GPULAT_EVENT_SIZE_VER0, h->header_size,
				       h->total_size, err, errlen);
	return ret;
}

/* gl_series_check - whether series @i of @s is whole; 0 or -EBADMSG */
static int gl_series_check(struct gl_snapshot *s, size_t i, char *err,
			   size_t errlen)
{
	struct gpulat_series *sr = gl_series_at(s, i);

	if (!gl_terminated(sr->name, sizeof(sr->name)) ||
	    !gl_terminated(sr->key_name, sizeof(sr->key_name))) {
		gl_set_err(err, errlen, "series %zu: name not NUL-terminated", i);
		return -EBADMSG;
	}
	if (sr->cpu != GPULAT_CPU_NONE && sr->cpu >= s->hdr.nr_cpu_ids) {
		gl_set_err(err, errlen, "series %zu (%s): cpu %u >= nr_cpu_ids %u",
			   i, sr->name, sr->cpu, s->hdr.nr_cpu_ids);
		return -EBADMSG;
	}
	s->exact[i] = true;
	return 0;
}

/*
 * gl_series_in_place - take the blob's series section as the series where
 * it is laid out as they are (this ABI's entries, aligned) and strictly
 * sorted, as both sources write it: at 224 CPUs that is 11 MB not copied
 * on every snapshot.  False: they are copied and sorted instead.
 */
static bool gl_series_in_place(struct gl_snapshot *s)
{
	const struct gpulat_snap_section *sec = &s->hdr.series;
	unsigned char *at;
	size_t i;

	/* an empty section's offset is not checked: not used at all */
	if (!s->nr_series || sec->entry_size != GL_SERIES_STRIDE)
		return false;
	at = s->blob + sec->offset;
	if ((uintptr_t)at % 8)
		return false;
	for (i = 1; i < s->nr_series; i++)
		if (gl_series_cmp(at + (i - 1) * GL_SERIES_STRIDE,
				  at + i * GL_SERIES_STRIDE) >= 0)
			return false;
	s->series = at;
	s->series_in_blob = true;
	return true;
}

/* gl_series_copy - check the series section; copied and sorted if need be */
static int gl_series_copy(struct gl_snapshot *s, const unsigned char *buf,
			  char *err, size_t errlen)
{
	const struct gpulat_snap_section *sec = &s->hdr.series;
	struct gpulat_series *sr;
	bool in_place = gl_series_in_place(s);
	size_t i;
	int ret;

	if (!in_place) {
		s->series = calloc(s->nr_series ? s->nr_series : 1,
				   GL_SERIES_STRIDE);
		if (!s->series)
			return -ENOMEM;
	}
	for (i = 0; i < s->nr_series; i++) {
		if (!in_place)
			memcpy(gl_series_at(s, i),
			       buf + sec->offset + i * sec->entry_size,
			       GL_SERIES_STRIDE);
		ret = gl_series_check(s, i, err, errlen);
		if (ret)
			return ret;
	}
	if (in_place)
		return 0;
	qsort(s->series, s->nr_series, GL_SERIES_STRIDE, gl_series_cmp);
	for (i = 1; i < s->nr_series; i++) {
		if (!gl_series_cmp(gl_series_at(s, i - 1), gl_series_at(s, i))) {
			sr = gl_series_at(s, i);
			gl_set_err(err, errlen,
				   "duplicate series %s (family %u id %u cpu %u key %llu)",
				   sr->name, sr->family, sr->id, sr->cpu,
				   (unsigned long long)sr->key);
			return -EBADMSG;
		}
	}
	return 0;
}

/* gl_counters_copy - copy and check the counter section */
static int gl_counters_copy(struct gl_snapshot *s, const unsigned char *buf,
			    char *err, size_t errlen)
{
	const struct gpulat_snap_section *sec = &s->hdr.counters;
	struct gpulat_counter *c;
	size_t i;

	for (i = 0; i < s->nr_counters; i++) {
		c = &s->counters[i];
		memcpy(c, buf + sec->offset + i * sec->entry_size, sizeof(*c));
		if (!gl_terminated(c->name, sizeof(c->name))) {
			gl_set_err(err, errlen,
				   "counter %zu: name not NUL-terminated", i);
			return -EBADMSG;
		}
	}
	qsort(s->counters, s->nr_counters, sizeof(*c), gl_counter_cmp);
	for (i = 1; i < s->nr_counters; i++) {
		if (!gl_counter_cmp(&s->counters[i - 1], &s->counters[i])) {
			gl_set_err(err, errlen,
				   "duplicate counter %s (family %u id %u)",
				   s->counters[i].name, s->counters[i].family,
				   s->counters[i].id);
			return -EBADMSG;
		}
	}
	return 0;
}

/* gl_probes_copy - copy and check the probe section (kernel order kept) */
static int gl_probes_copy(struct gl_snapshot *s, const unsigned char *buf,
			  char *err, size_t errlen)
{
	const struct gpulat_snap_section *sec = &s->hdr.probes;
	struct gpulat_probe *p;
	size_t i;

	for (i = 0; i < s->nr_probes; i++) {
		p = &s->probes[i];
		memcpy(p, buf + sec->offset + i * sec->entry_size, sizeof(*p));
		if (!gl_terminated(p->family_name, sizeof(p->family_name)) ||
		    !gl_terminated(p->tracepoint, sizeof(p->tracepoint))) {
			gl_set_err(err, errlen,
				   "probe %zu: name not NUL-terminated", i);
			return -EBADMSG;
		}
	}
	return 0;
}

/* gl_events_copy - copy and check the event section (kernel order kept) */
static int gl_events_copy(struct gl_snapshot *s, const unsigned char *buf,
			  char *err, size_t errlen)
{
	const struct gpulat_snap_section *sec = &s->hdr.events;
	struct gpulat_event *e;
	size_t i;

	for (i = 0; i < s->nr_events; i++) {
		e = &s->events[i];
		memcpy(e, buf + sec->offset + i * sec->entry_size, sizeof(*e));
		if (!gl_terminated(e->device, sizeof(e->device))) {
			gl_set_err(err, errlen,
				   "event %zu: device not NUL-terminated", i);
			return -EBADMSG;
		}
	}
	return 0;
}

/*
 * gl_snapshot_parse_common - validate a blob; keep @buf itself as the
 * blob when @own (on success only), else a copy of it
 */
static int gl_snapshot_parse_common(const void *buf, size_t len, bool own,
				    struct gl_snapshot **out, char *err,
				    size_t errlen)
{
	struct gpulat_snap_header h;
	struct gl_snapshot *s;
	int ret;

	*out = NULL;
	if (!buf && len)
		return -EINVAL;
	ret = gl_header_check(buf, len, &h, err, errlen);
	if (ret)
		return ret;
	/* the series: in the blob, or allocated by gl_series_copy */
	s = gl_snapshot_alloc(0, h.counters.count, h.probes.count,
			      h.events.count);
	if (!s)
		return -ENOMEM;
	free(s->series);
	s->series = NULL;
	s->nr_series = h.series.count;
	free(s->exact);
	s->exact = calloc(s->nr_series ? s->nr_series : 1, sizeof(*s->exact));
	s->hdr = h;
	s->hdr.kernel_release[sizeof(s->hdr.kernel_release) - 1] = '\0';
	s->blob_len = h.total_size;
	s->blob = own ? (unsigned char *)buf : malloc(s->blob_len);
	if (!s->blob || !s->exact) {
		if (own)
			s->blob = NULL;
		ret = -ENOMEM;
		goto fail;
	}
	if (!own)
		memcpy(s->blob, buf, s->blob_len);
	ret = gl_series_copy(s, buf, err, errlen);
	if (!ret)
		ret = gl_counters_copy(s, buf, err, errlen);
	if (!ret)
		ret = gl_probes_copy(s, buf, err, errlen);
	if (!ret)
		ret = gl_events_copy(s, buf, err, errlen);
	if (ret)
		goto fail;
	*out = s;
	return 0;
fail:
	if (own) {
		if (s->series_in_blob)
			s->series = NULL;
		s->series_in_blob = false;
		s->blob = NULL;	/* still the caller's */
	}
	gl_snapshot_free(s);
	return ret;
}

/* gl_snapshot_parse - validate a blob and make an owned copy of it */
int gl_snapshot_parse(const void *buf, size_t len, struct gl_snapshot **out,
		      char *err, size_t errlen)
{
	return gl_snapshot_parse_common(buf, len, false, out, err, errlen);
}

/* gl_snapshot_parse_owned - see libinternal.h */
int gl_snapshot_parse_owned(void *buf, size_t len, struct gl_snapshot **out,
			    char *err, size_t errlen)
{
	return gl_snapshot_parse_common(buf, len, true, out, err, errlen);
}
