/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build synthetic /dev/gpulat snapshot blobs for tests and fuzz seeds,
 * independently of the library under test.
 */
#ifndef _GPULAT_TEST_BLOB_H
#define _GPULAT_TEST_BLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi/gpulat.h"

#define BLOB_SERIES_SIZE \
	(GPULAT_SERIES_SIZE_VER0 + GPULAT_HIST_NR_BUCKETS * 8)

struct blob {
	struct gpulat_snap_header hdr;	/* magic .. kernel_release used */
	unsigned char *series;		/* nr_series x BLOB_SERIES_SIZE */
	size_t nr_series;
	struct gpulat_counter *counters;
	size_t nr_counters;
	struct gpulat_probe *probes;
	size_t nr_probes;
	struct gpulat_event *events;
	size_t nr_events;
	/* layout knobs: extra bytes after the header and each entry */
	uint32_t header_extra, series_extra, counter_extra, probe_extra;
	uint32_t event_extra;
	/*
	 * ver0: an ABI 1.0 blob, whose 176-byte header ends before the
	 * events section (and events are left out)
	 */
	bool ver0;
};

/* blob_init - empty blob: this ABI, 4 CPUs, generation 1, time 10 s */
void blob_init(struct blob *b);
void blob_release(struct blob *b);
/*
 * blob_add_series - new empty series; returns its index.  @name NULL:
 * the family table's name of (family, id), as the module sends it.
 */
size_t blob_add_series(struct blob *b, uint32_t family, uint32_t id,
		       uint32_t cpu, uint64_t key, const char *name,
		       const char *key_name);
struct gpulat_series *blob_series(struct blob *b, size_t i);
/* blob_record - file @n samples of @ns into series @i as the module would */
void blob_record(struct blob *b, size_t i, uint64_t ns, uint64_t n);
void blob_add_counter(struct blob *b, uint32_t family, uint32_t id,
		      const char *name, uint64_t value);
/* blob_add_probe - @family_name NULL: the family table's name */
void blob_add_probe(struct blob *b, uint32_t family, uint32_t state,
		    uint32_t error, const char *family_name,
		    const char *tracepoint, uint64_t hits);
void blob_add_event(struct blob *b, uint64_t time_ns, uint32_t type,
		    uint32_t code, uint32_t cpu, const char *device);
/* blob_build - lay the blob out (malloc'd, free() it); *len its size */
void *blob_build(const struct blob *b, size_t *len);

struct gl_snapshot;
/* blob_parse - build @b and parse it (blob_parse.c); NULL on failure */
struct gl_snapshot *blob_parse(const struct blob *b);
/*
 * blob_parse_err - parse @buf (blob_parse.c): the errno, with the message
 * in @err; -1000 when a failed parse left its result set
 */
int blob_parse_err(const void *buf, size_t len, char *err, size_t errlen);
/*
 * blob_round_trip - parse @buf, write it to a new file @path (a mkstemp
 * template) and read it back into *@out: 0, or -1 at the step that failed
 * (blob_parse.c)
 */
int blob_round_trip(const void *buf, size_t len, char *path,
		    struct gl_snapshot **out, char *err, size_t errlen);
/* BLOB_HDR - the snapshot header at the start of blob @buf */
#define BLOB_HDR(buf)	((struct gpulat_snap_header *)(buf))
/* blob_sched - typical sched blob: 2 series x @cpus CPUs, counters, probes */
void blob_sched(struct blob *b, uint32_t cpus);

/*
 * blob_families - every family on 2 CPUs: keyed block, net, irq and nvidia
 * series, per-CPU softirq and mm series, probes in each state, counters,
 * two Xid events (see blob.c for the numbers)
 */
void blob_families(struct blob *b);

/* Keys of blob_families(). */
#define BLOB_SDA	(8ULL << 20 | 0)
#define BLOB_NULLB0	(251ULL << 20 | 0)
#define BLOB_IRQ_ETH0	(11ULL | 0xabcdULL << 32)
#define BLOB_IRQ_NVME	24ULL

#endif /* _GPULAT_TEST_BLOB_H */
