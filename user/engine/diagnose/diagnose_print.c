// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: the verdict printed, as text for people (wrapped by
 * words, "CPU 1" kept on one line) and as one JSON object.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "engine/diagnose/diagnose_int.h"
#include "lib/json.h"
#include "lib/units.h"

/* Where an item's normal bound comes from, in the JSON. */
static const char *const diag_ref_names[] = {
	[DIAG_REF_EXPECTED]	= "expected",
	[DIAG_REF_BASELINE]	= "baseline",
	[DIAG_REF_FLOOR]	= "floor",
};
/* diag_spaces - @s with its DIAG_NBSP as spaces */
static char *diag_spaces(char *s)
{
	char *p;

	for (p = s; (p = strchr(p, DIAG_NBSP)); p++)
		*p = ' ';
	return s;
}

/*
 * diag_glued - whether a line must not break after word @w of length @n
 * when a number follows: "CPU 1", "(pid 108)", "irq 45"
 */
static bool diag_glued(const char *w, size_t n, const char *next)
{
	static const char *const heads[] = {
		"CPU", "CPUs", "pid", "(pid", "thread", "(thread", "irq",
	};
	size_t i;

	if (!isdigit((unsigned char)*next))
		return false;
	for (i = 0; i < ARRAY_SIZE(heads); i++)
		if (strlen(heads[i]) == n && !strncmp(w, heads[i], n))
			return true;
	return false;
}

/* diag_wrap_words - see diagnose_int.h */
void diag_wrap_words(FILE *f, const char *first, size_t indent,
		     const char *text)
{
	char word[DIAG_TEXT_LEN];
	struct wrap w;
	const char *p = text;
	bool any = false;

	wrap_begin(&w, f, first, indent);
	while (*p) {
		size_t n = strcspn(p, " "), last = 0;

		/* "CPU 1" and the like stay on one line */
		while (p[n] == ' ' && p[n + 1] != ' ' &&
		       diag_glued(p + last, n - last, p + n + 1)) {
			last = n + 1;
			n = last + strcspn(p + last, " ");
		}
		if (n) {
			if (n >= sizeof(word))
				n = sizeof(word) - 1;
			memcpy(word, p, n);
			word[n] = '\0';
			diag_spaces(word);
			wrap_add(&w, any || first[0] ? " " : "", word);
			any = true;
		}
		p += n;
		while (*p == ' ')
			p++;
	}
	wrap_end(&w);
}

/* diag_ref_text - where @it's bound comes from, in parentheses */
static const char *diag_ref_text(char *buf, size_t len,
				 const struct diag_item *it)
{
	char b[UNITS_LEN];

	if (it->ref_from == DIAG_REF_EXPECTED)
		snprintf(buf, len, "(expected p99)");
	else if (it->ref_from == DIAG_REF_BASELINE)
		snprintf(buf, len, "(%dx the p99 before the watch)",
			 DIAG_BASELINE_MULT);
	else
		snprintf(buf, len, "(floor; p99 before the watch %s)",
			 units_ns(b, sizeof(b), it->base_p99));
	return buf;
}

/* diag_print_item - "sched.wakeup CPU 1: 150 samples, p50 ..." wrapped */
static void diag_print_item(FILE *f, const struct diag_item *it)
{
	char head[192], tok[96], a[UNITS_LEN];
	struct wrap w;

	snprintf(head, sizeof(head), "  %s%s%s:", it->name,
		 it->where[0] ? " " : "", it->where);
	wrap_begin(&w, f, head, 6);
	snprintf(tok, sizeof(tok), "%llu samples,",
		 (unsigned long long)it->count);
	wrap_add(&w, " ", tok);
	snprintf(tok, sizeof(tok), "p50 %s,", units_ns(a, sizeof(a), it->p50));
	wrap_add(&w, " ", tok);
	snprintf(tok, sizeof(tok), "p99 %s,", units_ns(a, sizeof(a), it->p99));
	wrap_add(&w, " ", tok);
	snprintf(tok, sizeof(tok), "p99.9 %s,",
		 units_ns(a, sizeof(a), it->p999));
	wrap_add(&w, " ", tok);
	snprintf(tok, sizeof(tok), "max %s%s;", it->max_exact ? "" : "<=",
		 units_ns(a, sizeof(a), it->max));
	wrap_add(&w, " ", tok);
	snprintf(tok, sizeof(tok), "%.0f over %s", it->over,
		 units_ns(a, sizeof(a), it->ref));
	wrap_add(&w, " ", tok);
	wrap_add(&w, " ", diag_ref_text(tok, sizeof(tok), it));
	if (it->threshold) {
		snprintf(tok, sizeof(tok), "%.0f over the threshold %s",
			 it->over_threshold,
			 units_ns(a, sizeof(a), it->threshold));
		wrap_add(&w, ", ", tok);
	}
	wrap_end(&w);
}

