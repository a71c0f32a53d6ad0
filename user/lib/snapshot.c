// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat snapshots: validate a blob into a normalized copy, difference
 * two of them, rebuild a blob, read and write files.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpulat_hist.h"
#include "gpulat_user.h"
#include "libinternal.h"

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
	free(s->blob);
	free(s->series);
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

/* gl_series_cmp - order of series: family, id, key, cpu */
static int gl_series_cmp(const void *pa, const void *pb)
{
	const struct gpulat_series *a = pa, *b = pb;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return 0;
}

/* gl_counter_cmp - order of counters: family, id */
static int gl_counter_cmp(const void *pa, const void *pb)
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

/* gl_series_copy - copy and check the series section */
static int gl_series_copy(struct gl_snapshot *s, const unsigned char *buf,
			  char *err, size_t errlen)
{
	const struct gpulat_snap_section *sec = &s->hdr.series;
	struct gpulat_series *sr;
	size_t i;

	for (i = 0; i < s->nr_series; i++) {
		sr = gl_series_at(s, i);
		memcpy(sr, buf + sec->offset + i * sec->entry_size,
		       GL_SERIES_STRIDE);
		if (!gl_terminated(sr->name, sizeof(sr->name)) ||
		    !gl_terminated(sr->key_name, sizeof(sr->key_name))) {
			gl_set_err(err, errlen,
				   "series %zu: name not NUL-terminated", i);
			return -EBADMSG;
		}
		if (sr->cpu != GPULAT_CPU_NONE && sr->cpu >= s->hdr.nr_cpu_ids) {
			gl_set_err(err, errlen,
				   "series %zu (%s): cpu %u >= nr_cpu_ids %u",
				   i, sr->name, sr->cpu, s->hdr.nr_cpu_ids);
			return -EBADMSG;
		}
		s->exact[i] = true;
	}
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

/* gl_snapshot_parse - validate a blob and make an owned copy of it */
int gl_snapshot_parse(const void *buf, size_t len, struct gl_snapshot **out,
		      char *err, size_t errlen)
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
	s = gl_snapshot_alloc(h.series.count, h.counters.count,
			      h.probes.count, h.events.count);
	if (!s)
		return -ENOMEM;
	s->hdr = h;
	s->hdr.kernel_release[sizeof(s->hdr.kernel_release) - 1] = '\0';
	s->blob_len = h.total_size;
	s->blob = malloc(s->blob_len);
	if (!s->blob) {
		ret = -ENOMEM;
		goto fail;
	}
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
	gl_snapshot_free(s);
	return ret;
}

/*
 * gl_snapshot_build_blob - (re)build s->blob from the normalized entries:
 * VER1 header, then series, counters, probes, events back to back.
 */
