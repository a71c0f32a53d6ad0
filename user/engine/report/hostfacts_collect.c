// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report: the host files on the nvidia IRQs and irqbalance, the
 * CPUs (cpufreq, cpuidle, isolation), transparent huge pages and
 * compaction, and the PCIe links of the GPUs.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engine/report/hostfacts_int.h"

/*
 * hf_count_delta - @now - @then of a counter; a counter that went down
 * restarted meanwhile (the NVIDIA driver frees its IRQs when the last
 * client closes and requests them again, from 0, at the next open): then
 * its current value, the count since it restarted, and *@reset is set
 */
static uint64_t hf_count_delta(uint64_t now, uint64_t then, bool *reset)
{
	if (now >= then)
		return now - then;
	*reset = true;
	return now;
}

/* hf_irq_counts - interrupts per CPU in the window, "CPU 3: 120, CPU 5: 7" */
static void hf_irq_counts(FILE *f, const struct hf_interrupts *in,
			  const struct hf_irq_line *now,
			  const struct hf_irq_line *then)
{
	uint64_t d, sum = 0;
	unsigned int c;
	bool any = false, reset = false, r;

	for (c = 0; c < in->nr_cols; c++)
		sum += hf_count_delta(now->counts[c],
				      then ? then->counts[c] : 0, &reset);
	fprintf(f, "  in the window:       %llu%s", (unsigned long long)sum,
		reset ? " (counter reset)" : "");
	if (!then)
		fprintf(f, " (since boot: no start to compare with)");
	for (c = 0; c < in->nr_cols; c++) {
		r = false;
		d = hf_count_delta(now->counts[c], then ? then->counts[c] : 0,
				   &r);
		if (!d && !r)
			continue;
		fprintf(f, "%sCPU %u: %llu%s", any ? ", " : " (", in->cpu[c],
			(unsigned long long)d, r ? " since reset" : "");
		any = true;
	}
	fprintf(f, "%s\n", any ? ")" : "");
	if (reset)
		fprintf(f, "  %-20s a count went down: the IRQ was freed and requested again (the driver does so when its last client closes); counted from 0 since\n",
			"counter reset:");
}

/* hf_irq_aff - one affinity file of IRQ @irq, or "absent: why" */
static void hf_irq_aff(FILE *f, const char *root, int irq, const char *file,
		       const char *label, struct cpuset *mask, bool *ok)
{
	char buf[1024];
	int ret;

	*ok = false;
	ret = hf_read_line(root, buf, sizeof(buf), "/proc/irq/%d/%s", irq,
			   file);
	if (ret) {
		fprintf(f, "  %-20s absent: /proc/irq/%d/%s: %s\n", label, irq,
			file, hf_why(ret));
		return;
	}
	fprintf(f, "  %-20s %s\n", label, buf);
	if (mask && !cpuset_parse(mask, buf))
		*ok = true;
}

