// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat drill: the report, as text or as one JSON object (its schema,
 * version DRILL_JSON_VERSION, is Documentation/drills.rst's).
 */
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "engine/drill/drill.h"
#include "lib/json.h"

/* drill_ran - whether the fault was injected (the drill got that far) */
static bool drill_ran(const struct drill *d)
{
	return d->inject_ns && d->fault[0];
}

static void drill_undo_text(FILE *f, const struct drill_undo *u)
{
	fprintf(f, "    %s: %s", u->what,
		!u->done ? "NOT REMOVED" : u->ret ? "REMOVAL FAILED" : "removed");
	if (u->done && u->ret)
		fprintf(f, " (%s)", strerror(-u->ret));
	fputc('\n', f);
}

void drill_print_text(FILE *f, const struct drill *d)
{
	const struct drill_seen *s = &d->seen;
	size_t i;

	fprintf(f, "drill %s: %s\n", drill_kind_name(d->kind),
		drill_verdict_name(d->verdict));
	if (d->swept && d->swept->n)
		drill_sweep_print(f, d->swept, true, "  ");
	if (d->source[0])
		fprintf(f, "  source:    %s\n", d->source);
	if (drill_ran(d)) {
		fprintf(f, "  fault:     %s\n", d->fault);
		fprintf(f, "  where:     %s, for %.1f s (asked %.1f s)\n",
			d->where, d->fault_s, d->duration_s);
		if (s->nr_match)
			fprintf(f, "  detected:  first %s outlier %.1f ms after the injection, %llu records\n",
				gl_family_name(d->expect.family),
				(s->first_ns - d->inject_ns) / 1e6,
				(unsigned long long)s->nr_match);
		else
			fprintf(f, "  detected:  no %s outlier record of the fault\n",
				gl_family_name(d->expect.family));
		if (s->ranked)
			fprintf(f, "  diagnose:  %s ranked first%s (expected %s); named %s; evidence %s\n",
				diag_layer_name(s->top),
				s->top_abnormal ? "" : " but normal",
				diag_layer_name(d->expect.layer),
				s->top_culprit[0] ? s->top_culprit : "nobody",
				s->top_where[0] ? s->top_where : "none");
		if (s->right_ns)
			fprintf(f, "  right by:  %.1f s after the injection (the diagnosis so far, asked every %.1f s: %u times)\n",
				s->right_ns / 1e9, DRILL_STEP_NS / 1e9,
				s->nr_steps);
		else
			fprintf(f, "  right by:  never while the fault was in place (the diagnosis so far, asked every %.1f s: %u times)\n",
				DRILL_STEP_NS / 1e9, s->nr_steps);
	}
	if (d->undo.n) {
		fprintf(f, "  restored:  %s\n", drill_restored(&d->undo) ?
			"everything the drill made is gone" : "NOT EVERYTHING");
		for (i = 0; i < d->undo.n; i++)
			drill_undo_text(f, &d->undo.v[i]);
	}
	fprintf(f, "  verdict:   %s: %s\n", drill_verdict_name(d->verdict),
		d->reason);
}

static void drill_json_diagnose(struct json *j, const struct drill *d)
{
	const struct drill_seen *s = &d->seen;
	char buf[80];

	json_object_begin(j, "diagnose");
	json_str(j, "expected_layer", diag_layer_name(d->expect.layer));
	if (s->ranked)
		json_str(j, "top_layer", diag_layer_name(s->top));
	else
		json_null(j, "top_layer");
	json_bool(j, "top_abnormal", s->ranked && s->top_abnormal);
	json_bool(j, "right_layer", s->ranked && s->top_abnormal &&
		  s->top == d->expect.layer);
	if (d->expect.culprit_pid) {
		snprintf(buf, sizeof(buf), "pid %d", d->expect.culprit_pid);
		json_str(j, "culprit", buf);
		json_bool(j, "culprit_named", s->culprit_named);
	} else {
		json_str(j, "culprit", d->expect.key_name);
		json_bool(j, "culprit_named", s->key_named);
	}
	json_str(j, "top_culprit", s->top_culprit);
	json_str(j, "top_evidence", s->top_where);
	json_object_end(j);
}

