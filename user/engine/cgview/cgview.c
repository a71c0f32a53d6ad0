// SPDX-License-Identifier: GPL-2.0
/* The cgroup family's series by cgroup, as text or JSON lines. */
#include <inttypes.h>
#include <string.h>

#include "engine/cgview/cgview.h"
#include "lib/family.h"
#include "lib/json.h"
#include "lib/units.h"

struct row {
	uint64_t id;
	int target;	/* index of the chosen cgroup it lies in */
	bool below;	/* a cgroup below it, not the chosen one */
	struct cg_desc d;
};

/* whether path @p is @root or below it */
static bool is_under(const char *p, const char *root)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/"))
		return p[0] == '/';
	return !strncmp(p, root, n) && (p[n] == '\0' || p[n] == '/');
}

/* the cgroup keys of @s that lie in a chosen cgroup, chosen ones first */
static size_t rows_of(const struct gl_snapshot *s,
		      const struct cgview_target *t, size_t n,
		      struct row *rows, size_t max)
{
	size_t i, k, nr = 0, ns = gl_snapshot_nr_series(s);
	const struct gpulat_series *sr;
	struct row r;
	uint32_t j;

	for (i = 0; i < ns && nr < max; i++) {
		sr = gl_snapshot_series(s, i);
		if (sr->family != GPULAT_FAM_CGROUP)
			continue;
		for (k = 0; k < nr && rows[k].id != sr->key; k++)
			;
		if (k < nr)
			continue;
		memset(&r, 0, sizeof(r));
		cg_describe(&r.d, sr->key, 0);
		r.id = sr->key;
		r.target = -1;
		for (j = 0; j < n && r.target < 0; j++) {
			if (t[j].id == sr->key)
				r.target = j;
			else if (r.d.path[0] && is_under(r.d.path, t[j].rel)) {
				r.target = j;
				r.below = true;
			}
		}
		if (r.target >= 0)
			rows[nr++] = r;
	}
	return nr;
}

/* the merged histogram of series @id of cgroup @key */
static bool hist_of(const struct gl_snapshot *s, uint32_t id, uint64_t key,
		    struct gl_hist *h)
{
	memset(h, 0, sizeof(*h));
	return gl_hist_merge_key(s, GPULAT_FAM_CGROUP, id, key,
				 GPULAT_CPU_NONE, h) > 0 && h->count;
}

static const char *kind_of(uint32_t id)
{
	const struct gl_series_info *si = gl_series_info(GPULAT_FAM_CGROUP, id);

	/* "cgroup.wakeup" -> "wakeup" */
	return si ? si->name + strlen("cgroup.") : "?";
}

static void text_series(FILE *f, const struct gl_snapshot *s, uint64_t key,
			int indent)
{
	char c[UNITS_LEN], a[UNITS_LEN], b[UNITS_LEN], m[UNITS_LEN];
	const struct gl_family_info *fi = gl_family(GPULAT_FAM_CGROUP);
	struct gl_hist h;
	uint32_t id;
	bool any = false;

	for (id = 0; id < fi->nr_series; id++) {
		if (!hist_of(s, id, key, &h))
			continue;
		any = true;
		fprintf(f, "%*s%-14s count %s  p50 %s  p99 %s  max %s%s\n",
			indent, "", kind_of(id), units_count(c, sizeof(c), h.count),
			units_ns(a, sizeof(a), gl_hist_quantile(&h, 500000)),
			units_ns(b, sizeof(b), gl_hist_quantile(&h, 990000)),
			units_ns(m, sizeof(m), h.max_ns), h.max_exact ? "" : " (bound)");
	}
	if (!any)
		fprintf(f, "%*sno samples\n", indent, "");
}

