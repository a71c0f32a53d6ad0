// SPDX-License-Identifier: GPL-2.0
/*
 * Small checks the stress scripts assert with (exit 0: yes).
 *
 *   stress_util version          GPULAT_IOC_VERSION: prints MAJOR.MINOR;
 *                                fails unless major is ours and size 16
 *   stress_util json [MIN]       stdin is gpulat's JSON lines: every line
 *                                one valid JSON object, its "abi" object
 *                                with "major" 1, and at least MIN
 *                                (default 1) entries in "series" arrays;
 *                                prints "objects N series M"
 *   stress_util snap             a snapshot through the library: prints
 *                                "series N counters N probes N cpus N"
 *   stress_util count NAME [CPU] sum of count of series NAME (all CPUs, or
 *                                CPU), printed
 *   stress_util state FAMILY     attached (some probe attached), disabled,
 *                                missing, failed or none
 *   stress_util threshold FAMILY the family's outlier threshold in ns
 *   stress_util family FAMILY on|off   switch it through the ioctl
 */
#include <ctype.h>

#include "lib/gpulat_user.h"
#include "stress.h"

static int open_dev(void)
{
	char err[256];
	int fd = gl_open(err, sizeof(err));

	if (fd < 0)
		fprintf(stderr, "stress_util: %s\n", err);
	return fd;
}

static int cmd_version(void)
{
	struct gpulat_version v = { .size = sizeof(v) };
	int fd = open(GPULAT_DEVICE_PATH, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, GPULAT_IOC_VERSION, &v)) {
		perror("version");
		return 1;
	}
	close(fd);
	printf("%u.%u\n", v.major, v.minor);
	return v.major == GPULAT_ABI_MAJOR && v.size == sizeof(v) ? 0 : 1;
}

/* --- A JSON syntax check (RFC 8259), with what the checks need noted --- */

struct json {
	const char *p, *end;
	int depth;
	long series;		/* elements of "series" arrays at depth 1 */
	bool abi_major_ok;
	char last_key[32];
	const char *why;
};

static void ws(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool value(struct json *j);

static bool string(struct json *j, char *out, size_t outlen)
{
	size_t n = 0;

	if (j->p >= j->end || *j->p != '"')
		return j->why = "string expected", false;
	for (j->p++; j->p < j->end; j->p++) {
		unsigned char c = *j->p;

		if (c == '"') {
			j->p++;
			if (out)
				out[n < outlen ? n : outlen - 1] = '\0';
			return true;
		}
		if (c < 0x20)
			return j->why = "control character in string", false;
		if (c == '\\') {
			if (++j->p >= j->end)
				break;
			c = *j->p;
			if (c == 'u') {
				for (int i = 0; i < 4; i++)
					if (++j->p >= j->end || !isxdigit((unsigned char)*j->p))
						return j->why = "bad \\u escape", false;
			} else if (!strchr("\"\\/bfnrt", c)) {
				return j->why = "bad escape", false;
			}
		}
		if (out && n + 1 < outlen)
			out[n++] = c;
	}
	return j->why = "unterminated string", false;
}

static bool number(struct json *j, long long *v)
{
	const char *s = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || !isdigit((unsigned char)*j->p))
		return j->why = "bad number", false;
	if (*j->p == '0')
		j->p++;
	else
		while (j->p < j->end && isdigit((unsigned char)*j->p))
			j->p++;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (j->p >= j->end || !isdigit((unsigned char)*j->p))
			return j->why = "bad fraction", false;
		while (j->p < j->end && isdigit((unsigned char)*j->p))
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || !isdigit((unsigned char)*j->p))
			return j->why = "bad exponent", false;
		while (j->p < j->end && isdigit((unsigned char)*j->p))
			j->p++;
	}
	if (v)
		*v = strtoll(s, NULL, 10);
	return true;
}

static bool word(struct json *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return j->why = "bad literal", false;
	j->p += n;
	return true;
}

static bool object(struct json *j)
{
	bool in_abi = j->depth == 1 && !strcmp(j->last_key, "abi");
	char key[32];

	j->p++;
	j->depth++;
	ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		ws(j);
		if (!string(j, key, sizeof(key)))
			return false;
		ws(j);
		if (j->p >= j->end || *j->p != ':')
			return j->why = "':' expected", false;
		j->p++;
		ws(j);
		if (in_abi && !strcmp(key, "major")) {
			long long v;

			if (!number(j, &v))
				return false;
			j->abi_major_ok = v == GPULAT_ABI_MAJOR;
		} else {
			snprintf(j->last_key, sizeof(j->last_key), "%s", key);
			if (!value(j))
				return false;
		}
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			j->depth--;
			return true;
		}
		return j->why = "',' or '}' expected", false;
	}
}

static bool array(struct json *j)
{
	bool series = j->depth == 1 && !strcmp(j->last_key, "series");

	j->p++;
	j->depth++;
	ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		ws(j);
		j->last_key[0] = '\0';
		if (!value(j))
			return false;
		if (series)
			j->series++;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			j->depth--;
			return true;
		}
		return j->why = "',' or ']' expected", false;
	}
}

static bool value(struct json *j)
{
	if (j->depth > 64)
		return j->why = "nested too deep", false;
	if (j->p >= j->end)
		return j->why = "value expected", false;
	switch (*j->p) {
	case '{': return object(j);
	case '[': return array(j);
	case '"': return string(j, NULL, 0);
	case 't': return word(j, "true");
	case 'f': return word(j, "false");
	case 'n': return word(j, "null");
	default: return number(j, NULL);
	}
}

