// SPDX-License-Identifier: GPL-2.0
/* The hist view as JSON: one object per output (JSON lines). */
#include <stdlib.h>
#include <string.h>

#include "engine/view/view.h"
#include "gpulat_hist.h"
#include "lib/json.h"
#include "lib/units.h"

/* hist_json_series - one element of "series" */
static void hist_json_series(struct json *j, const struct hist_group *g,
			     uint32_t cpu, const struct gl_hist *h)
{
	const struct gpulat_series *sr = g->first;
	char fam[24];
	uint32_t i;
	size_t q;

	json_object_begin(j, NULL);
	json_str(j, "family", view_family_name(sr->family, fam, sizeof(fam)));
	json_str(j, "name", sr->name);
	if (cpu == GPULAT_CPU_NONE)
		json_null(j, "cpu");
	else
		json_u64(j, "cpu", cpu);
	/* merged over several keys, or none: key and key_name are null */
	if (g->nr_keys == 1 && g->keyed) {
		json_u64(j, "key", sr->key);
		json_str(j, "key_name", sr->key_name[0] ? sr->key_name : NULL);
	} else {
		json_null(j, "key");
		json_null(j, "key_name");
	}
	json_u64(j, "count", gl_hist_total(h));
	json_u64(j, "sum_ns", h->sum_ns);
	json_u64(j, "max_ns", h->max_ns);
	json_bool(j, "max_exact", h->max_exact);
	for (q = 0; q < HIST_NR_QUANTILES; q++)
		json_u64(j, hist_quantiles[q].json,
			 gl_hist_quantile(h, hist_quantiles[q].ppm));
	json_array_begin(j, "buckets");
	for (i = 0; i < GPULAT_HIST_NR_BUCKETS; i++) {
		if (!h->slots[i])
			continue;
		json_array_begin(j, NULL);
		json_u64(j, NULL, gpulat_hist_lower(i));
		if (i == GPULAT_HIST_OVERFLOW)
			json_null(j, NULL);
		else
			json_u64(j, NULL, gpulat_hist_upper(i));
		json_u64(j, NULL, h->slots[i]);
		json_array_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static int hist_json_visit(void *j, const struct hist_group *g, uint32_t cpu,
			   const struct gl_hist *h)
{
	hist_json_series(j, g, cpu, h);
	return 0;
}

/* hist_json_drops - the "drops" member: every counter by name */
static void hist_json_drops(struct json *j, const struct gl_snapshot *s,
			    const struct view *v)
{
	const struct gpulat_counter *c;
	size_t i;

	json_object_begin(j, "drops");
	for (i = 0; i < gl_snapshot_nr_counters(s); i++) {
		c = gl_snapshot_counter(s, i);
		if (view_wants_family(v, c->family))
			json_u64(j, c->name, c->value);
	}
	json_object_end(j);
}

/* hist_print_json - the JSON view of @s: one object on one line */
void hist_print_json(FILE *f, const struct gl_snapshot *s,
		     const struct view *v)
{
	const struct gpulat_snap_header *hdr = gl_snapshot_header(s);
	struct gl_hist *h;
	struct json j;
	size_t groups;

	h = malloc(sizeof(*h));
	if (!h)
		return;
	json_begin(&j, f);
	json_object_begin(&j, NULL);
	json_object_begin(&j, "abi");
	json_u64(&j, "major", hdr->abi_major);
	json_u64(&j, "minor", hdr->abi_minor);
	json_object_end(&j);
	json_str(&j, "kernel", view_kernel(v, s));
	json_str(&j, "source", v->source ? v->source : "kmod");
	if (v->is_interval)
		json_double(&j, "interval_s", v->interval_s);
	else
		json_null(&j, "interval_s");
	json_u64(&j, "time_ns", hdr->time_ns);
	json_u64(&j, "generation", hdr->generation);
	hist_json_scheme(&j);
	json_array_begin(&j, "series");
	/* every group's total, empty ones too: a reader sees every series */
	hist_walk(s, v, h, true, hist_json_visit, &j, &groups);
	json_array_end(&j);
	hist_json_drops(&j, s, v);
	json_object_end(&j);
	json_end(&j);
	free(h);
}
