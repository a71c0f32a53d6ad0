// SPDX-License-Identifier: GPL-2.0
/*
 * The probe registry: allocates each family's per-CPU block, finds its
 * tracepoints by name (kernel tracepoints are not exported to modules by
 * symbol), attaches and detaches them, sums and resets the data.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include "gpulat.h"

struct gpulat_family *gpulat_families[] = {
	&gpulat_sched_family,
};

unsigned int gpulat_nr_families = ARRAY_SIZE(gpulat_families);

/* Serialises snapshot, reset and debugfs readers against each other. */
DEFINE_MUTEX(gpulat_lock);
u64 gpulat_reset_time_ns;
u32 gpulat_generation;

/* gpulat_tp_match - for_each_kernel_tracepoint() callback */
static void gpulat_tp_match(struct tracepoint *tp, void *priv)
{
	struct gpulat_family *fam = priv;
	unsigned int i;

	for (i = 0; i < fam->nr_tps; i++)
		if (!fam->tps[i].tp && !strcmp(tp->name, fam->tps[i].name))
			fam->tps[i].tp = tp;
}

/* gpulat_family_detach - unregister every probe that was attached */
static void gpulat_family_detach(struct gpulat_family *fam)
{
	unsigned int i;

	for (i = 0; i < fam->nr_tps; i++) {
		struct gpulat_tp *t = &fam->tps[i];

		if (t->state != GPULAT_PROBE_ATTACHED)
			continue;
		tracepoint_probe_unregister(t->tp, t->probe, NULL);
		t->state = GPULAT_PROBE_DISABLED;
	}
}

/*
 * gpulat_family_attach - attach all of a family's tracepoints, or none
 *
 * A family whose tracepoints are missing, or one that fails to register,
 * stays off and says why in each tracepoint's state; the module and the
 * other families go on.
 */
static bool gpulat_family_attach(struct gpulat_family *fam)
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
		return false;
	for (i = 0; i < fam->nr_tps; i++) {
		struct gpulat_tp *t = &fam->tps[i];

		ret = tracepoint_probe_register(t->tp, t->probe, NULL);
		if (ret) {
			pr_err("%s: cannot attach %s: %d, family off\n",
			       fam->name, t->name, ret);
			gpulat_family_detach(fam);
			t->state = GPULAT_PROBE_FAILED;
			t->error = -ret;
			return false;
		}
		t->state = GPULAT_PROBE_ATTACHED;
	}
	fam->attached = true;
	return true;
}

/* gpulat_family_free - release what gpulat_family_setup() took */
static void gpulat_family_free(struct gpulat_family *fam)
{
	if (fam->exit && fam->pcpu)
		fam->exit(fam);
	free_percpu(fam->pcpu);
	fam->pcpu = NULL;
}

static int gpulat_family_setup(struct gpulat_family *fam)
{
	unsigned int i;
	int ret;

	for (i = 0; i < fam->nr_tps; i++)
		fam->tps[i].state = GPULAT_PROBE_DISABLED;
	if (!fam->enabled)
		return 0;
	fam->pcpu = __alloc_percpu(fam->pcpu_size, SMP_CACHE_BYTES);
	if (!fam->pcpu)
		return -ENOMEM;
	ret = fam->init ? fam->init(fam, fam->pcpu) : 0;
	if (ret) {
		free_percpu(fam->pcpu);
		fam->pcpu = NULL;
		return ret;
	}
	if (!gpulat_family_attach(fam)) {
		/* a probe attached before the failure may still be running */
		tracepoint_synchronize_unregister();
		gpulat_family_free(fam);
	}
	return 0;
}

int gpulat_registry_init(void)
{
	unsigned int i;
	int ret;

	gpulat_reset_time_ns = ktime_get_ns();
	for (i = 0; i < gpulat_nr_families; i++) {
		ret = gpulat_family_setup(gpulat_families[i]);
		if (ret)
			goto err;
	}
	return 0;
err:
	while (i--)
		gpulat_family_detach(gpulat_families[i]);
	tracepoint_synchronize_unregister();
	for (i = 0; i < gpulat_nr_families; i++)
		gpulat_family_free(gpulat_families[i]);
	return ret;
}

void gpulat_registry_exit(void)
{
	unsigned int i;

	for (i = 0; i < gpulat_nr_families; i++)
		gpulat_family_detach(gpulat_families[i]);
	/* no probe may still run when the memory below goes away */
	tracepoint_synchronize_unregister();
	for (i = 0; i < gpulat_nr_families; i++) {
		gpulat_families[i]->attached = false;
		gpulat_family_free(gpulat_families[i]);
	}
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
	unsigned int s;
	int cpu;

	memset(out, 0, sizeof(*out));
	for_each_cpu(cpu, cpus) {
		struct gpulat_hist *h = gpulat_fam_hist(fam, cpu, idx);
		u64 max = READ_ONCE(h->max_ns);

		out->count += READ_ONCE(h->count);
		out->sum_ns += READ_ONCE(h->sum_ns);
		if (max > out->max_ns)
			out->max_ns = max;
		for (s = 0; s < GPULAT_HIST_NR_BUCKETS; s++)
			out->slots[s] += READ_ONCE(h->slots[s]);
	}
}

/* gpulat_zero_cpu - zero every family's block of @cpu */
static void gpulat_zero_cpu(int cpu)
{
	unsigned int i;

	for (i = 0; i < gpulat_nr_families; i++) {
		struct gpulat_family *fam = gpulat_families[i];

		if (fam->pcpu)
			memset(per_cpu_ptr(fam->pcpu, cpu), 0, fam->pcpu_size);
	}
}

/*
 * gpulat_reset_cpu - zero this CPU's data
 *
 * Runs in the IPI with interrupts off, so no probe on this CPU is halfway
 * through a record (they all run with interrupts off too): count and slots
 * stay consistent across a reset.
 */
static void gpulat_reset_cpu(void *unused)
{
	gpulat_zero_cpu(smp_processor_id());
}

void gpulat_reset_all(void)
{
	int cpu;

	lockdep_assert_held(&gpulat_lock);
	cpus_read_lock();
	on_each_cpu(gpulat_reset_cpu, NULL, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			gpulat_zero_cpu(cpu);
	cpus_read_unlock();
	gpulat_generation++;
	gpulat_reset_time_ns = ktime_get_ns();
}
