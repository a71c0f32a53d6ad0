// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report: the host facts that explain latency on GPU servers but
 * that nvidia-bug-report.sh does not collect, at the start and at the end
 * of a report.  Everything is read from /proc and /sys directly (below a
 * root that tests replace); nothing is run but tar.  This file has the
 * start and the end, and the files on the kernel; hostfacts_collect.c
 * those on IRQs, CPUs, memory and PCIe; hostfacts_system.c the kernel
 * log, config and modules, CPUs, NUMA, memory and pressure.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/report/hostfacts_int.h"

/* hf_absent - "absent: why" in the file and in the MANIFEST */
void hf_absent(struct bundle *b, FILE *f, const char *path,
	       const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(f, "absent: %s\n", why);
	bundle_absent(b, path, "%s", why);
}

/* hf_copy - see hostfacts_int.h */
int hf_copy(struct hostfacts *h, struct bundle *b, const char *src,
	    const char *dst, const char *what, const char *hint)
{
	size_t len;
	char *buf;
	FILE *f;
	int ret;

	f = bundle_create(b, dst, what);
	if (!f)
		return b->err;
	ret = hf_read(h->root, src, &buf, &len);
	if (ret) {
		hf_absent(b, f, dst, "%s: %s%s%s", src, hf_why(ret),
			  hint && ret == -ENOENT ? " " : "",
			  hint && ret == -ENOENT ? hint : "");
	} else {
		fwrite(buf, 1, len, f);
		free(buf);
	}
	return bundle_close(b, f, dst);
}