/* diag_print_culprits - "  CPU held by: xmrig pid 201 ..." wrapped */
static void diag_print_culprits(FILE *f, const struct diag_layer_res *L)
{
	char tok[192], doing[128], comm[GPULAT_COMM_LEN], who[32];
	struct wrap w;
	size_t k;

	if (!L->nr_culprits)
		return;
	wrap_begin(&w, f, L->culprits[0].from_trace ? "  CPU held by:" :
			  "  CPU used by:", 4);
	for (k = 0; k < L->nr_culprits; k++) {
		const struct diag_culprit *c = &L->culprits[k];

		units_printable(comm, sizeof(comm),
				c->nr_procs && !c->comm[0] ? "unnamed" : c->comm);
		if (c->nr_procs)
			snprintf(who, sizeof(who), "%u processes named", c->nr_procs);
		else
			snprintf(who, sizeof(who), "pid %d",
				 c->tgid > 0 ? c->tgid : c->pid);
		snprintf(tok, sizeof(tok), c->nr_procs ? "%2$s %1$s %3$s%4$s%5$s" :
			 "%s %s %s%s%s", comm, who,
			 diag_culprit_doing(doing, sizeof(doing), c),
			 c->miner ? " (cryptominer name)" : "",
			 k + 1 < L->nr_culprits ? ";" : "");
		wrap_add(&w, " ", tok);
	}
	wrap_end(&w);
}

static void diag_print_affected(FILE *f, const struct diag_layer_res *L)
{
	char tok[128], comm[GPULAT_COMM_LEN], t[UNITS_LEN];
	struct wrap w;
	size_t k;

	if (!L->nr_affected)
		return;
	wrap_begin(&w, f, "  outliers happened to:", 4);
	for (k = 0; k < L->nr_affected; k++) {
		const struct diag_proc *p = &L->affected[k];

		units_printable(comm, sizeof(comm), p->comm);
		snprintf(tok, sizeof(tok), "%s pid %d (%llu outliers, %s)%s",
			 comm, p->pid, (unsigned long long)p->count,
			 units_ns(t, sizeof(t), p->ns),
			 k + 1 < L->nr_affected ? ";" : "");
		wrap_add(&w, " ", tok);
	}
	wrap_end(&w);
}

/* diag_print_io - "  I/O by: dataload pid 301 (812.4 MiB, 97% of all)" */
static void diag_print_io(FILE *f, const struct diag_layer_res *L)
{
	char tok[128], comm[GPULAT_COMM_LEN];
	struct wrap w;
	size_t k;

	if (!L->nr_io)
		return;
	wrap_begin(&w, f, "  I/O by:", 4);
	for (k = 0; k < L->nr_io; k++) {
		const struct diag_io_user *u = &L->io[k];

		units_printable(comm, sizeof(comm), u->comm);
		snprintf(tok, sizeof(tok), "%s pid %d (%.1f MiB, %.0f%% of all)%s",
			 comm, u->pid, u->bytes / 1048576.0, 100 * u->share,
			 k + 1 < L->nr_io ? ";" : "");
		wrap_add(&w, " ", tok);
	}
	wrap_end(&w);
}

