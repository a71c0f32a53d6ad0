// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat histograms: merge series, quantiles, counters and the names
 * of probe states.
 */
#include <errno.h>
#include <string.h>

#include "gpulat_hist.h"
#include "lib/gpulat_user.h"
#include "lib/libinternal.h"

/* gl_probe_state_name - text of enum gpulat_probe_state; NULL if unknown */
const char *gl_probe_state_name(uint32_t state)
{
	static const char *const names[] = {
		[GPULAT_PROBE_ATTACHED]	= "attached",
		[GPULAT_PROBE_DISABLED]	= "disabled",
		[GPULAT_PROBE_MISSING]	= "missing",
		[GPULAT_PROBE_FAILED]	= "failed",
	};

	if (state >= ARRAY_SIZE(names))
		return NULL;
	return names[state];
}

/* gl_hist_add_series - add one series to @h */
void gl_hist_add_series(struct gl_hist *h, const struct gpulat_series *sr,
			bool max_exact)
{
	uint32_t i;

	h->count += sr->count;
	h->sum_ns += sr->sum_ns;
	if (sr->max_ns > h->max_ns)
		h->max_ns = sr->max_ns;
	if (!max_exact)
		h->max_exact = false;
	for (i = 0; i < GPULAT_HIST_NR_BUCKETS; i++)
		h->slots[i] += sr->buckets[i];
}

/*
 * gl_series_first - index of the first series at or after (@family, @id,
 * @key, cpu 0) in the sorted series: a diagnosis asks once per series, so
 * a walk from the start would grow with the square of the CPUs
 */
static size_t gl_series_first(const struct gl_snapshot *s, uint32_t family,
			      uint32_t id, uint64_t key)
{
	const struct gpulat_series *sr;
	size_t lo = 0, hi = s->nr_series, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		sr = gl_snapshot_series(s, mid);
		if (sr->family < family ||
		    (sr->family == family && (sr->id < id ||
		     (sr->id == id && sr->key < key))))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* gl_hist_merge_common - sum matching series into @out; count of them */
static int gl_hist_merge_common(const struct gl_snapshot *s, uint32_t family,
				uint32_t id, bool any_key, uint64_t key,
				uint32_t cpu, struct gl_hist *out)
{
	const struct gpulat_series *sr;
	int n = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->max_exact = true;
	/* sorted by (family, id, key, cpu): the matches are one run */
	for (i = gl_series_first(s, family, id, any_key ? 0 : key);
	     i < s->nr_series; i++) {
		sr = gl_snapshot_series(s, i);
		if (sr->family != family || sr->id != id ||
		    (!any_key && sr->key != key))
			break;
		if (cpu != GPULAT_CPU_NONE && sr->cpu != cpu)
			continue;
		gl_hist_add_series(out, sr, s->exact[i]);
		n++;
	}
	return n;
}

/* gl_hist_merge - sum series (family, id) of every key, one or all CPUs */
int gl_hist_merge(const struct gl_snapshot *s, uint32_t family, uint32_t id,
		  uint32_t cpu, struct gl_hist *out)
{
	return gl_hist_merge_common(s, family, id, true, 0, cpu, out);
}

/* gl_hist_merge_key - gl_hist_merge restricted to one key */
int gl_hist_merge_key(const struct gl_snapshot *s, uint32_t family,
		      uint32_t id, uint64_t key, uint32_t cpu,
		      struct gl_hist *out)
{
	return gl_hist_merge_common(s, family, id, false, key, cpu, out);
}

/* gl_hist_total - sum of the slots */
uint64_t gl_hist_total(const struct gl_hist *h)
{
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < GPULAT_HIST_NR_BUCKETS; i++)
		total += h->slots[i];
	return total;
}

/*
 * gl_hist_quantile - gpulat_hist_quantile() over @h.  The slots are copied:
 * uint64_t and __u64 are different types to the compiler (long and long
 * long on 64-bit glibc), so @h->slots cannot be passed as a __u64 array.
 */
uint64_t gl_hist_quantile(const struct gl_hist *h, uint32_t ppm)
{
	__u64 slots[GPULAT_HIST_NR_BUCKETS];
	uint32_t i;

	for (i = 0; i < GPULAT_HIST_NR_BUCKETS; i++)
		slots[i] = h->slots[i];
	return gpulat_hist_quantile(slots, GPULAT_HIST_NR_BUCKETS, h->max_ns,
				    ppm);
}

/* gl_counter - value of drop counter (family, id): 0 or -ENOENT */
int gl_counter(const struct gl_snapshot *s, uint32_t family, uint32_t id,
	       uint64_t *value)
{
	size_t i;

	for (i = 0; i < s->nr_counters; i++) {
		if (s->counters[i].family == family &&
		    s->counters[i].id == id) {
			*value = s->counters[i].value;
			return 0;
		}
	}
	return -ENOENT;
}
