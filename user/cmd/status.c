// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat status: is the module loaded, which ABI, which tracepoints are
 * attached per family, probe hits and drop counters.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "engine/drill/drill.h"
#include "engine/view/view.h"
#include "gpulat_hist.h"
#include "lib/json.h"
#include "lib/units.h"

/* Most families one status lists; far more than enum gpulat_family has. */
#define STATUS_MAX_FAMILIES	64

/* Xid events a status lists at most: the last ones. */
#define STATUS_MAX_EVENTS	10

/* What drills killed before they cleaned up left (status_run's). */
static struct drill_sweep status_left;
static bool status_left_read;

/* status_text_left - the leftovers of killed drills, and what removes them */
static void status_text_left(FILE *f)
{
	if (!status_left_read || !status_left.n)
		return;
	fprintf(f, "drills:       left by drills killed before they cleaned up\n");
	drill_sweep_print(f, &status_left, false, "  ");
	fprintf(f, "  remove with: gpulat drill clean (as root; every drill does it first)\n");
}

/* status_add_family - add @f to the sorted set @fam of @n; new count */
static size_t status_add_family(uint32_t *fam, size_t n, uint32_t f)
{
	size_t k;
	uint32_t t;

	for (k = 0; k < n && fam[k] != f; k++)
		;
	if (k < n || n == STATUS_MAX_FAMILIES)
		return n;
	fam[n++] = f;
	for (k = n - 1; k > 0 && fam[k - 1] > fam[k]; k--) {
		t = fam[k];
		fam[k] = fam[k - 1];
		fam[k - 1] = t;
	}
	return n;
}

/*
 * status_families - sorted family numbers: the tool's table, and any
 * other the snapshot has in probes, counters or series
 */
static size_t status_families(const struct gl_snapshot *s, uint32_t *fam)
{
	size_t np = gl_snapshot_nr_probes(s), nc = gl_snapshot_nr_counters(s);
	size_t i, n = 0, total = np + nc + gl_snapshot_nr_series(s);
	uint32_t f;

	for (i = 0; i < gl_family_count(); i++)
		n = status_add_family(fam, n, gl_family_at(i));
	for (i = 0; i < total; i++) {
		if (i < np)
			f = gl_snapshot_probe(s, i)->family;
		else if (i < np + nc)
			f = gl_snapshot_counter(s, i - np)->family;
		else
			f = gl_snapshot_series(s, i - np - nc)->family;
		n = status_add_family(fam, n, f);
	}
	return n;
}

enum status_fam_state {
	STATUS_ATTACHED,	/* its probes run */
	STATUS_OFF,		/* switched off, or not switched on at load */
	STATUS_UNAVAILABLE,	/* cannot be switched on: see why */
};

enum status_why {
	STATUS_WHY_NONE,
	STATUS_WHY_OFF,		/* switched off, or not switched on at load */
	STATUS_WHY_MISSING,	/* tracepoints missing on this kernel */
	STATUS_WHY_FAILED,	/* registration failed */
	STATUS_WHY_NO_PROBES,	/* the module lists no tracepoint for it */
	STATUS_WHY_HELD,	/* BPF: waits for its driver (the source says) */
};

/* What the probe records of one family add up to. */
struct status_fam {
	enum status_fam_state state;
	enum status_why why;
	uint32_t error;		/* STATUS_WHY_FAILED: the first errno */
	const struct gpulat_probe *failed;	/* its tracepoint */
	size_t nr_probes, nr_attached, nr_missing, nr_series, nr_counters;
};

/*
 * status_family_state - attached, off or unavailable (and why) from the
 * probe records: the module attaches all of a family's tracepoints or
 * none, and marks the ones it could not find or register
 */
