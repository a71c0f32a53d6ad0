// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat hist: latency histograms as text or JSON, totals since load or
 * reset, or the difference over each interval.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpulat.h"
#include "gpulat_hist.h"
#include "hist.h"
#include "json.h"
#include "units.h"

/* Quantiles every view shows, in parts per million, with their labels. */
static const struct {
	uint32_t ppm;
	const char *text, *json;
} hist_quantiles[] = {
	{ 500000, "p50", "p50_ns" },
	{ 900000, "p90", "p90_ns" },
	{ 990000, "p99", "p99_ns" },
	{ 999000, "p99.9", "p999_ns" },
};

#define HIST_NR_QUANTILES ARRAY_SIZE(hist_quantiles)

/* Widest histogram bar, in characters. */
#define HIST_BAR_MAX	40
#define HIST_EMPTY_RUN	3	/* empty slots in a row that share a row */

static volatile sig_atomic_t hist_stop;

/*
 * One histogram to show: the series [begin, end) that share (family, id),
 * and the key too with --per-key, of which those passing the FAMILY filter
 * are merged (over keys and CPUs, or for one CPU).
 */
struct hist_group {
	size_t begin, end;
	const struct gpulat_series *first;	/* first one that passes */
	size_t nr_series;	/* passing the filter */
	size_t nr_keys;		/* distinct keys among them */
	bool keyed;		/* they carry a key worth showing */
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

/* hist_visit_fn - one histogram of a walk; non-zero stops it */
typedef int (*hist_visit_fn)(void *arg, const struct hist_group *g,
			     uint32_t cpu, const struct gl_hist *h);

/*
 * hist_walk - each group of series @v selects in @s: its total (cpu
 * GPULAT_CPU_NONE; an empty one only with @empty_totals), then with
 * --per-cpu each CPU's histogram that has samples, through @fn.  @h is
 * the scratch histogram, @groups gets the number of groups.  Returns the
 * number of histograms visited, or what @fn returned to stop.
 */
static int hist_walk(const struct gl_snapshot *s, const struct view *v,
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

/*
 * hist_heading - "block.read.device  nullb0  (all CPUs)", "sched.wakeup
 * (CPU 3)", "irq.handler  (all CPUs, 4 keys)"; the key is clipped so that
 * the line stays below UNITS_COLS
 */
static void hist_heading(FILE *f, const struct hist_group *g, uint32_t cpu)
{
	char name[GPULAT_NAME_LEN], key[UNITS_COLS], where[48];
	size_t room;

	units_printable(name, sizeof(name), g->first->name);
	key[0] = '\0';
	if (g->nr_keys == 1 && g->keyed)
		hist_key_text(key, sizeof(key), g->first);
	if (cpu != GPULAT_CPU_NONE)
		snprintf(where, sizeof(where), "(CPU %u)", cpu);
	else if (g->nr_keys > 1)
		snprintf(where, sizeof(where), "(all CPUs, %zu keys)",
			 g->nr_keys);
	else
		snprintf(where, sizeof(where), "(all CPUs)");
	/* name < 32 and where < 48 columns: room stays positive */
	room = UNITS_COLS - 1 - strlen(name) - 2 - strlen(where) - 2;
	if (strlen(key) > room)
		key[room] = '\0';
	fprintf(f, "%s  %s%s%s\n", name, key, key[0] ? "  " : "", where);
}

/* hist_text_summary - "count N  p50 X ... max X", wrapped below 80 columns */
static void hist_text_summary(FILE *f, const struct gl_hist *h)
{
	char num[UNITS_LEN], tok[2 * UNITS_LEN];
	struct wrap w;
	size_t q;

	snprintf(tok, sizeof(tok), "count %s",
		 units_count(num, sizeof(num), gl_hist_total(h)));
	wrap_begin(&w, f, tok, 2);
	if (!gl_hist_total(h)) {
		wrap_end(&w);
		return;
	}
	for (q = 0; q < HIST_NR_QUANTILES; q++) {
		snprintf(tok, sizeof(tok), "%s %s", hist_quantiles[q].text,
			 units_ns(num, sizeof(num),
				  gl_hist_quantile(h, hist_quantiles[q].ppm)));
		wrap_add(&w, "  ", tok);
	}
	snprintf(tok, sizeof(tok), "max %s%s", h->max_exact ? "" : "<=",
		 units_ns(num, sizeof(num), h->max_ns));
	wrap_add(&w, "  ", tok);
	wrap_end(&w);
}

/*
 * hist_text_rows - one row per slot from the first to the last non-empty;
 * HIST_EMPTY_RUN or more empty slots in a row share one row
 */
static void hist_text_rows(FILE *f, const struct gl_hist *h)
{
	static const char stars[HIST_BAR_MAX + 1] =
		"****************************************";
	char lo[UNITS_LEN], hi[UNITS_LEN], num[UNITS_LEN];
	int first = -1, last = -1, cw, bar, n, i;
	uint64_t top = 0;

	for (i = 0; i < GPULAT_HIST_NR_BUCKETS; i++) {
		if (!h->slots[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (h->slots[i] > top)
			top = h->slots[i];
	}
	if (first < 0)
		return;
	cw = snprintf(num, sizeof(num), "%llu", (unsigned long long)top);
	if (cw < 5)
		cw = 5;
	/* "  %6s - %-6s : " is 20 columns, " |" and "|" 3 more */
	bar = UNITS_COLS - 1 - 20 - cw - 3;
	if (bar > HIST_BAR_MAX)
		bar = HIST_BAR_MAX;
	for (i = first; i <= last; i++) {
		int j = i;

		n = 0;
		if (h->slots[i]) {
			n = (unsigned __int128)h->slots[i] * bar / top;
			if (!n)
				n = 1;
		} else {
			/* a run of empty slots reads as one empty range */
			while (j + 1 < last && !h->slots[j + 1])
				j++;
			if (j - i < HIST_EMPTY_RUN - 1)
				j = i;
		}
		units_ns(lo, sizeof(lo), gpulat_hist_lower(i));
		if (j == GPULAT_HIST_OVERFLOW)
			snprintf(hi, sizeof(hi), "+inf");
		else
			units_ns(hi, sizeof(hi), gpulat_hist_upper(j));
		i = j;
		fprintf(f, "  %6s - %-6s : %*llu |%-*.*s|\n", lo, hi, cw,
			(unsigned long long)h->slots[i], bar, n, stars);
	}
}

/* hist_text_one - heading, summary and rows of one histogram */
static void hist_text_one(FILE *f, const struct hist_group *g,
			  uint32_t cpu, const struct gl_hist *h)
{
	hist_heading(f, g, cpu);
	hist_text_summary(f, h);
	hist_text_rows(f, h);
	fputc('\n', f);
}

static int hist_text_visit(void *f, const struct hist_group *g, uint32_t cpu,
			   const struct gl_hist *h)
{
	hist_text_one(f, g, cpu, h);
	return 0;
}

/* hist_text_drops - "drops: sched.no_start 3, ..." or "drops: none" */
static void hist_text_drops(FILE *f, const struct gl_snapshot *s,
			    const struct view *v)
{
	char name[GPULAT_NAME_LEN], tok[GPULAT_NAME_LEN + UNITS_LEN];
	const struct gpulat_counter *c;
	bool any = false;
	struct wrap w;
	size_t i;

	wrap_begin(&w, f, "drops:", 2);
	for (i = 0; i < gl_snapshot_nr_counters(s); i++) {
		c = gl_snapshot_counter(s, i);
		if (!c->value || !view_wants_family(v, c->family))
			continue;
		snprintf(tok, sizeof(tok), "%s %llu",
			 units_printable(name, sizeof(name), c->name),
			 (unsigned long long)c->value);
		wrap_add(&w, any ? ", " : " ", tok);
		any = true;
	}
	if (!any)
		wrap_add(&w, " ", "none");
	wrap_end(&w);
}

/* hist_text_header - what the numbers cover */
static void hist_text_header(FILE *f, const struct gl_snapshot *s,
			     const struct view *v)
{
	const struct gpulat_snap_header *h = gl_snapshot_header(s);
	char span[UNITS_LEN], clock[16];
	struct tm tm;
	time_t now;

	units_ns(span, sizeof(span),
		 h->time_ns > h->reset_time_ns ?
		 h->time_ns - h->reset_time_ns : 0);
	if (v->clock) {
		now = time(NULL);
		localtime_r(&now, &tm);
		strftime(clock, sizeof(clock), "%H:%M:%S  ", &tm);
		fputs(clock, f);
	}
	if (v->is_interval)
		fprintf(f, "interval %s", span);
	else
		fprintf(f, "totals since load or reset, %s", span);
	fprintf(f, "  (generation %u)\n\n", h->generation);
}

/* One row of the summary table. */
struct hist_row {
	char name[GPULAT_NAME_LEN];
	char where[UNITS_COLS + 16];	/* clipped when printed */
	char count[UNITS_LEN], p50[UNITS_LEN], p99[UNITS_LEN];
	char max[UNITS_LEN + 2];
};

struct hist_rows {
	struct hist_row *v;
	size_t n, cap;
};

/*
 * hist_row_add - the summary of @h: "sched.wakeup", "CPU 1" (or the key:
 * "nullb0", "NET_RX CPU 0"; "all CPUs" or "2 keys" when merged), count,
 * p50, p99, max; 0 or -ENOMEM
 */
static int hist_row_add(struct hist_rows *rows, const struct hist_group *g,
			uint32_t cpu, const struct gl_hist *h)
{
	char key[UNITS_COLS];
	struct hist_row *r;

	if (rows->n == rows->cap) {
		size_t cap = rows->cap ? 2 * rows->cap : 32;
		struct hist_row *v = realloc(rows->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rows->v = v;
		rows->cap = cap;
	}
	r = &rows->v[rows->n++];
	units_printable(r->name, sizeof(r->name), g->first->name);
	key[0] = '\0';
	if (g->nr_keys == 1 && g->keyed)
		hist_key_text(key, sizeof(key), g->first);
	else if (g->nr_keys > 1)
		snprintf(key, sizeof(key), "%zu keys", g->nr_keys);
	if (cpu != GPULAT_CPU_NONE)
		snprintf(r->where, sizeof(r->where), "%s%sCPU %u", key,
			 key[0] ? " " : "", cpu);
	else
		snprintf(r->where, sizeof(r->where), "%s",
			 key[0] ? key : "all CPUs");
	units_count(r->count, sizeof(r->count), gl_hist_total(h));
	units_ns(r->p50, sizeof(r->p50), gl_hist_quantile(h, 500000));
	units_ns(r->p99, sizeof(r->p99), gl_hist_quantile(h, 990000));
	snprintf(r->max, sizeof(r->max), "%s", h->max_exact ? "" : "<=");
	units_ns(r->max + strlen(r->max), sizeof(r->max) - strlen(r->max),
		 h->max_ns);
	return 0;
}

static int hist_row_visit(void *rows, const struct hist_group *g,
			  uint32_t cpu, const struct gl_hist *h)
{
	return hist_row_add(rows, g, cpu, h);
}

/* hist_width - the wider of @w and @s */
static int hist_width(int w, const char *s)
{
	return (int)strlen(s) > w ? (int)strlen(s) : w;
}

/*
 * hist_rows_print - the rows as a table, columns as wide as their widest
 * cell; the where column is clipped so that lines stay below UNITS_COLS
 */
static void hist_rows_print(FILE *f, const struct hist_rows *rows)
{
	int wn = 6, ww = 5, wc = 5, w50 = 3, w99 = 3, wm = 3, room;
	size_t i;

	for (i = 0; i < rows->n; i++) {
		const struct hist_row *r = &rows->v[i];

		wn = hist_width(wn, r->name);
		ww = hist_width(ww, r->where);
		wc = hist_width(wc, r->count);
		w50 = hist_width(w50, r->p50);
		w99 = hist_width(w99, r->p99);
		wm = hist_width(wm, r->max);
	}
	/* name < 32 and numbers < 24 each: room stays positive */
	room = UNITS_COLS - 1 - (wn + 2) - (2 + wc) - (2 + w50) - (2 + w99) -
	       (2 + wm);
	if (room < 5)
		room = 5;
	if (ww > room)
		ww = room;
	fprintf(f, "%-*s  %-*s  %*s  %*s  %*s  %*s\n", wn, "series", ww,
		"where", wc, "count", w50, "p50", w99, "p99", wm, "max");
	for (i = 0; i < rows->n; i++) {
		const struct hist_row *r = &rows->v[i];

		fprintf(f, "%-*s  %-*.*s  %*s  %*s  %*s  %*s\n", wn, r->name,
			ww, ww, r->where, wc, r->count, w50, r->p50, w99,
			r->p99, wm, r->max);
	}
}

/*
 * hist_print_summary - the text view with one line per histogram that has
 * samples (and with --per-cpu one per CPU that has some)
 */
static void hist_print_summary(FILE *f, const struct gl_snapshot *s,
			       const struct view *v, struct gl_hist *h)
{
	struct hist_rows rows = { 0 };
	size_t groups;
	int ret;

	hist_text_header(f, s, v);
	ret = hist_walk(s, v, h, false, hist_row_visit, &rows, &groups);
	if (ret < 0)
		fputs("gpulat: out of memory\n", f);
	else if (!groups)
		fputs("no series\n", f);
	else if (!rows.n)
		fprintf(f, "no samples: all %zu histograms are empty\n", groups);
	else
		hist_rows_print(f, &rows);
	fputc('\n', f);
	hist_text_drops(f, s, v);
	free(rows.v);
}

/*
 * hist_print_text - the text view of @s: every histogram with samples
 * (and with --per-cpu each CPU's that has some), or why there is none
 */
void hist_print_text(FILE *f, const struct gl_snapshot *s,
		     const struct view *v)
{
	struct gl_hist *h;
	size_t groups;
	int shown;

	h = malloc(sizeof(*h));
	if (!h)
		return;
	if (v->summary) {
		hist_print_summary(f, s, v, h);
		free(h);
		return;
	}
	hist_text_header(f, s, v);
	shown = hist_walk(s, v, h, false, hist_text_visit, f, &groups);
	if (!groups)
		fputs("no series\n\n", f);
	else if (!shown)
		fprintf(f, "no samples: all %zu histograms are empty\n\n",
			groups);
	hist_text_drops(f, s, v);
	free(h);
}

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
	json_str(&j, "source", "kmod");
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

/* hist_print - the view @o asks for */
static void hist_print(const struct gpulat_opts *o,
		       const struct gl_snapshot *s, const struct view *v)
{
	if (o->json)
		hist_print_json(stdout, s, v);
	else
		hist_print_text(stdout, s, v);
	fflush(stdout);
}

/* hist_on_signal - Ctrl-C ends interval mode after the current output */
static void hist_on_signal(int sig)
{
	(void)sig;
	hist_stop = 1;
}

/* hist_sleep_until - sleep to @deadline; false if interrupted to stop */
static bool hist_sleep_until(const struct timespec *deadline)
{
	int ret;

	do {
		ret = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
				      deadline, NULL);
		if (hist_stop)
			return false;
	} while (ret == EINTR);
	return true;
}

/* hist_loop - print the difference over each interval */
static int hist_loop(const struct gpulat_opts *o, int fd, struct view *v)
{
	struct gl_snapshot *prev = NULL, *cur = NULL, *d = NULL;
	struct sigaction sa = { .sa_handler = hist_on_signal };
	struct timespec deadline;
	uint64_t step = o->interval_s * 1e9;
	unsigned long n;
	char msg[256];
	int ret;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!step)
		step = 1;
	v->is_interval = true;
	v->interval_s = o->interval_s;
	ret = gl_snapshot_take_err(fd, &prev, msg, sizeof(msg));
	if (ret)
		goto fail;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (n = 0; !o->count || n < o->count; n++) {
		deadline.tv_sec += (deadline.tv_nsec + step) / 1000000000ULL;
		deadline.tv_nsec = (deadline.tv_nsec + step) % 1000000000ULL;
		if (!hist_sleep_until(&deadline))
			break;
		ret = gl_snapshot_take_err(fd, &cur, msg, sizeof(msg));
		if (ret)
			goto fail;
		ret = gl_snapshot_diff(prev, cur, &d);
		if (ret) {
			snprintf(msg, sizeof(msg), "%s", strerror(-ret));
			goto fail;
		}
		hist_print(o, d, v);
		gl_snapshot_free(d);
		d = NULL;
		gl_snapshot_free(prev);
		prev = cur;
		cur = NULL;
	}
	gl_snapshot_free(prev);
	return GPULAT_EXIT_OK;
fail:
	fprintf(stderr, "gpulat: %s\n", msg);
	gl_snapshot_free(prev);
	gl_snapshot_free(cur);
	return GPULAT_EXIT_ERROR;
}

/* hist_run - gpulat hist */
int hist_run(const struct gpulat_opts *o)
{
	struct view v = { .families = o->families, .per_cpu = o->per_cpu,
			  .per_key = o->per_key, .summary = o->summary };
	const struct gpulat_snap_header *h;
	struct gl_snapshot *s = NULL;
	char kernel[128], msg[256];
	int fd, ret;

	if (o->input) {
		ret = gpulat_load_input(o->input, o->from, &s, stderr);
		if (ret)
			return gpulat_input_exit(ret);
		if (o->from) {
			h = gl_snapshot_header(s);
			v.is_interval = true;
			v.interval_s = h->time_ns > h->reset_time_ns ?
				(h->time_ns - h->reset_time_ns) / 1e9 : 0;
		}
		hist_print(o, s, &v);
		gl_snapshot_free(s);
		return GPULAT_EXIT_OK;
	}
	fd = gpulat_device_open(&v.module_major, &v.module_minor, stderr);
	if (fd < 0)
		return gpulat_device_exit(fd);
	v.kernel = gpulat_kernel_release(kernel, sizeof(kernel));
	v.clock = true;
	if (o->has_interval) {
		ret = hist_loop(o, fd, &v);
		close(fd);
		return ret;
	}
	ret = gl_snapshot_take_err(fd, &s, msg, sizeof(msg));
	close(fd);
	if (ret) {
		fprintf(stderr, "gpulat: %s\n", msg);
		return GPULAT_EXIT_ERROR;
	}
	hist_print(o, s, &v);
	gl_snapshot_free(s);
	return GPULAT_EXIT_OK;
}

static const char usage_hist[] =
"usage: gpulat hist [FAMILY...] [-D] [-C] [-s | -j] [-i FILE [-f FILE]]\n"
"                   [INTERVAL [COUNT]]\n"
"\n"
"Print latency histograms: without INTERVAL the totals since the module\n"
"was loaded or reset; with INTERVAL (seconds, 0.1 to 86400) what\n"
"happened in each interval, COUNT times (default: until Ctrl-C).\n"
"FAMILY (sched, block, net, irq, softirq, nvidia, mm) limits the output\n"
"to those families; net also shows the NET_RX and NET_TX softirqs.\n"
"Histograms of one kind are merged over disks, devices, IRQs and CPUs\n"
"unless -D or -C split them.  Text skips empty histograms.\n"
"\n"
"options:\n"
"  -D, --per-key     one histogram per disk, device, IRQ handler, thread\n"
"  -C, --per-cpu     also one histogram per CPU (empty CPUs skipped)\n"
"  -s, --summary     one line per histogram: count, p50, p99, max\n"
"  -j, --json        JSON, one object per output (JSON lines)\n"
"  -i, --input FILE  read a saved snapshot instead of the device\n"
"  -f, --from FILE   with --input: show the difference from FILE\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat hist                # all histograms since load or reset\n"
"    gpulat hist sched          # only the sched family\n"
"    gpulat hist block -D       # one histogram per disk\n"
"    gpulat hist irq -D 1 5     # per IRQ handler, five 1 s intervals\n"
"    gpulat hist net            # net devices and the net softirqs\n"
"    gpulat hist 1              # every second, until Ctrl-C\n"
"    gpulat hist -C 0.5 4       # per CPU, four half-second intervals\n"
"    gpulat hist -C -s 2 1      # per CPU, one line each, one 2 s interval\n"
"    gpulat hist -j 10 1        # one 10 s interval as JSON\n"
"    gpulat hist -i b.bin -f a.bin  # what happened between two saves\n";

const struct gpulat_command cmd_hist = {
	.name = "hist",
	.summary = "latency histograms, totals or per interval",
	.usage = usage_hist,
	.optstring = "hjCDsi:f:",
	.args = GPULAT_ARGS_HIST,
	.run = hist_run,
};
