/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences of the block family, each with its history.  The
 * GPULAT_HAVE_* switches come from features-block.mk, which looks at the
 * target kernel's headers (distributions backport; version numbers lie).
 * probe_block.c includes this and never tests kernel versions itself.
 */
#ifndef _GPULAT_KMOD_COMPAT_BLOCK_H
#define _GPULAT_KMOD_COMPAT_BLOCK_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>

/*
 * block_rq_insert, block_rq_issue, block_rq_requeue and block_rq_merge
 * passed the request_queue before the request until 5.11 ("block: remove
 * the request_queue to argument request based tracepoints"); Debian's 5.10
 * has the change since 5.10.137 (backport).  The queue is rq->q either way.
 */
#ifdef GPULAT_HAVE_BLOCK_RQ_QUEUE_ARG
#define GPULAT_BLOCK_RQ_ARGS \
	void *data, struct request_queue *q, struct request *rq
#else
#define GPULAT_BLOCK_RQ_ARGS	void *data, struct request *rq
#endif

/*
 * block_rq_complete: (q, rq, nr_bytes) before 4.11; then (rq, int error,
 * nr_bytes) (5.10 has this one); then (rq, blk_status_t error, nr_bytes),
 * shared with block_rq_error through the block_rq_completion class (6.1
 * and later).  The probe uses rq and nr_bytes only.
 */
#if defined(GPULAT_HAVE_BLOCK_COMPLETE_QUEUE_ARG)
#define GPULAT_BLOCK_COMPLETE_ARGS \
	void *data, struct request_queue *q, struct request *rq, \
	unsigned int nr_bytes
#elif defined(GPULAT_HAVE_BLOCK_COMPLETE_STATUS)
#define GPULAT_BLOCK_COMPLETE_ARGS \
	void *data, struct request *rq, blk_status_t error, \
	unsigned int nr_bytes
#else
#define GPULAT_BLOCK_COMPLETE_ARGS \
	void *data, struct request *rq, int error, unsigned int nr_bytes
#endif

/*
 * gpulat_rq_disk - the disk a request is for, or NULL (a queue without a
 * disk: an NVMe admin queue, a SCSI device not bound to sd, ...)
 *
 * 5.19 removed struct request's rq_disk ("block: remove the ->rq_disk
 * field in struct request"); the disk is the queue's since.
 */
static __always_inline struct gendisk *gpulat_rq_disk(const struct request *rq)
{
#ifdef GPULAT_HAVE_RQ_DISK
	return READ_ONCE(rq->rq_disk);
#else
	return READ_ONCE(rq->q->disk);
#endif
}

#endif /* _GPULAT_KMOD_COMPAT_BLOCK_H */
