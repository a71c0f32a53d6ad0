// SPDX-License-Identifier: GPL-2.0
/*
 * The probe registry: allocates each family's per-CPU block, finds its
 * tracepoints by name (kernel tracepoints are not exported to modules by
 * symbol), attaches and detaches them, sums and resets the data.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include "fault.h"
#include "gpulat.h"
#include "keyed.h"
#include "mux.h"
#include "trace.h"

/* families.h: every id from 1 has its family */
#define GPULAT_FAMILY(name, id, threshold_us, keeps, tool)		\
	[(id) - 1] = &gpulat_##name##_family,
struct gpulat_family *gpulat_families[] = {
#include "families.h"
};

#undef GPULAT_FAMILY

unsigned int gpulat_nr_families = ARRAY_SIZE(gpulat_families);

#define GPULAT_FAMILY(name, id, threshold_us, keeps, tool)		\
	[id] = (keeps),
static const u32 gpulat_family_keeps[GPULAT_FAM_MAX] = {
#include "families.h"
};

#undef GPULAT_FAMILY

/*
 * Serialises snapshot, reset, family switches and debugfs readers against
 * each other; never taken by a probe.  The order of every lock of the
 * module is in gpulat.h.
 */
DEFINE_MUTEX(gpulat_lock);
u64 gpulat_reset_time_ns;
u32 gpulat_generation;

/*
 * gpulat_keeps_update - tell the trace which culprit histories are kept:
 * those of the attached families (families.h); after a family's attached
 * changed
 */
static void gpulat_keeps_update(void)
{
	u32 keeps = 0;
	unsigned int i;

	lockdep_assert_held(&gpulat_lock);
	for (i = 0; i < gpulat_nr_families; i++)
		if (gpulat_families[i]->attached)
			keeps |= gpulat_family_keeps[gpulat_families[i]->id];
	WRITE_ONCE(gpulat_trace_keeps, keeps);
}

struct gpulat_family *gpulat_family_by_id(u32 id)
{
	unsigned int i;

	for (i = 0; i < gpulat_nr_families; i++)
		if (gpulat_families[i]->id == id)
			return gpulat_families[i];
	return NULL;
}

/* gpulat_tp_match - for_each_kernel_tracepoint() callback */
static void gpulat_tp_match(struct tracepoint *tp, void *priv)
{
	struct gpulat_family *fam = priv;
	unsigned int i;

	for (i = 0; i < fam->nr_tps; i++)
		if (!fam->tps[i].tp && !strcmp(tp->name, fam->tps[i].name))
			fam->tps[i].tp = tp;
}

/* gpulat_tp_register - hook @t's probe, alone or through its mux */
static int gpulat_tp_register(struct gpulat_family *fam, struct gpulat_tp *t)
{
	struct gpulat_mux *m = gpulat_mux_of(fam, t);
	int ret;

	lockdep_assert_held(&gpulat_lock);
	if (WARN_ON_ONCE(!m && t->probe == GPULAT_TP_MUX))
		return -EINVAL;		/* no mux does this family's work */
	if (!m)
		return GL_CALL(-ENOMEM,
			       tracepoint_probe_register(t->tp, t->probe, NULL));
	/* the bit before the probe: the mux calls only families it has */
	gpulat_mux_set(m, fam->id, true);
	if (m->on != BIT(fam->id))
		return 0;
	ret = GL_CALL(-ENOMEM, tracepoint_probe_register(t->tp, m->probe, NULL));
	if (ret)
		gpulat_mux_set(m, fam->id, false);
	return ret;
}

static void gpulat_tp_unregister(struct gpulat_family *fam,
				 struct gpulat_tp *t)
{
	struct gpulat_mux *m = gpulat_mux_of(fam, t);

	lockdep_assert_held(&gpulat_lock);
	if (!m) {
		tracepoint_probe_unregister(t->tp, t->probe, NULL);
		return;
	}
	gpulat_mux_set(m, fam->id, false);
	if (!m->on)
		tracepoint_probe_unregister(t->tp, m->probe, NULL);
}

