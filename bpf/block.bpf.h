/* SPDX-License-Identifier: GPL-2.0 */
/*
 * block family in BPF: request latency per disk and operation, as the
 * module measures it (kmod/probe_block.c):
 *
 *   block.<op>.queue   block_rq_insert (or _requeue) -> block_rq_issue
 *   block.<op>.device  block_rq_issue -> block_rq_complete
 *
 * Keyed by the disk's dev_t in the kernel's encoding (MAJOR << 20 |
 * MINOR; 0: a queue without a disk), named after the disk.  A request's
 * stamp lives in block_flight, keyed by its address, from its first
 * event to its completion, with where it stands (the module's aux) and
 * its disk's key; the key is made, and its series looked up, when a sample is
 * filed, and keys_full counted then, as the module counts it.  The
 * stamp also holds the cgroup (v2) of the task current at the first
 * event (insert, or an issue or requeue without one), taken only while
 * the trace is read (its records carry it) or cgroups are watched (the
 * whole request, first event to completion, is filed under that cgroup
 * in cgroup.block when it is a watched one or below one).
 * Tracepoints (hit counters, GL_BPF_HIT()), in the module's order:
 * 0 block_rq_complete, 1 block_rq_merge, 2 block_rq_requeue,
 * 3 block_rq_issue, 4 block_rq_insert.
 */
#ifndef _GPULAT_BPF_BLOCK_H
#define _GPULAT_BPF_BLOCK_H

#include "cgroup.bpf.h"
#include "flight.bpf.h"
#include "gpulat_ops.h"
#include "tp.bpf.h"
#include "trace.bpf.h"

#define GL_BLOCK_NR_SERIES	(2 * GPULAT_BLOCK_NR_OPS)
/* req_op(): the low bits of cmd_flags (REQ_OP_BITS, blk_types.h) */
#define GL_REQ_OP_MASK		0xff
/* MINORBITS (kdev_t.h): dev_t = MAJOR << 20 | MINOR */
#define GL_MINORBITS		20
/* Bytes of a disk's name compared on each request (the module's). */
#define GL_BLOCK_NAME_CHECK	16

enum {
	GL_BLOCK_QUEUED		= 1,	/* waiting in the scheduler or a queue */
	GL_BLOCK_REQUEUED	= 2,	/* handed back by the driver */
	GL_BLOCK_ISSUED		= 3,	/* given to the driver */
};

GL_KEYED(block, GPULAT_FAM_BLOCK, GL_NO_COUNT, GL_BLOCK_NR_SERIES,
	 GL_BPF_BLOCK_KEYS);
GL_FLIGHT_DEFINE(block_flight);

/*
 * block_rq_insert, _issue, _requeue and _merge passed (q, rq) until 5.11
 * ("block: remove the request_queue to argument request based
 * tracepoints"; 5.10.137 on 5.10): a kernel whose prototype has the
 * queue has the request second.
 */
typedef void (*btf_trace_block_rq_issue___q)(void *, struct request_queue *,
					     struct request *);

static __always_inline struct request *gl_block_rq(unsigned long long *ctx)
{
	if (bpf_core_type_exists(btf_trace_block_rq_issue___q))
		return (void *)ctx[1];
	return (void *)ctx[0];
}

/*
 * 5.19 removed struct request's rq_disk ("block: remove the ->rq_disk
 * field in struct request"): the disk is the queue's since.
 */