/* cgview_print_text - see cgview.h */
size_t cgview_print_text(FILE *f, const struct gl_snapshot *s,
			 const struct cgview_target *t, size_t n,
			 double interval_s)
{
	static struct row rows[CGVIEW_MAX_ROWS];
	char txt[PATH_MAX + 300];
	size_t nr = rows_of(s, t, n, rows, CGVIEW_MAX_ROWS), i, j, shown = 0;
	struct cg_desc d;
	uint64_t full = 0;

	if (interval_s >= 0)
		fprintf(f, "cgroups over %.1f s:\n", interval_s);
	else
		fputs("cgroups, totals since load or reset:\n", f);
	for (j = 0; j < n; j++) {
		cg_describe(&d, t[j].id, 0);
		if (!d.path[0])
			snprintf(d.path, sizeof(d.path), "%s", t[j].rel);
		gl_cg_name_path(d.path, &d.name);
		fprintf(f, "%s\n", cg_text(txt, sizeof(txt), &d));
		text_series(f, s, t[j].id, 2);
		shown++;
		for (i = 0; i < nr; i++) {
			if (rows[i].target != (int)j || !rows[i].below)
				continue;
			fprintf(f, "  %s\n", cg_text(txt, sizeof(txt), &rows[i].d));
			text_series(f, s, rows[i].id, 4);
			shown++;
		}
	}
	if (!gl_counter(s, GPULAT_FAM_CGROUP, GPULAT_CG_KEYS_FULL, &full) && full)
		fprintf(f, "samples of cgroups past the module's bound: %" PRIu64 "\n",
			full);
	return shown;
}

static void json_series(struct json *j, const struct gl_snapshot *s,
			uint64_t key)
{
	const struct gl_family_info *fi = gl_family(GPULAT_FAM_CGROUP);
	struct gl_hist h;
	uint32_t id;

	json_array_begin(j, "series");
	for (id = 0; id < fi->nr_series; id++) {
		if (!hist_of(s, id, key, &h))
			continue;
		json_object_begin(j, NULL);
		json_str(j, "kind", kind_of(id));
		json_u64(j, "count", h.count);
		json_u64(j, "p50_ns", gl_hist_quantile(&h, 500000));
		json_u64(j, "p99_ns", gl_hist_quantile(&h, 990000));
		json_u64(j, "max_ns", h.max_ns);
		json_bool(j, "max_exact", h.max_exact);
		json_object_end(j);
	}
	json_array_end(j);
}

/* cgview_print_json - see cgview.h */
size_t cgview_print_json(FILE *f, const struct gl_snapshot *s,
			 const struct cgview_target *t, size_t n,
			 double interval_s)
{
	static struct row rows[CGVIEW_MAX_ROWS];
	size_t nr = rows_of(s, t, n, rows, CGVIEW_MAX_ROWS), i, k, shown = 0;
	struct cg_desc d;
	uint64_t full = 0;
	struct json j;

	json_begin(&j, f);
	json_object_begin(&j, NULL);
	if (interval_s >= 0)
		json_double(&j, "interval_s", interval_s);
	else
		json_null(&j, "interval_s");
	json_array_begin(&j, "cgroups");
	for (k = 0; k < n; k++) {
		cg_describe(&d, t[k].id, 0);
		if (!d.path[0])
			snprintf(d.path, sizeof(d.path), "%s", t[k].rel);
		gl_cg_name_path(d.path, &d.name);
		json_object_begin(&j, NULL);
		cg_json(&j, "cgroup", &d);
		json_series(&j, s, t[k].id);
		json_array_begin(&j, "below");
		for (i = 0; i < nr; i++) {
			if (rows[i].target != (int)k || !rows[i].below)
				continue;
			json_object_begin(&j, NULL);
			cg_json(&j, "cgroup", &rows[i].d);
			json_series(&j, s, rows[i].id);
			json_object_end(&j);
			shown++;
		}
		json_array_end(&j);
		json_object_end(&j);
		shown++;
	}
	json_array_end(&j);
	gl_counter(s, GPULAT_FAM_CGROUP, GPULAT_CG_KEYS_FULL, &full);
	json_u64(&j, "keys_full", full);
	json_object_end(&j);
	json_end(&j);
	return shown;
}
