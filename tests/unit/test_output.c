// SPDX-License-Identifier: GPL-2.0
/* Text and JSON views: units, escaping, line widths, JSON shape. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "blob.h"
#include "gpulat.h"
#include "gpulat_hist.h"
#include "json.h"
#include "units.h"

/* parse_blob - build @b and parse it; NULL on failure */
static struct gl_snapshot *parse_blob(const struct blob *b)
{
	struct gl_snapshot *s = NULL;
	char err[256];
	size_t len;
	void *buf;

	buf = blob_build(b, &len);
	if (gl_snapshot_parse(buf, len, &s, err, sizeof(err)))
		fprintf(stderr, "# parse: %s\n", err);
	free(buf);
	return s;
}

/* longest_line - columns of the longest line of @text */
static size_t longest_line(const char *text)
{
	size_t max = 0, n;
	const char *nl;

	while (*text) {
		nl = strchr(text, '\n');
		n = nl ? (size_t)(nl - text) : strlen(text);
		if (n > max)
			max = n;
		text += n + (nl ? 1 : 0);
	}
	return max;
}

/* has_line - whether @text holds the exact line @line */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
		p++;
	}
	return false;
}

enum { VIEW_HIST_TEXT, VIEW_HIST_JSON, VIEW_STATUS_TEXT, VIEW_STATUS_JSON };

/* render - a view of @s into a malloc'd string */
static char *render(const struct gl_snapshot *s, const struct view *v,
		    int which)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	switch (which) {
	case VIEW_HIST_TEXT:
		hist_print_text(f, s, v);
		break;
	case VIEW_HIST_JSON:
		hist_print_json(f, s, v);
		break;
	case VIEW_STATUS_TEXT:
		status_print_text(f, s, v);
		break;
	default:
		status_print_json(f, s, v);
	}
	fclose(f);
	return text;
}

/* check_json - run check_json.py on @text; its exit status */
static int check_json(const char *text, const char *kind, int want)
{
	char path[] = "/tmp/gpulat-json-XXXXXX", cmd[512], *py;
	int fd, ret;

	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -1;
	close(fd);
	py = getenv("GPULAT_PYTHON");
	snprintf(cmd, sizeof(cmd), "%s tests/unit/check_json.py %s %s %d",
		 py ? py : "python3", kind, path, want);
	ret = system(cmd);
	unlink(path);
	return WIFEXITED(ret) ? WEXITSTATUS(ret) : 128;
}

TEST(units_format)
{
	char b[UNITS_LEN];

	ASSERT_STREQ("0ns", units_ns(b, sizeof(b), 0));
	ASSERT_STREQ("999ns", units_ns(b, sizeof(b), 999));
	ASSERT_STREQ("1.00us", units_ns(b, sizeof(b), 1000));
	ASSERT_STREQ("1.54us", units_ns(b, sizeof(b), 1536));
	ASSERT_STREQ("12.3us", units_ns(b, sizeof(b), 12345));
	ASSERT_STREQ("999us", units_ns(b, sizeof(b), 999499));
	ASSERT_STREQ("1.00ms", units_ns(b, sizeof(b), 999500));
	ASSERT_STREQ("12.3ms", units_ns(b, sizeof(b), 12345678));
	ASSERT_STREQ("1.00s", units_ns(b, sizeof(b), 1000000000));
	ASSERT_STREQ("137s", units_ns(b, sizeof(b), 1ULL << 37));
	ASSERT_STREQ("1.84e+10s", units_ns(b, sizeof(b), UINT64_MAX));
	ASSERT_STREQ("1234567890", units_count(b, sizeof(b), 1234567890));
	ASSERT_STREQ("1.84e+19", units_count(b, sizeof(b), UINT64_MAX));
	ASSERT_STREQ("a?b?", units_printable(b, sizeof(b), "a\nb\xff"));
}

TEST(json_escaping)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct json j;

	json_begin(&j, f);
	json_object_begin(&j, NULL);
	json_str(&j, "s", "a\"b\\c\n\x01\xff");
	json_null(&j, "n");
	json_array_begin(&j, "a");
	json_u64(&j, NULL, 18446744073709551615ULL);
	json_double(&j, NULL, 0.25);
	json_bool(&j, NULL, false);
	json_array_end(&j);
	json_object_end(&j);
	json_end(&j);
	fclose(f);
	ASSERT_STREQ("{\"s\":\"a\\\"b\\\\c\\n\\u0001\\u00ff\",\"n\":null,"
		     "\"a\":[18446744073709551615,0.25,false]}\n", text);
	free(text);
}