static void diag_print_xids(FILE *f, const struct diag_result *r,
			    const struct diag_layer_res *L)
{
	char line[DIAG_TEXT_LEN], dev[32];
	size_t k;

	(void)r;
	for (k = 0; k < L->nr_xids; k++) {
		const struct diag_xid_seen *x = &L->xids[k];

		units_printable(dev, sizeof(dev), x->device);
		snprintf(line, sizeof(line), "Xid %u on %s: %s%s%s", x->code,
			 dev[0] ? dev : "?", diag_xid_meaning(x->code, NULL),
			 x->in_window ? "" : " (before the watch)",
			 x->from == DIAG_XID_FROM_NVML ? " (from NVML)" : "");
		diag_wrap_words(f, " ", 4, line);
	}
}

/* "the scheduler's waits": what a cause caused */
static const char *const diag_effect_what[DIAG_NR_LAYERS] = {
	[DIAG_SCHED]	= "its tasks held the CPU in %.0f%% of %s waits' outlier time, %s the most",
	[DIAG_STORAGE]	= "its tasks issued %.0f%% of %s requests' outlier time, %s the most",
};

/* diag_print_cause - a cause says what it caused; an effect, of what */
static void diag_print_cause(FILE *f, const struct diag_result *r,
			     enum diag_layer l)
{
	const struct diag_layer_res *L = &r->layer[l];
	char line[2 * DIAG_TEXT_LEN], what[DIAG_TEXT_LEN];
	int e;

	for (e = 0; e < DIAG_NR_LAYERS; e++) {
		const struct diag_layer_res *E = &r->layer[e];

		if (!(L->caused & (1u << e)) || !diag_effect_what[e])
			continue;
		snprintf(what, sizeof(what), diag_effect_what[e],
			 100 * E->effect_share, "their", E->effect_who);
		snprintf(line, sizeof(line), "the cause of the %s's waits too: %s",
			 diag_names[e], what);
		diag_wrap_words(f, " ", 4, line);
	}
	if (L->effect_of < DIAG_NR_LAYERS && diag_effect_what[l]) {
		snprintf(what, sizeof(what), diag_effect_what[l],
			 100 * L->effect_share, "these", L->effect_who);
		snprintf(line, sizeof(line), "an effect of the %s (#%u): %s",
			 diag_names[L->effect_of],
			 r->layer[L->effect_of].rank, what);
		diag_wrap_words(f, " ", 4, line);
	}
}

static void diag_print_layer(FILE *f, const struct diag_result *r,
			     enum diag_layer l)
{
	const struct diag_layer_res *L = &r->layer[l];
	char head[160], score[32];
	size_t k;

	if (!L->measured) {
		snprintf(head, sizeof(head), "#%u %s: not measured (%s)",
			 L->rank, diag_titles[l], L->why_not);
		diag_wrap_words(f, "", 4, head);
		return;
	}
	snprintf(head, sizeof(head), "#%u %s: %s", L->rank, diag_titles[l],
		 L->abnormal ? "ABNORMAL" : "normal");
	diag_wrap_words(f, "", 4, head);
	if (!L->abnormal) {
		/* why, in one line; the numbers are in the JSON */
		diag_wrap_words(f, " ", 4, L->why_normal);
		diag_print_xids(f, r, L);
		for (k = 0; k < L->nr_notes; k++)
			diag_wrap_words(f, "  note:", 4, L->notes[k]);
		return;
	}
	snprintf(head, sizeof(head),
		 "%s waited beyond normal per second; %llu samples, %.0f over their bound",
		 diag_score_text(score, sizeof(score), L->score),
		 (unsigned long long)L->samples, L->over);
	diag_wrap_words(f, " ", 4, head);
	diag_print_cause(f, r, l);
	diag_print_xids(f, r, L);
	for (k = 0; k < L->nr_top; k++) {
		const struct diag_item *it = &r->items[L->top[k]];

		/* past the first, only items that add to the verdict */
		if (k && diag_weighted(it) <= 0.01 * L->excess)
			break;
		diag_print_item(f, it);
	}
	if (!L->samples)
		fprintf(f, "  no samples\n");
	diag_print_culprits(f, L);
	diag_print_affected(f, L);
	diag_print_io(f, L);
	diag_cg_print(f, r, l);
	for (k = 0; k < L->nr_notes; k++)
		diag_wrap_words(f, "  note:", 4, L->notes[k]);
	fprintf(f, "  next:\n");
	for (k = 0; k < L->nr_advice; k++)
		diag_wrap_words(f, "  -", 4, L->advice[k]);
}