int hf_write_irq(struct hostfacts *h, struct bundle *b,
		 const struct hf_interrupts *now,
		 const struct hf_interrupts *then, int now_err,
		 const struct hf_pci_fn *pci, size_t nr_pci)
{
	static const char path[] = "host/irq.txt";
	struct cpuset eff, local;
	const struct hf_irq_line *l, *t;
	const struct hf_pci_fn *fn;
	char buf[256];
	size_t i, n = 0;
	bool eff_ok, dummy;
	FILE *f;

	f = bundle_create(b, path,
			  "IRQs of the nvidia driver: affinity, effective affinity, node, their GPU, interrupts per CPU in the window");
	if (!f)
		return b->err;
	if (!hf_read_line(h->root, buf, sizeof(buf),
			  "/proc/irq/default_smp_affinity"))
		fprintf(f, "default_smp_affinity: %s\n\n", buf);
	if (now_err) {
		hf_absent(b, f, path, "/proc/interrupts: %s", hf_why(now_err));
		return bundle_close(b, f, path);
	}
	for (i = 0; i < now->nr; i++) {
		l = &now->line[i];
		if (l->irq < 0 || !hf_desc_has_action(l->desc, "nvidia"))
			continue;
		n++;
		fprintf(f, "irq %d  %s\n", l->irq, l->desc);
		fn = hf_pci_of_irq(pci, nr_pci, l->irq);
		if (fn)
			fprintf(f, "  %-20s %s (NUMA node %d, local CPUs %s)\n",
				"device:", fn->addr, fn->numa_node,
				fn->local_cpus[0] ? fn->local_cpus : "unknown");
		else
			fprintf(f, "  %-20s not found among the NVIDIA PCI functions' irq and msi_irqs\n",
				"device:");
		hf_irq_aff(f, h->root, l->irq, "smp_affinity_list",
			   "smp_affinity_list:", NULL, &dummy);
		hf_irq_aff(f, h->root, l->irq, "effective_affinity_list",
			   "effective_affinity:", &eff, &eff_ok);
		hf_irq_aff(f, h->root, l->irq, "node", "node:", NULL, &dummy);
		if (eff_ok && fn && fn->local_cpus[0] &&
		    !cpuset_parse(&local, fn->local_cpus)) {
			bool remote = !cpuset_subset(&eff, &local);

			fprintf(f, "  %-20s %s\n", "local to the GPU:",
				remote ? "no: handled on a CPU of another NUMA node" :
				"yes");
		}
		t = then ? hf_interrupts_find(then, l->irq) : NULL;
		if (t && then->nr_cols != now->nr_cols)
			t = NULL;
		hf_irq_counts(f, now, l, t);
		fprintf(f, "  %-20s %llu\n", "since boot:",
			(unsigned long long)l->total);
	}
	if (!n)
		hf_absent(b, f, path,
			  "no IRQ with an action named nvidia in /proc/interrupts (the driver requests them when a GPU is first opened and frees them when the last client closes, unless persistence mode is on)");
	return bundle_close(b, f, path);
}

int hf_write_irqbalance(struct hostfacts *h, struct bundle *b)
{
	static const char path[] = "host/irqbalance.txt";
	char cmd[512], *args;
	int pids[8], n, i;
	size_t len, j;
	FILE *f;

	f = bundle_create(b, path, "whether irqbalance runs, and its command line");
	if (!f)
		return b->err;
	n = hf_irqbalance_pids(h->root, pids, 8);
	if (n < 0) {
		hf_absent(b, f, path, "/proc: %s", hf_why(n));
		return bundle_close(b, f, path);
	}
	if (!n)
		fprintf(f, "irqbalance: not running\n");
	for (i = 0; i < n && i < 8; i++) {
		snprintf(cmd, sizeof(cmd), "/proc/%d/cmdline", pids[i]);
		if (hf_read(h->root, cmd, &args, &len)) {
			fprintf(f, "irqbalance: running, pid %d\n", pids[i]);
			continue;
		}
		for (j = 0; j + 1 < len; j++)
			if (!args[j])
				args[j] = ' ';
		fprintf(f, "irqbalance: running, pid %d: %s\n", pids[i], args);
		free(args);
	}
	if (n)
		fprintf(f, "note: irqbalance rewrites the affinity of IRQs it is not told to leave alone (--banirq, IRQBALANCE_BANNED_CPULIST)\n");
	return bundle_close(b, f, path);
}

/* hf_cpu_freq - governors, then one row per CPU */
static void hf_cpu_freq(FILE *f, const char *root, const unsigned int *cpus,
			size_t n)
{
	static const char *const col[] = {
		"scaling_cur_freq", "scaling_min_freq", "scaling_max_freq",
		"cpuinfo_max_freq",
	};
	char gov[64], drv[64], val[64], list[1024], base[64];
	struct cpuset mask;
	size_t i, j, k, have = 0;

	if (!hf_read_line(root, drv, sizeof(drv),
			  "/sys/devices/system/cpu/cpu%u/cpufreq/scaling_driver",
			  n ? cpus[0] : 0))
		fprintf(f, "cpufreq driver: %s\n", drv);
	/* One line per governor with the CPUs using it. */
	for (i = 0; i < n; i++) {
		bool seen = false;

		if (hf_read_line(root, gov, sizeof(gov),
				 "/sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor",
				 cpus[i]))
			continue;
		have++;
		for (j = 0; j < i && !seen; j++)
			seen = !hf_read_line(root, val, sizeof(val),
				"/sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor",
				cpus[j]) && !strcmp(val, gov);
		if (seen)
			continue;
		cpuset_clear(&mask);
		for (j = i; j < n; j++)
			if (!hf_read_line(root, val, sizeof(val),
				"/sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor",
				cpus[j]) && !strcmp(val, gov))
				cpuset_add(&mask, cpus[j]);
		fprintf(f, "governor %s: CPUs %s\n", gov,
			cpuset_format(list, sizeof(list), &mask));
	}
	if (!have) {
		fprintf(f, "absent: no /sys/devices/system/cpu/cpu*/cpufreq (no cpufreq driver: firmware controls the clock, or a virtual machine)\n");
		return;
	}
	fprintf(f, "\n%-5s %-14s %10s %10s %10s %10s  (kHz)\n", "cpu",
		"governor", "cur", "min", "max", "hw max");
	for (i = 0; i < n; i++) {
		snprintf(base, sizeof(base), "/sys/devices/system/cpu/cpu%u/cpufreq",
			 cpus[i]);
		if (hf_read_line(root, gov, sizeof(gov), "%s/scaling_governor",
				 base))
			snprintf(gov, sizeof(gov), "-");
		fprintf(f, "%-5u %-14s", cpus[i], gov);
		for (k = 0; k < 4; k++) {
			if (hf_read_line(root, val, sizeof(val), "%s/%s", base,
					 col[k]))
				snprintf(val, sizeof(val), "-");
			fprintf(f, " %10s", val);
		}
		fputc('\n', f);
	}
}

