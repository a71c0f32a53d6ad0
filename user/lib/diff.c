// SPDX-License-Identifier: GPL-2.0
/* libgpulat snapshot differencing: what happened between two snapshots. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpulat_hist.h"
#include "lib/gpulat_user.h"
#include "lib/libinternal.h"

/* gl_snapshot_copy - deep copy of @s; max_exact flags kept */
static struct gl_snapshot *gl_snapshot_copy(const struct gl_snapshot *s)
{
	struct gl_snapshot *c;

	c = gl_snapshot_alloc(s->nr_series, s->nr_counters, s->nr_probes,
			      s->nr_events);
	if (!c)
		return NULL;
	c->hdr = s->hdr;
	memcpy(c->series, s->series, s->nr_series * GL_SERIES_STRIDE);
	memcpy(c->exact, s->exact, s->nr_series * sizeof(*s->exact));
	memcpy(c->counters, s->counters,
	       s->nr_counters * sizeof(*s->counters));
	memcpy(c->probes, s->probes, s->nr_probes * sizeof(*s->probes));
	memcpy(c->events, s->events, s->nr_events * sizeof(*s->events));
	return c;
}

/* gl_sub - a - b, 0 if the cumulative value went backwards */
static uint64_t gl_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * gl_series_diff - @d = @d - @o in place.  The interval max is @d's max if
 * it rose over @o's; otherwise it is bounded by the highest slot that got
 * samples in the interval (its last value), capped by the cumulative max,
 * and marked inexact.
 */
static void gl_series_diff(struct gpulat_series *d, bool *exact,
			   const struct gpulat_series *o)
{
	uint64_t hi = 0, bound;
	int top = -1;
	uint32_t i;

	d->count = gl_sub(d->count, o->count);
	d->sum_ns = gl_sub(d->sum_ns, o->sum_ns);
	for (i = 0; i < GPULAT_HIST_NR_BUCKETS; i++) {
		d->buckets[i] = gl_sub(d->buckets[i], o->buckets[i]);
		if (d->buckets[i])
			top = i;
	}
	if (d->max_ns > o->max_ns)
		return;
	if (top < 0) {
		d->max_ns = 0;
		return;
	}
	bound = gpulat_hist_upper(top);
	hi = bound == ~0ULL ? bound : bound - 1;
	if (hi < d->max_ns)
		d->max_ns = hi;
	*exact = false;
}

/*
 * gl_snapshot_diff - what happened between @old and @new.
 *
 * Series and counters are matched by (family, id, cpu, key) and subtracted;
 * one missing from @old counts from zero.  If the generation or the reset
 * time differs, the module was reset (or reloaded, which starts the
 * generation at 0 again) in between and the result is @new itself.  The header
 * is @new's, with reset_time_ns set to the start of the interval.  Events
 * are not cumulative: the result keeps @new's (the last the module kept).
 */
int gl_snapshot_diff(const struct gl_snapshot *old,
		     const struct gl_snapshot *new, struct gl_snapshot **out)
{
	const struct gpulat_counter *oc;
	const struct gpulat_series *os;
	struct gpulat_series *ns;
	struct gl_snapshot *d;
	bool reset;
	size_t i, j;

	*out = NULL;
	d = gl_snapshot_copy(new);
	if (!d)
		return -ENOMEM;
	reset = old->hdr.generation != new->hdr.generation ||
		old->hdr.reset_time_ns != new->hdr.reset_time_ns;
	if (!reset) {
		d->hdr.reset_time_ns = old->hdr.time_ns;
		for (i = 0; i < d->nr_series; i++) {
			ns = gl_series_at(d, i);
			os = bsearch(ns, old->series, old->nr_series,
				     GL_SERIES_STRIDE, gl_series_cmp);
			if (os)
				gl_series_diff(ns, &d->exact[i], os);
		}
		for (i = 0; i < d->nr_counters; i++) {
			oc = bsearch(&d->counters[i], old->counters,
				     old->nr_counters, sizeof(*oc),
				     gl_counter_cmp);
			if (oc)
				d->counters[i].value =
					gl_sub(d->counters[i].value, oc->value);
		}
		for (i = 0; i < d->nr_probes; i++) {
			for (j = 0; j < old->nr_probes; j++) {
				if (old->probes[j].family != d->probes[i].family ||
				    strcmp(old->probes[j].tracepoint,
					   d->probes[i].tracepoint))
					continue;
				d->probes[i].hits = gl_sub(d->probes[i].hits,
							   old->probes[j].hits);
				break;
			}
		}
	}
	/* the blob is built when asked for (gl_snapshot_blob) */
	*out = d;
	return 0;
}
