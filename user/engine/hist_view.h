/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hist view: histograms of a snapshot as text (hist_text.c) or JSON
 * (hist_json.c), grouped and merged as the view asks (hist_walk.c).  The
 * hist and status commands and the report bundle print with it.
 */
#ifndef _GPULAT_USER_HIST_VIEW_H
#define _GPULAT_USER_HIST_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "view.h"

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

#endif /* _GPULAT_USER_HIST_VIEW_H */