FIXTURE(view) {
	struct blob b;
	struct gl_snapshot *s;
	struct view v;
};

FIXTURE_SETUP(view)
{
	blob_sched(&self->b, 4);
	self->s = parse_blob(&self->b);
	memset(&self->v, 0, sizeof(self->v));
	self->v.kernel = "6.1.0-test";
	ASSERT_NE(NULL, self->s);
}

FIXTURE_TEARDOWN(view)
{
	gl_snapshot_free(self->s);
	blob_release(&self->b);
}

TEST_F(view, hist_text)
{
	char *t = render(self->s, &self->v, VIEW_HIST_TEXT);

	ASSERT_NE(NULL, t);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "sched.wakeup  (all CPUs)"));
	ASSERT_TRUE(has_line(t, "sched.preempt  (all CPUs)"));
	ASSERT_EQ(NULL, strstr(t, "(CPU "));
	/* 400 samples near 3 us, 46 at 40 us: p50 in [3072, 3328) */
	ASSERT_TRUE(has_line(t, "count 446  p50 3.18us  p90 37.0us  p99 39.7us  p99.9 40.0us  max 40.0us"));
	ASSERT_TRUE(has_line(t, "  36.9us - 41.0us :    46 |******                                  |"));
	ASSERT_TRUE(has_line(t, "  3.07us - 3.33us :   300 |****************************************|"));
	ASSERT_TRUE(has_line(t, "  2.82us - 3.07us :   100 |*************                           |"));
	/* rows run from the first to the last non-empty slot; a run of
	 * empty slots shares one row that spans them */
	ASSERT_TRUE(has_line(t, "  3.33us - 36.9us :     0 |                                        |"));
	ASSERT_EQ(NULL, strstr(t, "  3.58us - 3.84us"));
	/* all at 1 ms in [983040, 1048576), interpolation capped at max */
	ASSERT_TRUE(has_line(t, "count 15  p50 992us  p90 999us  p99 1.00ms  p99.9 1.00ms  max 1.00ms"));
	ASSERT_TRUE(has_line(t, "   983us - 1.05ms :    15 |****************************************|"));
	ASSERT_TRUE(has_line(t, "drops: sched.evicted 1, sched.negative 2"));
	ASSERT_TRUE(has_line(t, "totals since load or reset, 9.00s  (generation 1)"));
	free(t);
}

TEST_F(view, hist_text_per_cpu_and_filter)
{
	char *t;

	self->v.per_cpu = true;
	t = render(self->s, &self->v, VIEW_HIST_TEXT);
	ASSERT_TRUE(has_line(t, "sched.wakeup  (CPU 3)"));
	ASSERT_TRUE(has_line(t, "count 113  p50 3.22us  p90 37.3us  p99 39.8us  p99.9 40.0us  max 40.0us"));
	ASSERT_TRUE(has_line(t, "sched.preempt  (CPU 0)"));
	/* CPU 1 has no preempt samples: skipped */
	ASSERT_FALSE(has_line(t, "sched.preempt  (CPU 1)"));
	ASSERT_LT(longest_line(t), 80);
	free(t);
	/* a family filter that matches nothing */
	self->v.families = 1ULL << 5;
	t = render(self->s, &self->v, VIEW_HIST_TEXT);
	ASSERT_TRUE(has_line(t, "no series"));
	ASSERT_TRUE(has_line(t, "drops: none"));
	free(t);
}

TEST_F(view, hist_json_shape)
{
	char *t = render(self->s, &self->v, VIEW_HIST_JSON);

	ASSERT_NE(NULL, strstr(t, "\"interval_s\":null"));
	ASSERT_NE(NULL, strstr(t, "\"drops\":{\"sched.no_start\":0,\"sched.evicted\":1,\"sched.negative\":2}"));
	ASSERT_EQ(0, check_json(t, "hist", 2));
	free(t);
	self->v.per_cpu = true;
	self->v.is_interval = true;
	self->v.interval_s = 0.5;
	t = render(self->s, &self->v, VIEW_HIST_JSON);
	ASSERT_NE(NULL, strstr(t, "\"interval_s\":0.5"));
	ASSERT_NE(NULL, strstr(t, "\"cpu\":3"));
	ASSERT_EQ(0, check_json(t, "hist", 9));
	/* the checker can fail: a wrong series count is caught */
	ASSERT_EQ(1, check_json(t, "hist", 8));
	free(t);
}

