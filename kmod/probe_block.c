// SPDX-License-Identifier: GPL-2.0
/*
 * Block family: request latency per disk and operation, as two kinds of
 * keyed series.
 *
 *   block.<op>.queue   block_rq_insert (or _requeue) -> block_rq_issue
 *   block.<op>.device  block_rq_issue -> block_rq_complete
 *
 * op is read, write, flush, discard or other (req_op()); the key is the
 * disk's dev_t, 0 for a queue without a disk.  A request issued without
 * passing through insert (no I/O scheduler, or a direct issue) is timed
 * for device time only.
 *
 * A request's stamp lives in the in-flight table, keyed by its address,
 * from its first event to its completion.  The entry also holds the key
 * index, found once at that first event, and where the request stands:
 *
 *   BLOCK_QUEUED    inserted: waiting in the scheduler or a queue
 *   BLOCK_REQUEUED  handed back by the driver or the block layer
 *   BLOCK_ISSUED    given to the driver
 *
 * While the trace is read or a cgroup is watched, the first event also
 * takes the cgroup (v2) of the task that runs it (current: the submitter
 * for a request it plugs or dispatches itself; a kworker for one the
 * block layer dispatches later, as writeback and requeues are), which
 * the request's records carry and the cgroup family files it under
 * (cgroup.block: first event -> complete).
 *
 * Events of one request are serialised by the block layer (a request is
 * inserted, issued and completed one step after the other, whatever the
 * CPUs), so only the owner of an entry writes it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/timekeeping.h>
#include <trace/events/block.h>

#include "fault.h"
#include "gpulat.h"
#include "gpulat_drops.h"
#include "gpulat_ops.h"
#include "keyed.h"
#include "probe_cgroup.h"
#include "sized.h"
#include "compat/cgroup.h"
#include "compat/block.h"
#include "gpulat_defaults.h"
#include "trace.h"

/* A stamp this old may be taken over: twice the usual request timeout. */
#define BLOCK_EXPIRE_NS		(GPULAT_BLOCK_EXPIRE_MS * NSEC_PER_MSEC)
#define BLOCK_INFLIGHT_PER_CPU	((u32)GPULAT_BLOCK_INFLIGHT_PER_CPU)
#define BLOCK_INFLIGHT_MIN	((u32)GPULAT_BLOCK_INFLIGHT_MIN)
#define BLOCK_INFLIGHT_MAX	(1ULL << 22)
#define BLOCK_NO_KEY		U32_MAX

enum block_state {
	BLOCK_QUEUED	= 1,
	BLOCK_REQUEUED	= 2,
	BLOCK_ISSUED	= 3,
};

enum {
	BLOCK_HITS_AFTER = GPULAT_BLOCK_KEYS_FULL,	/* the last drop counter */
	GPULAT_TPS_BLOCK(GPULAT_TP_HIT)
	BLOCK_NR_COUNTERS,
};

struct block_pcpu {
	u64 counters[BLOCK_NR_COUNTERS];
};

static unsigned int block_inflight;
module_param(block_inflight, uint, 0444);
MODULE_PARM_DESC(block_inflight,
		 "in-flight request table entries (0: "
		 __stringify(GPULAT_BLOCK_INFLIGHT_PER_CPU)
		 " per possible CPU, at least "
		 __stringify(GPULAT_BLOCK_INFLIGHT_MIN) "; at most 4194304)");

static struct block_pcpu __percpu *block_pc;
static struct gpulat_inflight block_flight;

/*
 * Beside each in-flight entry (same index), set at the request's first
 * event: the cgroup (v2) id of the task that ran it (0: not taken, the
 * trace unread and no cgroup watched), that cgroup's key in the cgroup
 * family (GPULAT_CG_NO_KEY: not watched), and the time.  Apart from the
 * entries, which the net family shares, so that only block pays for it.
 */
struct block_cg {
	u64 cg_id;
	u64 t0;
	u32 cg_key;
	u32 pad;
};

static struct block_cg *block_cgs;

static __always_inline struct block_cg *
block_cg_of(const struct gpulat_flight *f)
{
	return &block_cgs[f - block_flight.e];
}

/* In id order: a series' index in the keyed set is its id. */
static const struct gpulat_series_desc block_series[] = {
	GPULAT_DECL_BLOCK(GPULAT_SERIES_DESC)
};

