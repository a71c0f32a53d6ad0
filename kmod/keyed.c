// SPDX-License-Identifier: GPL-2.0
/*
 * The slow paths of keyed series and in-flight stamps: a key's first event,
 * taking over a stale stamp, allocation at setup.  Both may run in any
 * context (a probe in hard IRQ included): no locks, no allocation.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "fault.h"
#include "keyed.h"
#include "sized.h"

/*
 * gpulat_key_add - give @key an index
 *
 * The index is reserved and the key's record filled before the hash entry
 * is published with cmpxchg, so a reader that finds the entry finds the
 * record complete.  Racing adders of the same key: one entry wins, the
 * other's reserved index is never published nor listed.
 */
int gpulat_key_add(struct gpulat_keyed *kd, u64 key,
		   void (*fill)(struct gpulat_key *k, const void *arg),
		   const void *arg)
{
	u32 mask = (1U << kd->hash_bits) - 1;
	u32 pos = hash_64(key, kd->hash_bits);
	u64 tag = gpulat_key_tag(key);
	struct gpulat_key *k = NULL;
	unsigned int n;
	int idx = -1;

	for (n = 0; n < GPULAT_KEY_PROBES; n++) {
		u64 *e = &kd->hash[(pos + n) & mask];
		u64 cur = READ_ONCE(*e);

		if (!cur) {
			if (idx < 0) {
				/* full: do not count up forever (and wrap) */
				if (atomic_read(&kd->nr_keys) >= kd->max_keys)
					return -1;
				idx = atomic_inc_return(&kd->nr_keys) - 1;
				if (idx >= kd->max_keys)
					return -1;
				k = &kd->keys[idx];
				WRITE_ONCE(k->key, key);
				if (fill)
					fill(k, arg);
			}
			cur = cmpxchg(e, 0, GPULAT_KEY_ENTRY(tag, idx));
			if (!cur) {
				/* list it only now: its entry won */
				smp_store_release(&k->ready, 1);
				return idx;
			}
		}
		if (GPULAT_KEY_ENTRY_TAG(cur) == tag &&
		    READ_ONCE(kd->keys[GPULAT_KEY_ENTRY_IDX(cur)].key) == key)
			return GPULAT_KEY_ENTRY_IDX(cur);
	}
	return -1;
}

/* gpulat_keyed_limit - indexes that may hold a key */
unsigned int gpulat_keyed_limit(const struct gpulat_keyed *kd)
{
	return min_t(unsigned int, atomic_read(&kd->nr_keys), kd->max_keys);
}

/*
 * keyed_hash_bits - the hash for @keys keys: half full at most, so that a
 * probe window rarely fills; 16 entries at least
 */
static unsigned int keyed_hash_bits(u64 keys)
{
	return max(fls64(2 * max_t(u64, keys, 1) - 1), 4);
}

/* keyed_bytes_at - what @kd's tables take with @keys keys */
static u64 keyed_bytes_at(const struct gpulat_keyed *kd, u64 keys)
{
	return (1ULL << keyed_hash_bits(keys)) * sizeof(u64) +
	       keys * (sizeof(struct gpulat_key) +
		       kd->nr_series * sizeof(struct gpulat_ghist));
}

size_t gpulat_keyed_bytes(const struct gpulat_keyed *kd)
{
	return keyed_bytes_at(kd, kd->max_keys);
}

/* gpulat_keyed_check - refuse a max_keys this machine cannot hold */
int gpulat_keyed_check(const struct gpulat_keyed *kd)
{
	u64 keys = max(kd->max_keys, 1U);
	struct gpulat_sized s = {
		.param	= kd->param,
		.value	= kd->max_keys,
		.max	= GPULAT_KEY_MAX,
		.bytes	= keyed_bytes_at(kd, keys),
	};

	return gpulat_sized_check(&s);
}

int gpulat_keyed_alloc(struct gpulat_keyed *kd)
{
	struct gpulat_sized s = { .param = kd->param, .max = GPULAT_KEY_MAX };

	/* gpulat_keyed_check() refused more at load */
	kd->max_keys = clamp(kd->max_keys, 1U, (unsigned int)GPULAT_KEY_MAX);
	kd->hash_bits = keyed_hash_bits(kd->max_keys);
	atomic_set(&kd->nr_keys, 0);
	kd->hash = gl_kvcalloc_sized(1U << kd->hash_bits, sizeof(u64));
	kd->keys = gl_kvcalloc_sized(kd->max_keys, sizeof(*kd->keys));
	kd->hists = gl_kvcalloc_sized((size_t)kd->max_keys * kd->nr_series,
				      sizeof(*kd->hists));
	kd->listed = gl_bitmap_zalloc_sized(kd->max_keys);
	if (!kd->hash || !kd->keys || !kd->hists || !kd->listed) {
		gpulat_keyed_free(kd);
		s.value = kd->max_keys;
		s.bytes = gpulat_keyed_bytes(kd);
		gpulat_sized_nomem(&s);
		return -ENOMEM;
	}
	return 0;
}