static void status_family_state(const struct gl_snapshot *s, uint32_t family,
				const char *held, struct status_fam *st)
{
	const struct gpulat_probe *p;
	size_t i, nr_failed = 0;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < gl_snapshot_nr_series(s); i++)
		if (gl_snapshot_series(s, i)->family == family)
			st->nr_series++;
	for (i = 0; i < gl_snapshot_nr_counters(s); i++)
		if (gl_snapshot_counter(s, i)->family == family)
			st->nr_counters++;
	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		p = gl_snapshot_probe(s, i);
		if (p->family != family)
			continue;
		st->nr_probes++;
		if (p->state == GPULAT_PROBE_ATTACHED)
			st->nr_attached++;
		else if (p->state == GPULAT_PROBE_MISSING)
			st->nr_missing++;
		else if (p->state == GPULAT_PROBE_FAILED && !nr_failed++) {
			st->failed = p;
			st->error = p->error;
		}
	}
	if (!st->nr_probes) {
		st->state = STATUS_UNAVAILABLE;
		st->why = STATUS_WHY_NO_PROBES;
	} else if (!st->nr_attached && held && held[0]) {
		st->state = STATUS_OFF;
		st->why = STATUS_WHY_HELD;
	} else if (st->nr_attached) {
		st->state = STATUS_ATTACHED;
	} else if (st->nr_missing) {
		st->state = STATUS_UNAVAILABLE;
		st->why = STATUS_WHY_MISSING;
	} else if (nr_failed) {
		st->state = STATUS_UNAVAILABLE;
		st->why = STATUS_WHY_FAILED;
	} else {
		st->state = STATUS_OFF;
		st->why = STATUS_WHY_OFF;
	}
}

static const char *const status_state_names[] = {
	[STATUS_ATTACHED]	= "attached",
	[STATUS_OFF]		= "off",
	[STATUS_UNAVAILABLE]	= "unavailable",
};

static const char *const status_why_text[] = {
	[STATUS_WHY_NONE]	= NULL,
	[STATUS_WHY_OFF]	= "switched off, or not switched on at load",
	[STATUS_WHY_MISSING]	= "tracepoints missing on this kernel",
	[STATUS_WHY_FAILED]	= "registration failed",
	[STATUS_WHY_NO_PROBES]	= "no tracepoints in this module",
	[STATUS_WHY_HELD]	= "held back",	/* the source's own words */
};

/* status_age - "12.3s ago" of an event at @t, seen at snapshot time @now */
static const char *status_age(char *buf, size_t len, uint64_t now,
			      uint64_t t)
{
	char span[UNITS_LEN];

	snprintf(buf, len, "%s ago",
		 units_ns(span, sizeof(span), now > t ? now - t : 0));
	return buf;
}

/* status_event_type - "xid" for GPULAT_EVENT_XID, else NULL */
static const char *status_event_type(uint32_t type)
{
	return type == GPULAT_EVENT_XID ? "xid" : NULL;
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

/* status_text_why - the line that says why a family is unavailable */
static void status_text_why(FILE *f, const struct gl_snapshot *s,
			    uint32_t family, const struct status_fam *st)
{
	char name[48], en[24], tok[96];
	const struct gpulat_probe *p;
	struct wrap w;
	size_t i, n = 0;

	if (st->why == STATUS_WHY_MISSING) {
		wrap_begin(&w, f, "  missing:", 14);
		for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
			p = gl_snapshot_probe(s, i);
			if (p->family != family ||
			    p->state != GPULAT_PROBE_MISSING)
				continue;
			units_printable(name, sizeof(name), p->tracepoint);
			snprintf(tok, sizeof(tok), "%s%s", name,
				 n + 1 < st->nr_missing ? "," : "");
			wrap_add(&w, n++ ? " " : "    ", tok);
		}
		wrap_end(&w);
	} else if (st->why == STATUS_WHY_FAILED) {
		wrap_begin(&w, f, "  failed:", 14);
		snprintf(tok, sizeof(tok), "%s,",
			 units_printable(name, sizeof(name),
					 st->failed->tracepoint));
		wrap_add(&w, "     ", tok);
		snprintf(tok, sizeof(tok), "%s (errno %u)",
			 status_errno(st->error, en, sizeof(en)), st->error);
		wrap_add(&w, " ", tok);
		wrap_end(&w);
	}
}

