// SPDX-License-Identifier: GPL-2.0
/*
 * Printing outlier trace records as text or JSON lines (gpulat trace,
 * report, diagnose).
 */
#include <inttypes.h>
#include <string.h>

#include "engine/cgview/cgview.h"
#include "engine/view/view.h"
#include "lib/json.h"
#include "lib/units.h"

/*
 * trace_series_name - the series' name as the module sends it in @names
 * (printable), else as the family table knows it
 */
const char *trace_series_name(char *buf, size_t len,
			      const struct gl_snapshot *names,
			      uint32_t family, uint32_t id)
{
	size_t i, n = names ? gl_snapshot_nr_series(names) : 0;

	for (i = 0; i < n; i++) {
		const struct gpulat_series *sr = gl_snapshot_series(names, i);

		if (sr->family == family && sr->id == id && sr->name[0])
			return units_printable(buf, len, sr->name);
	}
	return gl_series_name(buf, len, family, id);
}

/*
 * trace_key_name - the key's name as a snapshot lists it, else a softirq
 * vector's as the family table has it; NULL if neither
 */
const char *trace_key_name(const struct gl_snapshot *names, uint32_t family,
			   uint64_t key)
{
	const struct gl_family_info *fi = gl_family(family);
	const struct gl_vector_info *vi = gl_vector_info(key);
	size_t i, n = names ? gl_snapshot_nr_series(names) : 0;

	for (i = 0; i < n; i++) {
		const struct gpulat_series *sr = gl_snapshot_series(names, i);

		if (sr->family == family && sr->key == key && sr->key_name[0])
			return sr->key_name;
	}
	if (fi && fi->key == GL_KEY_VECTOR && vi)
		return vi->name;
	return NULL;
}

/* key_label - the kind of key, as the text line labels it; NULL: none */
static const char *key_label(uint32_t family)
{
	const struct gl_family_info *fi = gl_family(family);

	return fi ? fi->key_label : NULL;
}

/* trace_has_key - whether samples of @family have a key worth naming */
bool trace_has_key(uint32_t family)
{
	return key_label(family) != NULL;
}

static bool has_key(const struct gpulat_rec_sample *s)
{
	return trace_has_key(s->family);
}

/* whether the record names cgroup @id (ABI 1.3 records with the flag) */
static bool has_cgroup(const struct gpulat_rec_sample *s, uint64_t id)
{
	return (s->flags & GPULAT_REC_F_CGROUP) && id;
}

/* " cgroup PATH (CONTAINER)" of @id, of task @pid */
static void print_cgroup(FILE *f, uint64_t id, pid_t pid)
{
	char t[PATH_MAX + 300];
	struct cg_desc d;

	cg_describe(&d, id, pid);
	if (d.path[0])
		fprintf(f, " cgroup %s", cg_text(t, sizeof(t), &d));
	else
		fprintf(f, " cgroup %" PRIu64, id);
}

static void print_time(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%06" PRIu64, ns / 1000000000,
		ns % 1000000000 / 1000);
}

