/* SPDX-License-Identifier: GPL-2.0 */
/* libgpulat internals: the layout of struct gl_snapshot. */
#ifndef _GPULAT_USER_LIBINTERNAL_H
#define _GPULAT_USER_LIBINTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi/gpulat.h"

#include "lib/array_size.h"

/* Bytes of one normalized series: VER0 fixed part plus every slot. */
#define GL_SERIES_STRIDE \
	(GPULAT_SERIES_SIZE_VER0 + GPULAT_HIST_NR_BUCKETS * sizeof(__u64))

_Static_assert(sizeof(struct gpulat_snap_header) ==
	       GPULAT_SNAP_HEADER_SIZE_VER1, "header VER1 size");
_Static_assert(sizeof(struct gpulat_series) == GPULAT_SERIES_SIZE_VER0,
	       "series VER0 size");
_Static_assert(sizeof(struct gpulat_counter) == GPULAT_COUNTER_SIZE_VER0,
	       "counter VER0 size");
_Static_assert(sizeof(struct gpulat_probe) == GPULAT_PROBE_SIZE_VER0,
	       "probe VER0 size");
_Static_assert(sizeof(struct gpulat_event) == GPULAT_EVENT_SIZE_VER0,
	       "event VER0 size");

struct gl_snapshot {
	struct gpulat_snap_header hdr;	/* sections describe blob */
	unsigned char *blob;		/* total_size bytes; NULL: not built yet */
	size_t blob_len;
	unsigned char *series;		/* nr_series x GL_SERIES_STRIDE, sorted */
	bool series_in_blob;		/* series points into blob */
	bool *exact;			/* per series: max_ns is exact */
	size_t nr_series;
	struct gpulat_counter *counters;	/* sorted by (family, id) */
	size_t nr_counters;
	struct gpulat_probe *probes;	/* module order */
	size_t nr_probes;
	struct gpulat_event *events;	/* module order (oldest first) */
	size_t nr_events;
	unsigned int refs;		/* owners but one (gl_snapshot_ref) */
};

void gl_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct gl_snapshot *gl_snapshot_alloc(size_t nr_series, size_t nr_counters,
				      size_t nr_probes, size_t nr_events);
struct gpulat_series *gl_series_at(struct gl_snapshot *s, size_t i);
int gl_snapshot_build_blob(struct gl_snapshot *s);
/*
 * gl_snapshot_build_blob_ordered - gl_snapshot_build_blob with the series
 * laid out as @order lists them (pointers to each; NULL: as they are),
 * so that unsorted series are sorted in the one copy into the blob
 */
int gl_snapshot_build_blob_ordered(struct gl_snapshot *s,
				   const unsigned char *const *order);
/*
 * gl_snapshot_build_blob_fill - the blob of @s with @nr_series series,
 * series i written by @fill at @dst (GL_SERIES_STRIDE bytes, all of them):
 * a source builds its series in place, in the blob's order
 */
int gl_snapshot_build_blob_fill(struct gl_snapshot *s, size_t nr_series,
				void (*fill)(void *ctx, size_t i,
					     unsigned char *dst),
				void *ctx);
/*
 * gl_snapshot_parse_owned - gl_snapshot_parse keeping @buf (malloc'd, at
 * least the blob's total_size) as the blob instead of a copy: on success
 * it belongs to *@out; on failure it is still the caller's
 */
int gl_snapshot_parse_owned(void *buf, size_t len, struct gl_snapshot **out,
			    char *err, size_t errlen);
/* gl_series_cmp - qsort order of normalized series: family, id, key, cpu */
int gl_series_cmp(const void *pa, const void *pb);
/* gl_series_order - that order, of series not yet laid out (bpf_snap.c) */
static inline int gl_series_order(uint32_t fa, uint32_t ia, uint64_t ka,
				  uint32_t ca, uint32_t fb, uint32_t ib,
				  uint64_t kb, uint32_t cb)
{
	if (fa != fb)
		return fa < fb ? -1 : 1;
	if (ia != ib)
		return ia < ib ? -1 : 1;
	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (ca != cb)
		return ca < cb ? -1 : 1;
	return 0;
}
/* gl_counter_cmp - qsort order of counters: family, id */
int gl_counter_cmp(const void *pa, const void *pb);
/*
 * gl_load_hint - how to load the module from where the user stands, for
 * the "not loaded" message (reads below $GPULAT_SYSROOT when set)
 */
void gl_load_hint(char *buf, size_t len);

#endif /* _GPULAT_USER_LIBINTERNAL_H */
