// SPDX-License-Identifier: GPL-2.0
/*
 * GPULAT_IOC_SNAPSHOT: every series, counter and probe state of every
 * family, laid out as described in uapi/gpulat.h, in one copy.
 */
#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>

#include "gpulat.h"
#include "keyed.h"

#define GPULAT_SERIES_BYTES \
	(sizeof(struct gpulat_series) + GPULAT_HIST_NR_BUCKETS * sizeof(u64))

#define GPULAT_EVENTS_MAX	256

/*
 * A snapshot allocates nothing: its scratch space is kept here for the
 * module's life, used under gpulat_lock.
 */
static struct cpumask snap_cpus;
static struct gpulat_hist snap_hist;
static struct gpulat_event snap_events[GPULAT_EVENTS_MAX];
static u64 snap_rec[GPULAT_SERIES_BYTES / sizeof(u64)];

/*
 * Where the next record goes, the scratch space a series is built in, and
 * what the sizing pass decided so that the copy matches it: which keys of
 * each keyed family are listed (keys that appear in between wait for the
 * next snapshot) and the events, copied once.
 */
struct gpulat_snap_ctx {
	void __user *ubuf;
	u64 off;
	struct gpulat_series *rec;
	unsigned long *listed[GPULAT_FAM_MAX];
	struct gpulat_event *events;
	u32 nr_events;
};

static bool gpulat_cpu_has_data(int cpu)
{
	unsigned int i, s;

	for (i = 0; i < gpulat_nr_families; i++) {
		struct gpulat_family *fam = gpulat_families[i];

		if (!fam->pcpu)
			continue;
		for (s = 0; s < fam->nr_series; s++)
			if (gpulat_fam_count(fam, cpu, s))
				return true;
	}
	return false;
}

/*
 * gpulat_snap_cpus - CPUs a snapshot lists: the online ones and offline
 * ones that still hold data, so that possible-but-absent CPUs of a virtual
 * machine do not bloat every snapshot.
 */
static void gpulat_snap_cpus(struct cpumask *mask)
{
	int cpu;

	cpumask_copy(mask, cpu_online_mask);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu) && gpulat_cpu_has_data(cpu))
			cpumask_set_cpu(cpu, mask);
}

static int gpulat_snap_put(struct gpulat_snap_ctx *ctx, const void *p,
			   size_t len)
{
	if (copy_to_user(ctx->ubuf + ctx->off, p, len))
		return -EFAULT;
	ctx->off += len;
	return 0;
}

static void gpulat_snap_rec_init(struct gpulat_series *rec,
				 struct gpulat_family *fam,
				 const struct gpulat_series_desc *d, u32 cpu)
{
	memset(rec, 0, sizeof(*rec));
	rec->family = fam->id;
	rec->id = d->id;
	rec->cpu = cpu;
	rec->key = d->key;
	strscpy(rec->name, d->name, sizeof(rec->name));
	if (d->key_name)
		strscpy(rec->key_name, d->key_name, sizeof(rec->key_name));
}

