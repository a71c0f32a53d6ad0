/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus text exposition of a snapshot (gpulat serve).  Every
 * series is a classic histogram in seconds whose `le` bounds are exact
 * for gpulat's buckets, its empty leading and trailing buckets left out
 * (quantiles unchanged); drop counters and Xids are counters.  The
 * metric and fixed labels of each series are the family table's
 * (family.h); this file adds the key's labels and bounds their number.
 * Documentation/fleet.rst lists what it emits.
 */
#ifndef _GPULAT_USER_PROM_H
#define _GPULAT_USER_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/gpulat_user.h"

/* Keys of one metric exported by name; the rest are merged into "_other". */
#define PROM_MAX_KEYS_DEFAULT	32
#define PROM_MAX_KEYS_LIMIT	4096
/* Distinct (GPU, Xid) counters; more are counted under gpu="_other". */
#define PROM_MAX_XIDS		256
/* The label value that holds the keys over the bound. */
#define PROM_OTHER		"_other"

enum prom_cause {
	PROM_CAUSE_XID,
	PROM_CAUSE_OUTLIER,
	PROM_CAUSE_SIGNAL,
	PROM_NR_CAUSES,
};

/* Why a flight bundle was lost (gpulat_flight_bundles_failed_total). */
enum prom_fail {
	PROM_FAIL_NO_SPACE,	/* ENOSPC, EDQUOT: the folder's disk is full */
	PROM_FAIL_TOO_BIG,	/* larger than the folder's bound in bytes */
	PROM_FAIL_NO_WINDOW,	/* fewer than two snapshots in its window */
	PROM_FAIL_WRITER_BUSY,	/* the writer still busy when it was due */
	PROM_FAIL_KILLED,	/* the writer died or ran over its time */
	PROM_FAIL_IO,		/* any other error */
	PROM_NR_FAILS,
};

/* Why a connection went unanswered (gpulat_http_refused_total). */
enum prom_refuse {
	PROM_REFUSE_PER_IP,	/* the address's or the /24's bound */
	PROM_REFUSE_FULL,	/* every slot taken */
	PROM_REFUSE_TIMEOUT,	/* cut: no whole request in the time */
	PROM_REFUSE_ERROR,	/* cut: a bad request, an error */
	PROM_NR_REFUSES,
};

struct prom_xid {
	char gpu[GPULAT_NAME_LEN];
	uint32_t xid;
	uint64_t n;
};

/*
 * The buckets a label set has been exported with, slots @lo to @hi (as
 * the `le` of the buckets kept at the coarseness): a range only grows,
 * so a bucket's series, once exported, stays for the daemon's life.
 * @id is a hash of the metric and labels (two label sets of one hash
 * share a range: each gets a few buckets more, quantiles unchanged).
 */
struct prom_span {
	uint64_t id;
	uint16_t lo, hi;
};

struct prom_keyset {
	char (*names)[288];	/* key labels admitted, first seen first */
	size_t n;
	size_t other;		/* keys merged into PROM_OTHER, last render */
};

struct prom_state {
	/* options */
	unsigned int per_octave;	/* buckets per power of two: 8, 4, 2, 1 */
	bool per_cpu;			/* a cpu label on per-CPU series */
	unsigned int max_keys;		/* per metric */
	bool all_buckets;		/* every bucket, empty ones included */
	const char *root;		/* $GPULAT_SYSROOT, for the PCI lookup */
	/* what build_info says */
	const char *version, *source, *kernel;
	/* state kept across renders */
	struct prom_keyset keys[GL_NR_METRICS];
	struct prom_xid xids[PROM_MAX_XIDS];
	size_t nr_xids;
	struct prom_span *spans;	/* sorted by id up to nr_sorted */
	size_t nr_spans, nr_sorted, spans_cap;
	bool xid_seen;			/* xid_last_ns is set */
	uint64_t xid_last_ns;		/* newest event counted */
	/*
	 * events before this (CLOCK_MONOTONIC ns) are history the source
	 * kept from before the daemon: not counted, so that a restart of
	 * the daemon does not count them (and page) again
	 */
	uint64_t xid_from_ns;
	/* the daemon's own counters, kept by its loop */
	uint64_t trace_lost, snapshot_errors;
	uint64_t trace_records;		/* sample records the daemon read */
	uint64_t flight_bundles, flight_suppressed;
	uint64_t flight_triggers[PROM_NR_CAUSES];
	uint64_t flight_failed[PROM_NR_FAILS];
	uint64_t flight_bytes;		/* bundles in the folder, summed */
	uint64_t http_refused[PROM_NR_REFUSES];
	double last_snapshot_unix;	/* 0: none yet */
};

/*
 * prom_init - defaults (8 buckets per octave, no cpu label, 32 keys,
 * empty buckets left out unless $GPULAT_SERVE_ALL_BUCKETS is 1);
 * prom_free - what the state holds
 */
void prom_init(struct prom_state *p);
void prom_free(struct prom_state *p);

/* prom_valid_per_octave - whether @n (buckets per power of two) nests in 8 */
bool prom_valid_per_octave(unsigned long n);

/*
 * prom_count_events - count the Xids of @s not counted yet (its events
 * are the newest the source kept, oldest first)
 */
void prom_count_events(struct prom_state *p, const struct gl_snapshot *s);

/*
 * prom_write - the exposition of @s (NULL: only the daemon's own
 * metrics) on @f; 0, or -errno (-ENOMEM, a write error)
 */
int prom_write(struct prom_state *p, const struct gl_snapshot *s, FILE *f);

/* prom_le - "0.000000511": (upper bound of @slot - 1 ns) in seconds, exact */
const char *prom_le(char *buf, size_t len, uint32_t slot);

/* prom_bucket_kept - whether slot @slot ends a bucket at @per_octave */
bool prom_bucket_kept(uint32_t slot, unsigned int per_octave);

/*
 * prom_bucket_range - the buckets of @h that quantiles need, as slots
 * @lo to @hi (buckets kept at @per_octave): from the empty bucket below
 * the lowest non-empty one (its `le` is that one's lower bound) to the
 * highest non-empty one (the last finite one when the overflow, in
 * +Inf only, has samples); false when @h is empty
 */
bool prom_bucket_range(const struct gl_hist *h, unsigned int per_octave,
		       uint32_t *lo, uint32_t *hi);

#endif /* _GPULAT_USER_PROM_H */