struct request___pre519 {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *gl_rq_disk(struct request *rq,
						  bool btf)
{
	struct request___pre519 *o = (void *)rq;
	struct request_queue *q;

	if (bpf_core_field_exists(o->rq_disk))
		return btf ? o->rq_disk : BPF_CORE_READ(o, rq_disk);
	q = btf ? rq->q : BPF_CORE_READ(rq, q);
	if (!q)
		return NULL;
	return btf ? q->disk : BPF_CORE_READ(q, disk);
}

/*
 * gl_block_devt - @disk's dev_t: two plain loads with BTF; else, major
 * and first_minor being neighbours in struct gendisk on every kernel we
 * know, one helper read takes both (two where the offsets say otherwise)
 */
static __always_inline __u64 gl_block_devt(struct gendisk *disk, bool btf)
{
	struct { __s32 major, first_minor; } mm;

	if (btf) {
		mm.major = disk->major;
		mm.first_minor = disk->first_minor;
	} else if (bpf_core_field_offset(disk->first_minor) ==
	    bpf_core_field_offset(disk->major) + sizeof(__s32)) {
		if (bpf_probe_read_kernel(&mm, sizeof(mm), &disk->major))
			return 0;
	} else {
		mm.major = BPF_CORE_READ(disk, major);
		mm.first_minor = BPF_CORE_READ(disk, first_minor);
	}
	return (__u64)mm.major << GL_MINORBITS | (__u32)mm.first_minor;
}

/* gl_block_op - the operation a request's samples are filed under */
static __always_inline __u32 gl_block_op(struct request *rq, bool btf)
{
	__u32 flags = btf ? rq->cmd_flags : BPF_CORE_READ(rq, cmd_flags);

	/* vmlinux.h's operations, as gpulat_ops.h numbers them */
	GL_BUILD_ASSERT(REQ_OP_READ == GPULAT_REQ_OP_READ);
	GL_BUILD_ASSERT(REQ_OP_WRITE == GPULAT_REQ_OP_WRITE);
	GL_BUILD_ASSERT(REQ_OP_FLUSH == GPULAT_REQ_OP_FLUSH);
	GL_BUILD_ASSERT(REQ_OP_DISCARD == GPULAT_REQ_OP_DISCARD);
	return gpulat_block_op(flags & GL_REQ_OP_MASK);
}

/* gl_block_name - name a key after its disk, zero padded (strscpy_pad) */
static __always_inline void gl_block_name(struct gl_keyed_block *v,
					  struct gendisk *disk)
{
	__builtin_memset(v->hdr.name, 0, sizeof(v->hdr.name));
	if (disk)
		bpf_probe_read_kernel_str(v->hdr.name, sizeof(v->hdr.name),
					  &disk->disk_name);
	else
		__builtin_memcpy(v->hdr.name, "none", 5);
}

/*
 * gl_block_key - make @key's series at its first sample, named after
 * @disk; a disk that takes the dev_t of a removed one continues its
 * series, and the name follows it (checked on its first bytes, both zero
 * padded), as in the module.  A key that finds no room is counted when
 * its samples would be filed.
 */
static __always_inline void gl_block_key(__u64 key, struct gendisk *disk)
{
	struct gl_kmax_block *max;
	struct gl_keyed_block *v;
	__u64 cur[GL_BLOCK_NAME_CHECK / 8];
	const __u64 *had;
	bool created;

	/* the common case, one lookup: the key made, by this very disk */
	v = bpf_map_lookup_elem(&block_keys, &key);
	if (v && v->hdr.named_by == (__u64)disk)
		return;
	if (!v) {
		v = block_key_get(key, &created, &max);
		if (!v)
			return;
		if (created) {
			gl_block_name(v, disk);
			v->hdr.named_by = (__u64)disk;
			return;
		}
	}
	v->hdr.named_by = (__u64)disk;
	if (!disk || bpf_probe_read_kernel(cur, sizeof(cur), &disk->disk_name))
		return;
	had = (const __u64 *)v->hdr.name;
	if (cur[0] != had[0] || cur[1] != had[1])
		gl_block_name(v, disk);
}

/*
 * gl_block_file - file the interval from @ts to @now of @rq on @key,
 * which cgroup @cg started; the key is made, or renamed, here (where
 * its series are looked up anyway: one lookup less a request than at
 * its start)
 */
static __always_inline void gl_block_file(struct request *rq, __u64 key,
					  __u32 kind, __u64 ts, __u64 now,
					  __u64 cg, bool btf)
{
	struct gl_keyed_block *v = bpf_map_lookup_elem(&block_keys, &key);
	struct gl_kmax_block *m = bpf_map_lookup_elem(&block_kmax, &key);
	struct gendisk *disk = gl_rq_disk(rq, btf);
	__s64 delta = now - ts;
	__u32 series;

	if (!v || !m || v->hdr.named_by != (__u64)disk) {
		gl_block_key(key, disk);
		v = bpf_map_lookup_elem(&block_keys, &key);
		m = bpf_map_lookup_elem(&block_kmax, &key);
	}
	if (!v || !m) {
		gl_count(GPULAT_FAM_BLOCK, GPULAT_BLOCK_KEYS_FULL);
		return;
	}
	if (delta < 0) {
		gl_count(GPULAT_FAM_BLOCK, GPULAT_BLOCK_NEGATIVE);
		return;
	}
	series = GPULAT_BLOCK_SERIES(gl_block_op(rq, btf), kind);
	barrier_var(series);
	if (series >= GL_BLOCK_NR_SERIES)
		return;
	gl_ghist_record(&v->h[series], &m->max[series], delta);
	gl_trace_check_cg(GPULAT_FAM_BLOCK, series, key, now, delta, NULL, 0,
			  cg);
}

/*
 * gl_block_cg - the cgroup starting a request now (@v's): its id while
 * traced or watched, its series made if it is watched (without room
 * for them it is counted here, once, and not filed)
 */
static __always_inline void gl_block_cg(struct gl_bpf_flight *v)
{
	struct cgroup *cg;
	struct gl_kmax_cg *m;

	if (!gl_conf.cg_nr) {
		if (gl_conf.gate[GPULAT_FAM_BLOCK] != GL_U64_MAX)
			v->cg = bpf_get_current_cgroup_id();
		return;
	}
	cg = gl_cg_of((struct task_struct *)bpf_get_current_task());
	v->cg = gl_cg_id(cg);
	if (gl_cg_watched(cg) && gl_cg_key(cg, v->cg, &m))
		v->cg_watched = 1;
}

/* gl_block_cg_end - @f's request completed at @now: its cgroup's sample */
static __always_inline void gl_block_cg_end(struct gl_bpf_flight *f,
					    __u64 now)
{
	__u64 key = f->cg;
	struct gl_keyed_cg *v = bpf_map_lookup_elem(&cg_keys, &key);
	struct gl_kmax_cg *m = bpf_map_lookup_elem(&cg_kmax, &key);

	if (!v || !m) {
		gl_count(GPULAT_FAM_CGROUP, GPULAT_CG_KEYS_FULL);
		return;
	}
	if (now >= f->first)
		gl_cg_record(v, m, GPULAT_CG_BLOCK, now - f->first);
}

/* gl_block_stamp - @v: @rq's stamp as @state since @now */
static __always_inline void gl_block_stamp(struct request *rq, __u32 state,
					   __u64 now, struct gl_bpf_flight *v,
					   bool btf)
{
	struct gendisk *disk = gl_rq_disk(rq, btf);

	__builtin_memset(v, 0, sizeof(*v));
	v->ts = now;
	v->aux = state;
	v->first = now;
	if (disk)
		v->key = gl_block_devt(disk, btf);
	gl_block_cg(v);
}

/* gl_block_claimed - count what gl_flight_claim_at() answered @how */
static __always_inline void gl_block_claimed(int how)
{
	if (how == GL_CLAIM_FULL)
		gl_count(GPULAT_FAM_BLOCK, GPULAT_BLOCK_FULL);
	else if (how == GL_CLAIM_OWN)
		gl_count(GPULAT_FAM_BLOCK, GPULAT_BLOCK_EXPIRED);
}

/*
 * gl_block_start - stamp @rq as @state since @now, @e its entry as a
 * lookup found it; an entry the request still holds from an earlier
 * life (its end never seen) is reused and counted as expired, as in the
 * module
 */
static __always_inline void gl_block_start(struct request *rq, __u32 state,
					   __u64 now, struct gl_bpf_flight *e,
					   bool btf)
{
	struct gl_bpf_flight v;

	gl_block_stamp(rq, state, now, &v, btf);
	gl_block_claimed(gl_flight_claim_at(&block_flight, (__u64)rq, e, &v));
}

GL_TP(block_rq_insert, gl_block_insert)
{
	struct request *rq = gl_block_rq(ctx);
	struct gl_bpf_flight *e, *f;

	gl_hit(GPULAT_FAM_BLOCK, GL_HIT_BLOCK_INSERT);
	e = gl_flight_entry(&block_flight, (__u64)rq);
	f = e && e->ts ? e : NULL;
	/* requeued: it has been waiting since the requeue */
	if (f && f->aux == GL_BLOCK_REQUEUED) {
		f->aux = GL_BLOCK_QUEUED;
		return 0;
	}
	gl_block_start(rq, GL_BLOCK_QUEUED, bpf_ktime_get_ns(), e, gl_btf);
	return 0;
}

/*
 * gl_block_sched - whether @rq's queue has an I/O scheduler: its requests
 * come inserted (a stamp to find), the others issued directly
 */
static __always_inline bool gl_block_sched(struct request *rq, bool btf)
{
	struct request_queue *q = btf ? rq->q : BPF_CORE_READ(rq, q);

	if (!q)
		return false;
	return !!(btf ? q->elevator : BPF_CORE_READ(q, elevator));
}

/*
 * block_rq_issue: on a queue without an I/O scheduler (NVMe's default) a
 * request comes without an insert, and its stamp is made by one update
 * that finds none, with no look-up before it; with a scheduler it has
 * one, looked up first, and no stamp is made for nothing
 */
GL_TP(block_rq_issue, gl_block_issue)
{
	struct request *rq = gl_block_rq(ctx);
	__u64 now = bpf_ktime_get_ns(), ptr = (__u64)rq;
	struct gl_bpf_flight v, *e, *f;
	int err;

	gl_hit(GPULAT_FAM_BLOCK, GL_HIT_BLOCK_ISSUE);
	if (!gl_block_sched(rq, gl_btf)) {
		gl_block_stamp(rq, GL_BLOCK_ISSUED, now, &v, gl_btf);
		err = bpf_map_update_elem(&block_flight, &ptr, &v,
					  BPF_NOEXIST);
		if (!err)
			return 0;
		if (err != -GL_EEXIST) {
			gl_count(GPULAT_FAM_BLOCK, GPULAT_BLOCK_FULL);
			return 0;
		}
	}
	e = gl_flight_entry(&block_flight, ptr);
	f = e && e->ts ? e : NULL;
	if (!f || f->aux == GL_BLOCK_ISSUED) {
		/* issued without insert; or again, without requeue or end */
		gl_block_start(rq, GL_BLOCK_ISSUED, now, e, gl_btf);
		return 0;
	}
	gl_block_file(rq, f->key, GPULAT_BLOCK_QUEUE, f->ts, now, f->cg,
		      gl_btf);
	f->ts = now;
	f->aux = GL_BLOCK_ISSUED;
	return 0;
}

/*
 * block_rq_complete: (rq, int error, nr_bytes) in 5.10, (rq, blk_status_t
 * error, nr_bytes) since (the block_rq_completion class): rq and nr_bytes
 * where they were.  A partial completion leaves the stamp; one of 0 bytes
 * without a stamp ends a flush sequence timed already (not a lost one).
 */
GL_TP(block_rq_complete, gl_block_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	struct gl_bpf_flight *f;
	__u64 ts, key, now;

	gl_hit(GPULAT_FAM_BLOCK, GL_HIT_BLOCK_COMPLETE);
	f = gl_flight_find(&block_flight, (__u64)rq);
	if (!f) {
		if (nr_bytes)
			gl_count(GPULAT_FAM_BLOCK, GPULAT_BLOCK_NO_START);
		return 0;
	}
	if (f->aux != GL_BLOCK_ISSUED) {
		/* ended before it was issued (an error, a dying queue) */
		gl_count(GPULAT_FAM_BLOCK, GPULAT_BLOCK_NO_START);
		gl_flight_release(&block_flight, (__u64)rq, f);
		return 0;
	}
	if (nr_bytes < (gl_btf ? rq->__data_len : BPF_CORE_READ(rq, __data_len)))
		return 0;
	ts = f->ts;
	key = f->key;
	now = bpf_ktime_get_ns();
	gl_block_file(rq, key, GPULAT_BLOCK_DEVICE, ts, now, f->cg, gl_btf);
	/* as the module: nothing filed once the family is off or unwatched */
	if (f->cg_watched && gl_conf.cg_nr)
		gl_block_cg_end(f, now);
	gl_flight_release(&block_flight, (__u64)rq, f);
	return 0;
}

/*
 * block_rq_requeue: the driver gave the request back; its next issue
 * starts a new attempt whose queue time runs from now (the failed
 * attempt's device time is not filed)
 */
GL_TP(block_rq_requeue, gl_block_requeue)
{
	struct request *rq = gl_block_rq(ctx);
	__u64 now = bpf_ktime_get_ns();
	struct gl_bpf_flight *e, *f;

	gl_hit(GPULAT_FAM_BLOCK, GL_HIT_BLOCK_REQUEUE);
	e = gl_flight_entry(&block_flight, (__u64)rq);
	f = e && e->ts ? e : NULL;
	if (!f) {
		gl_block_start(rq, GL_BLOCK_REQUEUED, now, e, gl_btf);
		return 0;
	}
	f->ts = now;
	f->aux = GL_BLOCK_REQUEUED;
	return 0;
}

/* block_rq_merge: the request was merged into another one and is freed */
GL_TP(block_rq_merge, gl_block_merge)
{
	struct request *rq = gl_block_rq(ctx);
	struct gl_bpf_flight *f;

	gl_hit(GPULAT_FAM_BLOCK, GL_HIT_BLOCK_MERGE);
	f = gl_flight_find(&block_flight, (__u64)rq);
	if (f)
		gl_flight_release(&block_flight, (__u64)rq, f);
	return 0;
}

#endif /* _GPULAT_BPF_BLOCK_H */
