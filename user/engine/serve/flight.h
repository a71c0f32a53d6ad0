/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flight recorder of gpulat serve: the last seconds of 1-second
 * snapshots and every outlier record, in bounded memory; on a trigger
 * (an Xid, an outlier over a bound, SIGUSR1) one bundle in the format
 * of gpulat report for the window before and after it, rate-limited,
 * into a folder of bounded bytes and count (oldest removed first).
 *
 * A bundle is written by a child process (a writer), never by the loop
 * that takes snapshots: packing, NVML and the disk may take seconds or
 * hang.  One writer at a time, killed past FLIGHT_WRITER_MAX_S; its
 * outcome comes back through a pipe and is counted by reason.
 */
#ifndef _GPULAT_USER_FLIGHT_H
#define _GPULAT_USER_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/serve/prom.h"
#include "lib/gpulat_user.h"

struct report;

/*
 * The window's and the folder's defaults are cmd/cmd.h's
 * GPULAT_FLIGHT_*; the records and snapshot bytes held at most:
 */
#define FLIGHT_MAX_RECS		20000
#define FLIGHT_MAX_BYTES	(256UL << 20)
/*
 * How long past trigger + after_s a bundle waits for the snapshot that
 * ends its window before it is written with the newest there is.
 */
#define FLIGHT_LATE_S		2
/*
 * A writer's time at most (NVML's own timeout is 10 s a call), and how
 * long a due bundle waits for a busy writer before it is given up.
 */
#define FLIGHT_WRITER_MAX_S	120
#define FLIGHT_BUSY_WAIT_S	30

struct flight_opts {
	const char *dir;		/* where bundles go */
	double before_s, after_s;	/* the window around a trigger */
	double gap_s;			/* least time between two bundles */
	unsigned long keep;		/* bundles kept in @dir */
	uint64_t dir_bytes;		/* and their bytes, at most */
	mode_t mode;			/* of a bundle (outfile.h) */
	size_t max_bytes;		/* snapshots held, at most */
	uint64_t trigger_ns[GPULAT_FAM_MAX];	/* outlier bound; 0: none */
	const char *root;		/* $GPULAT_SYSROOT or "" */
};

/*
 * One second's snapshot as the recorder holds it: its blob, compressed
 * (zlib; a blob is mostly empty slots, 10-40 times smaller).
 */
struct flight_snap {
	uint64_t time_ns;		/* the snapshot's, CLOCK_MONOTONIC */
	size_t len;			/* the blob's */
	size_t zlen;
	unsigned char *z;
};

struct flight {
	struct flight_opts o;
	struct flight_snap *snaps;	/* oldest first */
	size_t nr_snaps, cap_snaps, bytes;	/* bytes: compressed, held */
	uint64_t snaps_dropped;		/* dropped early for max_bytes */
	struct gl_trace_rec *recs;	/* a ring of FLIGHT_MAX_RECS */
	size_t rec_head, nr_recs;
	uint64_t recs_dropped;		/* overwritten in the ring */
	uint64_t lost;			/* lost by the source (REC_LOST) */
	/* the pending trigger */
	struct report *r;		/* NULL: none pending */
	uint64_t trigger_ns;		/* CLOCK_MONOTONIC */
	double last_s;			/* when the last bundle was triggered */
	bool any;			/* a bundle was triggered before */
	/* what the bundle's header says of the source */
	char source[160], kernel[128];
	uint32_t major, minor;
	uint64_t thresholds[GPULAT_FAM_MAX];
	/* the writer: its pid (0: none), result pipe, start */
	pid_t writer;
	int writer_fd;
	uint64_t writer_ns;
	/* outcomes, for the exporter */
	uint64_t written, failed[PROM_NR_FAILS];
	uint64_t dir_bytes;		/* bundles in the folder, last seen */
};

/*
 * flight_verdict - @text: the rolling verdict at the pending bundle's
 * trigger, for its MANIFEST ("verdict:" line); nothing when none pends
 */
void flight_verdict(struct flight *fl, const char *text);
/* flight_init - an empty recorder; 0 or -errno after a message on stderr */
int flight_init(struct flight *fl, const struct flight_opts *o);
void flight_free(struct flight *fl);

/* flight_add_snap - keep a copy of @s */
void flight_add_snap(struct flight *fl, const struct gl_snapshot *s);
/*
 * flight_add_rec - keep @rec; what it triggers, if it does (an Xid
 * event, a sample at or over its family's bound), else PROM_NR_CAUSES
 */
enum prom_cause flight_add_rec(struct flight *fl,
			       const struct gl_trace_rec *rec);
/*
 * flight_trigger - a trigger at @now_ns (CLOCK_MONOTONIC) described by
 * @why: true when a bundle will follow, false when it is suppressed
 * (one pending, or the last one less than gap_s ago)
 */
bool flight_trigger(struct flight *fl, uint64_t now_ns, const char *why);
/*
 * flight_tick - start the writer of the pending bundle once after_s have
 * passed since its trigger and a snapshot at or after that time ends its
 * window (or, without one, FLIGHT_LATE_S later), and no writer is busy;
 * 1 when one started, 0 when none did (a failure is counted).  The
 * window begins at the newest snapshot at or before before_s ahead of
 * the trigger.
 */
int flight_tick(struct flight *fl, uint64_t now_ns);
/*
 * flight_reap - the writer's outcome, counted, once it ended (@wait:
 * waiting for it, at most what is left of FLIGHT_WRITER_MAX_S); a writer
 * over its time is killed; 1 when one ended, 0 when none did
 */
int flight_reap(struct flight *fl, bool wait);
/*
 * flight_flush - the daemon stops: the pending bundle written now with
 * the window there is, and every writer waited for; 1 when one ended
 */
int flight_flush(struct flight *fl);

#endif /* _GPULAT_USER_FLIGHT_H */