int gl_snapshot_build_blob(struct gl_snapshot *s)
{
	struct gpulat_snap_header *h = &s->hdr;
	uint64_t off = GPULAT_SNAP_HEADER_SIZE_VER1;
	unsigned char *blob;
	size_t len;

	h->magic = GPULAT_SNAP_MAGIC;
	h->header_size = GPULAT_SNAP_HEADER_SIZE_VER1;
	h->series = (struct gpulat_snap_section){
		off, s->nr_series, GL_SERIES_STRIDE };
	off += s->nr_series * GL_SERIES_STRIDE;
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
	blob = calloc(1, len);
	if (!blob)
		return -ENOMEM;
	_Static_assert(sizeof(*h) == GPULAT_SNAP_HEADER_SIZE_VER1,
		       "the header written is VER1");
	memcpy(blob, h, sizeof(*h));
	memcpy(blob + h->series.offset, s->series,
	       s->nr_series * GL_SERIES_STRIDE);
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

/* gl_snapshot_copy - deep copy of @s; max_exact flags kept */
static struct gl_snapshot *gl_snapshot_copy(const struct gl_snapshot *s)
{
	struct gl_snapshot *c;

	c = gl_snapshot_alloc(s->nr_series, s->nr_counters, s->nr_probes,
			      s->nr_events);
	if (!c)
		return NULL;
	c->hdr = s->hdr;
	memcpy(c->series, s->series, s->nr_series * GL_SERIES_STRIDE);
	memcpy(c->exact, s->exact, s->nr_series * sizeof(*s->exact));
	memcpy(c->counters, s->counters,
	       s->nr_counters * sizeof(*s->counters));
	memcpy(c->probes, s->probes, s->nr_probes * sizeof(*s->probes));
	memcpy(c->events, s->events, s->nr_events * sizeof(*s->events));
	return c;
}

/* gl_sub - a - b, 0 if the cumulative value went backwards */
static uint64_t gl_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * gl_series_diff - @d = @d - @o in place.  The interval max is @d's max if
 * it rose over @o's; otherwise it is bounded by the highest slot that got
 * samples in the interval (its last value), capped by the cumulative max,
 * and marked inexact.
 */
static void gl_series_diff(struct gpulat_series *d, bool *exact,
			   const struct gpulat_series *o)
{
	uint64_t hi = 0, bound;
	int top = -1;
	uint32_t i;

	d->count = gl_sub(d->count, o->count);
	d->sum_ns = gl_sub(d->sum_ns, o->sum_ns);
	for (i = 0; i < GPULAT_HIST_NR_BUCKETS; i++) {
		d->buckets[i] = gl_sub(d->buckets[i], o->buckets[i]);
		if (d->buckets[i])
			top = i;
	}
	if (d->max_ns > o->max_ns)
		return;
	if (top < 0) {
		d->max_ns = 0;
		return;
	}
	bound = gpulat_hist_upper(top);
	hi = bound == ~0ULL ? bound : bound - 1;
	if (hi < d->max_ns)
		d->max_ns = hi;
	*exact = false;
}

/*
 * gl_snapshot_diff - what happened between @old and @new.
 *
 * Series and counters are matched by (family, id, cpu, key) and subtracted;
 * one missing from @old counts from zero.  If the generation or the reset
 * time differs, the module was reset (or reloaded, which starts the
 * generation at 0 again) in between and the result is @new itself.  The header
 * is @new's, with reset_time_ns set to the start of the interval.  Events
 * are not cumulative: the result keeps @new's (the last the module kept).
 */
int gl_snapshot_diff(const struct gl_snapshot *old,
		     const struct gl_snapshot *new, struct gl_snapshot **out)
{
	const struct gpulat_counter *oc;
	const struct gpulat_series *os;
	struct gpulat_series *ns;
	struct gl_snapshot *d;
	bool reset;
	size_t i, j;
	int ret;

	*out = NULL;
	d = gl_snapshot_copy(new);
	if (!d)
		return -ENOMEM;
	reset = old->hdr.generation != new->hdr.generation ||
		old->hdr.reset_time_ns != new->hdr.reset_time_ns;
	if (!reset) {
		d->hdr.reset_time_ns = old->hdr.time_ns;
		for (i = 0; i < d->nr_series; i++) {
			ns = gl_series_at(d, i);
			os = bsearch(ns, old->series, old->nr_series,
				     GL_SERIES_STRIDE, gl_series_cmp);
			if (os)
				gl_series_diff(ns, &d->exact[i], os);
		}
		for (i = 0; i < d->nr_counters; i++) {
			oc = bsearch(&d->counters[i], old->counters,
				     old->nr_counters, sizeof(*oc),
				     gl_counter_cmp);
			if (oc)
				d->counters[i].value =
					gl_sub(d->counters[i].value, oc->value);
		}
		for (i = 0; i < d->nr_probes; i++) {
			for (j = 0; j < old->nr_probes; j++) {
				if (old->probes[j].family != d->probes[i].family ||
				    strcmp(old->probes[j].tracepoint,
					   d->probes[i].tracepoint))
					continue;
				d->probes[i].hits = gl_sub(d->probes[i].hits,
							   old->probes[j].hits);
				break;
			}
		}
	}
	ret = gl_snapshot_build_blob(d);
	if (ret) {
		gl_snapshot_free(d);
		return ret;
	}
	*out = d;
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
	if (fwrite(s->blob, 1, s->blob_len, f) != s->blob_len)
		return -EIO;
	return fflush(f) ? -errno : 0;
}

/* gl_snapshot_blob - the blob of @s and its length */
const void *gl_snapshot_blob(const struct gl_snapshot *s, size_t *len)
{
	*len = s->blob_len;
	return s->blob;
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