static struct gpulat_keyed block_keyed = {
	.series		= block_series,
	.nr_series	= ARRAY_SIZE(block_series),
	.max_keys	= 32,
	.param		= "block_max_disks",
};

static __always_inline void block_count(unsigned int idx)
{
	this_cpu_inc(block_pc->counters[idx]);
}

/* the kernel's operations, as gpulat_ops.h numbers them */
static_assert(REQ_OP_READ == GPULAT_REQ_OP_READ);
static_assert(REQ_OP_WRITE == GPULAT_REQ_OP_WRITE);
static_assert(REQ_OP_FLUSH == GPULAT_REQ_OP_FLUSH);
static_assert(REQ_OP_DISCARD == GPULAT_REQ_OP_DISCARD);

/* block_op - the operation a request's samples are filed under */
static __always_inline unsigned int block_op(const struct request *rq)
{
	return gpulat_block_op(req_op(rq));
}

/* block_key_fill - name a key after its disk (padded: see block_key()) */
static void block_key_fill(struct gpulat_key *k, const void *arg)
{
	const struct gendisk *disk = arg;

	strscpy_pad(k->name, disk ? disk->disk_name : "none", sizeof(k->name));
}

/* Bytes of a disk's name compared on each request. */
#define BLOCK_NAME_CHECK	16

/*
 * block_key - key index of @rq's disk, or BLOCK_NO_KEY when none is left
 *
 * A disk that takes the dev_t of a removed one continues its series; the
 * name (both zero padded) follows it, checked on its first bytes.
 */
static __always_inline u32 block_key(struct request *rq)
{
	struct gendisk *disk = gpulat_rq_disk(rq);
	struct gpulat_key *k;
	int idx;

	BUILD_BUG_ON(sizeof(k->name) < BLOCK_NAME_CHECK ||
		     sizeof(disk->disk_name) < BLOCK_NAME_CHECK);
	idx = gpulat_key_get(&block_keyed, disk ? disk_devt(disk) : 0,
			     block_key_fill, disk);
	if (unlikely(idx < 0))
		return BLOCK_NO_KEY;
	k = &block_keyed.keys[idx];
	if (disk && unlikely(memcmp(k->name, disk->disk_name,
				    BLOCK_NAME_CHECK)))
		block_key_fill(k, disk);
	return idx;
}

/* block_file - file the interval from @ts to @now for @rq (entry @f) */
static __always_inline void block_file(struct request *rq,
				       const struct gpulat_flight *f,
				       unsigned int kind, u64 ts, u64 now)
{
	u32 key_idx = f->key_idx;
	s64 delta = now - ts;
	unsigned int series;

	if (unlikely(key_idx == BLOCK_NO_KEY)) {
		block_count(GPULAT_BLOCK_KEYS_FULL);
		return;
	}
	if (unlikely(delta < 0)) {
		block_count(GPULAT_BLOCK_NEGATIVE);
		return;
	}
	series = GPULAT_BLOCK_SERIES(block_op(rq), kind);
	gpulat_ghist_record(gpulat_key_hist(&block_keyed, key_idx, series),
			    delta);
	gpulat_trace_check_cg(GPULAT_FAM_BLOCK, series,
			      block_keyed.keys[key_idx].key, now, delta,
			      block_cg_of(f)->cg_id);
}

/*
 * block_start - stamp @rq as @state since @now, in a new entry
 *
 * An entry the request still holds from an earlier life (its end was
 * never seen) is reused and counted as expired, like a stale entry of
 * another request that had to be taken over.
 */
static __always_inline struct gpulat_flight *
block_start(struct request *rq, u32 state, u64 now)
{
	enum gpulat_claim how;
	struct gpulat_flight *f;
	struct block_cg *c;

	f = gpulat_flight_claim(&block_flight, (unsigned long)rq, now, &how);
	if (unlikely(!f)) {
		block_count(GPULAT_BLOCK_FULL);
		return NULL;
	}
	if (unlikely(how == GPULAT_CLAIM_EXPIRED || how == GPULAT_CLAIM_OWN))
		block_count(GPULAT_BLOCK_EXPIRED);
	f->key_idx = block_key(rq);
	f->aux = state;
	c = block_cg_of(f);
	c->cg_id = 0;
	c->t0 = now;
	c->cg_key = GPULAT_CG_NO_KEY;
	if (unlikely(gpulat_trace_on() || gpulat_cg_watching())) {
		c->cg_id = gpulat_task_cgroup_id(current);
		c->cg_key = gpulat_cg_key_current();
	}
	return f;
}