/* diag_print_text - see diagnose.h */
void diag_print_text(FILE *f, const struct diag_result *r)
{
	char d[UNITS_LEN], score[32], line[DIAG_TEXT_LEN];
	const struct diag_layer_res *top = &r->layer[r->rank[0]];
	unsigned int i;

	snprintf(line, sizeof(line),
		 "gpulat diagnose: %s watched%s%s%s; outlier trace %s%s",
		 units_ns(d, sizeof(d), (uint64_t)(r->duration_s * 1e9)),
		 r->interrupted ? " (interrupted)" : "",
		 r->kernel[0] ? " on " : "", r->kernel,
		 r->trace_ok ? "on" : "not available",
		 r->trace_ok || !r->has_tasks ? "" :
		 " (CPU users from /proc instead)");
	diag_wrap_words(f, "", 4, line);
	if (r->source_detail[0])
		fprintf(f, "  source: %s\n", r->source_detail);
	if (r->trace_lost)
		fprintf(f, "  note: %llu trace records lost\n",
			(unsigned long long)r->trace_lost);
	fputc('\n', f);
	if (top->abnormal) {
		if (top->xids_in_window)
			snprintf(line, sizeof(line),
				 "Verdict: most likely cause: the %s (Xid events during the watch).",
				 diag_titles[r->rank[0]]);
		else
			snprintf(line, sizeof(line),
				 "Verdict: most likely cause: the %s; %s of waits beyond normal per second watched%s.",
				 diag_titles[r->rank[0]],
				 diag_score_text(score, sizeof(score),
						 top->score),
				 top->caused ?
				 ", and the cause of waits elsewhere (below)" :
				 "");
		diag_wrap_words(f, "", 2, line);
	} else if (r->gpu && r->gpu->nr_causes) {
		snprintf(line, sizeof(line),
			 "Verdict: no host layer is abnormal (none waited beyond normal by %.0f ms per second watched), but the GPU side has %zu cause%s of its own: below.",
			 DIAG_BAR_NS_PER_S / 1e6, r->gpu->nr_causes,
			 r->gpu->nr_causes == 1 ? "" : "s");
		diag_wrap_words(f, "", 2, line);
	} else {
		snprintf(line, sizeof(line),
			 "Verdict: nothing abnormal. No layer's waits went beyond normal by %.0f ms per second watched.",
			 DIAG_BAR_NS_PER_S / 1e6);
		diag_wrap_words(f, "", 2, line);
		diag_wrap_words(f, " ", 2,
				"If the spikes come and go, run gpulat diagnose while they happen (-d 60), or record them for later with gpulat report.");
	}
	/* the operators' first question is the GPU's: its answer first */
	diag_gpu_print(f, r);
	diag_jobs_print(f, r);
	for (i = 0; i < DIAG_NR_LAYERS; i++) {
		fputc('\n', f);
		diag_print_layer(f, r, r->rank[i]);
	}
}

/* --- JSON ------------------------------------------------------------- */

static const char *const diag_xid_class_names[DIAG_XID_NR_CLASSES] = {
	[DIAG_XID_OTHER]	= "other",
	[DIAG_XID_STALL]	= "stall",
	[DIAG_XID_RESET]	= "reset",
	[DIAG_XID_PROCESS]	= "process",
};

