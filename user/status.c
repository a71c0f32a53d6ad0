// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat status: is the module loaded, which ABI, which tracepoints are
 * attached per family, probe hits and drop counters.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "gpulat.h"
#include "gpulat_hist.h"
#include "hist.h"
#include "json.h"
#include "units.h"

/* Most families one status lists; far more than enum gpulat_family has. */
#define STATUS_MAX_FAMILIES	64

/* status_families - sorted family numbers seen in probes, counters, series */
static size_t status_families(const struct gl_snapshot *s, uint32_t *fam)
{
	size_t np = gl_snapshot_nr_probes(s), nc = gl_snapshot_nr_counters(s);
	size_t i, k, n = 0, total = np + nc + gl_snapshot_nr_series(s);
	uint32_t f, t;

	for (i = 0; i < total; i++) {
		if (i < np)
			f = gl_snapshot_probe(s, i)->family;
		else if (i < np + nc)
			f = gl_snapshot_counter(s, i - np)->family;
		else
			f = gl_snapshot_series(s, i - np - nc)->family;
		for (k = 0; k < n && fam[k] != f; k++)
			;
		if (k < n || n == STATUS_MAX_FAMILIES)
			continue;
		fam[n++] = f;
		for (k = n - 1; k > 0 && fam[k - 1] > fam[k]; k--) {
			t = fam[k];
			fam[k] = fam[k - 1];
			fam[k - 1] = t;
		}
	}
	return n;
}

/* status_state - text of a probe state, "state N" when unknown */
static const char *status_state(uint32_t state, char *buf, size_t len)
{
	const char *name = gl_probe_state_name(state);

	if (name)
		return name;
	snprintf(buf, len, "state %u", state);
	return buf;
}

/* status_errno - "EINVAL" for 22 */
static const char *status_errno(uint32_t err, char *buf, size_t len)
{
	const char *name = err < 4096 ? strerrorname_np(err) : NULL;

	if (name)
		return name;
	snprintf(buf, len, "errno %u", err);
	return buf;
}

/* status_text_family - tracepoints and drops of one family */
static void status_text_family(FILE *f, const struct gl_snapshot *s,
			       uint32_t family)
{
	char name[48], st[24], en[24], tok[GPULAT_NAME_LEN + UNITS_LEN];
	const struct gpulat_counter *c;
	const struct gpulat_probe *p;
	size_t i, nr = 0, series = 0;
	struct wrap w;

	fprintf(f, "family %s\n", view_family_name(family, st, sizeof(st)));
	for (i = 0; i < gl_snapshot_nr_series(s); i++)
		if (gl_snapshot_series(s, i)->family == family)
			series++;
	fprintf(f, "  series:     %zu\n", series);
	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		p = gl_snapshot_probe(s, i);
		if (p->family != family)
			continue;
		fprintf(f, "  tracepoint  %-26s %-9s hits %llu",
			units_printable(name, sizeof(name), p->tracepoint),
			status_state(p->state, st, sizeof(st)),
			(unsigned long long)p->hits);
		if (p->state == GPULAT_PROBE_FAILED)
			fprintf(f, "  (%s)", status_errno(p->error, en,
							  sizeof(en)));
		fputc('\n', f);
		nr++;
	}
	if (!nr)
		fputs("  tracepoint  none reported\n", f);
	wrap_begin(&w, f, "  drops:", 4);
	nr = 0;
	for (i = 0; i < gl_snapshot_nr_counters(s); i++) {
		c = gl_snapshot_counter(s, i);
		if (c->family != family)
			continue;
		snprintf(tok, sizeof(tok), "%s %llu",
			 units_printable(name, sizeof(name), c->name),
			 (unsigned long long)c->value);
		wrap_add(&w, nr++ ? ", " : "      ", tok);
	}
	if (!nr)
		wrap_add(&w, "      ", "none");
	wrap_end(&w);
}

/* status_print_text - the text view of a loaded module's snapshot */
void status_print_text(FILE *f, const struct gl_snapshot *s,
		       const struct view *v)
{
	const struct gpulat_snap_header *h = gl_snapshot_header(s);
	uint32_t fam[STATUS_MAX_FAMILIES];
	char a[UNITS_LEN], b[UNITS_LEN];
	size_t i, n;

	if (v->clock)
		fprintf(f, "module:       loaded (%s)\n", GPULAT_DEVICE_PATH);
	else
		fputs("module:       from a saved snapshot\n", f);
	fprintf(f, "abi:          module %u.%u, tool %u.%u\n", h->abi_major,
		h->abi_minor, GPULAT_ABI_MAJOR, GPULAT_ABI_MINOR);
	fprintf(f, "kernel:       %s\n", view_kernel(v, s) ?: "unknown");
	fprintf(f, "counting:     %s since load or reset (generation %u)\n",
		units_ns(a, sizeof(a), h->time_ns > h->reset_time_ns ?
			 h->time_ns - h->reset_time_ns : 0), h->generation);
	fprintf(f, "cpus:         %u possible\n", h->nr_cpu_ids);
	fprintf(f, "histogram:    log-linear, %u sub-buckets per octave, %s .. %s, %u slots\n",
		GPULAT_HIST_SUBS,
		units_ns(a, sizeof(a), 1ULL << GPULAT_HIST_MIN_SHIFT),
		units_ns(b, sizeof(b), 1ULL << GPULAT_HIST_MAX_SHIFT),
		GPULAT_HIST_NR_BUCKETS);
	n = status_families(s, fam);
	for (i = 0; i < n; i++) {
		if (!view_wants_family(v, fam[i]))
			continue;
		fputc('\n', f);
		status_text_family(f, s, fam[i]);
	}
}