TEST_F(view, status_views)
{
	char *t = render(self->s, &self->v, VIEW_STATUS_TEXT);

	ASSERT_LT(longest_line(t), 80);
	ASSERT_TRUE(has_line(t, "abi:          module 1.0, tool 1.0"));
	ASSERT_TRUE(has_line(t, "kernel:       6.1.0-test"));
	ASSERT_TRUE(has_line(t, "family sched"));
	ASSERT_TRUE(has_line(t, "  tracepoint  sched_switch               attached  hits 123456"));
	ASSERT_TRUE(has_line(t, "  tracepoint  sched_wakeup_new           failed    hits 0  (EINVAL)"));
	ASSERT_TRUE(has_line(t, "  drops:      sched.no_start 0, sched.evicted 1, sched.negative 2"));
	free(t);
	t = render(self->s, &self->v, VIEW_STATUS_JSON);
	ASSERT_NE(NULL, strstr(t, "\"state\":\"failed\",\"error\":22"));
	ASSERT_EQ(0, check_json(t, "status", 1));
	free(t);
	t = render(NULL, &self->v, VIEW_STATUS_JSON);
	ASSERT_NE(NULL, strstr(t, "\"loaded\":false"));
	ASSERT_EQ(0, check_json(t, "status", 0));
	free(t);
}

/* A snapshot names the kernel it came from; that beats this host's uname. */
TEST(kernel_release_from_blob)
{
	struct gl_snapshot *s;
	struct blob b;
	struct view v;
	char *t;

	blob_sched(&b, 2);
	/* no terminating NUL: the parser must add one */
	memset(b.hdr.kernel_release, 'x', sizeof(b.hdr.kernel_release));
	memcpy(b.hdr.kernel_release, "6.12.0-guest", 12);
	s = parse_blob(&b);
	ASSERT_NE(NULL, s);
	memset(&v, 0, sizeof(v));
	v.kernel = "6.1.0-host";
	t = render(s, &v, VIEW_STATUS_TEXT);
	ASSERT_TRUE(has_line(t, "kernel:       6.12.0-guest"
			     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
	free(t);
	t = render(s, &v, VIEW_HIST_JSON);
	ASSERT_NE(NULL, strstr(t, "\"kernel\":\"6.12.0-guest"));
	free(t);
	gl_snapshot_free(s);
	blob_release(&b);
}

/* Names from the kernel are untrusted; huge numbers stay under 80 cols. */
TEST(hostile_series)
{
	struct gl_snapshot *s;
	struct view v = { 0 };
	struct blob b;
	size_t i;
	char *t;

	blob_init(&b);
	i = blob_add_series(&b, 9, 1, 0, 7, "x\"y\\z\n\x7f\xff 0123456789ab",
			    "k\x01\"0123456789012345678901234567");
	blob_series(&b, i)->buckets[0] = UINT64_MAX / 4;
	blob_series(&b, i)->buckets[100] = UINT64_MAX / 4;
	blob_series(&b, i)->buckets[GPULAT_HIST_OVERFLOW] = UINT64_MAX / 4;
	blob_series(&b, i)->max_ns = UINT64_MAX;
	blob_series(&b, i)->count = UINT64_MAX;
	blob_add_counter(&b, 9, 0, "d\"rop\n", UINT64_MAX);
	blob_add_probe(&b, 9, 77, 5000, "f\xfe", "t\"p", UINT64_MAX);
	s = parse_blob(&b);
	ASSERT_NE(NULL, s);
	v.per_cpu = true;
	t = render(s, &v, VIEW_HIST_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_NE(NULL, strstr(t, "x\"y\\z???"));
	free(t);
	t = render(s, &v, VIEW_STATUS_TEXT);
	ASSERT_LT(longest_line(t), 80);
	ASSERT_NE(NULL, strstr(t, "state 77"));
	free(t);
	t = render(s, &v, VIEW_HIST_JSON);
	ASSERT_EQ(0, check_json(t, "hist", 2));
	ASSERT_NE(NULL, strstr(t, "\"family\":\"family9\""));
	free(t);
	t = render(s, &v, VIEW_STATUS_JSON);
	ASSERT_EQ(0, check_json(t, "status", 1));
	free(t);
	gl_snapshot_free(s);
	blob_release(&b);
}

TEST_HARNESS_MAIN
