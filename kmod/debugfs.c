// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/gpulat/: a read-only text view of every family, for a
 * person with cat.  Nothing here controls anything, and a kernel without
 * debugfs loses only this view.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "fault.h"
#include "gpulat.h"
#include "trace.h"
#include "keyed.h"

#define GPULAT_BAR_WIDTH	24
#define GPULAT_EMPTY_RUN	3	/* empty slots in a row that share a row */

static struct dentry *gpulat_dir;

static const char * const gpulat_state_names[] = {
	[GPULAT_PROBE_ATTACHED] = "attached",
	[GPULAT_PROBE_DISABLED] = "disabled",
	[GPULAT_PROBE_MISSING] = "missing",
	[GPULAT_PROBE_FAILED] = "failed",
};

/* gpulat_fmt_ns - a duration in three significant digits: "12.3us" */
static char *gpulat_fmt_ns(char *buf, size_t len, u64 ns)
{
	static const char * const unit[] = { "ns", "us", "ms", "s" };
	u64 div = 1, whole, frac;
	unsigned int u = 0;

	while (u < ARRAY_SIZE(unit) - 1 && ns >= div * 1000) {
		div *= 1000;
		u++;
	}
	whole = ns / div;
	frac = (ns % div) * 100 / div;
	if (!u || whole >= 100)
		snprintf(buf, len, "%llu%s", whole, unit[u]);
	else if (whole >= 10)
		snprintf(buf, len, "%llu.%llu%s", whole, frac / 10, unit[u]);
	else
		snprintf(buf, len, "%llu.%02llu%s", whole, frac, unit[u]);
	return buf;
}

/* gpulat_fmt_q - quantile @ppm of @h, formatted */
static char *gpulat_fmt_q(char *buf, size_t len, const struct gpulat_hist *h,
			  u32 ppm)
{
	return gpulat_fmt_ns(buf, len,
			     gpulat_hist_quantile(h->slots,
						  GPULAT_HIST_NR_BUCKETS,
						  h->max_ns, ppm));
}

static void gpulat_show_summary(struct seq_file *m, const struct gpulat_hist *h)
{
	static const u32 ppm[] = { 500000, 900000, 990000, 999000 };
	static const char * const name[] = { "p50", "p90", "p99", "p99.9" };
	char b[24];
	unsigned int i;

	seq_printf(m, "count %llu", h->count);
	for (i = 0; i < ARRAY_SIZE(ppm); i++)
		seq_printf(m, "  %s %s", name[i],
			   gpulat_fmt_q(b, sizeof(b), h, ppm[i]));
	seq_printf(m, "  max %s\n", gpulat_fmt_ns(b, sizeof(b), h->max_ns));
}

/*
 * gpulat_show_bars - slots from the first to the last non-empty one, bars
 * scaled to the largest; runs of empty slots share a row
 */
static void gpulat_show_bars(struct seq_file *m, const struct gpulat_hist *h)
{
	u32 first = GPULAT_HIST_NR_BUCKETS, last = 0, i, j;
	u64 peak = 0;
	char lo[24], hi[24];

	for (i = 0; i < GPULAT_HIST_NR_BUCKETS; i++) {
		if (!h->slots[i])
			continue;
		first = min(first, i);
		last = i;
		peak = max(peak, h->slots[i]);
	}
	if (!peak)
		return;
	seq_printf(m, "%10s - %-10s %12s\n", "from", "to", "count");
	for (i = first; i <= last; i = j + 1) {
		unsigned int n = div64_u64(h->slots[i] * GPULAT_BAR_WIDTH +
					   peak - 1, peak);

		/* a run of empty slots reads as one empty range */
		j = i;
		while (!h->slots[i] && j + 1 < last && !h->slots[j + 1])
			j++;
		if (j - i + 1 < GPULAT_EMPTY_RUN)
			j = i;
		gpulat_fmt_ns(lo, sizeof(lo), gpulat_hist_lower(i));
		if (j == GPULAT_HIST_OVERFLOW)
			strscpy(hi, "inf", sizeof(hi));
		else
			gpulat_fmt_ns(hi, sizeof(hi), gpulat_hist_upper(j));
		seq_printf(m, "%10s - %-10s %12llu |%.*s%*s|\n", lo, hi,
			   h->slots[i], n, "************************",
			   GPULAT_BAR_WIDTH - n, "");
	}
}

/* gpulat_show_per_cpu - one line per CPU; @h is scratch */
static void gpulat_show_per_cpu(struct seq_file *m, struct gpulat_family *fam,
				unsigned int s, struct gpulat_hist *h)
{
	char p50[24], p99[24], mx[24];
	int cpu;

	seq_printf(m, "%6s %12s %10s %10s %10s\n", "cpu", "count", "p50",
		   "p99", "max");
	for_each_possible_cpu(cpu) {
		if (!gpulat_fam_count(fam, cpu, s))
			continue;
		gpulat_fam_read(fam, cpu, s, h);
		seq_printf(m, "%6d %12llu %10s %10s %10s\n", cpu, h->count,
			   gpulat_fmt_q(p50, sizeof(p50), h, 500000),
			   gpulat_fmt_q(p99, sizeof(p99), h, 990000),
			   gpulat_fmt_ns(mx, sizeof(mx), h->max_ns));
	}
}