/*
 * gpulat_family_detach - unregister every probe that was attached; safe
 * on a family never set up (its states are not ATTACHED, nor its
 * tracepoints found)
 */
static void gpulat_family_detach(struct gpulat_family *fam)
{
	unsigned int i;

	for (i = 0; i < fam->nr_tps; i++) {
		struct gpulat_tp *t = &fam->tps[i];

		if (t->state != GPULAT_PROBE_ATTACHED || !t->tp)
			continue;
		gpulat_tp_unregister(fam, t);
		t->state = GPULAT_PROBE_DISABLED;
	}
}

/*
 * gpulat_family_attach - attach all of a family's tracepoints, or none
 *
 * A family whose tracepoints are missing (-ENODEV), or one that fails to
 * register, stays off and says why in each tracepoint's state.
 */
static int gpulat_family_attach(struct gpulat_family *fam)
{
	bool missing = false;
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(gpulat_tp_match, fam);
	for (i = 0; i < fam->nr_tps; i++) {
		if (fam->tps[i].tp)
			continue;
		fam->tps[i].state = GPULAT_PROBE_MISSING;
		pr_info("%s: tracepoint %s not found, family off\n",
			fam->name, fam->tps[i].name);
		missing = true;
	}
	if (missing)
		return -ENODEV;
	for (i = 0; i < fam->nr_tps; i++) {
		struct gpulat_tp *t = &fam->tps[i];

		ret = gpulat_tp_register(fam, t);
		if (ret) {
			pr_err("%s: cannot attach %s: %d, family off\n",
			       fam->name, t->name, ret);
			gpulat_family_detach(fam);
			t->state = GPULAT_PROBE_FAILED;
			t->error = -ret;
			return ret;
		}
		t->state = GPULAT_PROBE_ATTACHED;
		t->error = 0;
	}
	fam->attached = true;
	gpulat_keeps_update();
	return 0;
}

static void gpulat_family_free_hists(struct gpulat_family *fam)
{
	unsigned int i;

	if (!fam->hists)
		return;
	for (i = 0; i < fam->nr_series; i++)
		gl_free_percpu(fam->hists[i]);
	gl_kfree(fam->hists);
	fam->hists = NULL;
}

