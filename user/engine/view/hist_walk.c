// SPDX-License-Identifier: GPL-2.0
/*
 * The hist view's groups: which series make one histogram, merged over
 * keys and CPUs or per CPU, walked in snapshot order; and what the text
 * and JSON forms share.
 */
#include <string.h>

#include "engine/view/view.h"
#include "gpulat_hist.h"
#include "lib/json.h"

const struct hist_quantile hist_quantiles[HIST_NR_QUANTILES] = {
	{ 500000, "p50", "p50_ns" },
	{ 900000, "p90", "p90_ns" },
	{ 990000, "p99", "p99_ns" },
	{ 999000, "p99.9", "p999_ns" },
};

/* hist_keyed - whether @sr has a key (a disk, netdev, IRQ, pid, vector) */
static bool hist_keyed(const struct gpulat_series *sr)
{
	return sr->key || sr->key_name[0];
}

/*
 * hist_group_at - the group that starts at series @i; its end is the next
 * group's start.  Series are sorted by (family, id, key, cpu).
 */
static void hist_group_at(const struct gl_snapshot *s, const struct view *v,
			  size_t i, struct hist_group *g)
{
	const struct gpulat_series *a = gl_snapshot_series(s, i), *b;
	const struct gpulat_series *prev = NULL;
	size_t j, n = gl_snapshot_nr_series(s);

	memset(g, 0, sizeof(*g));
	g->begin = i;
	for (j = i; j < n; j++) {
		b = gl_snapshot_series(s, j);
		if (b->family != a->family || b->id != a->id ||
		    (v->per_key && b->key != a->key))
			break;
		if (!view_wants_series(v, b))
			continue;
		if (!g->first)
			g->first = b;
		if (!prev || prev->key != b->key)
			g->nr_keys++;
		if (hist_keyed(b))
			g->keyed = true;
		g->nr_series++;
		prev = b;
	}
	g->end = j;
}

/* hist_group_merge - sum the group's series on @cpu (NONE: all) into @h */
static void hist_group_merge(const struct gl_snapshot *s, const struct view *v,
			     const struct hist_group *g, uint32_t cpu,
			     struct gl_hist *h)
{
	const struct gpulat_series *sr;
	size_t i;

	memset(h, 0, sizeof(*h));
	h->max_exact = true;
	for (i = g->begin; i < g->end; i++) {
		sr = gl_snapshot_series(s, i);
		if (!view_wants_series(v, sr))
			continue;
		if (cpu != GPULAT_CPU_NONE && sr->cpu != cpu)
			continue;
		gl_hist_add_series(h, sr, gl_snapshot_max_exact(s, i));
	}
}

/*
 * hist_next_cpu - the lowest CPU >= @from that a series of the group is
 * on (per-CPU series only); false when there is none
 */
static bool hist_next_cpu(const struct gl_snapshot *s, const struct view *v,
			  const struct hist_group *g, uint64_t from,
			  uint32_t *cpu)
{
	const struct gpulat_series *sr;
	uint64_t best = UINT64_MAX;
	size_t i;

	for (i = g->begin; i < g->end; i++) {
		sr = gl_snapshot_series(s, i);
		if (sr->cpu == GPULAT_CPU_NONE || sr->cpu < from ||
		    sr->cpu >= best || !view_wants_series(v, sr))
			continue;
		best = sr->cpu;
	}
	if (best == UINT64_MAX)
		return false;
	*cpu = best;
	return true;
}

/* hist_empty - no sample in @h */
static bool hist_empty(const struct gl_hist *h)
{
	return !h->count && !gl_hist_total(h);
}

/*
 * hist_walk - each group of series @v selects in @s: its total (cpu
 * GPULAT_CPU_NONE; an empty one only with @empty_totals), then with
 * --per-cpu each CPU's histogram that has samples, through @fn.  @h is
 * the scratch histogram, @groups gets the number of groups.  Returns the
 * number of histograms visited, or what @fn returned to stop.
 */
int hist_walk(const struct gl_snapshot *s, const struct view *v,
	      struct gl_hist *h, bool empty_totals, hist_visit_fn fn,
	      void *arg, size_t *groups)
{
	size_t i, n = gl_snapshot_nr_series(s);
	struct hist_group g;
	uint64_t from;
	uint32_t cpu;
	int ret, shown = 0;

	*groups = 0;
	for (i = 0; i < n; i = g.end) {
		hist_group_at(s, v, i, &g);
		if (!g.nr_series)
			continue;
		++*groups;
		hist_group_merge(s, v, &g, GPULAT_CPU_NONE, h);
		if (hist_empty(h) && !empty_totals)
			continue;
		ret = fn(arg, &g, GPULAT_CPU_NONE, h);
		if (ret)
			return ret;
		shown++;
		for (from = 0; v->per_cpu && hist_next_cpu(s, v, &g, from, &cpu);
		     from = (uint64_t)cpu + 1) {
			hist_group_merge(s, v, &g, cpu, h);
			if (hist_empty(h))
				continue;
			ret = fn(arg, &g, cpu, h);
			if (ret)
				return ret;
			shown++;
		}
	}
	return shown;
}

/* hist_key_text - the key of @sr as people name it (gl_key_text) */
const char *hist_key_text(char *buf, size_t len,
			  const struct gpulat_series *sr)
{
	return gl_key_text(buf, len, sr);
}

/* hist_json_scheme - the "scheme" member: how to read the buckets */
void hist_json_scheme(struct json *j)
{
	json_object_begin(j, "scheme");
	json_str(j, "type", "log-linear");
	json_str(j, "unit", "ns");
	json_u64(j, "sub_buckets_per_octave", GPULAT_HIST_SUBS);
	json_u64(j, "min_ns", 1ULL << GPULAT_HIST_MIN_SHIFT);
	json_u64(j, "overflow_ns", 1ULL << GPULAT_HIST_MAX_SHIFT);
	json_u64(j, "slots", GPULAT_HIST_NR_BUCKETS);
	json_str(j, "quantile_method",
		 "rank ceil(count * q), at least 1, found by cumulative sum, value interpolated linearly within its bucket [lower, upper) and capped by max_ns, which also bounds the overflow bucket");
	json_str(j, "buckets_listed", "non-empty");
	json_object_end(j);
}
