/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keyed series (one histogram set per disk, network device or IRQ handler)
 * and the in-flight table that carries start stamps from one event to the
 * next (a request from issue to completion, a packet from queue to xmit).
 *
 * Keyed histograms are shared by all CPUs and updated with atomics: a
 * per-CPU copy per key would cost (3 + 226) * 8 bytes per series, per key,
 * per CPU, which no server with many disks and IRQs can spend.  Keys are
 * added on their first event, lock-free and without allocation, and never
 * removed, so a key's series stays comparable from snapshot to snapshot.
 */
#ifndef _GPULAT_KMOD_KEYED_H
#define _GPULAT_KMOD_KEYED_H

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/interrupt.h>

#include "gpulat.h"

/* Hash slots a lookup or an insertion looks at before giving up. */
#define GPULAT_KEY_PROBES	8
#define GPULAT_KEY_MAX		65535
/*
 * An entry of the hash: the key's 48-bit tag over its index + 1 (0 is an
 * empty entry), which GPULAT_KEY_MAX keeps within 16 bits.
 */
#define GPULAT_KEY_IDX_BITS	16
#define GPULAT_KEY_IDX_MASK	((1ULL << GPULAT_KEY_IDX_BITS) - 1)
#define GPULAT_KEY_ENTRY(tag, idx)	((tag) << GPULAT_KEY_IDX_BITS | ((idx) + 1))
#define GPULAT_KEY_ENTRY_TAG(e)		((e) >> GPULAT_KEY_IDX_BITS)
#define GPULAT_KEY_ENTRY_IDX(e)		((u32)((e) & GPULAT_KEY_IDX_MASK) - 1)

/* A histogram shared by every CPU. */
struct gpulat_ghist {
	atomic64_t count;
	atomic64_t sum_ns;
	atomic64_t max_ns;
	atomic64_t slots[GPULAT_HIST_NR_BUCKETS];
};

/*
 * gpulat_ghist_record - file one sample from any CPU or context
 *
 * The max loop retries only while other CPUs raise the max: it ends.
 */
static __always_inline void gpulat_ghist_record(struct gpulat_ghist *h, u64 ns)
{
	s64 max = atomic64_read(&h->max_ns);

	atomic64_inc(&h->slots[gpulat_hist_slot(ns)]);
	atomic64_add(ns, &h->sum_ns);
	while ((u64)max < ns && !atomic64_try_cmpxchg(&h->max_ns, &max, ns))
		;
	smp_mb__before_atomic();	/* slot before count */
	atomic64_inc(&h->count);
}

/* One key of a family: what the snapshot and debugfs print for it. */
struct gpulat_key {
	u64 key;			/* the ABI key */
	char name[GPULAT_NAME_LEN];	/* key_name, filled once */
	u32 ready;			/* listed once set (release/acquire) */
};

/*
 * Keyed series of a family.  The family sets series, nr_series, max_keys
 * and param (the module parameter that sets max_keys) before setup; the
 * registry checks max_keys at load (sized.h) and allocates the rest.
 */
struct gpulat_keyed {
	const struct gpulat_series_desc *series;
	unsigned int nr_series;
	unsigned int max_keys;		/* <= GPULAT_KEY_MAX */
	const char *param;

	u64 *hash;			/* GPULAT_KEY_ENTRY(); 0 = empty */
	u32 hash_bits;
	atomic_t nr_keys;		/* indexes handed out, may pass max */
	struct gpulat_key *keys;	/* [max_keys] */
	struct gpulat_ghist *hists;	/* [max_keys][nr_series] */
	unsigned long *listed;		/* snapshot's scratch, under gpulat_lock */
};

static __always_inline u64 gpulat_key_tag(u64 key)
{
	return hash_64(key, 48);
}

/* gpulat_key_find - index of @key, or -1 if it has none yet */
static __always_inline int gpulat_key_find(struct gpulat_keyed *kd, u64 key)
{
	u32 mask = (1U << kd->hash_bits) - 1;
	u32 pos = hash_64(key, kd->hash_bits);
	u64 tag = gpulat_key_tag(key);
	unsigned int n;

	for (n = 0; n < GPULAT_KEY_PROBES; n++) {
		u64 cur = READ_ONCE(kd->hash[(pos + n) & mask]);
		u32 idx;

		if (!cur)
			return -1;
		idx = GPULAT_KEY_ENTRY_IDX(cur);
		if (GPULAT_KEY_ENTRY_TAG(cur) == tag &&
		    READ_ONCE(kd->keys[idx].key) == key)
			return idx;
	}
	return -1;
}

