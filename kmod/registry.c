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
#include <linux/stop_machine.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include "gpulat.h"
#include "keyed.h"
#include "mux.h"

struct gpulat_family *gpulat_families[] = {
	&gpulat_sched_family,
	&gpulat_block_family,
	&gpulat_net_family,
	&gpulat_irq_family,
	&gpulat_softirq_family,
	&gpulat_nvidia_family,
	&gpulat_mm_family,
};

unsigned int gpulat_nr_families = ARRAY_SIZE(gpulat_families);

/*
 * Serialises snapshot, reset, family switches and debugfs readers against
 * each other; never taken by a probe.
 */
DEFINE_MUTEX(gpulat_lock);
u64 gpulat_reset_time_ns;
u32 gpulat_generation;

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

	if (!m)
		return tracepoint_probe_register(t->tp, t->probe, NULL);
	/* the bit before the probe: the mux calls only families it has */
	gpulat_mux_set(m, fam->id, true);
	if (m->on != BIT(fam->id))
		return 0;
	ret = tracepoint_probe_register(t->tp, m->probe, NULL);
	if (ret)
		gpulat_mux_set(m, fam->id, false);
	return ret;
}

static void gpulat_tp_unregister(struct gpulat_family *fam,
				 struct gpulat_tp *t)
{
	struct gpulat_mux *m = gpulat_mux_of(fam, t);

	if (!m) {
		tracepoint_probe_unregister(t->tp, t->probe, NULL);
		return;
	}
	gpulat_mux_set(m, fam->id, false);
	if (!m->on)
		tracepoint_probe_unregister(t->tp, m->probe, NULL);
}

/* gpulat_family_detach - unregister every probe that was attached */
static void gpulat_family_detach(struct gpulat_family *fam)
{
	unsigned int i;

	for (i = 0; i < fam->nr_tps; i++) {
		struct gpulat_tp *t = &fam->tps[i];

		if (t->state != GPULAT_PROBE_ATTACHED)
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
	return 0;
}

static void gpulat_family_free_hists(struct gpulat_family *fam)
{
	unsigned int i;

	if (!fam->hists)
		return;
	for (i = 0; i < fam->nr_series; i++)
		free_percpu(fam->hists[i]);
	kfree(fam->hists);
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
	fam->hists = kcalloc(fam->nr_series, sizeof(*fam->hists), GFP_KERNEL);
	if (!fam->hists)
		return -ENOMEM;
	for (i = 0; i < fam->nr_series; i++) {
		fam->hists[i] = __alloc_percpu(gpulat_fam_hist_bytes(fam),
					       __alignof__(u64));
		if (!fam->hists[i]) {
			gpulat_family_free_hists(fam);
			return -ENOMEM;
		}
	}
	return 0;
}

/* gpulat_family_free - release what gpulat_family_alloc() took */
static void gpulat_family_free(struct gpulat_family *fam)
{
	if (!fam->pcpu)
		return;
	if (fam->exit)
		fam->exit(fam);
	if (fam->keyed)
		gpulat_keyed_free(fam->keyed);
	gpulat_family_free_hists(fam);
	free_percpu(fam->pcpu);
	fam->pcpu = NULL;
}

/* gpulat_family_alloc - a family's memory, taken once, at its first use */
static int gpulat_family_alloc(struct gpulat_family *fam)
{
	int ret;

	if (fam->pcpu)
		return 0;
	fam->pcpu = __alloc_percpu(fam->pcpu_size, SMP_CACHE_BYTES);
	if (!fam->pcpu)
		return -ENOMEM;
	ret = gpulat_family_alloc_hists(fam);
	if (ret) {
		free_percpu(fam->pcpu);
		fam->pcpu = NULL;
		return ret;
	}
	fam->extra_bytes = 0;
	if (fam->keyed) {
		ret = gpulat_keyed_alloc(fam->keyed);
		if (ret) {
			gpulat_family_free_hists(fam);
			free_percpu(fam->pcpu);
			fam->pcpu = NULL;
			return ret;
		}
		fam->extra_bytes = gpulat_keyed_bytes(fam->keyed);
	}
	ret = fam->init ? fam->init(fam, fam->pcpu) : 0;
	if (ret) {
		fam->exit = NULL;	/* init cleaned up after itself */
		gpulat_family_free(fam);
	}
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
		tracepoint_synchronize_unregister();
		return 0;
	}
	if (!fam->nr_tps)
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
	}
	return ret;
}