static void diag_json_item(struct json *j, const struct diag_item *it)
{
	json_object_begin(j, NULL);
	json_str(j, "series", it->name);
	if (it->cpu == GPULAT_CPU_NONE)
		json_null(j, "cpu");
	else
		json_u64(j, "cpu", it->cpu);
	if (it->family == GPULAT_FAM_SCHED || it->family == GPULAT_FAM_MM) {
		json_null(j, "key");
		json_null(j, "key_name");
	} else {
		json_u64(j, "key", it->key);
		json_str(j, "key_name", it->key_name);
	}
	json_str(j, "where", it->where);
	json_u64(j, "count", it->count);
	json_u64(j, "p50_ns", it->p50);
	json_u64(j, "p99_ns", it->p99);
	json_u64(j, "p999_ns", it->p999);
	json_u64(j, "max_ns", it->max);
	json_bool(j, "max_exact", it->max_exact);
	json_u64(j, "normal_ns", it->ref);
	json_str(j, "normal_from", diag_ref_names[it->ref_from]);
	json_u64(j, "expected_p99_ns", it->expect);
	json_u64(j, "baseline_count", it->base_count);
	json_u64(j, "baseline_p99_ns", it->base_p99);
	json_u64(j, "over", (uint64_t)(it->over + 0.5));
	if (it->threshold) {
		json_u64(j, "threshold_ns", it->threshold);
		json_u64(j, "over_threshold",
			 (uint64_t)(it->over_threshold + 0.5));
	} else {
		json_null(j, "threshold_ns");
		json_null(j, "over_threshold");
	}
	json_u64(j, "excess_ns", (uint64_t)(it->excess + 0.5));
	json_u64(j, "weight_pct", it->weight);
	json_object_end(j);
}

/* diag_json_cpus - the array @name of the CPUs in @cpus (NULL: empty) */
static void diag_json_cpus(struct json *j, const char *name,
			   const struct cpuset *cpus)
{
	uint32_t c;

	json_array_begin(j, name);
	for (c = cpus ? cpuset_next(cpus, 0) : CPUSET_MAX_CPUS;
	     c < CPUSET_MAX_CPUS; c = cpuset_next(cpus, c + 1))
		json_u64(j, NULL, c);
	json_array_end(j);
}

static void diag_json_layer(struct json *j, const struct diag_result *r,
			    enum diag_layer l)
{
	const struct diag_layer_res *L = &r->layer[l];
	size_t k;

	json_object_begin(j, NULL);
	json_str(j, "layer", diag_names[l]);
	json_str(j, "title", diag_titles[l]);
	json_u64(j, "rank", L->rank);
	json_bool(j, "measured", L->measured);
	if (L->measured)
		json_null(j, "not_measured_because");
	else
		json_str(j, "not_measured_because", L->why_not);
	json_bool(j, "abnormal", L->abnormal);
	json_double(j, "score_ms_per_s", L->score / 1e6);
	json_u64(j, "samples", L->samples);
	json_u64(j, "over", (uint64_t)(L->over + 0.5));
	json_u64(j, "excess_ns", (uint64_t)(L->excess + 0.5));
	json_u64(j, "drops", L->drops);
	if (L->effect_of < DIAG_NR_LAYERS) {
		json_str(j, "effect_of", diag_names[L->effect_of]);
		json_double(j, "effect_share", L->effect_share);
		json_str(j, "effect_who", L->effect_who);
	} else {
		json_null(j, "effect_of");
	}
	json_array_begin(j, "caused");
	for (k = 0; k < DIAG_NR_LAYERS; k++)
		if (L->caused & (1u << k))
			json_str(j, NULL, diag_names[k]);
	json_array_end(j);
	if (L->why_normal[0]) {
		char why[DIAG_TEXT_LEN];

		memcpy(why, L->why_normal, sizeof(why));
		json_str(j, "why_normal", diag_spaces(why));
	} else
		json_null(j, "why_normal");
	json_array_begin(j, "evidence");
	for (k = 0; k < L->nr_top; k++)
		diag_json_item(j, &r->items[L->top[k]]);
	json_array_end(j);
	json_array_begin(j, "culprits");
	for (k = 0; k < L->nr_culprits; k++) {
		const struct diag_culprit *c = &L->culprits[k];

		json_object_begin(j, NULL);
		json_str(j, "comm", c->comm);
		json_u64(j, "pid", c->pid > 0 ? (uint64_t)c->pid : 0);
		if (c->tgid > 0)
			json_u64(j, "tgid", c->tgid);
		else
			json_null(j, "tgid");
		json_str(j, "source", c->from_trace ? "trace" : "cpu-time");
		json_u64(j, "ns", c->ns);
		json_double(j, "share", c->share);
		if (c->cpu_share > 0)
			json_double(j, "cpu_share", c->cpu_share);
		else
			json_null(j, "cpu_share");
		diag_json_cpus(j, "cpus", &c->cpus);
		json_bool(j, "miner", c->miner);
		json_u64(j, "processes", c->nr_procs ? c->nr_procs : 1);
		json_object_end(j);
	}
	json_array_end(j);
	json_array_begin(j, "affected");
	for (k = 0; k < L->nr_affected; k++) {
		const struct diag_proc *p = &L->affected[k];

		json_object_begin(j, NULL);
		json_str(j, "comm", p->comm);
		json_u64(j, "pid", p->pid > 0 ? (uint64_t)p->pid : 0);
		json_u64(j, "outliers", p->count);
		json_u64(j, "ns", p->ns);
		json_object_end(j);
	}
	json_array_end(j);
	json_array_begin(j, "io_users");
	for (k = 0; k < L->nr_io; k++) {
		json_object_begin(j, NULL);
		json_str(j, "comm", L->io[k].comm);
		json_u64(j, "pid", L->io[k].pid > 0 ? (uint64_t)L->io[k].pid : 0);
		json_u64(j, "bytes", L->io[k].bytes);
		json_double(j, "share", L->io[k].share);
		json_object_end(j);
	}
	json_array_end(j);
	json_array_begin(j, "xids");
	for (k = 0; k < L->nr_xids; k++) {
		const struct diag_xid_seen *x = &L->xids[k];
		enum diag_xid_class cls;

		json_object_begin(j, NULL);
		json_u64(j, "code", x->code);
		json_str(j, "device", x->device);
		json_u64(j, "time_ns", x->time_ns);
		json_bool(j, "in_window", x->in_window);
		json_str(j, "meaning", diag_xid_meaning(x->code, &cls));
		json_str(j, "class", diag_xid_class_names[cls]);
		json_str(j, "seen_by",
			 x->from == (DIAG_XID_FROM_KERNEL | DIAG_XID_FROM_NVML) ?
			 "both" : x->from & DIAG_XID_FROM_NVML ? "nvml" :
			 "tracepoint");
		json_object_end(j);
	}
	json_array_end(j);
	diag_cg_json(j, r, l);
	json_array_begin(j, "notes");
	for (k = 0; k < L->nr_notes; k++)
		json_str(j, NULL, L->notes[k]);
	json_array_end(j);
	json_array_begin(j, "advice");
	for (k = 0; L->abnormal && k < L->nr_advice; k++)
		json_str(j, NULL, L->advice[k]);
	json_array_end(j);
	json_object_end(j);
}

