/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat report's host facts, inside: what their files share.
 * hostfacts_bundle.c is the report folder, its MANIFEST and tar;
 * hostfacts_parse.c the pure parsers of kernel text (fuzzed);
 * hostfacts_read.c the readers of /proc and /sys below a root;
 * hostfacts_pci.c the NVIDIA PCI functions; hostfacts_collect.c the
 * files on IRQs, CPUs, memory and PCIe; hostfacts.c the start and the end
 * of a report and the files on the kernel; hostfacts_system.c the kernel
 * log, config and modules, CPUs, NUMA, memory and pressure.
 */
#ifndef _GPULAT_USER_HOSTFACTS_INT_H
#define _GPULAT_USER_HOSTFACTS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/report/hostfacts.h"
#include "lib/array_size.h"
#include "lib/units.h"	/* units_dec() */

/* Largest /proc or /sys file read whole (/proc/interrupts of big hosts). */
#define HF_READ_MAX	(64u << 20)

#define PCI_DEVS	"/sys/bus/pci/devices/"

/* Idle states of a CPU looked at, at most. */
#define HF_MAX_IDLE_STATES	16

/* The usage count of one idle state of one CPU. */
struct hf_idle_usage {
	unsigned int cpu, state;
	uint64_t usage;
};

/* --- hostfacts_parse.c ------------------------------------------------- */

/* hf_is_digits - whether @s is digits only, and not empty */
bool hf_is_digits(const char *s);

/* --- hostfacts_read.c -------------------------------------------------- */

/* hf_path - @root then the formatted path in @buf; 0 or -ENAMETOOLONG */
int hf_path(char *buf, size_t len, const char *root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* hf_read_line - first line of a small file, without its newline; 0 or -errno */
int hf_read_line(const char *root, char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* hf_read_int - the number in file @fmt with @arg; 0 or -errno */
int hf_read_int(const char *root, long long *v, const char *fmt,
		const char *arg);
/* hf_why - strerror of -@err, with what the common errors mean here */
const char *hf_why(int err);
/* hf_list - names in folder @root@path (no dot entries), sorted; 0 or -errno */
int hf_list(const char *root, const char *path, char ***out, size_t *nr);
void hf_list_free(char **v, size_t n);
/* --- hostfacts.c and hostfacts_system.c ------------------------------- */

/* hf_copy - @src of the host as file @dst, or why it is absent (@hint) */
int hf_copy(struct hostfacts *h, struct bundle *b, const char *src,
	    const char *dst, const char *what, const char *hint);
/* hf_write_kmsg - host/kernel-log.txt: the NVRM and Xid lines */
int hf_write_kmsg(struct hostfacts *h, struct bundle *b);
/* hf_write_kmsg_all - host/kernel-log-all.txt: the whole log, capped */
int hf_write_kmsg_all(struct hostfacts *h, struct bundle *b);
/* hf_write_system - config, modules, CPUs, memory, pressure, NUMA */
int hf_write_system(struct hostfacts *h, struct bundle *b);

/* hf_cmp_int - qsort() order of ints */
int hf_cmp_int(const void *a, const void *b);

/* --- hostfacts.c ------------------------------------------------------- */

/* hf_absent - "absent: why" in the file and in the MANIFEST */
void hf_absent(struct bundle *b, FILE *f, const char *path, const char *fmt,
	       ...) __attribute__((format(printf, 4, 5)));
/* hf_cpus - the CPU numbers of /sys/devices/system/cpu/cpuN, ascending */
int hf_cpus(const char *root, unsigned int **out, size_t *nr);
/* hf_idle_read - usage of every idle state of every CPU; 0 or -errno */
int hf_idle_read(const char *root, struct hf_idle_usage **out, size_t *nr);

/* --- hostfacts_collect.c: the files, each 0 or b->err ------------------ */

int hf_write_irq(struct hostfacts *h, struct bundle *b,
		 const struct hf_interrupts *now,
		 const struct hf_interrupts *then, int now_err,
		 const struct hf_pci_fn *pci, size_t nr_pci);
int hf_write_irqbalance(struct hostfacts *h, struct bundle *b);
int hf_write_cpu(struct hostfacts *h, struct bundle *b);
int hf_write_thp(struct hostfacts *h, struct bundle *b, const char *vm_start);
int hf_write_pcie(struct hostfacts *h, struct bundle *b,
		  const struct hf_pci_fn *fn, size_t nr, int err);

#endif /* _GPULAT_USER_HOSTFACTS_INT_H */