int gpulat_registry_init(void)
{
	unsigned int i, j;
	int ret = 0;

	gpulat_reset_time_ns = ktime_get_ns();
	mutex_lock(&gpulat_lock);
	for (i = 0; i < gpulat_nr_families; i++) {
		struct gpulat_family *fam = gpulat_families[i];

		for (j = 0; j < fam->nr_tps; j++)
			fam->tps[j].state = GPULAT_PROBE_DISABLED;
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
		gpulat_family_detach(gpulat_families[i]);
		gpulat_families[i]->attached = false;
	}
	mutex_unlock(&gpulat_lock);
	/* no probe may still run when the memory below goes away */
	tracepoint_synchronize_unregister();
	for (i = 0; i < gpulat_nr_families; i++)
		gpulat_family_free(gpulat_families[i]);
}

/* gpulat_counter_sum - a family counter summed over possible CPUs */
u64 gpulat_counter_sum(struct gpulat_family *fam, unsigned int idx)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(gpulat_fam_counters(fam, cpu)[idx]);
	return sum;
}

/* gpulat_hist_sum - merge series @idx of @fam over @cpus into @out */
void gpulat_hist_sum(struct gpulat_family *fam, unsigned int idx,
		     const struct cpumask *cpus, struct gpulat_hist *out)
{
	int cpu;

	memset(out, 0, sizeof(*out));
	for_each_cpu(cpu, cpus) {
		struct gpulat_hist *h = gpulat_fam_hist(fam, cpu, idx);
		u64 max = READ_ONCE(h->max_ns);

		out->count += READ_ONCE(h->count);
		out->sum_ns += READ_ONCE(h->sum_ns);
		if (max > out->max_ns)
			out->max_ns = max;
		gpulat_fam_slots(fam, cpu, idx, out->slots, true);
	}
}

/*
 * gpulat_reset_stopped - zero every histogram and counter
 *
 * Runs under stop_machine(): every other CPU spins with interrupts off,
 * and none can be inside a probe (probes run with preemption off, which
 * the stopper waits out), so no record is caught halfway and each count
 * still equals the sum of its slots afterwards.
 */
static int gpulat_reset_stopped(void *unused)
{
	unsigned int i, j;
	int cpu;

	for (i = 0; i < gpulat_nr_families; i++) {
		struct gpulat_family *fam = gpulat_families[i];
		struct gpulat_keyed *kd = fam->keyed;

		if (!fam->pcpu)
			continue;
		for_each_possible_cpu(cpu) {
			memset(per_cpu_ptr(fam->pcpu, cpu), 0, fam->pcpu_size);
			for (j = 0; fam->hists && j < fam->nr_series; j++)
				memset(gpulat_fam_hist(fam, cpu, j), 0,
				       gpulat_fam_hist_bytes(fam));
		}
		if (kd)
			memset(kd->hists, 0, (size_t)kd->max_keys *
			       kd->nr_series * sizeof(*kd->hists));
	}
	return 0;
}

int gpulat_reset_all(void)
{
	int ret;

	lockdep_assert_held(&gpulat_lock);
	ret = stop_machine(gpulat_reset_stopped, NULL, NULL);
	if (ret)
		return ret;
	gpulat_generation++;
	gpulat_reset_time_ns = ktime_get_ns();
	return 0;
}