static int gpulat_snap_series(struct gpulat_snap_ctx *ctx,
			      struct gpulat_family *fam,
			      const struct cpumask *cpus)
{
	struct gpulat_series *rec = ctx->rec;
	struct gpulat_hist *h = &snap_hist;
	unsigned int s;
	int cpu, ret;

	for (s = 0; s < fam->nr_series; s++) {
		for_each_cpu(cpu, cpus) {
			gpulat_snap_rec_init(rec, fam, &fam->series[s], cpu);
			gpulat_fam_read(fam, cpu, s, h);
			rec->count = h->count;
			rec->sum_ns = h->sum_ns;
			rec->max_ns = h->max_ns;
			memcpy(rec->buckets, h->slots, sizeof(h->slots));
			ret = gpulat_snap_put(ctx, rec, GPULAT_SERIES_BYTES);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* gpulat_snap_keyed - the listed keys of @fam, each with all its series */
static int gpulat_snap_keyed(struct gpulat_snap_ctx *ctx,
			     struct gpulat_family *fam)
{
	struct gpulat_keyed *kd = fam->keyed;
	struct gpulat_series *rec = ctx->rec;
	unsigned int k, s, i;
	int ret;

	for_each_set_bit(k, ctx->listed[fam->id], kd->max_keys) {
		struct gpulat_key *key = &kd->keys[k];

		for (s = 0; s < kd->nr_series; s++) {
			struct gpulat_ghist *h = gpulat_key_hist(kd, k, s);

			gpulat_snap_rec_init(rec, fam, &kd->series[s],
					     GPULAT_CPU_NONE);
			rec->key = key->key;
			strscpy(rec->key_name, key->name,
				sizeof(rec->key_name));
			rec->count = atomic64_read(&h->count);
			smp_rmb();	/* pairs with gpulat_ghist_record() */
			rec->sum_ns = atomic64_read(&h->sum_ns);
			rec->max_ns = atomic64_read(&h->max_ns);
			for (i = 0; i < GPULAT_HIST_NR_BUCKETS; i++)
				rec->buckets[i] = atomic64_read(&h->slots[i]);
			ret = gpulat_snap_put(ctx, rec, GPULAT_SERIES_BYTES);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* gpulat_snap_list_keys - fix the keys of @fam this snapshot lists */
static void gpulat_snap_list_keys(struct gpulat_snap_ctx *ctx,
				  struct gpulat_family *fam, u32 *nr_series)
{
	struct gpulat_keyed *kd = fam->keyed;
	unsigned int k, limit = gpulat_keyed_limit(kd);
	unsigned long *map = kd->listed;

	bitmap_zero(map, kd->max_keys);
	for (k = 0; k < limit; k++) {
		/* ready: the key's name is written (gpulat_key_add) */
		if (!smp_load_acquire(&kd->keys[k].ready))
			continue;
		__set_bit(k, map);
		*nr_series += kd->nr_series;
	}
	ctx->listed[fam->id] = map;
}

static int gpulat_snap_counters(struct gpulat_snap_ctx *ctx,
				struct gpulat_family *fam)
{
	struct gpulat_counter c;
	unsigned int i;
	int ret;

	for (i = 0; i < fam->nr_drops; i++) {
		memset(&c, 0, sizeof(c));
		c.family = fam->id;
		c.id = i;
		strscpy(c.name, fam->drop_names[i], sizeof(c.name));
		c.value = gpulat_counter_sum(fam, i);
		ret = gpulat_snap_put(ctx, &c, sizeof(c));
		if (ret)
			return ret;
	}
	return 0;
}

static int gpulat_snap_probes(struct gpulat_snap_ctx *ctx,
			      struct gpulat_family *fam)
{
	struct gpulat_probe p;
	unsigned int i;
	int ret;

	for (i = 0; i < fam->nr_tps; i++) {
		struct gpulat_tp *t = &fam->tps[i];

		memset(&p, 0, sizeof(p));
		p.family = fam->id;
		p.state = t->state;
		p.error = t->error;
		strscpy(p.family_name, fam->name, sizeof(p.family_name));
		strscpy(p.tracepoint, t->name, sizeof(p.tracepoint));
		if (fam->pcpu)
			p.hits = gpulat_counter_sum(fam, t->hit_idx);
		ret = gpulat_snap_put(ctx, &p, sizeof(p));
		if (ret)
			return ret;
	}
	return 0;
}

static void gpulat_snap_header(struct gpulat_snap_header *hdr,
			       u32 nr_series, u32 nr_counters, u32 nr_probes,
			       u32 nr_events)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = GPULAT_SNAP_MAGIC;
	hdr->header_size = sizeof(*hdr);
	hdr->abi_major = GPULAT_ABI_MAJOR;
	hdr->abi_minor = GPULAT_ABI_MINOR;
	hdr->time_ns = ktime_get_ns();
	hdr->reset_time_ns = gpulat_reset_time_ns;
	hdr->generation = gpulat_generation;
	hdr->nr_cpu_ids = nr_cpu_ids;
	hdr->hist_sub_bits = GPULAT_HIST_SUB_BITS;
	hdr->hist_min_shift = GPULAT_HIST_MIN_SHIFT;
	hdr->hist_max_shift = GPULAT_HIST_MAX_SHIFT;
	hdr->hist_nr_buckets = GPULAT_HIST_NR_BUCKETS;
	strscpy(hdr->kernel_release, utsname()->release,
		sizeof(hdr->kernel_release));

	hdr->series.offset = sizeof(*hdr);
	hdr->series.count = nr_series;
	hdr->series.entry_size = GPULAT_SERIES_BYTES;
	hdr->counters.offset = hdr->series.offset +
			       (u64)nr_series * GPULAT_SERIES_BYTES;
	hdr->counters.count = nr_counters;
	hdr->counters.entry_size = sizeof(struct gpulat_counter);
	hdr->probes.offset = hdr->counters.offset +
			     (u64)nr_counters * sizeof(struct gpulat_counter);
	hdr->probes.count = nr_probes;
	hdr->probes.entry_size = sizeof(struct gpulat_probe);
	hdr->events.offset = hdr->probes.offset +
			     (u64)nr_probes * sizeof(struct gpulat_probe);
	hdr->events.count = nr_events;
	hdr->events.entry_size = sizeof(struct gpulat_event);
	hdr->total_size = hdr->events.offset +
			  (u64)nr_events * sizeof(struct gpulat_event);
}

/*
 * gpulat_snapshot_to_user - write the snapshot blob to @buf
 *
 * Sets *needed once the snapshot is sized.  @buf_size == 0 asks for the
 * size only; a shorter buffer than needed gets -ENOSPC and nothing
 * written.
 */
long gpulat_snapshot_to_user(void __user *buf, u64 buf_size, u64 *needed)
{
	struct gpulat_snap_header hdr;
	struct gpulat_snap_ctx ctx = {
		.ubuf = buf, .rec = (void *)snap_rec, .events = snap_events,
	};
	u32 nr_series = 0, nr_counters = 0, nr_probes = 0;
	struct cpumask *cpus = &snap_cpus;
	unsigned int i;
	long ret;

	lockdep_assert_held(&gpulat_lock);
	gpulat_snap_cpus(cpus);
	for (i = 0; i < gpulat_nr_families; i++) {
		struct gpulat_family *fam = gpulat_families[i];

		nr_probes += fam->nr_tps;
		if (!fam->pcpu)
			continue;
		nr_series += fam->nr_series * cpumask_weight(cpus);
		nr_counters += fam->nr_drops;
		if (fam->keyed)
			gpulat_snap_list_keys(&ctx, fam, &nr_series);
		if (fam->events)
			ctx.nr_events += fam->events(fam,
						     ctx.events + ctx.nr_events,
						     GPULAT_EVENTS_MAX -
						     ctx.nr_events);
	}
	gpulat_snap_header(&hdr, nr_series, nr_counters, nr_probes,
			   ctx.nr_events);
	*needed = hdr.total_size;
	if (!buf_size)
		return 0;
	if (buf_size < hdr.total_size)
		return -ENOSPC;

	ret = gpulat_snap_put(&ctx, &hdr, sizeof(hdr));
	for (i = 0; !ret && i < gpulat_nr_families; i++) {
		struct gpulat_family *fam = gpulat_families[i];

		if (!fam->pcpu)
			continue;
		ret = gpulat_snap_series(&ctx, fam, cpus);
		if (!ret && fam->keyed)
			ret = gpulat_snap_keyed(&ctx, fam);
	}
	for (i = 0; !ret && i < gpulat_nr_families; i++)
		if (gpulat_families[i]->pcpu)
			ret = gpulat_snap_counters(&ctx, gpulat_families[i]);
	for (i = 0; !ret && i < gpulat_nr_families; i++)
		ret = gpulat_snap_probes(&ctx, gpulat_families[i]);
	if (!ret)
		ret = gpulat_snap_put(&ctx, ctx.events,
				      ctx.nr_events * sizeof(*ctx.events));
	return ret;
}