/* status_text_family - state, tracepoints and drops of one family */
static void status_text_family(FILE *f, const struct gl_snapshot *s,
			       uint32_t family, const char *held)
{
	char name[48], st_buf[24], en[24], tok[GPULAT_NAME_LEN + UNITS_LEN];
	char tail[80], num[UNITS_LEN];
	const struct gpulat_counter *c;
	const struct gpulat_probe *p;
	struct status_fam st;
	size_t i, nr = 0, room;
	struct wrap w;

	status_family_state(s, family, held, &st);
	fprintf(f, "family %s: %s",
		view_family_name(family, st_buf, sizeof(st_buf)),
		status_state_names[st.state]);
	if (st.why == STATUS_WHY_HELD)
		fprintf(f, " (%s)", held);
	else if (st.why == STATUS_WHY_OFF)
		fprintf(f, " (%s)", status_why_text[st.why]);
	else if (st.why == STATUS_WHY_FAILED)
		fprintf(f, ", %s: %s", status_why_text[st.why],
			status_errno(st.error, en, sizeof(en)));
	else if (st.why)
		fprintf(f, ", %s", status_why_text[st.why]);
	fputc('\n', f);
	/* a family the module knows nothing of: that line says it all */
	if (!st.nr_probes && !st.nr_series && !st.nr_counters)
		return;
	status_text_why(f, s, family, &st);
	fprintf(f, "  series:     %zu\n", st.nr_series);
	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		p = gl_snapshot_probe(s, i);
		if (p->family != family)
			continue;
		/* the name is clipped: the line stays below UNITS_COLS */
		snprintf(tail, sizeof(tail), "%-9s hits %s%s%s%s",
			 status_state(p->state, st_buf, sizeof(st_buf)),
			 units_count(num, sizeof(num), p->hits),
			 p->state == GPULAT_PROBE_FAILED ? "  (" : "",
			 p->state == GPULAT_PROBE_FAILED ?
			 status_errno(p->error, en, sizeof(en)) : "",
			 p->state == GPULAT_PROBE_FAILED ? ")" : "");
		units_printable(name, sizeof(name), p->tracepoint);
		room = UNITS_COLS - 1 - 14 - 1 - strlen(tail);
		if (strlen(name) > room)
			name[room] = '\0';
		fprintf(f, "  tracepoint  %-*s %s\n", room < 26 ? (int)room : 26,
			name, tail);
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

/* status_text_overview - "families: sched attached, block off, ..." */
static void status_text_overview(FILE *f, const struct gl_snapshot *s,
				 const struct view *v, const uint32_t *fam,
				 size_t n)
{
	char name[24], tok[64];
	struct status_fam st;
	struct wrap w;
	size_t i, nr = 0;

	wrap_begin(&w, f, "families:", 14);
	for (i = 0; i < n; i++) {
		if (!view_wants_family(v, fam[i]))
			continue;
		status_family_state(s, fam[i], fam[i] < GPULAT_FAM_MAX ?
				    v->held[fam[i]] : NULL, &st);
		snprintf(tok, sizeof(tok), "%s %s%s",
			 view_family_name(fam[i], name, sizeof(name)),
			 status_state_names[st.state], i + 1 < n ? "," : "");
		wrap_add(&w, nr++ ? " " : "     ", tok);
	}
	wrap_end(&w);
}

/* status_text_events - the last Xid events, oldest first */
static void status_text_events(FILE *f, const struct gl_snapshot *s)
{
	size_t i, n = gl_snapshot_nr_events(s);
	const struct gpulat_event *e;
	char age[UNITS_LEN + 8], dev[25], what[32];
	uint64_t now = gl_snapshot_header(s)->time_ns;

	if (!n) {
		fputs("xid events:   none\n", f);
		return;
	}
	if (n > STATUS_MAX_EVENTS)
		fprintf(f, "xid events:   %zu, the last %d:\n", n,
			STATUS_MAX_EVENTS);
	else
		fprintf(f, "xid events:   %zu\n", n);
	for (i = n > STATUS_MAX_EVENTS ? n - STATUS_MAX_EVENTS : 0; i < n;
	     i++) {
		e = gl_snapshot_event(s, i);
		if (status_event_type(e->type))
			snprintf(what, sizeof(what), "Xid %u", e->code);
		else
			snprintf(what, sizeof(what), "type %u code %u",
				 e->type, e->code);
		/* device clipped to 24: the line stays below 80 columns */
		fprintf(f, "  %12s  %-14s %s\n",
			status_age(age, sizeof(age), now, e->time_ns),
			units_printable(dev, sizeof(dev), e->device), what);
	}
}

/* status_print_text - the text view of a loaded module's snapshot */
void status_print_text(FILE *f, const struct gl_snapshot *s,
		       const struct view *v)
{
	const struct gpulat_snap_header *h = gl_snapshot_header(s);
	uint32_t fam[STATUS_MAX_FAMILIES];
	char a[UNITS_LEN], b[UNITS_LEN];
	size_t i, n;

	if (v->source && !strcmp(v->source, "bpf"))
		fputs("module:       not used\n", f);
	else if (v->clock)
		fprintf(f, "module:       loaded (%s)\n", GPULAT_DEVICE_PATH);
	else
		fputs("module:       from a saved snapshot\n", f);
	if (v->source_desc)
		fprintf(f, "source:       %s\n", v->source_desc);
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
	status_text_overview(f, s, v, fam, n);
	status_text_events(f, s);
	for (i = 0; i < n; i++) {
		if (!view_wants_family(v, fam[i]))
			continue;
		fputc('\n', f);
		status_text_family(f, s, fam[i],
				   fam[i] < GPULAT_FAM_MAX ? v->held[fam[i]] :
				   NULL);
	}
}

/* status_json_family - one element of "families" */
static void status_json_family(struct json *j, const struct gl_snapshot *s,
			       uint32_t family, const char *held)
{
	const struct gpulat_counter *c;
	const struct gpulat_probe *p;
	struct status_fam st;
	char buf[24];
	size_t i;

	status_family_state(s, family, held, &st);
	json_object_begin(j, NULL);
	json_str(j, "family", view_family_name(family, buf, sizeof(buf)));
	json_str(j, "state", status_state_names[st.state]);
	json_str(j, "reason", st.why == STATUS_WHY_HELD ? held :
		 status_why_text[st.why]);
	json_array_begin(j, "missing");
	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		p = gl_snapshot_probe(s, i);
		if (p->family == family && p->state == GPULAT_PROBE_MISSING)
			json_str(j, NULL, p->tracepoint);
	}
	json_array_end(j);
	if (st.why == STATUS_WHY_FAILED) {
		json_u64(j, "error", st.error);
		json_str(j, "error_name", status_errno(st.error, buf,
						       sizeof(buf)));
	} else {
		json_null(j, "error");
		json_null(j, "error_name");
	}
	json_u64(j, "series", st.nr_series);
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

/* status_json_events - the "events" member: every event kept */
static void status_json_events(struct json *j, const struct gl_snapshot *s)
{
	uint64_t now = gl_snapshot_header(s)->time_ns;
	const struct gpulat_event *e;
	size_t i;

	json_array_begin(j, "events");
	for (i = 0; i < gl_snapshot_nr_events(s); i++) {
		e = gl_snapshot_event(s, i);
		json_object_begin(j, NULL);
		if (status_event_type(e->type))
			json_str(j, "type", status_event_type(e->type));
		else
			json_u64(j, "type", e->type);
		json_u64(j, "code", e->code);
		json_str(j, "device", e->device);
		if (e->cpu == GPULAT_CPU_NONE)
			json_null(j, "cpu");
		else
			json_u64(j, "cpu", e->cpu);
		json_u64(j, "time_ns", e->time_ns);
		json_u64(j, "age_ns", now > e->time_ns ? now - e->time_ns : 0);
		json_object_end(j);
	}
	json_array_end(j);
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
	if (v->source && !strcmp(v->source, "bpf"))
		json_null(&j, "device");	/* the BPF source has none */
	else
		json_str(&j, "device", GPULAT_DEVICE_PATH);
	status_json_abi(&j, s);
	json_str(&j, "kernel", s ? view_kernel(v, s) : v->kernel);
	json_str(&j, "source", v->source ? v->source : "kmod");
	if (v->source_desc)
		json_str(&j, "source_detail", v->source_desc);
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
				status_json_family(&j, s, fam[i],
						   fam[i] < GPULAT_FAM_MAX ?
						   v->held[fam[i]] : NULL);
		json_array_end(&j);
		status_json_events(&j, s);
	}
	if (status_left_read)
		drill_json_swept(&j, &status_left, false);
	json_object_end(&j);
	json_end(&j);
}