void gpulat_keyed_free(struct gpulat_keyed *kd)
{
	gl_kvfree(kd->hash);
	gl_kvfree(kd->keys);
	gl_kvfree(kd->hists);
	gl_bitmap_free(kd->listed);
	kd->hash = NULL;
	kd->keys = NULL;
	kd->hists = NULL;
	kd->listed = NULL;
}

/*
 * gpulat_ghist_rebase - what @h holds now is taken out of it, exactly:
 * each slot loses what was read from it, and count the same total once
 * the samples being filed meanwhile have counted themselves (their slots
 * were taken, their count comes a few instructions later)
 */
static void gpulat_ghist_rebase(struct gpulat_ghist *h)
{
	unsigned int s, spins = 0;
	s64 v, taken = 0;

	for (s = 0; s < GPULAT_HIST_NR_BUCKETS; s++) {
		v = atomic64_read(&h->slots[s]);
		if (v) {
			atomic64_sub(v, &h->slots[s]);
			taken += v;
		}
	}
	atomic64_sub(atomic64_read(&h->sum_ns), &h->sum_ns);
	atomic64_set(&h->max_ns, 0);
	while (atomic64_read(&h->count) < taken && ++spins < 1000000)
		cpu_relax();
	atomic64_sub(min(taken, atomic64_read(&h->count)), &h->count);
}

/* gpulat_keyed_rebase - a new zero for every keyed histogram (reset) */
void gpulat_keyed_rebase(struct gpulat_keyed *kd)
{
	unsigned int k, s, limit = gpulat_keyed_limit(kd);

	for (k = 0; k < limit; k++) {
		for (s = 0; s < kd->nr_series; s++)
			gpulat_ghist_rebase(gpulat_key_hist(kd, k, s));
		cond_resched();
	}
}

/*
 * gpulat_flight_claim - an entry for @ptr starting at @now
 *
 * Looks at GPULAT_KEY_PROBES entries: @ptr's own, else a free one, else
 * one whose stamp is older than the table's expiry (its owner's event
 * never came: a request or packet dropped on the way).
 */
struct gpulat_flight *gpulat_flight_claim(struct gpulat_inflight *t,
					  unsigned long ptr, u64 now,
					  enum gpulat_claim *how)
{
	u32 mask = (1U << t->bits) - 1, pos = hash_long(ptr, t->bits);
	struct gpulat_flight *f;
	unsigned int n;

	f = gpulat_flight_find(t, ptr);
	if (f) {
		*how = GPULAT_CLAIM_OWN;
		goto stamp;
	}
	for (n = 0; n < GPULAT_KEY_PROBES; n++) {
		f = &t->e[(pos + n) & mask];
		if (!READ_ONCE(f->ptr) && !cmpxchg(&f->ptr, 0, ptr)) {
			*how = GPULAT_CLAIM_NEW;
			goto stamp;
		}
	}
	for (n = 0; n < GPULAT_KEY_PROBES; n++) {
		unsigned long old;
		u64 ts;

		f = &t->e[(pos + n) & mask];
		old = READ_ONCE(f->ptr);
		ts = READ_ONCE(f->ts);
		if (old && ts && now - ts > t->expire_ns &&
		    cmpxchg(&f->ptr, old, ptr) == old) {
			*how = GPULAT_CLAIM_EXPIRED;
			goto stamp;
		}
	}
	*how = GPULAT_CLAIM_FULL;
	return NULL;
stamp:
	WRITE_ONCE(f->ts, now);
	return f;
}

int gpulat_inflight_alloc(struct gpulat_inflight *t, unsigned int entries,
			  u64 expire_ns)
{
	entries = roundup_pow_of_two(max(entries, 64U));
	t->bits = ilog2(entries);
	t->expire_ns = expire_ns;
	t->e = gl_kvcalloc_sized(entries, sizeof(*t->e));
	return t->e ? 0 : -ENOMEM;
}

/* gpulat_inflight_clear - drop every stamp; no probe may be running */
void gpulat_inflight_clear(struct gpulat_inflight *t)
{
	memset(t->e, 0, sizeof(*t->e) << t->bits);
}

void gpulat_inflight_free(struct gpulat_inflight *t)
{
	gl_kvfree(t->e);
	t->e = NULL;
}