/* status_json_family - one element of "families" */
static void status_json_family(struct json *j, const struct gl_snapshot *s,
			       uint32_t family)
{
	const struct gpulat_counter *c;
	const struct gpulat_probe *p;
	char buf[24];
	size_t i;

	json_object_begin(j, NULL);
	json_str(j, "family", view_family_name(family, buf, sizeof(buf)));
	json_array_begin(j, "probes");
	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		p = gl_snapshot_probe(s, i);
		if (p->family != family)
			continue;
		json_object_begin(j, NULL);
		json_str(j, "tracepoint", p->tracepoint);
		json_str(j, "state", status_state(p->state, buf, sizeof(buf)));
		if (p->state == GPULAT_PROBE_FAILED)
			json_u64(j, "error", p->error);
		else
			json_null(j, "error");
		json_u64(j, "hits", p->hits);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_begin(j, "drops");
	for (i = 0; i < gl_snapshot_nr_counters(s); i++) {
		c = gl_snapshot_counter(s, i);
		if (c->family == family)
			json_u64(j, c->name, c->value);
	}
	json_object_end(j);
	json_object_end(j);
}

/* status_json_abi - the "abi" member; @s NULL: module unknown */
static void status_json_abi(struct json *j, const struct gl_snapshot *s)
{
	json_object_begin(j, "abi");
	json_object_begin(j, "tool");
	json_u64(j, "major", GPULAT_ABI_MAJOR);
	json_u64(j, "minor", GPULAT_ABI_MINOR);
	json_object_end(j);
	if (s) {
		json_object_begin(j, "module");
		json_u64(j, "major", gl_snapshot_header(s)->abi_major);
		json_u64(j, "minor", gl_snapshot_header(s)->abi_minor);
		json_object_end(j);
	} else {
		json_null(j, "module");
	}
	json_object_end(j);
}

/* status_print_json - status as one JSON object; @s NULL: not loaded */
void status_print_json(FILE *f, const struct gl_snapshot *s,
		       const struct view *v)
{
	uint32_t fam[STATUS_MAX_FAMILIES];
	const struct gpulat_snap_header *h;
	struct json j;
	size_t i, n;

	json_begin(&j, f);
	json_object_begin(&j, NULL);
	json_bool(&j, "loaded", s != NULL);
	json_str(&j, "device", GPULAT_DEVICE_PATH);
	status_json_abi(&j, s);
	json_str(&j, "kernel", s ? view_kernel(v, s) : v->kernel);
	json_str(&j, "source", "kmod");
	if (s) {
		h = gl_snapshot_header(s);
		json_u64(&j, "time_ns", h->time_ns);
		json_u64(&j, "reset_time_ns", h->reset_time_ns);
		json_u64(&j, "generation", h->generation);
		json_u64(&j, "nr_cpu_ids", h->nr_cpu_ids);
		hist_json_scheme(&j);
		json_array_begin(&j, "families");
		n = status_families(s, fam);
		for (i = 0; i < n; i++)
			if (view_wants_family(v, fam[i]))
				status_json_family(&j, s, fam[i]);
		json_array_end(&j);
	}
	json_object_end(&j);
	json_end(&j);
}

/* status_run - gpulat status */
int status_run(const struct gpulat_opts *o)
{
	struct view v = { .families = o->families };
	struct gl_snapshot *s = NULL;
	char kernel[128], msg[256];
	int fd, ret;

	if (o->input) {
		ret = gpulat_load_input(o->input, NULL, &s, stderr);
		if (ret)
			return ret;
	} else {
		v.kernel = gpulat_kernel_release(kernel, sizeof(kernel));
		v.clock = true;
		fd = gpulat_open_device(&v.module_major, &v.module_minor,
					stderr);
		if (fd < 0) {
			if (o->json && fd == -GPULAT_EXIT_NO_MODULE)
				status_print_json(stdout, NULL, &v);
			return -fd;
		}
		ret = gl_snapshot_take_err(fd, &s, msg, sizeof(msg));
		close(fd);
		if (ret) {
			fprintf(stderr, "gpulat: %s\n", msg);
			return GPULAT_EXIT_ERROR;
		}
	}
	if (o->json)
		status_print_json(stdout, s, &v);
	else
		status_print_text(stdout, s, &v);
	gl_snapshot_free(s);
	return GPULAT_EXIT_OK;
}
