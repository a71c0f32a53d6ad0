// SPDX-License-Identifier: GPL-2.0
/*
 * gendoc BLOCK: print a table of the documentation made from the family
 * table (user/lib/family.c, which expands kmod/gpulat_series.h), so that
 * the docs say what the code declares.  scripts/gen-docs puts each block
 * between its markers; make gen-check fails when one is stale.
 *
 *   families     Documentation/index.rst: family, series, per
 *   families-md  README.md: the same, with each series' events
 *   families-man Documentation/gpulat.8: the same, in roff
 *   series       Documentation/histograms.rst: every series' start and
 *                end events, key, metric and rule
 *   rules        Documentation/runbook.rst: the judged series' expected
 *                p99, weight and layer
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/diagnose/diagnose.h"
#include "lib/family.h"

#define MAX_ROWS	64
#define MAX_CELLS	8
#define CELL		1024
#define RULE_LINE \
	"==================================================" \
	"=================================================="

struct table {
	unsigned int nr_rows, nr_cols;
	char cell[MAX_ROWS][MAX_CELLS][CELL];
};

/* A set of series rows: those equal in all but their fixed key merge. */
struct row {
	uint32_t family;
	const struct gl_series_info *s;
	char keys[CELL];	/* the fixed keys' names, ", " between */
};

static struct row rows[MAX_ROWS];
static unsigned int nr_rows;

static const char *const key_per[] = {
	[GL_KEY_NONE] = "CPU", [GL_KEY_DISK] = "disk",
	[GL_KEY_NETDEV] = "network device", [GL_KEY_IRQ] = "IRQ handler",
	[GL_KEY_PID] = "thread", [GL_KEY_VECTOR] = "CPU and vector",
	[GL_KEY_CGROUP] = "cgroup", [GL_KEY_PROCESS] = "process",
};

static void die(const char *what)
{
	fprintf(stderr, "gendoc: %s\n", what);
	exit(1);
}

/* fmt - print into a CELL-sized @dst; a cell never gets cut */
static void fmt(char *dst, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(dst, CELL, f, ap);
	va_end(ap);
	if (n < 0 || n >= CELL)
		die("a cell too long");
}

static void append(char *dst, const char *sep, const char *s)
{
	size_t len = strlen(dst);

	if (snprintf(dst + len, CELL - len, "%s%s", len ? sep : "", s) >=
	    (int)(CELL - len))
		die("a cell too long");
}

static bool same_rule(const struct gl_series_info *a,
		      const struct gl_series_info *b)
{
	return a->judged == b->judged && a->layer == b->layer &&
	       a->expect_p99_ns == b->expect_p99_ns && a->weight == b->weight;
}

static bool same_row(const struct gl_series_info *a,
		     const struct gl_series_info *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->what, b->what) &&
	       a->key == b->key && same_rule(a, b) &&
	       a->metric == b->metric &&
	       !strcmp(a->metric_labels, b->metric_labels);
}

/* Every series of the table, a softirq series once for all its vectors. */
static void collect(void)
{
	size_t i;

	for (i = 0; i < gl_family_count(); i++) {
		uint32_t fam = gl_family_at(i);
		const struct gl_family_info *f = gl_family(fam);
		uint32_t id, r;

		for (id = 0; id < f->nr_series; id++) {
			const struct gl_series_info *s = &f->series[id];
			const struct gl_vector_info *v = NULL;

			if (s->key == GL_KEY_VECTOR)
				v = gl_vector_info(id / 2);
			for (r = 0; r < nr_rows; r++)
				if (rows[r].family == fam &&
				    same_row(rows[r].s, s))
					break;
			if (r == nr_rows) {
				if (nr_rows == MAX_ROWS)
					die("too many series");
				rows[nr_rows].family = fam;
				rows[nr_rows++].s = s;
			}
			if (v)
				append(rows[r].keys, ", ", v->name);
		}
	}
}

/*
 * names: dotted series names.  When they are every combination of the
 * values at each position and there are four or more, one brace form:
 * block.{read,write}.{queue,device}; else the names, ", " between.
 */
static void names_cell(char *out, const char *const *names, unsigned int n,
		       const char *quote)
{
	char parts[MAX_ROWS][4][64];
	unsigned int depth = 0, i, j, k, product = 1;
	char form[CELL] = "";

	for (i = 0; i < n; i++) {
		char buf[256], *tok, *save;

		fmt(buf, "%s", names[i]);
		for (k = 0, tok = strtok_r(buf, ".", &save); tok && k < 4;
		     tok = strtok_r(NULL, ".", &save), k++)
			snprintf(parts[i][k], 64, "%s", tok);
		if (tok || (i && k != depth))
			depth = 0, i = n;	/* not one shape */
		else
			depth = k;
	}
	for (k = 0; depth && k < depth; k++) {
		char vals[CELL] = "";
		unsigned int nv = 0;

		for (i = 0; i < n; i++) {
			for (j = 0; j < i; j++)
				if (!strcmp(parts[j][k], parts[i][k]))
					break;
			if (j == i) {
				append(vals, ",", parts[i][k]);
				nv++;
			}
		}
		product *= nv;
		if (nv > 1) {
			char brace[CELL];

			fmt(brace, "{%s}", vals);
			append(form, ".", brace);
		} else {
			append(form, ".", vals);
		}
	}
	out[0] = '\0';
	if (depth && n >= 4 && product == n) {
		char q[CELL];

		fmt(q, "%s%s%s", quote, form, quote);
		append(out, "", q);
		return;
	}
	for (i = 0; i < n; i++) {
		char q[CELL];

		fmt(q, "%s%s%s", quote, names[i], quote);
		append(out, ", ", q);
	}
}