void trace_print_text(FILE *f, const struct gl_trace_rec *r,
		      const struct gl_snapshot *names)
{
	const struct gpulat_rec_sample *s = &r->u.sample;
	char a[UNITS_LEN], b[GPULAT_NAME_LEN + 16], pr[GPULAT_NAME_LEN];
	const char *kn;
	uint32_t i;

	print_time(f, r->time_ns);
	fprintf(f, " cpu%u ", r->cpu);
	switch (r->type) {
	case GPULAT_REC_SAMPLE:
		break;
	case GPULAT_REC_EVENT:
		if (r->u.event.event.type != GPULAT_EVENT_XID) {
			fprintf(f, "event of unknown type %u\n",
				r->u.event.event.type);
			return;
		}
		fprintf(f, "Xid %u on %s\n", r->u.event.event.code,
			units_printable(pr, sizeof(pr),
					r->u.event.event.device));
		return;
	case GPULAT_REC_LOST:
		fprintf(f, "LOST %" PRIu64
			" records on this CPU (reader too slow)\n",
			(uint64_t)r->u.lost.lost);
		return;
	default:
		fprintf(f, "record of unknown type %u\n", r->type);
		return;
	}
	fprintf(f, "%s %s",
		trace_series_name(b, sizeof(b), names, s->family, s->series),
		units_ns(a, sizeof(a), s->latency_ns));
	if (has_key(s)) {
		kn = trace_key_name(names, s->family, s->key);
		if (kn)
			fprintf(f, " %s %s", key_label(s->family),
				units_printable(pr, sizeof(pr), kn));
		else
			fprintf(f, " %s %#" PRIx64, key_label(s->family),
				(uint64_t)s->key);
	}
	if (s->pid)
		fprintf(f, " task %s/%d",
			units_printable(pr, sizeof(pr), s->comm), s->pid);
	if (has_cgroup(s, s->cgroup_id))
		print_cgroup(f, s->cgroup_id, s->pid);
	if (s->flags & GPULAT_REC_F_CULPRITS) {
		fputs(" | held by", f);
		for (i = 0; i < s->nr_culprits; i++) {
			fprintf(f, "%s %s/%d %s", i ? "," : "",
				s->culprits[i].tgid < 0 ? "(exited)" :
				units_printable(pr, sizeof(pr),
						s->culprits[i].comm),
				s->culprits[i].pid,
				units_ns(a, sizeof(a), s->culprits[i].ns));
			if (has_cgroup(s, s->culprit_cgroup[i]))
				print_cgroup(f, s->culprit_cgroup[i],
					     s->culprits[i].pid);
		}
		if (!s->nr_culprits)
			fputs(" nobody", f);
		fprintf(f, ", other %s", units_ns(a, sizeof(a), s->other_ns));
	}
	if (s->flags & GPULAT_REC_F_IRQ_TIME)
		fprintf(f, ", irq %s", units_ns(a, sizeof(a), s->irq_ns));
	if (s->flags & GPULAT_REC_F_SOFTIRQ_TIME)
		fprintf(f, ", softirq %s",
			units_ns(a, sizeof(a), s->softirq_ns));
	if (s->flags & GPULAT_REC_F_PARTIAL)
		fputs(" (culprits: history shorter than the wait)", f);
	if (s->flags & GPULAT_REC_F_SPANS_PARTIAL)
		fputs(" (irq time: history shorter than the wait)", f);
	fputc('\n', f);
}

static void json_pid(struct json *j, const char *key, int32_t pid)
{
	if (pid < 0)
		json_null(j, key);
	else
		json_u64(j, key, pid);
}

/*
 * @key: the cgroup object; null when an ABI 1.3 record names none, left
 * out of older records
 */
static void json_cgroup(struct json *j, const char *key,
			const struct gpulat_rec_sample *s, uint64_t id,
			pid_t pid)
{
	struct cg_desc d;

	if (!(s->flags & GPULAT_REC_F_CGROUP))
		return;
	if (!id) {
		json_null(j, key);
		return;
	}
	cg_describe(&d, id, pid);
	cg_json(j, key, &d);
}