static void block_probe_insert(GPULAT_BLOCK_RQ_ARGS)
{
	u64 now = ktime_get_mono_fast_ns();
	struct gpulat_flight *f;

	block_count(BLOCK_HIT_INSERT);
	f = gpulat_flight_find(&block_flight, (unsigned long)rq);
	/* requeued: it has been waiting since the requeue */
	if (f && f->aux == BLOCK_REQUEUED) {
		f->aux = BLOCK_QUEUED;
		return;
	}
	block_start(rq, BLOCK_QUEUED, now);
}

static void block_probe_issue(GPULAT_BLOCK_RQ_ARGS)
{
	u64 now = ktime_get_mono_fast_ns();
	struct gpulat_flight *f;
	unsigned long flags;

	block_count(BLOCK_HIT_ISSUE);
	f = gpulat_flight_find(&block_flight, (unsigned long)rq);
	if (!f || f->aux == BLOCK_ISSUED) {
		/* issued without insert; or again, without requeue or end */
		block_start(rq, BLOCK_ISSUED, now);
		return;
	}
	/* stamped and filed with interrupts off: the trace stays in order */
	local_irq_save(flags);
	now = ktime_get_mono_fast_ns();
	block_file(rq, f, GPULAT_BLOCK_QUEUE, READ_ONCE(f->ts), now);
	WRITE_ONCE(f->ts, now);
	local_irq_restore(flags);
	f->aux = BLOCK_ISSUED;
}

/*
 * block_probe_complete - file the device time at the completion that ends
 * the request
 *
 * A partial completion (fewer bytes than the request has left) leaves the
 * stamp in place.  A completion of 0 bytes without a stamp is not a lost
 * sample: it is the end of a request whose flush sequence (a flush
 * request, the data part) was timed already.
 */
static void block_probe_complete(GPULAT_BLOCK_COMPLETE_ARGS)
{
	struct gpulat_flight *f;
	struct block_cg *c;
	unsigned long flags;
	u64 ts, now;

	block_count(BLOCK_HIT_COMPLETE);
	f = gpulat_flight_find(&block_flight, (unsigned long)rq);
	if (!f) {
		if (nr_bytes)
			block_count(GPULAT_BLOCK_NO_START);
		return;
	}
	if (f->aux != BLOCK_ISSUED) {
		/* ended before it was issued (an error, a dying queue) */
		block_count(GPULAT_BLOCK_NO_START);
		gpulat_flight_release(f);
		return;
	}
	if (nr_bytes < blk_rq_bytes(rq))
		return;
	ts = READ_ONCE(f->ts);
	/* stamped and filed with interrupts off: the trace stays in order */
	local_irq_save(flags);
	now = ktime_get_mono_fast_ns();
	block_file(rq, f, GPULAT_BLOCK_DEVICE, ts, now);
	c = block_cg_of(f);
	if (now >= c->t0)
		gpulat_cg_key(c->cg_key, GPULAT_CG_BLOCK, now - c->t0);
	local_irq_restore(flags);
	gpulat_flight_release(f);
}

/*
 * block_probe_requeue - the driver gave the request back: its next issue
 * starts a new attempt, whose queue time runs from now.  The device time
 * of the failed attempt is not filed.
 */
static void block_probe_requeue(GPULAT_BLOCK_RQ_ARGS)
{
	u64 now = ktime_get_mono_fast_ns();
	struct gpulat_flight *f;

	block_count(BLOCK_HIT_REQUEUE);
	f = gpulat_flight_find(&block_flight, (unsigned long)rq);
	if (!f) {
		block_start(rq, BLOCK_REQUEUED, now);
		return;
	}
	WRITE_ONCE(f->ts, now);
	f->aux = BLOCK_REQUEUED;
}

/* block_probe_merge - @rq was merged into another request and is freed */
static void block_probe_merge(GPULAT_BLOCK_RQ_ARGS)
{
	struct gpulat_flight *f;

	block_count(BLOCK_HIT_MERGE);
	f = gpulat_flight_find(&block_flight, (unsigned long)rq);
	if (f)
		gpulat_flight_release(f);
}