/* diag_print_json - see diagnose.h: one object on one line */
void diag_print_json(FILE *f, const struct diag_result *r)
{
	struct json j;
	unsigned int i;
	bool sched;

	json_begin(&j, f);
	json_object_begin(&j, NULL);
	json_double(&j, "duration_s", r->duration_s);
	if (r->kernel[0])
		json_str(&j, "kernel", r->kernel);
	else
		json_null(&j, "kernel");
	if (r->source[0]) {
		json_str(&j, "source", r->source);
		json_str(&j, "source_detail", r->source_detail);
	} else {
		json_null(&j, "source");
	}
	json_bool(&j, "interrupted", r->interrupted);
	json_bool(&j, "trace", r->trace_ok);
	json_u64(&j, "trace_records", r->nr_trace);
	json_u64(&j, "trace_lost", r->trace_lost);
	json_bool(&j, "cpu_time", r->has_tasks);
	json_double(&j, "bar_ms_per_s", DIAG_BAR_NS_PER_S / 1e6);
	json_bool(&j, "abnormal", r->abnormal);
	if (r->abnormal)
		json_str(&j, "verdict", diag_names[r->rank[0]]);
	else
		json_null(&j, "verdict");
	/* only where the scheduler is abnormal: otherwise no contention */
	sched = r->layer[DIAG_SCHED].abnormal;
	json_bool(&j, "waits_alike", sched && r->alike);
	diag_json_cpus(&j, "contention_cpus",
		       sched && !r->alike ? &r->hot : NULL);
	json_array_begin(&j, "layers");
	for (i = 0; i < DIAG_NR_LAYERS; i++)
		diag_json_layer(&j, r, r->rank[i]);
	json_array_end(&j);
	diag_gpu_json(&j, r);
	diag_jobs_json(&j, r);
	json_object_end(&j);
	json_end(&j);
}
