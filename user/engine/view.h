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

#include "gpulat_user.h"

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

/* engine/view.c: the FAMILY filter and names of a view */
bool view_wants_family(const struct view *v, uint32_t family);
bool view_wants_series(const struct view *v, const struct gpulat_series *sr);
const char *view_family_name(uint32_t family, char *buf, size_t len);
const char *view_kernel(const struct view *v, const struct gl_snapshot *s);

/* engine/hist_text.c, hist_json.c: the hist view of @s, as @v asks */
void hist_print_text(FILE *f, const struct gl_snapshot *s,
		     const struct view *v);
void hist_print_json(FILE *f, const struct gl_snapshot *s,
		     const struct view *v);

/* engine/hist_walk.c: a series' key as text; gl_key_text() */
const char *hist_key_text(char *buf, size_t len,
			  const struct gpulat_series *sr);

#endif /* _GPULAT_ENGINE_VIEW_H */