int gpulat_key_add(struct gpulat_keyed *kd, u64 key,
		   void (*fill)(struct gpulat_key *k, const void *arg),
		   const void *arg);

/*
 * gpulat_key_get - index of @key, added on first sight (@fill names it);
 * -1 when the table is full: the caller counts it (its keys_full drop
 * counter).
 */
static __always_inline int gpulat_key_get(struct gpulat_keyed *kd, u64 key,
					  void (*fill)(struct gpulat_key *k,
						       const void *arg),
					  const void *arg)
{
	int idx = gpulat_key_find(kd, key);

	return idx >= 0 ? idx : gpulat_key_add(kd, key, fill, arg);
}

/*
 * gpulat_irq_key - the key of one IRQ handler: the IRQ number in bits
 * 0-31, and in bits 32-63 which handler (a shared line has several), from
 * its functions, which stay the same when a driver frees and requests the
 * IRQ again.  Both functions count: with threadirqs every force-threaded
 * handler has the kernel's same stub as handler and its own function as
 * thread_fn.  The irq and nvidia families key their series alike.
 */
static __always_inline u64 gpulat_irq_key(int irq,
					  const struct irqaction *action)
{
	unsigned long fns = (unsigned long)action->handler ^
			    (unsigned long)action->thread_fn;

	return (u32)irq | (u64)hash_long(fns, 32) << 32;
}

static __always_inline struct gpulat_ghist *
gpulat_key_hist(struct gpulat_keyed *kd, int idx, unsigned int series)
{
	return &kd->hists[idx * kd->nr_series + series];
}

int gpulat_keyed_check(const struct gpulat_keyed *kd);
int gpulat_keyed_alloc(struct gpulat_keyed *kd);
void gpulat_keyed_free(struct gpulat_keyed *kd);
void gpulat_keyed_rebase(struct gpulat_keyed *kd);
size_t gpulat_keyed_bytes(const struct gpulat_keyed *kd);
unsigned int gpulat_keyed_limit(const struct gpulat_keyed *kd);

/*
 * In-flight start stamps keyed by an object's address (a request, an skb).
 * An entry belongs to whoever swapped its ptr from 0; only the owner writes
 * the other fields.  ts == 0 marks an entry being filled or released.
 */
struct gpulat_flight {
	unsigned long ptr;
	u64 ts;
	u32 key_idx;
	u32 aux;
};

struct gpulat_inflight {
	struct gpulat_flight *e;
	u32 bits;
	u64 expire_ns;		/* an older stamp may be taken over */
};

enum gpulat_claim {
	GPULAT_CLAIM_NEW,	/* a free entry */
	GPULAT_CLAIM_OWN,	/* @ptr already had one: reuse it */
	GPULAT_CLAIM_EXPIRED,	/* took over a stale entry: count it */
	GPULAT_CLAIM_FULL,	/* none: count it */
};

static __always_inline struct gpulat_flight *
gpulat_flight_find(struct gpulat_inflight *t, unsigned long ptr)
{
	u32 mask = (1U << t->bits) - 1, pos = hash_long(ptr, t->bits);
	unsigned int n;

	for (n = 0; n < GPULAT_KEY_PROBES; n++) {
		struct gpulat_flight *f = &t->e[(pos + n) & mask];

		if (READ_ONCE(f->ptr) == ptr)
			return f;
	}
	return NULL;
}

struct gpulat_flight *gpulat_flight_claim(struct gpulat_inflight *t,
					  unsigned long ptr, u64 now,
					  enum gpulat_claim *how);

/* gpulat_flight_release - give the entry back; the owner calls this once */
static __always_inline void gpulat_flight_release(struct gpulat_flight *f)
{
	WRITE_ONCE(f->ts, 0);
	/* ts cleared before the entry can be claimed again */
	smp_store_release(&f->ptr, 0);
}

/* quiet (gl_kvcalloc_sized()): the caller names its parameter on failure */
int gpulat_inflight_alloc(struct gpulat_inflight *t, unsigned int entries,
			  u64 expire_ns);
void gpulat_inflight_free(struct gpulat_inflight *t);
void gpulat_inflight_clear(struct gpulat_inflight *t);

#endif /* _GPULAT_KMOD_KEYED_H */
