/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a view shows of a snapshot (the FAMILY filter, per CPU or key,
 * summary, the source's names), which the hist, status and cgroup
 * engines print by; the commands fill it from their options.
 */
#ifndef _GPULAT_ENGINE_VIEW_H
#define _GPULAT_ENGINE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/gpulat_user.h"

/* Softirq vectors (the kernel's enum, stable) that gpulat hist net adds. */
#define VIEW_NET_TX_SOFTIRQ	2
#define VIEW_NET_RX_SOFTIRQ	3

/* What a view shows of a snapshot. */
struct view {
	uint64_t families;	/* bit per family number; 0: all */
	bool per_cpu;
	bool per_key;		/* one histogram per key, not merged over keys */
	bool summary;		/* text: one line per histogram, no buckets */
	bool is_interval;	/* a difference, not totals since reset */
	double interval_s;	/* requested or measured; < 0: none */
	bool clock;		/* print the wall clock time (live data) */
	const char *kernel;	/* uname -r, or NULL when unknown */
	uint32_t module_major, module_minor;
	/* live: "kmod" or "bpf", and how it was opened; NULL: a file */
	const char *source, *source_desc;
	/* live: why a family waits for its driver ("" or NULL: it does not) */
	const char *held[GPULAT_FAM_MAX];
};

/* engine/view/view.c: the FAMILY filter and names of a view */
bool view_wants_family(const struct view *v, uint32_t family);
bool view_wants_series(const struct view *v, const struct gpulat_series *sr);
const char *view_family_name(uint32_t family, char *buf, size_t len);
const char *view_kernel(const struct view *v, const struct gl_snapshot *s);

/* engine/view/hist_text.c, hist_json.c: the hist view of @s, as @v asks */
void hist_print_text(FILE *f, const struct gl_snapshot *s,
		     const struct view *v);
void hist_print_json(FILE *f, const struct gl_snapshot *s,
		     const struct view *v);

/* engine/view/hist_walk.c: a series' key as text; gl_key_text() */
const char *hist_key_text(char *buf, size_t len,
			  const struct gpulat_series *sr);

/*
 * The hist view: histograms of a snapshot as text (hist_text.c) or JSON
 * (hist_json.c), grouped and merged as the view asks (hist_walk.c).  The
 * hist and status commands and the report bundle print with it.
 */
struct json;

/* Quantiles every view shows, in parts per million, with their labels. */
struct hist_quantile {
	uint32_t ppm;
	const char *text, *json;
};

#define HIST_NR_QUANTILES	4
extern const struct hist_quantile hist_quantiles[HIST_NR_QUANTILES];

/*
 * One histogram to show: the series [begin, end) that share (family, id),
 * and the key too with --per-key, of which those passing the FAMILY filter
 * are merged (over keys and CPUs, or for one CPU).
 */
struct hist_group {
	size_t begin, end;
	const struct gpulat_series *first;	/* first one that passes */
	size_t nr_series;	/* passing the filter */
	size_t nr_keys;		/* distinct keys among them */
	bool keyed;		/* they carry a key worth showing */
};

/* hist_visit_fn - one histogram of a walk; non-zero stops it */
typedef int (*hist_visit_fn)(void *arg, const struct hist_group *g,
			     uint32_t cpu, const struct gl_hist *h);

/*
 * hist_walk - each group of series @v selects in @s: its total (cpu
 * GPULAT_CPU_NONE; an empty one only with @empty_totals), then with
 * --per-cpu each CPU's histogram that has samples, through @fn.  @h is
 * the scratch histogram, @groups gets the number of groups.  Returns the
 * number of histograms visited, or what @fn returned to stop.
 */
int hist_walk(const struct gl_snapshot *s, const struct view *v,
	      struct gl_hist *h, bool empty_totals, hist_visit_fn fn,
	      void *arg, size_t *groups);

/* hist_json_scheme - the "scheme" member: how to read the buckets */
void hist_json_scheme(struct json *j);

/* Printing outlier trace records (gpulat trace, report, diagnose). */
/*
 * Series and key names come from a snapshot's series (disk, device, IRQ
 * handler) where it has them, else from the family table; @names may be
 * NULL, then keys print as numbers (softirq vectors by name).
 */
void trace_print_text(FILE *f, const struct gl_trace_rec *r,
		      const struct gl_snapshot *names);
/*
 * trace_print_nvml_xid - an Xid that NVML's events gave (no record of
 * the module's): a line as trace_print_text() writes Xids, or (@json)
 * an object as trace_print_json() does, with "source":"nvml"
 */
void trace_print_nvml_xid(FILE *f, bool json, uint64_t time_ns,
			  uint32_t code, const char *device);
/* trace_print_json - one JSON object and a newline (JSON lines) */
void trace_print_json(FILE *f, const struct gl_trace_rec *r,
		      const struct gl_snapshot *names);
/* trace_has_key - whether samples of @family have a key worth naming */
bool trace_has_key(uint32_t family);
/* trace_series_name - "sched.wakeup": its name in @names, else the table's */
const char *trace_series_name(char *buf, size_t len,
			      const struct gl_snapshot *names,
			      uint32_t family, uint32_t id);
/* trace_key_name - the key's name in @names (softirq: the table's), or NULL */
const char *trace_key_name(const struct gl_snapshot *names, uint32_t family,
			   uint64_t key);

#endif /* _GPULAT_ENGINE_VIEW_H */