/* hf_cpus - the CPU numbers of /sys/devices/system/cpu/cpuN, ascending */
int hf_cpus(const char *root, unsigned int **out, size_t *nr)
{
	unsigned int *c;
	char **names;
	size_t i, n, cnt = 0;
	int ret;

	*out = NULL;
	*nr = 0;
	ret = hf_list(root, "/sys/devices/system/cpu", &names, &n);
	if (ret)
		return ret;
	c = calloc(n ? n : 1, sizeof(*c));
	if (!c) {
		hf_list_free(names, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (!strncmp(names[i], "cpu", 3) && hf_is_digits(names[i] + 3) &&
		    strlen(names[i]) < 9)
			c[cnt++] = atoi(names[i] + 3);
	hf_list_free(names, n);
	qsort(c, cnt, sizeof(*c), hf_cmp_int);
	*out = c;
	*nr = cnt;
	return 0;
}

/* hf_idle_read - usage of every idle state of every CPU */
int hf_idle_read(const char *root, struct hf_idle_usage **out,
		 size_t *nr)
{
	struct hf_idle_usage *u = NULL, *nu;
	unsigned int *cpus, s;
	size_t i, n, cnt = 0;
	long long v;
	char arg[64];
	int ret;

	*out = NULL;
	*nr = 0;
	ret = hf_cpus(root, &cpus, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		for (s = 0; s < HF_MAX_IDLE_STATES; s++) {
			snprintf(arg, sizeof(arg), "%u/cpuidle/state%u",
				 cpus[i], s);
			if (hf_read_int(root, &v,
					"/sys/devices/system/cpu/cpu%s/usage",
					arg))
				break;
			nu = realloc(u, (cnt + 1) * sizeof(*u));
			if (!nu) {
				free(u);
				free(cpus);
				return -ENOMEM;
			}
			u = nu;
			u[cnt].cpu = cpus[i];
			u[cnt].state = s;
			u[cnt].usage = v;
			cnt++;
		}
	}
	free(cpus);
	*out = u;
	*nr = cnt;
	return 0;
}

int hostfacts_start(struct hostfacts *h, const char *root, struct bundle *b)
{
	int ret;

	memset(h, 0, sizeof(*h));
	h->root = root;
	ret = hf_copy(h, b, "/proc/interrupts", "host/interrupts-start.txt",
		      "/proc/interrupts when the watch began", NULL);
	if (!ret)
		ret = hf_copy(h, b, "/proc/softirqs", "host/softirqs-start.txt",
			      "/proc/softirqs when the watch began", NULL);
	if (!ret)
		ret = hf_copy(h, b, "/proc/vmstat", "host/vmstat-start.txt",
			      "/proc/vmstat when the watch began (compaction, THP, reclaim counters)",
			      NULL);
	if (ret)
		return ret;
	/* Kept for the differences at the end; absent is fine. */
	hf_read(root, "/proc/interrupts", &h->interrupts, &h->interrupts_len);
	if (hf_idle_read(root, &h->idle, &h->nr_idle) == -ENOMEM)
		return -ENOMEM;
	return 0;
}

void hostfacts_free(struct hostfacts *h)
{
	free(h->interrupts);
	free(h->idle);
	memset(h, 0, sizeof(*h));
}


static int hf_write_kernel(struct hostfacts *h, struct bundle *b)
{
	static const char path[] = "host/kernel.txt";
	static const char *const src[][2] = {
		{ "release", "/proc/sys/kernel/osrelease" },
		{ "version", "/proc/version" },
		{ "cmdline", "/proc/cmdline" },
		{ "tainted", "/proc/sys/kernel/tainted" },
	};
	char val[4096];
	size_t i;
	FILE *f;
	int ret;

	f = bundle_create(b, path, "kernel release, version, command line, taint flags");
	if (!f)
		return b->err;
	for (i = 0; i < ARRAY_SIZE(src); i++) {
		ret = hf_read_line(h->root, val, sizeof(val), "%s", src[i][1]);
		if (ret && i == 0)
			hf_absent(b, f, path, "%s: %s", src[i][1], hf_why(ret));
		else if (ret)
			fprintf(f, "%-8s absent: %s: %s\n", src[i][0], src[i][1],
				hf_why(ret));
		else
			fprintf(f, "%-8s %s\n", src[i][0], val);
	}
	return bundle_close(b, f, path);
}

static int hf_write_params(struct hostfacts *h, struct bundle *b)
{
	static const char path[] = "host/gpulat-params.txt";
	static const char dir[] = "/sys/module/gpulat/parameters";
	char **names, val[1024];
	size_t i, n;
	FILE *f;
	int ret;

	f = bundle_create(b, path, "gpulat.ko's parameters (/sys/module/gpulat/parameters)");
	if (!f)
		return b->err;
	ret = hf_list(h->root, dir, &names, &n);
	if (ret) {
		hf_absent(b, f, path, "%s: %s%s", dir, hf_why(ret),
			  ret == -ENOENT ? " (gpulat.ko is not loaded)" : "");
		return bundle_close(b, f, path);
	}
	for (i = 0; i < n; i++) {
		ret = hf_read_line(h->root, val, sizeof(val), "%s/%s", dir,
				   names[i]);
		fprintf(f, "%s = %s\n", names[i], ret ? "(not readable)" : val);
	}
	if (!n)
		fprintf(f, "(no parameters)\n");
	hf_list_free(names, n);
	return bundle_close(b, f, path);
}

int hostfacts_end(struct hostfacts *h, struct bundle *b)
{
	struct hf_interrupts now = { 0 }, then = { 0 };
	struct hf_pci_fn *pci = NULL;
	size_t nr_pci = 0, len;
	int ret, now_err, pci_err;
	char *text, *vm_start = NULL;

	ret = hf_copy(h, b, "/proc/interrupts", "host/interrupts-end.txt",
		      "/proc/interrupts when the watch ended", NULL);
	if (!ret)
		ret = hf_copy(h, b, "/proc/softirqs", "host/softirqs-end.txt",
			      "/proc/softirqs when the watch ended", NULL);
	if (!ret)
		ret = hf_copy(h, b, "/proc/vmstat", "host/vmstat-end.txt",
			      "/proc/vmstat when the watch ended", NULL);
	if (ret)
		return ret;

	now_err = hf_read(h->root, "/proc/interrupts", &text, &len);
	if (!now_err) {
		now_err = hf_interrupts_parse(text, len, &now);
		free(text);
	}
	if (now_err == -ENOMEM)
		goto oom;
	if (h->interrupts && hf_interrupts_parse(h->interrupts,
						 h->interrupts_len, &then) == -ENOMEM)
		goto oom;
	pci_err = hf_pci_scan(h->root, &pci, &nr_pci);
	if (pci_err == -ENOMEM)
		goto oom;
	/* The start's vmstat is in the folder already. */
	{
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/host/vmstat-start.txt", b->dir);
		if (hf_read("", p, &vm_start, &len))
			vm_start = NULL;
	}

	ret = hf_write_irq(h, b, &now, h->interrupts && then.nr_cols ?
			   &then : NULL, now_err, pci, nr_pci);
	if (!ret)
		ret = hf_write_irqbalance(h, b);
	if (!ret)
		ret = hf_write_cpu(h, b);
	if (!ret)
		ret = hf_write_thp(h, b, vm_start);
	if (!ret)
		ret = hf_write_pcie(h, b, pci, nr_pci, pci_err);
	if (!ret)
		ret = hf_copy(h, b, "/proc/driver/nvidia/version",
			      "host/driver.txt",
			      "NVIDIA driver version (/proc/driver/nvidia/version)",
			      "(the NVIDIA driver is not loaded)");
	if (!ret)
		ret = hf_write_kmsg(h, b);
	if (!ret)
		ret = hf_write_kmsg_all(h, b);
	if (!ret)
		ret = hf_write_kernel(h, b);
	if (!ret)
		ret = hf_write_system(h, b);
	if (!ret)
		ret = hf_write_params(h, b);
	free(vm_start);
	hf_pci_free(pci, nr_pci);
	hf_interrupts_free(&now);
	hf_interrupts_free(&then);
	return ret;
oom:
	hf_pci_free(pci, nr_pci);
	hf_interrupts_free(&now);
	hf_interrupts_free(&then);
	bundle_fail(b, -ENOMEM, "out of memory");
	return -ENOMEM;
}