/* status_run - gpulat status */
/*
 * status_text_cuda - what the cuda family probes, and what that costs
 * the jobs; the errno of the query when the source cannot say
 */
static void status_text_cuda(FILE *f, int err, const struct gl_cuda_attached *a)
{
	if (err == -EOPNOTSUPP || err == -ENOTTY || err == -ENOENT)
		return;		/* the BPF source's state says; an older module */
	if (err) {
		fprintf(f, "cuda: cannot say what is probed: %s\n",
			strerror(-err));
		return;
	}
	if (!a->ino) {
		fprintf(f, "cuda: no CUDA library probed, no cost (gpulat cuda)\n");
		return;
	}
	fprintf(f, "cuda: %u functions of inode %llu probed; each of their calls costs the job two uprobe traps (gpulat cuda)\n",
		a->nr, (unsigned long long)a->ino);
}

int status_run(const struct gpulat_opts *o)
{
	struct gl_cuda_attached cuda = { 0 };
	int cuda_err = -ENOENT;
	struct view v = { .families = o->families };
	struct gl_snapshot *s = NULL;
	char kernel[128], msg[256], desc[160], held[GPULAT_FAM_MAX][160];
	struct gl_source *src;
	uint32_t f;
	int ret;

	if (o->input) {
		ret = gpulat_load_input(o->input, NULL, &s, stderr);
		if (ret)
			return gpulat_input_exit(ret);
	} else {
		/* the host's state, whatever the source says */
		status_left_read = !drill_sweep(&status_left, false);
		gpulat_pins_swept(stderr);
		v.kernel = gpulat_kernel_release(kernel, sizeof(kernel));
		v.clock = true;
		ret = gpulat_source_open(o, &src, &v.module_major,
					 &v.module_minor, stderr);
		if (ret) {
			if (o->json && gl_no_module(ret))
				status_print_json(stdout, NULL, &v);
			else if (!o->json)
				status_text_left(stderr);
			return gpulat_device_exit(ret);
		}
		gpulat_view_source(&v, src, desc, sizeof(desc));
		for (f = 0; f < GPULAT_FAM_MAX; f++)
			v.held[f] = gl_source_family_held(src, f, held[f],
							  sizeof(held[f]));
		ret = gl_source_snapshot(src, &s, msg, sizeof(msg));
		cuda_err = gl_source_cuda_get(src, &cuda);
		gl_source_close(src);
		if (ret) {
			fprintf(stderr, "gpulat: %s\n", msg);
			return GPULAT_EXIT_ERROR;
		}
	}
	if (o->json) {
		status_print_json(stdout, s, &v);
	} else {
		status_print_text(stdout, s, &v);
		if (!o->input && view_wants_family(&v, GPULAT_FAM_CUDA))
			status_text_cuda(stdout, cuda_err, &cuda);
		status_text_left(stdout);
	}
	gl_snapshot_free(s);
	return GPULAT_EXIT_OK;
}

static const char usage_status[] =
"usage: gpulat status [-j] [-i FILE]\n"
"\n"
"Show whether the module is loaded, its ABI version and this tool's, the\n"
"kernel release, per family whether it is attached, off, or unavailable\n"
"and why (tracepoints missing on this kernel, registration failed), its\n"
"tracepoints with their state and hits, the drop counters, and the last\n"
"NVIDIA Xid events; also what a drill killed before it cleaned up left\n"
"(gpulat drill clean removes it) and what a killed gpulat attach left.\n"
"\n"
"options:\n"
"  -j, --json        one JSON object instead of text\n"
"  -i, --input FILE  read a saved snapshot instead of the device\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat status              # state of the running module\n"
"    gpulat status --json       # the same for scripts\n"
"    gpulat status -i s.bin     # state recorded in a saved snapshot\n";

const struct gpulat_command cmd_status = {
	.name = "status",
	.summary = "module, ABI, families and why one is off, drops, Xid events",
	.usage = usage_status,
	.optstring = "hji:",
	.run = status_run,
};