/*
 * block_inflight_entries - table size from block_inflight: 0 is 128 per
 * possible CPU, at least 4096 (up to the bound); at least 64, rounded up
 * to a power of two; over the bound only as block_check() reports it
 */
static u64 block_inflight_entries(void)
{
	u64 n = block_inflight;

	if (!n)
		n = clamp((u64)BLOCK_INFLIGHT_PER_CPU * num_possible_cpus(),
			  (u64)BLOCK_INFLIGHT_MIN, BLOCK_INFLIGHT_MAX);
	return gpulat_sized_pow2(max(n, 64ULL));
}

/* block_sized - the in-flight table and the cgroup entries beside it */
static void block_sized(struct gpulat_sized *s)
{
	s->param = "block_inflight";
	s->value = block_inflight;
	s->max = BLOCK_INFLIGHT_MAX;
	s->bytes = block_inflight_entries() *
		   (sizeof(*block_flight.e) + sizeof(*block_cgs));
}

static int block_check(struct gpulat_family *fam)
{
	struct gpulat_sized s;

	block_sized(&s);
	return gpulat_sized_check(&s);
}

static int block_init(struct gpulat_family *fam, void __percpu *pcpu)
{
	/* block_check() refused more at load */
	unsigned int n = min(block_inflight_entries(), BLOCK_INFLIGHT_MAX);
	struct gpulat_sized s;
	int ret;

	GPULAT_CHECK_PROBE(block_rq_insert, block_probe_insert);
	GPULAT_CHECK_PROBE(block_rq_issue, block_probe_issue);
	GPULAT_CHECK_PROBE(block_rq_complete, block_probe_complete);
	GPULAT_CHECK_PROBE(block_rq_requeue, block_probe_requeue);
	GPULAT_CHECK_PROBE(block_rq_merge, block_probe_merge);

	ret = gpulat_inflight_alloc(&block_flight, n, BLOCK_EXPIRE_NS);
	if (!ret) {
		block_cgs = gl_kvcalloc_sized((size_t)1 << block_flight.bits,
					      sizeof(*block_cgs));
		if (!block_cgs) {
			gpulat_inflight_free(&block_flight);
			ret = -ENOMEM;
		}
	}
	if (ret) {
		block_sized(&s);
		gpulat_sized_nomem(&s);
		return ret;
	}
	block_pc = pcpu;
	fam->extra_bytes += ((size_t)1 << block_flight.bits) *
			    (sizeof(*block_flight.e) + sizeof(*block_cgs));
	return 0;
}

static void block_clear(struct gpulat_family *fam)
{
	gpulat_inflight_clear(&block_flight);
}

static void block_exit(struct gpulat_family *fam)
{
	gl_kvfree(block_cgs);
	block_cgs = NULL;
	gpulat_inflight_free(&block_flight);
}

/*
 * Attached in this order: every event that ends or moves a stamp before
 * the events that set one, so that no stamp set after the attach misses
 * its end.  Requests already in flight at that moment count as no_start
 * when they complete, or are timed from their issue.
 */
static struct gpulat_tp block_tps[] = {
	GPULAT_TPS_BLOCK(GPULAT_TP_ROW)
};

static const char * const block_drop_names[] = GPULAT_BLOCK_DROP_NAMES;

struct gpulat_family gpulat_block_family = {
	.id		= GPULAT_FAM_BLOCK,
	.name		= "block",
	.tps		= block_tps,
	.nr_tps		= ARRAY_SIZE(block_tps),
	.drop_names	= block_drop_names,
	.nr_drops	= ARRAY_SIZE(block_drop_names),
	.pcpu_size	= sizeof(struct block_pcpu),
	.counter_offset	= offsetof(struct block_pcpu, counters),
	.keyed		= &block_keyed,
	.check		= block_check,
	.init		= block_init,
	.exit		= block_exit,
	.clear		= block_clear,
	.enabled	= true,
};

module_param_named(block, gpulat_block_family.enabled, bool, 0444);
MODULE_PARM_DESC(block, "block request latency family (default on)");
module_param_named(block_max_disks, block_keyed.max_keys, uint, 0444);
MODULE_PARM_DESC(block_max_disks,
		 "disks with their own series (default 32, at most 65535; more count as keys_full)");