/* hf_cpu_idle - the idle states: exit latency, where disabled, entries */
static void hf_cpu_idle(FILE *f, struct hostfacts *h, const unsigned int *cpus,
			size_t n)
{
	struct hf_idle_usage *now = NULL;
	struct cpuset dis;
	uint64_t entries;
	bool reset;
	char name[64], lat[32], res[32], list[1024], path[128], val[32];
	size_t nr_now = 0, i, j;
	unsigned int s;

	if (!hf_read_line(h->root, val, sizeof(val),
			  "/sys/devices/system/cpu/cpuidle/current_driver"))
		fprintf(f, "cpuidle driver: %s\n", val);
	if (!hf_read_line(h->root, val, sizeof(val),
			  "/sys/devices/system/cpu/cpuidle/current_governor_ro") ||
	    !hf_read_line(h->root, val, sizeof(val),
			  "/sys/devices/system/cpu/cpuidle/current_governor"))
		fprintf(f, "cpuidle governor: %s\n", val);
	if (!n || hf_read_line(h->root, name, sizeof(name),
			       "/sys/devices/system/cpu/cpu%u/cpuidle/state0/name",
			       cpus[0])) {
		fprintf(f, "absent: no /sys/devices/system/cpu/cpu*/cpuidle (no cpuidle driver, or idle=poll)\n");
		return;
	}
	if (hf_idle_read(h->root, &now, &nr_now))
		nr_now = 0;
	fprintf(f, "\nidle states (names and latencies of CPU %u):\n", cpus[0]);
	fprintf(f, "%-6s %-16s %12s %14s  %-16s %s\n", "state", "name",
		"exit lat us", "residency us", "disabled on", "entered in window");
	for (s = 0; s < HF_MAX_IDLE_STATES; s++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/cpuidle/state%u",
			 cpus[0], s);
		if (hf_read_line(h->root, name, sizeof(name), "%s/name", path))
			break;
		if (hf_read_line(h->root, lat, sizeof(lat), "%s/latency", path))
			snprintf(lat, sizeof(lat), "-");
		if (hf_read_line(h->root, res, sizeof(res), "%s/residency", path))
			snprintf(res, sizeof(res), "-");
		cpuset_clear(&dis);
		for (i = 0; i < n; i++)
			if (!hf_read_line(h->root, val, sizeof(val),
				"/sys/devices/system/cpu/cpu%u/cpuidle/state%u/disable",
				cpus[i], s) && atoi(val))
				cpuset_add(&dis, cpus[i]);
		cpuset_format(list, sizeof(list), &dis);
		entries = 0;
		reset = false;
		for (i = 0; i < nr_now; i++) {
			if (now[i].state != s)
				continue;
			for (j = 0; j < h->nr_idle; j++)
				if (h->idle[j].cpu == now[i].cpu &&
				    h->idle[j].state == s)
					entries += hf_count_delta(now[i].usage,
								  h->idle[j].usage,
								  &reset);
		}
		fprintf(f, "%-6u %-16s %12s %14s  %-16s %llu%s\n", s, name, lat,
			res, list[0] ? list : "-", (unsigned long long)entries,
			reset ? " (counter reset)" : "");
	}
	free(now);
}