/* The distinct names of @fam's rows that @pick takes, as a names cell. */
static void family_names(char *out, uint32_t fam, const struct row *like,
			 bool (*pick)(const struct row *, const struct row *),
			 const char *quote)
{
	const char *names[MAX_ROWS];
	unsigned int n = 0, r, j;

	for (r = 0; r < nr_rows; r++) {
		if (rows[r].family != fam || (pick && !pick(&rows[r], like)))
			continue;
		for (j = 0; j < n; j++)
			if (!strcmp(names[j], rows[r].s->name))
				break;
		if (j == n)
			names[n++] = rows[r].s->name;
	}
	names_cell(out, names, n, quote);
}

static void family_per(char *out, uint32_t fam)
{
	bool seen[GL_KEY_PROCESS + 1] = { false };
	unsigned int r;

	out[0] = '\0';
	for (r = 0; r < nr_rows; r++) {
		enum gl_key_kind k = rows[r].s->key;

		if (rows[r].family == fam && !seen[k]) {
			seen[k] = true;
			append(out, ", ", key_per[k]);
		}
	}
}

static void put(struct table *t, unsigned int col, const char *f,
		const char *s)
{
	fmt(t->cell[t->nr_rows][col], f, s);
}

static void p99_text(char *out, uint64_t ns)
{
	if (ns >= 1000000 && !(ns % 1000000))
		fmt(out, "%" PRIu64 " ms", ns / 1000000);
	else
		fmt(out, "%" PRIu64 " us", ns / 1000);
}

/* An RST simple table: row 0 is the header. */
static void print_rst(const struct table *t)
{
	size_t w[MAX_CELLS] = { 0 };
	unsigned int r, c;

	for (r = 0; r < t->nr_rows; r++)
		for (c = 0; c < t->nr_cols; c++)
			if (strlen(t->cell[r][c]) > w[c])
				w[c] = strlen(t->cell[r][c]);
	for (r = 0; r <= t->nr_rows; r++) {
		if (r <= 1 || r == t->nr_rows) {
			for (c = 0; c < t->nr_cols; c++)
				printf("%s%.*s", c ? "  " : "", (int)w[c],
				       RULE_LINE);
			printf("\n");
		}
		if (r == t->nr_rows)
			break;
		for (c = 0; c < t->nr_cols; c++) {
			if (c == t->nr_cols - 1)
				printf("%s%s\n", c ? "  " : "", t->cell[r][c]);
			else
				printf("%s%-*s", c ? "  " : "", (int)w[c],
				       t->cell[r][c]);
		}
	}
}

static void print_md(const struct table *t)
{
	unsigned int r, c;

	for (r = 0; r < t->nr_rows; r++) {
		for (c = 0; c < t->nr_cols; c++)
			printf("| %s ", t->cell[r][c]);
		printf("|\n");
		if (!r) {
			for (c = 0; c < t->nr_cols; c++)
				printf("|---");
			printf("|\n");
		}
	}
}

static void header(struct table *t, const char *const *cols, unsigned int n)
{
	unsigned int c;

	t->nr_cols = n;
	for (c = 0; c < n; c++)
		put(t, c, "%s", cols[c]);
	t->nr_rows = 1;
}

static bool same_what(const struct row *a, const struct row *b)
{
	return !strcmp(a->s->what, b->s->what);
}

/*
 * first_like - whether row @r of its family is the first that @pick
 * groups with it (the row a group of rows is printed at)
 */
static bool first_like(unsigned int r,
		       bool (*pick)(const struct row *, const struct row *))
{
	unsigned int j;

	for (j = 0; j < r; j++)
		if (rows[j].family == rows[r].family &&
		    pick(&rows[j], &rows[r]))
			return false;
	return true;
}