/* gpulat_family_alloc_hists - per-CPU histograms kept apart, one each */
static int gpulat_family_alloc_hists(struct gpulat_family *fam)
{
	unsigned int i;

	if (fam->hist_offset != GPULAT_HISTS_APART)
		return 0;
	BUILD_BUG_ON(offsetof(struct gpulat_phist, max_ns) !=
		     offsetof(struct gpulat_hist, max_ns));
	fam->hists = gl_kcalloc(fam->nr_series, sizeof(*fam->hists));
	if (!fam->hists)
		return -ENOMEM;
	for (i = 0; i < fam->nr_series; i++) {
		fam->hists[i] = gl_alloc_percpu(gpulat_fam_hist_bytes(fam),
						__alignof__(u64));
		if (!fam->hists[i]) {
			gpulat_family_free_hists(fam);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * gpulat_family_free - release what gpulat_family_alloc() took, whatever
 * step it reached: every part is NULL until taken, and a family's exit
 * undoes any part of its init
 */
static void gpulat_family_free(struct gpulat_family *fam)
{
	if (!fam->pcpu)
		return;
	if (fam->exit)
		fam->exit(fam);
	if (fam->keyed)
		gpulat_keyed_free(fam->keyed);
	gpulat_family_free_hists(fam);
	gpulat_base_free(fam);
	gl_free_percpu(fam->pcpu);
	fam->pcpu = NULL;
}

/* gpulat_family_alloc - a family's memory, taken once, at its first use */
static int gpulat_family_alloc(struct gpulat_family *fam)
{
	void __percpu *pcpu;
	int ret;

	if (fam->pcpu)
		return 0;
	pcpu = gl_alloc_percpu(fam->pcpu_size, SMP_CACHE_BYTES);
	if (!pcpu)
		return -ENOMEM;
	fam->pcpu = pcpu;
	fam->extra_bytes = 0;
	ret = gpulat_family_alloc_hists(fam);
	if (!ret && fam->keyed) {
		ret = gpulat_keyed_alloc(fam->keyed);
		if (!ret)
			fam->extra_bytes = gpulat_keyed_bytes(fam->keyed);
	}
	if (!ret && fam->init)
		ret = fam->init(fam, fam->pcpu);
	if (ret)
		gpulat_family_free(fam);
	return ret;
}

/*
 * gpulat_family_switch - attach or detach a family's probes
 *
 * Memory stays once taken: a family switched off keeps its histograms,
 * which snapshots go on listing.
 */
int gpulat_family_switch(struct gpulat_family *fam, bool on)
{
	int ret;

	lockdep_assert_held(&gpulat_lock);
	if (on == fam->attached)
		return 0;
	if (!on) {
		gpulat_family_detach(fam);
		fam->attached = false;
		gpulat_keeps_update();
		tracepoint_synchronize_unregister();
		if (fam->stopped)
			fam->stopped(fam);
		return 0;
	}
	if (!fam->nr_tps && !fam->no_probes)
		return -ENODEV;
	ret = gpulat_family_alloc(fam);
	if (ret)
		return ret;
	/* no probe of the family runs now: its state can be cleared */
	if (fam->clear)
		fam->clear(fam);
	ret = gpulat_family_attach(fam);
	if (ret) {
		/* a probe attached before the failure may still be running */
		tracepoint_synchronize_unregister();
		return ret;
	}
	if (fam->started)
		fam->started(fam);
	return 0;
}

/*
 * gpulat_registry_check - refuse, before anything is allocated, a module
 * parameter that sizes a table this machine cannot hold (sized.h): every
 * family's, on or off at load, since any may be switched on later
 */
int gpulat_registry_check(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < gpulat_nr_families; i++) {
		struct gpulat_family *fam = gpulat_families[i];

		ret = fam->keyed ? gpulat_keyed_check(fam->keyed) : 0;
		if (!ret && fam->check)
			ret = fam->check(fam);
		if (ret)
			return ret;
	}
	return 0;
}

int gpulat_registry_init(void)
{
	unsigned int i, j;
	int ret = 0;

	BUILD_BUG_ON(ARRAY_SIZE(gpulat_families) != GPULAT_FAM_MAX - 1);
	gpulat_reset_time_ns = ktime_get_ns();
	mutex_lock(&gpulat_lock);
	/* every family's state first: teardown reads them all */
	for (i = 0; i < gpulat_nr_families; i++)
		for (j = 0; j < gpulat_families[i]->nr_tps; j++)
			gpulat_families[i]->tps[j].state = GPULAT_PROBE_DISABLED;
	for (i = 0; i < gpulat_nr_families; i++) {
		struct gpulat_family *fam = gpulat_families[i];

		if (!fam->enabled)
			continue;
		ret = gpulat_family_switch(fam, true);
		/* a kernel without a family's tracepoints still loads */
		if (ret && ret != -ENOMEM)
			ret = 0;
		if (ret)
			break;
	}
	mutex_unlock(&gpulat_lock);
	if (ret)
		gpulat_registry_exit();
	return ret;
}

void gpulat_registry_exit(void)
{
	unsigned int i;

	mutex_lock(&gpulat_lock);
	for (i = 0; i < gpulat_nr_families; i++) {
		struct gpulat_family *fam = gpulat_families[i];

		gpulat_family_detach(fam);
		if (fam->attached && fam->stopped)
			fam->stopped(fam);
		fam->attached = false;
	}
	gpulat_keeps_update();
	mutex_unlock(&gpulat_lock);
	/* no probe may still run when the memory below goes away */
	tracepoint_synchronize_unregister();
	for (i = 0; i < gpulat_nr_families; i++)
		gpulat_family_free(gpulat_families[i]);
}

/*
 * Reset is a new baseline, not a stop of the machine: the probes keep
 * counting, and every read subtracts what the data held at the last
 * reset.  Taking the baseline reads the data as a snapshot does, with
 * preemption and interrupts on, and stops nothing.  Keyed histograms are
 * atomics: from them the baseline is subtracted in place, exactly.
 *
 * A baseline's count is the sum of its slots, so that a sample filed
 * while the baseline was read (its slot counted, its count not yet)
 * leaves no count ahead of its slots afterwards.  max_ns cannot be
 * subtracted: it is set to 0, and a sample filed at that very moment may
 * leave its value or lose it.
 */
#define GPULAT_BASE_WORDS	(2 + GPULAT_HIST_NR_BUCKETS)	/* count, sum, slots */

struct gpulat_base {
	u64 *hist;		/* [nr_cpu_ids][nr_series][GPULAT_BASE_WORDS] */
	u64 *counters;		/* [nr_counters], summed over CPUs */
};

static unsigned int gpulat_nr_counters(const struct gpulat_family *fam)
{
	unsigned int i, n = fam->nr_drops;

	for (i = 0; i < fam->nr_tps; i++)
		n = max(n, fam->tps[i].hit_idx + 1);
	return n;
}

static size_t gpulat_base_bytes(const struct gpulat_family *fam)
{
	return ((size_t)nr_cpu_ids * fam->nr_series * GPULAT_BASE_WORDS +
		gpulat_nr_counters(fam)) * sizeof(u64) + sizeof(*fam->base);
}

void gpulat_base_free(struct gpulat_family *fam)
{
	if (!fam->base)
		return;
	gl_kvfree(fam->base->hist);
	gl_kvfree(fam->base->counters);
	gl_kfree(fam->base);
	fam->base = NULL;
}

/* gpulat_base_alloc - @fam's baseline, taken at its first reset */
static int gpulat_base_alloc(struct gpulat_family *fam)
{
	struct gpulat_base *b;

	if (fam->base || !fam->pcpu)
		return 0;
	b = gl_kzalloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->hist = gl_kvcalloc((size_t)nr_cpu_ids * fam->nr_series,
			      GPULAT_BASE_WORDS * sizeof(u64));
	b->counters = gl_kvcalloc(gpulat_nr_counters(fam), sizeof(u64));
	fam->base = b;
	if (!b->hist || !b->counters) {
		gpulat_base_free(fam);
		return -ENOMEM;
	}
	fam->extra_bytes += gpulat_base_bytes(fam);
	return 0;
}

static u64 *gpulat_base_of(struct gpulat_family *fam, int cpu,
			   unsigned int idx)
{
	return fam->base->hist + ((size_t)cpu * fam->nr_series + idx) *
		GPULAT_BASE_WORDS;
}

static u64 gpulat_sub0(u64 a, u64 b)
{
	return a > b ? a - b : 0;
}

/* gpulat_fam_read_raw - series @idx on @cpu as the probes left it */
static void gpulat_fam_read_raw(struct gpulat_family *fam, int cpu,
				unsigned int idx, struct gpulat_hist *out)
{
	const struct gpulat_hist *h = gpulat_fam_hist(fam, cpu, idx);

	/* count first: it never runs ahead of the slots */
	out->count = READ_ONCE(h->count);
	smp_rmb();	/* pairs with gpulat_hist_record() */
	out->sum_ns = READ_ONCE(h->sum_ns);
	out->max_ns = READ_ONCE(h->max_ns);
	gpulat_fam_slots(fam, cpu, idx, out->slots, false);
}

/* gpulat_fam_read - series @idx on @cpu since the last reset */
void gpulat_fam_read(struct gpulat_family *fam, int cpu, unsigned int idx,
		     struct gpulat_hist *out)
{
	const u64 *b;
	unsigned int s;

	gpulat_fam_read_raw(fam, cpu, idx, out);
	if (!fam->base)
		return;
	b = gpulat_base_of(fam, cpu, idx);
	out->count = gpulat_sub0(out->count, b[0]);
	out->sum_ns = gpulat_sub0(out->sum_ns, b[1]);
	for (s = 0; s < GPULAT_HIST_NR_BUCKETS; s++)
		out->slots[s] = gpulat_sub0(out->slots[s], b[2 + s]);
}

/* gpulat_fam_count - samples of series @idx on @cpu since the last reset */
u64 gpulat_fam_count(struct gpulat_family *fam, int cpu, unsigned int idx)
{
	u64 n = READ_ONCE(gpulat_fam_hist(fam, cpu, idx)->count);

	return fam->base ? gpulat_sub0(n, gpulat_base_of(fam, cpu, idx)[0]) : n;
}

/* gpulat_counter_sum - a family counter summed over CPUs, since reset */
u64 gpulat_counter_sum(struct gpulat_family *fam, unsigned int idx)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(gpulat_fam_counters(fam, cpu)[idx]);
	return fam->base ? gpulat_sub0(sum, fam->base->counters[idx]) : sum;
}

/* gpulat_hist_sum - merge series @idx of @fam over @cpus into @out */
void gpulat_hist_sum(struct gpulat_family *fam, unsigned int idx,
		     const struct cpumask *cpus, struct gpulat_hist *out,
		     struct gpulat_hist *scratch)
{
	unsigned int s;
	int cpu;

	memset(out, 0, sizeof(*out));
	for_each_cpu(cpu, cpus) {
		gpulat_fam_read(fam, cpu, idx, scratch);
		out->count += scratch->count;
		out->sum_ns += scratch->sum_ns;
		out->max_ns = max(out->max_ns, scratch->max_ns);
		for (s = 0; s < GPULAT_HIST_NR_BUCKETS; s++)
			out->slots[s] += scratch->slots[s];
	}
}

/* gpulat_base_take - @fam's data now becomes its zero */
static void gpulat_base_take(struct gpulat_family *fam,
			     struct gpulat_hist *h)
{
	unsigned int i, s, nr = gpulat_nr_counters(fam);
	int cpu;

	for (i = 0; i < nr; i++) {
		u64 sum = 0;

		for_each_possible_cpu(cpu)
			sum += READ_ONCE(gpulat_fam_counters(fam, cpu)[i]);
		fam->base->counters[i] = sum;
	}
	for_each_possible_cpu(cpu) {
		for (i = 0; i < fam->nr_series; i++) {
			u64 *b = gpulat_base_of(fam, cpu, i), slots = 0;

			gpulat_fam_read_raw(fam, cpu, i, h);
			for (s = 0; s < GPULAT_HIST_NR_BUCKETS; s++) {
				b[2 + s] = h->slots[s];
				slots += h->slots[s];
			}
			b[0] = slots;
			b[1] = h->sum_ns;
			WRITE_ONCE(gpulat_fam_hist(fam, cpu, i)->max_ns, 0);
		}
		cond_resched();
	}
	if (fam->keyed)
		gpulat_keyed_rebase(fam->keyed);
}

/*
 * gpulat_reset_all - a new zero for every histogram and counter; fails
 * (-ENOMEM) before changing anything
 */
int gpulat_reset_all(void)
{
	struct gpulat_hist *h;
	unsigned int i;
	int ret;

	lockdep_assert_held(&gpulat_lock);
	for (i = 0; i < gpulat_nr_families; i++) {
		ret = gpulat_base_alloc(gpulat_families[i]);
		if (ret)
			return ret;
	}
	h = gl_kzalloc(sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (i = 0; i < gpulat_nr_families; i++)
		if (gpulat_families[i]->pcpu)
			gpulat_base_take(gpulat_families[i], h);
	gl_kfree(h);
	gpulat_generation++;
	BUILD_BUG_ON(ARRAY_SIZE(gpulat_families) != GPULAT_FAM_MAX - 1);
	gpulat_reset_time_ns = ktime_get_ns();
	return 0;
}
