/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat report: the report folder with its MANIFEST, and the host facts
 * that nvidia-bug-report.sh does not collect, read from /proc and /sys.
 *
 * Every path is read below a root ("" for the running system) so that
 * tests can point it at a fake tree.  A source that is missing is written
 * as an "absent: why" line and listed in the MANIFEST, never an error;
 * errors are only failures to write the report itself.
 */
#ifndef _GPULAT_USER_HOSTFACTS_H
#define _GPULAT_USER_HOSTFACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/cpuset.h"

/* --- The report folder ------------------------------------------------- */

struct bundle_entry {
	char *path;		/* relative to the top folder */
	char *what;		/* one line: what the file holds */
	char *absent;		/* why the source is absent, or NULL */
};

struct bundle {
	char *dir;		/* the top folder, created by bundle_init() */
	struct bundle_entry *e;
	size_t nr, alloc;
	int err;		/* first failure (-errno), sticky */
	char errmsg[512];	/* its one-line reason */
};

/* bundle_init - create folder @dir (mode 0700) for a report; 0 or -errno */
int bundle_init(struct bundle *b, const char *dir);
void bundle_free(struct bundle *b);
/*
 * bundle_create - open @path (subfolders made as needed) and list it with
 * @what; NULL on failure (recorded in b->err)
 */
