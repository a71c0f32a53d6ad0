// SPDX-License-Identifier: GPL-2.0
/* The hist view as text: headings, bucket rows with bars, summaries, drops. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/view/view.h"
#include "gpulat_hist.h"
#include "lib/units.h"

/* Widest histogram bar, in characters. */
#define HIST_BAR_MAX	40
#define HIST_EMPTY_RUN	3	/* empty slots in a row that share a row */

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