static void drill_json_restored(struct json *j, const struct drill *d)
{
	const struct drill_undo *u;
	size_t i;

	json_object_begin(j, "restored");
	json_bool(j, "all", drill_restored(&d->undo));
	json_array_begin(j, "things");
	for (i = 0; i < d->undo.n; i++) {
		u = &d->undo.v[i];
		json_object_begin(j, NULL);
		json_str(j, "what", u->what);
		json_bool(j, "removed", u->done && !u->ret);
		if (u->done && u->ret)
			json_str(j, "error", strerror(-u->ret));
		else
			json_null(j, "error");
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

void drill_json_swept(struct json *j, const struct drill_sweep *sw,
		      bool rm)
{
	const struct drill_dead *dead;
	const struct drill_left *l;
	size_t i, k;

	json_array_begin(j, rm ? "swept" : "drill_leftovers");
	for (i = 0; sw && i < sw->n; i++) {
		dead = &sw->dead[i];
		json_object_begin(j, NULL);
		json_u64(j, "pid", dead->pid);
		json_str(j, "drill", dead->kind);
		json_u64(j, "started_unix_time", dead->when);
		json_str(j, "record", dead->file);
		json_array_begin(j, "things");
		for (k = 0; k < dead->n; k++) {
			l = &dead->v[k];
			if (!rm && !l->present)
				continue;
			json_object_begin(j, NULL);
			json_str(j, "what", l->what);
			if (rm) {
				json_bool(j, "removed", !l->ret);
				json_bool(j, "was_there", l->present);
			}
			if (l->ret)
				json_str(j, "error", l->ret == -EPERM ?
					 "not a name of that drill, left alone" :
					 strerror(-l->ret));
			else
				json_null(j, "error");
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}

void drill_print_json(FILE *f, const struct drill *d)
{
	const struct drill_seen *s = &d->seen;
	struct utsname un;
	struct json j;

	json_begin(&j, f);
	json_object_begin(&j, NULL);
	json_u64(&j, "version", DRILL_JSON_VERSION);
	json_str(&j, "drill", drill_kind_name(d->kind));
	json_str(&j, "verdict", drill_verdict_name(d->verdict));
	json_str(&j, "reason", d->reason);
	json_u64(&j, "exit", drill_exit_of(d->verdict));
	json_u64(&j, "unix_time", (uint64_t)time(NULL));
	json_str(&j, "kernel", uname(&un) ? "" : un.release);
	json_str(&j, "source", d->source);
	json_double(&j, "duration_s", d->duration_s);
	json_bool(&j, "injected", drill_ran(d));
	json_object_begin(&j, "fault");
	json_str(&j, "what", d->fault);
	json_str(&j, "where", d->where);
	json_double(&j, "seconds", d->fault_s);
	json_str(&j, "family", gl_family_name(d->expect.family));
	json_u64(&j, "threshold_ns", d->expect.threshold_ns);
	json_object_end(&j);
	json_object_begin(&j, "detection");
	json_bool(&j, "family_on", s->family_on);
	json_u64(&j, "records", s->nr_match);
	if (s->nr_match)
		json_u64(&j, "first_after_ns", s->first_ns - d->inject_ns);
	else
		json_null(&j, "first_after_ns");
	/* the verdict so far, every DRILL_STEP_NS: when it was first right */
	if (s->right_ns)
		json_u64(&j, "verdict_after_ns", s->right_ns);
	else
		json_null(&j, "verdict_after_ns");
	json_u64(&j, "verdict_checks", s->nr_steps);
	json_object_end(&j);
	drill_json_diagnose(&j, d);
	drill_json_restored(&j, d);
	drill_json_swept(&j, d->swept, true);
	json_object_end(&j);
	json_end(&j);
}