FILE *bundle_create(struct bundle *b, const char *path, const char *what);
/* bundle_close - fclose() and record a write error against @path */
int bundle_close(struct bundle *b, FILE *f, const char *path);
/* bundle_absent - say in the MANIFEST that the source of @path is absent */
void bundle_absent(struct bundle *b, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* bundle_fail - record a failure (the first one is kept) with its reason */
void bundle_fail(struct bundle *b, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* bundle_write_manifest - MANIFEST: @header, then every file, then what is absent */
int bundle_write_manifest(struct bundle *b, const char *header);
/* bundle_nr_absent - entries whose source is absent */
size_t bundle_nr_absent(const struct bundle *b);

/* bundle_find_prog - whether @name is an executable in $PATH */
bool bundle_find_prog(const char *name);
/*
 * bundle_pack - tar -czf - -C @parent @top, written to @fd; 0, or -errno
 * with the reason in @err: tar missing or not run (the errno of exec,
 * fork, pipe), a write's errno (-ENOSPC: the disk is full), -EIO when
 * tar failed (its exit status, its signal)
 */
int bundle_pack(const char *parent, const char *top, int fd, char *err,
		size_t errlen);
/* bundle_remove - remove @dir and everything below it; 0 or -errno */
int bundle_remove(const char *dir);

/* --- Parsers of kernel text (fuzzed by tests/fuzz/fuzz_hostfacts.c) ---- */

/*
 * CPU lists ("0-3,8,10-11") are struct cpuset, cpuset_parse() and
 * cpuset_format() (cpuset.h): a CPU past CPUSET_MAX_CPUS is an error.
 */

/* One line of /proc/interrupts. */
struct hf_irq_line {
	char name[16];		/* "134", "NMI", "LOC" */
	int irq;		/* the number, or -1 for named rows */
	uint64_t *counts;	/* one per CPU column */
	uint64_t total;
	char *desc;		/* the rest: chip, hwirq, type, actions */
};

struct hf_interrupts {
	unsigned int nr_cols;	/* CPU columns */
	unsigned int *cpu;	/* the CPU number of each column */
	struct hf_irq_line *line;
	size_t nr;
};

/*
 * hf_interrupts_parse - parse /proc/interrupts text; 0, -EINVAL (no CPU
 * header) or -ENOMEM.  Rows that do not parse are skipped.
 */
int hf_interrupts_parse(const char *text, size_t len,
			struct hf_interrupts *out);
void hf_interrupts_free(struct hf_interrupts *in);
/* hf_interrupts_find - the row of IRQ @irq, or NULL */
const struct hf_irq_line *hf_interrupts_find(const struct hf_interrupts *in,
					     int irq);
/* hf_desc_has_action - whether action @name is among a row's actions */
bool hf_desc_has_action(const char *desc, const char *name);

/*
 * hf_kmsg_parse - split a /dev/kmsg record "PRI,SEQ,USEC,FLAGS;text"; 0
 * with *@usec and the text at *@msg (up to the newline, *@msglen bytes),
 * or -EINVAL
 */
int hf_kmsg_parse(const char *rec, size_t len, uint64_t *usec,
		  const char **msg, size_t *msglen);
/* hf_kmsg_wanted - whether a log line is one the report keeps (NVRM, Xid) */
bool hf_kmsg_wanted(const char *msg, size_t len);

/* hf_bracket_choice - "always [madvise] never" -> "madvise"; 0 or -EINVAL */
int hf_bracket_choice(const char *s, char *out, size_t len);

/* hf_aer_total - the TOTAL_ERR_* value of an aer_dev_* file; 0 or -EINVAL */
int hf_aer_total(const char *text, uint64_t *total);

/* hf_link_speed - GT/s of "16.0 GT/s PCIe" (0 when unknown) */
double hf_link_speed(const char *s);

/* --- Sources ----------------------------------------------------------- */

/* hf_read - whole file @root@path, NUL-terminated; 0 or -errno */
int hf_read(const char *root, const char *path, char **buf, size_t *len);

/* One NVIDIA PCI function (vendor 0x10de) from sysfs. */
struct hf_pci_fn {
	char addr[32];			/* 0000:3b:00.0 */
	unsigned int device, class;
	char cur_speed[32], max_speed[32];	/* "" when not readable */
	int cur_width, max_width;	/* -1 when not readable */
	int numa_node;			/* -1: none or unknown */
	char local_cpus[256];		/* local_cpulist, "" when absent */
	bool has_aer;
	uint64_t aer_cor, aer_nonfatal, aer_fatal;
	int irq;			/* INTx line, 0 if none */
	int *msi;			/* msi_irqs/ entries */
	size_t nr_msi;
};

/* hf_pci_scan - every NVIDIA function under @root/sys/bus/pci/devices, by address */
int hf_pci_scan(const char *root, struct hf_pci_fn **out, size_t *nr);
void hf_pci_free(struct hf_pci_fn *fn, size_t nr);
/* hf_pci_of_irq - the function that owns IRQ @irq, or NULL */
const struct hf_pci_fn *hf_pci_of_irq(const struct hf_pci_fn *fn, size_t nr,
				      int irq);
/* hf_pci_downtrained - whether the link runs below its maximum speed or width */
bool hf_pci_downtrained(const struct hf_pci_fn *fn);

/* hf_irqbalance_pids - pids of processes named irqbalance; count, or -errno */
int hf_irqbalance_pids(const char *root, int *pids, size_t max);

/* What the start of a report saw, for the differences at its end. */
struct hostfacts {
	const char *root;
	char *interrupts;		/* /proc/interrupts at the start */
	size_t interrupts_len;
	struct hf_idle_usage *idle;	/* idle state usage at the start */
	size_t nr_idle;
};

/*
 * hostfacts_start - the "start" files (interrupts, softirqs, vmstat) and
 * the counters the end compares with.  0, or -errno when the report
 * folder cannot be written (b->errmsg says why).
 */
int hostfacts_start(struct hostfacts *h, const char *root, struct bundle *b);
/* hostfacts_end - the "end" files and every other host fact */
int hostfacts_end(struct hostfacts *h, struct bundle *b);
void hostfacts_free(struct hostfacts *h);

/* Kernel log lines the report keeps (the last ones): NVRM and Xid, all. */
#define HF_KMSG_KEEP	200
#define HF_KMSG_ALL	50000

#endif /* _GPULAT_USER_HOSTFACTS_H */
