# SPDX-License-Identifier: GPL-2.0
# Kernel differences of the block family (see features.mk and
# compat/block.h for what each switch changes).

# block_rq_insert/_issue/_requeue/_merge took the request_queue first until
# 5.11 ("block: remove the request_queue to argument request based
# tracepoints"), and until 5.10.137 on 5.10 (backport).
gpulat-re-blk-rq-q := TP_PROTO\(struct request_queue \*q, struct request \*rq\)
ccflags-y += $(call gpulat-have,include/trace/events/block.h,$(gpulat-re-blk-rq-q),GPULAT_HAVE_BLOCK_RQ_QUEUE_ARG)

# block_rq_complete passes a blk_status_t (6.1 and later) where it used to
# pass an int errno (5.10).
gpulat-re-blk-status := TP_PROTO\(struct request \*rq, blk_status_t error,
ccflags-y += $(call gpulat-have,include/trace/events/block.h,$(gpulat-re-blk-status),GPULAT_HAVE_BLOCK_COMPLETE_STATUS)

# Before 4.11, block_rq_complete took (q, rq, nr_bytes) and no error.
gpulat-re-blk-cq := TP_PROTO\(struct request_queue \*q, struct request \*rq,$$
ccflags-y += $(call gpulat-have,include/trace/events/block.h,$(gpulat-re-blk-cq),GPULAT_HAVE_BLOCK_COMPLETE_QUEUE_ARG)

# struct request lost rq_disk in 5.19 (the disk is rq->q->disk since).
# It lived in blkdev.h until struct request moved to blk-mq.h.
gpulat-re-rq-disk := ^[[:space:]]*struct gendisk[[:space:]]+\*rq_disk;
ccflags-y += $(call gpulat-have,include/linux/blkdev.h,$(gpulat-re-rq-disk),GPULAT_HAVE_RQ_DISK)
ccflags-y += $(call gpulat-have,include/linux/blk-mq.h,$(gpulat-re-rq-disk),GPULAT_HAVE_RQ_DISK)
