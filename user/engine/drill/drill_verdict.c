// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat drill: the verdict.  What the outlier trace and the diagnosis
 * said is reduced to struct drill_seen first (drill_scan, drill_observe),
 * then judged (drill_judge): pure functions, tested on synthetic records
 * and verdicts (tests/unit/test_drill.c).
 */
#include <stdarg.h>
#include <string.h>

#include "engine/diagnose/diagnose.h"
#include "engine/drill/drill.h"

bool drill_family_on(const struct gl_snapshot *s, uint32_t family)
{
	const struct gpulat_probe *p;
	size_t i;

	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		p = gl_snapshot_probe(s, i);
		if (p->family == family && p->state == GPULAT_PROBE_ATTACHED)
			return true;
	}
	return false;
}

bool drill_match(const struct drill_expect *e, const struct gl_trace_rec *r)
{
	const struct gpulat_rec_sample *s = &r->u.sample;
	uint32_t i, n;

	if (r->type != GPULAT_REC_SAMPLE || s->family != e->family)
		return false;
	if (e->victim_pid && s->pid != e->victim_pid)
		return false;
	if (e->has_key && s->key != e->key)
		return false;
	if (!e->culprit_pid)
		return true;
	/* a wait for a CPU: the hog among those that held it */
	if (!(s->flags & GPULAT_REC_F_CULPRITS))
		return false;
	n = s->nr_culprits < GPULAT_NR_CULPRITS ? s->nr_culprits :
						  GPULAT_NR_CULPRITS;
	for (i = 0; i < n; i++)
		if (s->culprits[i].pid == e->culprit_pid)
			return true;
	return false;
}

void drill_scan(struct drill_seen *seen, const struct drill_expect *e,
		const struct gl_trace_rec *recs, size_t n, uint64_t since_ns)
{
	size_t i;

	seen->first_ns = 0;
	seen->nr_match = 0;
	for (i = 0; i < n; i++) {
		if (recs[i].time_ns < since_ns || !drill_match(e, &recs[i]))
			continue;
		if (!seen->nr_match++ || recs[i].time_ns < seen->first_ns)
			seen->first_ns = recs[i].time_ns;
	}
}

void drill_observe(struct drill_seen *seen, const struct drill_expect *e,
		   const struct diag_result *r)
{
	const struct diag_culprit *c;
	const struct diag_item *it;
	struct diag_layer_info info;
	size_t i;

	seen->top = diag_ranked(r, 1);
	seen->ranked = seen->top < DIAG_NR_LAYERS;
	seen->culprit_named = seen->key_named = false;
	seen->top_culprit[0] = seen->top_where[0] = '\0';
	if (!seen->ranked)
		return;
	diag_layer_get(r, seen->top, &info);
	seen->top_abnormal = info.abnormal;
	for (i = 0; (c = diag_culprit(r, seen->top, i)); i++) {
		if (!i)
			snprintf(seen->top_culprit, sizeof(seen->top_culprit),
				 "%s (pid %d)", c->comm, c->pid);
		if (e->culprit_pid && (c->pid == e->culprit_pid ||
				       c->tgid == e->culprit_pid))
			seen->culprit_named = true;
	}
	for (i = 0; (it = diag_top_item(r, seen->top, i)); i++) {
		if (!i)
			snprintf(seen->top_where, sizeof(seen->top_where),
				 "%s %s", it->name, it->where);
		if (e->has_key && it->family == e->family && it->key == e->key)
			seen->key_named = true;
	}
}

int drill_set(struct drill *d, enum drill_verdict v, const char *fmt, ...)
{
	va_list ap;

	d->verdict = v;
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
	return v;
}

/* drill_culprit_text - what was to be named: "the hog (pid 42)", "nullb1" */
static const char *drill_culprit_text(const struct drill *d, char *buf,
				      size_t len)
{
	if (d->expect.culprit_pid)
		snprintf(buf, len, "the hog (pid %d)", d->expect.culprit_pid);
	else
		snprintf(buf, len, "%s", d->expect.key_name);
	return buf;
}

bool drill_right(const struct drill_seen *s, const struct drill_expect *e)
{
	return s->ranked && s->top_abnormal && s->top == e->layer &&
	       (!e->culprit_pid || s->culprit_named) &&
	       (!e->has_key || s->key_named);
}

void drill_judge(struct drill *d)
{
	const struct drill_seen *s = &d->seen;
	const char *want = diag_layer_name(d->expect.layer);
	char what[80];

	drill_culprit_text(d, what, sizeof(what));
	if (!s->family_on)
		drill_set(d, DRILL_FAIL, "family %s is off",
			  gl_family_name(d->expect.family));
	else if (!s->trace_ok)
		drill_set(d, DRILL_FAIL, "the source has no outlier trace");
	else if (!s->nr_match)
		drill_set(d, DRILL_FAIL,
			  "no %s outlier record of the drill's %s after the injection",
			  gl_family_name(d->expect.family),
			  d->expect.victim_pid ? "victim" : what);
	else if (!s->ranked || !s->top_abnormal)
		drill_set(d, DRILL_FAIL,
			  "diagnose found no layer abnormal (expected %s)",
			  want);
	else if (s->top != d->expect.layer)
		drill_set(d, DRILL_FAIL, "diagnose ranked %s first, not %s",
			  diag_layer_name(s->top), want);
	else if (d->expect.culprit_pid && !s->culprit_named)
		drill_set(d, DRILL_FAIL,
			  "diagnose did not name %s (it named %s)", what,
			  s->top_culprit[0] ? s->top_culprit : "nobody");
	else if (d->expect.has_key && !s->key_named)
		drill_set(d, DRILL_FAIL,
			  "diagnose did not name %s (its evidence: %s)", what,
			  s->top_where[0] ? s->top_where : "none");
	else if (!drill_restored(&d->undo))
		drill_set(d, DRILL_FAIL, "not everything the drill made was removed");
	else
		drill_set(d, DRILL_PASS,
			  "caught: first outlier %.1f ms after the injection, %s ranked first, %s named",
			  (s->first_ns - d->inject_ns) / 1e6, want, what);
}
