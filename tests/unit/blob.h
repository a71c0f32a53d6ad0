/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build synthetic /dev/gpulat snapshot blobs for tests and fuzz seeds,
 * independently of the library under test.
 */
#ifndef _GPULAT_TEST_BLOB_H
#define _GPULAT_TEST_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "uapi/gpulat.h"

#define BLOB_SERIES_SIZE \
	(GPULAT_SERIES_SIZE_VER0 + GPULAT_HIST_NR_BUCKETS * 8)

struct blob {
	struct gpulat_snap_header hdr;	/* magic .. hist_nr_buckets used */
	unsigned char *series;		/* nr_series x BLOB_SERIES_SIZE */
	size_t nr_series;
	struct gpulat_counter *counters;
	size_t nr_counters;
	struct gpulat_probe *probes;
	size_t nr_probes;
	/* layout knobs: extra bytes after the header and each entry */
	uint32_t header_extra, series_extra, counter_extra, probe_extra;
};

/* blob_init - empty blob: ABI 1.0, 4 CPUs, generation 1, time 10 s */
void blob_init(struct blob *b);
void blob_release(struct blob *b);
/* blob_add_series - new empty series; returns its index */
size_t blob_add_series(struct blob *b, uint32_t family, uint32_t id,
		       uint32_t cpu, uint64_t key, const char *name,
		       const char *key_name);
struct gpulat_series *blob_series(struct blob *b, size_t i);
/* blob_record - file @n samples of @ns into series @i as the module would */
void blob_record(struct blob *b, size_t i, uint64_t ns, uint64_t n);
void blob_add_counter(struct blob *b, uint32_t family, uint32_t id,
		      const char *name, uint64_t value);
void blob_add_probe(struct blob *b, uint32_t family, uint32_t state,
		    uint32_t error, const char *family_name,
		    const char *tracepoint, uint64_t hits);
/* blob_build - lay the blob out (malloc'd, free() it); *len its size */
void *blob_build(const struct blob *b, size_t *len);
/* blob_sched - typical sched blob: 2 series x @cpus CPUs, counters, probes */
void blob_sched(struct blob *b, uint32_t cpus);

#endif /* _GPULAT_TEST_BLOB_H */