int hf_write_cpu(struct hostfacts *h, struct bundle *b)
{
	static const char path[] = "host/cpu.txt";
	static const char *const sets[] = { "online", "isolated", "nohz_full" };
	unsigned int *cpus = NULL;
	char val[1024];
	size_t n = 0, i;
	FILE *f;
	int ret;

	f = bundle_create(b, path,
			  "cpufreq governors and clocks, idle states and their exit latency, isolated and nohz_full CPUs");
	if (!f)
		return b->err;
	ret = hf_cpus(h->root, &cpus, &n);
	if (ret) {
		hf_absent(b, f, path, "/sys/devices/system/cpu: %s", hf_why(ret));
		return bundle_close(b, f, path);
	}
	for (i = 0; i < 3; i++) {
		ret = hf_read_line(h->root, val, sizeof(val),
				   "/sys/devices/system/cpu/%s", sets[i]);
		fprintf(f, "%-10s %s\n", sets[i], ret ? "absent" :
			val[0] ? val : "none");
	}
	fputc('\n', f);
	hf_cpu_freq(f, h->root, cpus, n);
	fputc('\n', f);
	hf_cpu_idle(f, h, cpus, n);
	free(cpus);
	return bundle_close(b, f, path);
}

/* hf_vmstat_get - value of counter @name in vmstat text, or false */
static bool hf_vmstat_get(const char *text, const char *name, uint64_t *v)
{
	size_t n = strlen(name);
	const char *p = text, *end;

	while (p && *p) {
		if (!strncmp(p, name, n) && p[n] == ' ') {
			p += n + 1;
			end = strchrnul(p, '\n');
			return units_dec(&p, end, v);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

int hf_write_thp(struct hostfacts *h, struct bundle *b,
		 const char *vm_start)
{
	static const char path[] = "host/thp.txt";
	static const char *const thp[] = {
		"enabled", "defrag", "khugepaged/defrag", "shmem_enabled",
	};
	static const char *const sysctl[] = {
		"vm/compaction_proactiveness", "vm/extfrag_threshold",
		"vm/zone_reclaim_mode", "vm/swappiness", "vm/min_free_kbytes",
		"kernel/numa_balancing",
	};
	/* Counters of the stalls that hold up the driver's allocations. */
	static const char *const vm[] = {
		"compact_stall", "compact_fail", "compact_success",
		"allocstall_normal", "allocstall_movable", "pgscan_direct",
		"thp_fault_alloc", "thp_fault_fallback", "thp_collapse_alloc",
	};
	char val[256], choice[64], *vm_end = NULL;
	uint64_t a, z;
	size_t i, len;
	FILE *f;
	int ret;

	f = bundle_create(b, path,
			  "transparent huge pages enabled/defrag, compaction and reclaim settings, their stall counters in the window");
	if (!f)
		return b->err;
	for (i = 0; i < 4; i++) {
		ret = hf_read_line(h->root, val, sizeof(val),
				   "/sys/kernel/mm/transparent_hugepage/%s",
				   thp[i]);
		if (ret && i == 0) {
			hf_absent(b, f, path,
				  "/sys/kernel/mm/transparent_hugepage/enabled: %s (kernel without THP?)",
				  hf_why(ret));
			continue;
		}
		if (ret)
			fprintf(f, "%-22s absent: %s\n", thp[i], hf_why(ret));
		else if (!hf_bracket_choice(val, choice, sizeof(choice)))
			fprintf(f, "%-22s %s  (%s)\n", thp[i], choice, val);
		else
			fprintf(f, "%-22s %s\n", thp[i], val);
	}
	fputc('\n', f);
	for (i = 0; i < ARRAY_SIZE(sysctl); i++) {
		ret = hf_read_line(h->root, val, sizeof(val), "/proc/sys/%s",
				   sysctl[i]);
		fprintf(f, "%-28s %s\n", sysctl[i], ret ? "absent" : val);
	}
	if (hf_read(h->root, "/proc/vmstat", &vm_end, &len)) {
		fprintf(f, "\nabsent: /proc/vmstat\n");
		return bundle_close(b, f, path);
	}
	fprintf(f, "\n%-22s %14s %14s\n", "/proc/vmstat", "in window", "since boot");
	for (i = 0; i < ARRAY_SIZE(vm); i++) {
		if (!hf_vmstat_get(vm_end, vm[i], &z))
			continue;
		if (vm_start && hf_vmstat_get(vm_start, vm[i], &a))
			fprintf(f, "%-22s %14llu %14llu\n", vm[i],
				(unsigned long long)(z - a),
				(unsigned long long)z);
		else
			fprintf(f, "%-22s %14s %14llu\n", vm[i], "-",
				(unsigned long long)z);
	}
	free(vm_end);
	return bundle_close(b, f, path);
}

/* hf_aer_lines - the non-zero counters of one aer_dev_* file */
static void hf_aer_lines(FILE *f, const char *root, const char *addr,
			 const char *file)
{
	char path[PATH_MAX], *buf, *p, *nl;
	size_t len;

	snprintf(path, sizeof(path), PCI_DEVS "%s/%s", addr, file);
	if (hf_read(root, path, &buf, &len))
		return;
	for (p = buf; *p; p = nl + (*nl != '\0')) {
		const char *sp;

		nl = strchrnul(p, '\n');
		sp = memchr(p, ' ', nl - p);
		if (sp && strncmp(p, "TOTAL_", 6) &&
		    (nl - sp != 2 || sp[1] != '0'))
			fprintf(f, "    %s: %.*s\n", file, (int)(nl - p), p);
	}
	free(buf);
}

int hf_write_pcie(struct hostfacts *h, struct bundle *b,
		  const struct hf_pci_fn *fn, size_t nr, int err)
{
	static const char path[] = "host/pcie.txt";
	size_t i, j;
	FILE *f;

	f = bundle_create(b, path,
			  "PCIe link speed and width, current against maximum, and AER counters of every NVIDIA function");
	if (!f)
		return b->err;
	if (err) {
		hf_absent(b, f, path, PCI_DEVS ": %s", hf_why(err));
		return bundle_close(b, f, path);
	}
	if (!nr) {
		hf_absent(b, f, path,
			  "no PCI function of vendor 0x10de under " PCI_DEVS);
		return bundle_close(b, f, path);
	}
	fprintf(f, "note: GPUs lower their link speed when idle; a width below the maximum is a hardware fault\n\n");
	for (i = 0; i < nr; i++) {
		fprintf(f, "%s  class 0x%06x  device 0x%04x\n", fn[i].addr,
			fn[i].class, fn[i].device);
		if (fn[i].cur_speed[0] || fn[i].cur_width >= 0)
			fprintf(f, "  link:   %s x%d, max %s x%d%s\n",
				fn[i].cur_speed[0] ? fn[i].cur_speed : "?",
				fn[i].cur_width,
				fn[i].max_speed[0] ? fn[i].max_speed : "?",
				fn[i].max_width,
				hf_pci_downtrained(&fn[i]) ?
				"  BELOW MAXIMUM" : "");
		else
			fprintf(f, "  link:   absent: no current_link_speed/width (not a PCIe function?)\n");
		fprintf(f, "  node:   %d, local CPUs %s\n", fn[i].numa_node,
			fn[i].local_cpus[0] ? fn[i].local_cpus : "unknown");
		fprintf(f, "  irqs:   ");
		if (fn[i].irq > 0)
			fprintf(f, "INTx %d", fn[i].irq);
		for (j = 0; j < fn[i].nr_msi; j++)
			fprintf(f, "%s%d", j ? "," : fn[i].irq > 0 ?
				", MSI " : "MSI ", fn[i].msi[j]);
		if (fn[i].irq <= 0 && !fn[i].nr_msi)
			fprintf(f, "none");
		fputc('\n', f);
		if (!fn[i].has_aer) {
			fprintf(f, "  aer:    absent: no aer_dev_* files (AER not enabled for this function)\n");
			continue;
		}
		fprintf(f, "  aer:    correctable %llu, nonfatal %llu, fatal %llu\n",
			(unsigned long long)fn[i].aer_cor,
			(unsigned long long)fn[i].aer_nonfatal,
			(unsigned long long)fn[i].aer_fatal);
		hf_aer_lines(f, h->root, fn[i].addr, "aer_dev_correctable");
		hf_aer_lines(f, h->root, fn[i].addr, "aer_dev_nonfatal");
		hf_aer_lines(f, h->root, fn[i].addr, "aer_dev_fatal");
	}
	return bundle_close(b, f, path);
}