static int cmd_json(long min)
{
	static char line[1 << 22];
	long objects = 0, series = 0, lineno = 0;

	while (fgets(line, sizeof(line), stdin)) {
		struct json j = { .p = line, .end = line + strlen(line) };

		lineno++;
		if (j.end > line && j.end[-1] != '\n' && !feof(stdin)) {
			printf("line %ld: longer than %zu bytes\n", lineno,
			       sizeof(line));
			return 1;
		}
		ws(&j);
		if (j.p == j.end)
			continue;
		if (*j.p != '{' || !object(&j)) {
			printf("line %ld: invalid JSON at byte %ld: %s\n", lineno,
			       (long)(j.p - line), j.why ? j.why : "object expected");
			return 1;
		}
		ws(&j);
		if (j.p != j.end) {
			printf("line %ld: bytes after the object\n", lineno);
			return 1;
		}
		if (!j.abi_major_ok) {
			printf("line %ld: no \"abi\":{\"major\":%d}\n", lineno,
			       GPULAT_ABI_MAJOR);
			return 1;
		}
		objects++;
		series += j.series;
	}
	printf("objects %ld series %ld\n", objects, series);
	return objects >= 1 && series >= min ? 0 : 1;
}

/* --- Snapshot checks ------------------------------------------------------ */

static struct gl_snapshot *take(void)
{
	char err[256];
	struct gl_snapshot *s;
	int fd = open_dev(), ret;

	if (fd < 0)
		return NULL;
	ret = gl_snapshot_take_err(fd, &s, err, sizeof(err));
	close(fd);
	if (ret) {
		fprintf(stderr, "stress_util: snapshot: %s\n", err);
		return NULL;
	}
	return s;
}

static int cmd_snap(void)
{
	struct gl_snapshot *s = take();

	if (!s)
		return 1;
	printf("series %zu counters %zu probes %zu cpus %u\n",
	       gl_snapshot_nr_series(s), gl_snapshot_nr_counters(s),
	       gl_snapshot_nr_probes(s), gl_snapshot_header(s)->nr_cpu_ids);
	gl_snapshot_free(s);
	return 0;
}

static int cmd_count(const char *name, const char *cpu)
{
	struct gl_snapshot *s = take();
	uint64_t sum = 0;
	size_t i;

	if (!s)
		return 1;
	for (i = 0; i < gl_snapshot_nr_series(s); i++) {
		const struct gpulat_series *sr = gl_snapshot_series(s, i);

		if (strncmp(sr->name, name, sizeof(sr->name)))
			continue;
		if (cpu && sr->cpu != strtoul(cpu, NULL, 0))
			continue;
		sum += sr->count;
	}
	gl_snapshot_free(s);
	printf("%" PRIu64 "\n", sum);
	return 0;
}

static int family_of(const char *name)
{
	int f = gl_family_lookup(name);

	if (f < 0)
		fprintf(stderr, "stress_util: no family %s\n", name);
	return f;
}

static int cmd_state(const char *name)
{
	int f = family_of(name), st = -1;
	struct gl_snapshot *s;
	size_t i;

	if (f < 0 || !(s = take()))
		return 1;
	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		const struct gpulat_probe *p = gl_snapshot_probe(s, i);

		if (p->family != (uint32_t)f)
			continue;
		/* attached wins over the others, failed over missing */
		if (p->state == GPULAT_PROBE_ATTACHED || st < 0 ||
		    (st != GPULAT_PROBE_ATTACHED && p->state == GPULAT_PROBE_FAILED))
			st = p->state;
	}
	gl_snapshot_free(s);
	puts(st < 0 ? "none" : gl_probe_state_name(st));
	return 0;
}

static int cmd_threshold(const char *name)
{
	int f = family_of(name), fd, ret;
	uint64_t ns = 0;

	if (f < 0 || (fd = open_dev()) < 0)
		return 1;
	ret = st_get_threshold(fd, f, &ns);
	close(fd);
	if (ret)
		return 1;
	printf("%" PRIu64 "\n", ns);
	return 0;
}

static int cmd_family(const char *name, const char *on)
{
	int f = family_of(name), fd, ret;

	if (f < 0 || (fd = open_dev()) < 0)
		return 1;
	ret = gl_family_switch(fd, f, !strcmp(on, "on"));
	close(fd);
	if (ret)
		fprintf(stderr, "stress_util: family %s %s: %s\n", name, on,
			strerror(-ret));
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	if (!strcmp(c, "version") && argc == 2)
		return cmd_version();
	if (!strcmp(c, "json") && argc <= 3)
		return cmd_json(argc == 3 ? atol(argv[2]) : 1);
	if (!strcmp(c, "snap") && argc == 2)
		return cmd_snap();
	if (!strcmp(c, "count") && (argc == 3 || argc == 4))
		return cmd_count(argv[2], argc == 4 ? argv[3] : NULL);
	if (!strcmp(c, "state") && argc == 3)
		return cmd_state(argv[2]);
	if (!strcmp(c, "threshold") && argc == 3)
		return cmd_threshold(argv[2]);
	if (!strcmp(c, "family") && argc == 4)
		return cmd_family(argv[2], argv[3]);
	fprintf(stderr,
		"usage: stress_util version | json [MIN] | snap | count NAME [CPU] |\n"
		"       state FAMILY | threshold FAMILY | family FAMILY on|off\n");
	return 2;
}
