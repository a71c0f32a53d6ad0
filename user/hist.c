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

/* hist_group_end - index after the series sharing (family, id, key) with @i */
size_t hist_group_end(const struct gl_snapshot *s, size_t i)
{
	const struct gpulat_series *a = gl_snapshot_series(s, i), *b;
	size_t j;

	for (j = i + 1; j < gl_snapshot_nr_series(s); j++) {
		b = gl_snapshot_series(s, j);
		if (b->family != a->family || b->id != a->id ||
		    b->key != a->key)
			break;
	}
	return j;
}

/* hist_group_merge - sum series [i, end) over CPUs into @h */
void hist_group_merge(const struct gl_snapshot *s, size_t i, size_t end,
		      struct gl_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->max_exact = true;
	for (; i < end; i++)
		gl_hist_add_series(h, gl_snapshot_series(s, i),
				   gl_snapshot_max_exact(s, i));
}

/* hist_single - @h from series @i alone */
static void hist_single(const struct gl_snapshot *s, size_t i,
			struct gl_hist *h)
{
	hist_group_merge(s, i, i + 1, h);
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

/* hist_heading - "sched.wakeup  (all CPUs)" for a series */
static void hist_heading(FILE *f, const struct gpulat_series *sr,
			 uint32_t cpu)
{
	char name[GPULAT_NAME_LEN], key[GPULAT_NAME_LEN];

	units_printable(name, sizeof(name), sr->name);
	units_printable(key, sizeof(key), sr->key_name);
	fprintf(f, "%s%s%s  ", name, key[0] ? " " : "", key);
	if (cpu == GPULAT_CPU_NONE)
		fputs("(all CPUs)\n", f);
	else
		fprintf(f, "(CPU %u)\n", cpu);
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
static void hist_text_one(FILE *f, const struct gpulat_series *sr,
			  uint32_t cpu, const struct gl_hist *h)
{
	hist_heading(f, sr, cpu);
	hist_text_summary(f, h);
	hist_text_rows(f, h);
	fputc('\n', f);
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

/* hist_print_text - the text view of @s */
void hist_print_text(FILE *f, const struct gl_snapshot *s,
		     const struct view *v)
{
	const struct gpulat_series *sr;
	size_t i, k, end, shown = 0;
	struct gl_hist *h;

	h = malloc(sizeof(*h));
	if (!h)
		return;
	hist_text_header(f, s, v);
	for (i = 0; i < gl_snapshot_nr_series(s); i = end) {
		end = hist_group_end(s, i);
		sr = gl_snapshot_series(s, i);
		if (!view_wants_family(v, sr->family))
			continue;
		hist_group_merge(s, i, end, h);
		hist_text_one(f, sr, GPULAT_CPU_NONE, h);
		shown++;
		for (k = i; v->per_cpu && k < end; k++) {
			sr = gl_snapshot_series(s, k);
			hist_single(s, k, h);
			if (sr->cpu == GPULAT_CPU_NONE || !gl_hist_total(h))
				continue;
			hist_text_one(f, sr, sr->cpu, h);
		}
	}
	if (!shown)
		fputs("no series\n\n", f);
	hist_text_drops(f, s, v);
	free(h);
}

/* hist_json_series - one element of "series" */
static void hist_json_series(struct json *j, const struct gpulat_series *sr,
			     uint32_t cpu, const struct gl_hist *h)
{
	char fam[24];
	uint32_t i;
	size_t q;
	bool keyed = sr->key || sr->key_name[0];

	json_object_begin(j, NULL);
	json_str(j, "family", view_family_name(sr->family, fam, sizeof(fam)));
	json_str(j, "name", sr->name);
	if (cpu == GPULAT_CPU_NONE)
		json_null(j, "cpu");
	else
		json_u64(j, "cpu", cpu);
	if (keyed)
		json_u64(j, "key", sr->key);
	else
		json_null(j, "key");
	json_str(j, "key_name", sr->key_name[0] ? sr->key_name : NULL);
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
	const struct gpulat_series *sr;
	size_t i, k, end;
	struct gl_hist *h;
	struct json j;

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
	for (i = 0; i < gl_snapshot_nr_series(s); i = end) {
		end = hist_group_end(s, i);
		sr = gl_snapshot_series(s, i);
		if (!view_wants_family(v, sr->family))
			continue;
		hist_group_merge(s, i, end, h);
		hist_json_series(&j, sr, GPULAT_CPU_NONE, h);
		for (k = i; v->per_cpu && k < end; k++) {
			sr = gl_snapshot_series(s, k);
			hist_single(s, k, h);
			if (sr->cpu == GPULAT_CPU_NONE || !gl_hist_total(h))
				continue;
			hist_json_series(&j, sr, sr->cpu, h);
		}
	}
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
	struct view v = { .families = o->families, .per_cpu = o->per_cpu };
	const struct gpulat_snap_header *h;
	struct gl_snapshot *s = NULL;
	char kernel[128], msg[256];
	int fd, ret;

	if (o->input) {
		ret = gpulat_load_input(o->input, o->from, &s, stderr);
		if (ret)
			return ret;
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
	fd = gpulat_open_device(&v.module_major, &v.module_minor, stderr);
	if (fd < 0)
		return -fd;
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
