// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report: the PCI functions of vendor 0x10de (NVIDIA) in sysfs:
 * link speed and width, NUMA node, local CPUs, AER counters, IRQs.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/report/hostfacts_int.h"

static int hf_pci_read(const char *root, const char *addr,
		       struct hf_pci_fn *fn)
{
	static const char *const aer[] = {
		"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal",
	};
	uint64_t *tot[] = { &fn->aer_cor, &fn->aer_nonfatal, &fn->aer_fatal };
	char path[PATH_MAX], **msi, *b;
	size_t i, n, len;
	long long v;

	memset(fn, 0, sizeof(*fn));
	snprintf(fn->addr, sizeof(fn->addr), "%s", addr);
	fn->cur_width = fn->max_width = fn->numa_node = -1;
	if (!hf_read_int(root, &v, PCI_DEVS "%s/device", addr))
		fn->device = v;
	if (!hf_read_int(root, &v, PCI_DEVS "%s/class", addr))
		fn->class = v;
	hf_read_line(root, fn->cur_speed, sizeof(fn->cur_speed),
		     PCI_DEVS "%s/current_link_speed", addr);
	hf_read_line(root, fn->max_speed, sizeof(fn->max_speed),
		     PCI_DEVS "%s/max_link_speed", addr);
	if (!hf_read_int(root, &v, PCI_DEVS "%s/current_link_width", addr))
		fn->cur_width = v;
	if (!hf_read_int(root, &v, PCI_DEVS "%s/max_link_width", addr))
		fn->max_width = v;
	if (!hf_read_int(root, &v, PCI_DEVS "%s/numa_node", addr))
		fn->numa_node = v;
	hf_read_line(root, fn->local_cpus, sizeof(fn->local_cpus),
		     PCI_DEVS "%s/local_cpulist", addr);
	if (!hf_read_int(root, &v, PCI_DEVS "%s/irq", addr))
		fn->irq = v;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), PCI_DEVS "%s/%s", addr, aer[i]);
		if (hf_read(root, path, &b, &len))
			continue;
		if (!hf_aer_total(b, tot[i]))
			fn->has_aer = true;
		free(b);
	}
	snprintf(path, sizeof(path), PCI_DEVS "%s/msi_irqs", addr);
	if (hf_list(root, path, &msi, &n))
		return 0;
	fn->msi = calloc(n ? n : 1, sizeof(*fn->msi));
	if (!fn->msi) {
		hf_list_free(msi, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (hf_is_digits(msi[i]) && strlen(msi[i]) < 10)
			fn->msi[fn->nr_msi++] = atoi(msi[i]);
	qsort(fn->msi, fn->nr_msi, sizeof(*fn->msi), hf_cmp_int);
	hf_list_free(msi, n);
	return 0;
}

int hf_pci_scan(const char *root, struct hf_pci_fn **out, size_t *nr)
{
	struct hf_pci_fn *fn = NULL, *nf;
	size_t i, n, cnt = 0;
	char **names;
	long long vendor;
	int ret;

	*out = NULL;
	*nr = 0;
	ret = hf_list(root, PCI_DEVS, &names, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (hf_read_int(root, &vendor, PCI_DEVS "%s/vendor", names[i]) ||
		    vendor != 0x10de)
			continue;
		nf = realloc(fn, (cnt + 1) * sizeof(*fn));
		if (!nf) {
			ret = -ENOMEM;
			break;
		}
		fn = nf;
		ret = hf_pci_read(root, names[i], &fn[cnt]);
		cnt++;
		if (ret)
			break;
	}
	hf_list_free(names, n);
	if (ret) {
		hf_pci_free(fn, cnt);
		return ret;
	}
	*out = fn;
	*nr = cnt;
	return 0;
}

void hf_pci_free(struct hf_pci_fn *fn, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(fn[i].msi);
	free(fn);
}

const struct hf_pci_fn *hf_pci_of_irq(const struct hf_pci_fn *fn, size_t nr,
				      int irq)
{
	size_t i, j;

	for (i = 0; i < nr; i++) {
		if (fn[i].irq == irq && irq > 0)
			return &fn[i];
		for (j = 0; j < fn[i].nr_msi; j++)
			if (fn[i].msi[j] == irq)
				return &fn[i];
	}
	return NULL;
}

bool hf_pci_downtrained(const struct hf_pci_fn *fn)
{
	double cur = hf_link_speed(fn->cur_speed);
	double max = hf_link_speed(fn->max_speed);

	if (fn->cur_width > 0 && fn->max_width > 0 &&
	    fn->cur_width < fn->max_width)
		return true;
	return cur > 0 && max > 0 && cur < max;
}