void trace_print_json(FILE *f, const struct gl_trace_rec *r,
		      const struct gl_snapshot *names)
{
	const struct gpulat_rec_sample *s = &r->u.sample;
	char b[GPULAT_NAME_LEN + 16];
	struct json j;
	const char *kn;
	uint32_t i;

	json_begin(&j, f);
	json_object_begin(&j, NULL);
	switch (r->type) {
	case GPULAT_REC_SAMPLE:
		json_str(&j, "type", "sample");
		break;
	case GPULAT_REC_EVENT:
		json_str(&j, "type", r->u.event.event.type == GPULAT_EVENT_XID ?
			 "xid" : "event");
		break;
	case GPULAT_REC_LOST:
		json_str(&j, "type", "lost");
		break;
	default:
		json_str(&j, "type", "unknown");
		json_u64(&j, "type_id", r->type);
	}
	json_u64(&j, "time_ns", r->time_ns);
	json_u64(&j, "cpu", r->cpu);
	if (r->type == GPULAT_REC_EVENT &&
	    r->u.event.event.type != GPULAT_EVENT_XID) {
		json_u64(&j, "event_type", r->u.event.event.type);
		json_u64(&j, "code", r->u.event.event.code);
	} else if (r->type == GPULAT_REC_EVENT) {
		json_u64(&j, "xid", r->u.event.event.code);
		json_str(&j, "device", r->u.event.event.device);
	} else if (r->type == GPULAT_REC_LOST) {
		json_u64(&j, "lost", r->u.lost.lost);
	} else if (r->type == GPULAT_REC_SAMPLE) {
		json_str(&j, "family", gl_family_name(s->family) ?
			 gl_family_name(s->family) : "unknown");
		json_str(&j, "series", trace_series_name(b, sizeof(b), names,
							 s->family, s->series));
		json_u64(&j, "latency_ns", s->latency_ns);
		if (has_key(s)) {
			json_u64(&j, "key", s->key);
			kn = trace_key_name(names, s->family, s->key);
			if (kn)
				json_str(&j, "key_name", kn);
			else
				json_null(&j, "key_name");
		}
		if (s->pid) {
			json_pid(&j, "pid", s->pid);
			json_pid(&j, "tgid", s->tgid);
			json_str(&j, "comm", s->comm);
		}
		json_cgroup(&j, "cgroup", s, s->cgroup_id, s->pid);
		if (s->flags & GPULAT_REC_F_CULPRITS) {
			json_array_begin(&j, "culprits");
			for (i = 0; i < s->nr_culprits; i++) {
				json_object_begin(&j, NULL);
				json_pid(&j, "pid", s->culprits[i].pid);
				json_pid(&j, "tgid", s->culprits[i].tgid);
				if (s->culprits[i].tgid < 0)
					json_null(&j, "comm");
				else
					json_str(&j, "comm",
						 s->culprits[i].comm);
				json_u64(&j, "ns", s->culprits[i].ns);
				json_cgroup(&j, "cgroup", s,
					    s->culprit_cgroup[i],
					    s->culprits[i].pid);
				json_object_end(&j);
			}
			json_array_end(&j);
			json_u64(&j, "other_ns", s->other_ns);
		}
		if (s->flags & GPULAT_REC_F_IRQ_TIME)
			json_u64(&j, "irq_ns", s->irq_ns);
		if (s->flags & GPULAT_REC_F_SOFTIRQ_TIME)
			json_u64(&j, "softirq_ns", s->softirq_ns);
		json_bool(&j, "partial", s->flags & GPULAT_REC_F_PARTIAL);
		json_bool(&j, "irq_partial",
			  s->flags & GPULAT_REC_F_SPANS_PARTIAL);
	}
	json_object_end(&j);
	json_end(&j);
}

/* trace_print_nvml_xid - see trace.h */
void trace_print_nvml_xid(FILE *f, bool json, uint64_t time_ns,
			  uint32_t code, const char *device)
{
	char pr[GPULAT_NAME_LEN];
	struct json j;

	if (!json) {
		print_time(f, time_ns);
		fprintf(f, " cpu- Xid %u on %s (from NVML)\n", code,
			units_printable(pr, sizeof(pr), device));
		return;
	}
	json_begin(&j, f);
	json_object_begin(&j, NULL);
	json_str(&j, "type", "xid");
	json_u64(&j, "time_ns", time_ns);
	json_null(&j, "cpu");
	json_u64(&j, "xid", code);
	json_str(&j, "device", device);
	json_str(&j, "source", "nvml");
	json_object_end(&j);
	json_end(&j);
}