static void families(struct table *t, bool md)
{
	static const char *const cols[] = { "family", "series", "per" };
	size_t i;

	header(t, cols, 3);
	for (i = 0; i < gl_family_count(); i++) {
		uint32_t fam = gl_family_at(i);
		char *series = t->cell[t->nr_rows][1];
		unsigned int r;

		put(t, 0, md ? "`%s`" : "``%s``", gl_family_name(fam));
		if (!md) {
			family_names(series, fam, NULL, NULL, "``");
		} else {
			/* each name with its events, once per what */
			for (r = 0; r < nr_rows; r++) {
				char names[CELL], cell[CELL];

				if (rows[r].family != fam ||
				    !first_like(r, same_what))
					continue;
				family_names(names, fam, &rows[r], same_what,
					     "`");
				fmt(cell, "%s (%s)", names,
					 rows[r].s->what);
				append(series, ", ", cell);
			}
		}
		family_per(t->cell[t->nr_rows][2], fam);
		t->nr_rows++;
	}
}

/* roff_put - @s with the characters roff reads as commands escaped */
static void roff_put(const char *s)
{
	for (; *s; s++) {
		if (*s == '-' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
}

/*
 * families_man - each family as a tagged paragraph: its series, those of
 * one start and end event together, with the events; what it is per
 */
static void families_man(void)
{
	char names[CELL], per[CELL];
	unsigned int r, n;
	size_t i;

	for (i = 0; i < gl_family_count(); i++) {
		uint32_t fam = gl_family_at(i);

		printf(".TP\n.B %s\n", gl_family_name(fam));
		for (n = 0, r = 0; r < nr_rows; r++) {
			if (rows[r].family != fam || !first_like(r, same_what))
				continue;
			family_names(names, fam, &rows[r], same_what, "");
			printf("%s.B ", n++ ? ",\n" : "");
			roff_put(names);
			printf("\n(");
			roff_put(rows[r].s->what);
			putchar(')');
		}
		family_per(per, fam);
		printf(";\nper ");
		roff_put(per);
		printf(".\n");
	}
}

static void series(struct table *t)
{
	static const char *const cols[] = {
		"series", "start -> end", "per", "metric", "judged as",
	};
	unsigned int r;

	header(t, cols, 5);
	for (r = 0; r < nr_rows; r++) {
		const struct gl_series_info *s = rows[r].s;
		const struct gl_metric_info *m = gl_metric_info(s->metric);
		char cell[CELL], p99[CELL];

		put(t, 0, "``%s``", s->name);
		put(t, 1, "%s", s->what);
		if (rows[r].keys[0])
			fmt(cell, "CPU, vector (%s)",
				 rows[r].keys);
		else
			fmt(cell, "%s", key_per[s->key]);
		put(t, 2, "%s", cell);
		if (s->metric_labels[0])
			fmt(cell, "``%s{%s}``", m->name, s->metric_labels);
		else
			fmt(cell, "``%s``", m->name);
		put(t, 3, "%s", cell);
		if (s->judged) {
			p99_text(p99, s->expect_p99_ns);
			fmt(cell, "%s, p99 %s, weight %u%%",
				 diag_layer_name((enum diag_layer)s->layer),
				 p99, s->weight);
		} else {
			fmt(cell, "not judged");
		}
		put(t, 4, "%s", cell);
		t->nr_rows++;
	}
}

static bool same_judged(const struct row *a, const struct row *b)
{
	return a->s->judged && same_rule(a->s, b->s) &&
	       !strcmp(a->keys, b->keys);
}

static void rules(struct table *t)
{
	static const char *const cols[] = {
		"expected p99", "weight", "layer", "series",
	};
	unsigned int r;

	header(t, cols, 4);
	for (r = 0; r < nr_rows; r++) {
		const struct gl_series_info *s = rows[r].s;
		char *names = t->cell[t->nr_rows][3];
		char cell[CELL];

		if (!s->judged || !first_like(r, same_judged))
			continue;
		p99_text(cell, s->expect_p99_ns);
		put(t, 0, "%s", cell);
		fmt(cell, "%u%%", s->weight);
		put(t, 1, "%s", cell);
		put(t, 2, "%s", diag_layer_name((enum diag_layer)s->layer));
		family_names(names, rows[r].family, &rows[r], same_judged,
			     "``");
		if (rows[r].keys[0]) {
			fmt(cell, " of %s", rows[r].keys);
			append(names, "", cell);
		}
		if (s->driver_key_prefix) {
			fmt(cell, " (the driver's where the handler is ``%s*``)",
				 s->driver_key_prefix);
			append(names, "", cell);
		}
		t->nr_rows++;
	}
}

int main(int argc, char **argv)
{
	static struct table t;

	if (argc != 2) {
		fprintf(stderr,
			"usage: gendoc families|families-md|families-man|series|rules\n");
		return 2;
	}
	collect();
	if (!strcmp(argv[1], "families"))
		families(&t, false), print_rst(&t);
	else if (!strcmp(argv[1], "families-md"))
		families(&t, true), print_md(&t);
	else if (!strcmp(argv[1], "families-man"))
		families_man();
	else if (!strcmp(argv[1], "series"))
		series(&t), print_rst(&t);
	else if (!strcmp(argv[1], "rules"))
		rules(&t), print_rst(&t);
	else
		die("no such block");
	return 0;
}