/* gpulat_ghist_copy - a keyed histogram as a plain one, for the math */
static void gpulat_ghist_copy(struct gpulat_hist *h, struct gpulat_ghist *g)
{
	unsigned int i;

	h->count = atomic64_read(&g->count);
	h->sum_ns = atomic64_read(&g->sum_ns);
	h->max_ns = atomic64_read(&g->max_ns);
	for (i = 0; i < GPULAT_HIST_NR_BUCKETS; i++)
		h->slots[i] = atomic64_read(&g->slots[i]);
}

/* gpulat_show_keyed - one summary line per key and series with samples */
static void gpulat_show_keyed(struct seq_file *m, struct gpulat_family *fam,
			      struct gpulat_hist *h)
{
	struct gpulat_keyed *kd = fam->keyed;
	unsigned int k, s, limit = gpulat_keyed_limit(kd);
	char p50[24], p99[24], mx[24];

	seq_printf(m, "\nper key (%u of at most %u keys):\n", limit,
		   kd->max_keys);
	seq_printf(m, "%-22s %-16s %10s %9s %9s %9s\n", "series", "key",
		   "count", "p50", "p99", "max");
	for (k = 0; k < limit; k++) {
		/* ready: the key's name is written (gpulat_key_add) */
		if (!smp_load_acquire(&kd->keys[k].ready))
			continue;
		for (s = 0; s < kd->nr_series; s++) {
			gpulat_ghist_copy(h, gpulat_key_hist(kd, k, s));
			if (!h->count)
				continue;
			seq_printf(m, "%-22s %-16s %10llu %9s %9s %9s\n",
				   kd->series[s].name, kd->keys[k].name,
				   h->count,
				   gpulat_fmt_q(p50, sizeof(p50), h, 500000),
				   gpulat_fmt_q(p99, sizeof(p99), h, 990000),
				   gpulat_fmt_ns(mx, sizeof(mx), h->max_ns));
		}
	}
}

static int gpulat_family_show(struct seq_file *m, void *unused)
{
	struct gpulat_family *fam = m->private;
	struct gpulat_hist *h;
	unsigned int i;

	seq_printf(m, "gpulat %s: log-linear histograms, %u buckets per power of two, %s\n",
		   fam->name, GPULAT_HIST_SUBS, "times in ns/us/ms/s");
	if (!fam->pcpu) {
		seq_puts(m, "family is off (see probes below)\n");
		goto probes;
	}
	if (!fam->attached)
		seq_puts(m, "family is off; the data below is kept from before\n");
	seq_printf(m, "memory: %zu bytes per CPU, %zu bytes shared\n",
		   fam->pcpu_size + (fam->hists ? fam->nr_series *
				     gpulat_fam_hist_bytes(fam) : 0),
		   fam->extra_bytes);

	/* the sum and a scratch histogram */
	h = gl_kcalloc(2, sizeof(*h));
	if (!h)
		return -ENOMEM;
	mutex_lock(&gpulat_lock);
	for (i = 0; i < fam->nr_series; i++) {
		gpulat_hist_sum(fam, i, cpu_possible_mask, h, h + 1);
		seq_printf(m, "\n%s%s%s: %s, all CPUs\n", fam->series[i].name,
			   fam->series[i].key_name ? " " : "",
			   fam->series[i].key_name ?: "", fam->series[i].what);
		gpulat_show_summary(m, h);
		gpulat_show_bars(m, h);
		gpulat_show_per_cpu(m, fam, i, h);
	}
	if (fam->keyed)
		gpulat_show_keyed(m, fam, h);
	mutex_unlock(&gpulat_lock);
	gl_kfree(h);

	seq_puts(m, "\ndrops:");
	for (i = 0; i < fam->nr_drops; i++)
		seq_printf(m, " %s %llu", fam->drop_names[i],
			   gpulat_counter_sum(fam, i));
	seq_putc(m, '\n');
probes:
	seq_puts(m, "probes:\n");
	for (i = 0; i < fam->nr_tps; i++) {
		struct gpulat_tp *t = &fam->tps[i];

		seq_printf(m, "  %-20s %-9s", t->name,
			   gpulat_state_names[t->state]);
		if (t->state == GPULAT_PROBE_FAILED)
			seq_printf(m, " error %u", t->error);
		if (fam->pcpu)
			seq_printf(m, " hits %llu",
				   gpulat_counter_sum(fam, t->hit_idx));
		seq_putc(m, '\n');
	}
	return 0;
}

static int gpulat_family_open(struct inode *inode, struct file *file)
{
	return single_open(file, gpulat_family_show, inode->i_private);
}

static const struct file_operations gpulat_family_fops = {
	.owner		= THIS_MODULE,
	.open		= gpulat_family_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

void gpulat_debugfs_init(void)
{
	unsigned int i;

	/* debugfs failures are not checked: the view is optional */
	gpulat_dir = GL_CALL(ERR_PTR(-ENOMEM), debugfs_create_dir("gpulat", NULL));
	for (i = 0; i < gpulat_nr_families; i++)
		debugfs_create_file(gpulat_families[i]->name, 0400, gpulat_dir,
				    gpulat_families[i], &gpulat_family_fops);
	gpulat_trace_debugfs(gpulat_dir);
	gpulat_cgroup_debugfs(gpulat_dir);
}

void gpulat_debugfs_exit(void)
{
	debugfs_remove_recursive(gpulat_dir);
}
