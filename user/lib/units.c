// SPDX-License-Identifier: GPL-2.0
/* Human units (3 significant digits) and line wrapping. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"

/* units_dec - decimal digits at *@p, saturating; false when there are none */
bool units_dec(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= end || !isdigit((unsigned char)*s))
		return false;
	for (; s < end && isdigit((unsigned char)*s); s++) {
		unsigned int d = *s - '0';

		x = x > (UINT64_MAX - d) / 10 ? UINT64_MAX : x * 10 + d;
	}
	*p = s;
	*v = x;
	return true;
}

/* units_ns - @ns as "512ns", "1.54us", "12.3ms", "137s" */
const char *units_ns(char *buf, size_t len, uint64_t ns)
{
	static const char *const unit[] = { "us", "ms", "s" };
	double v = ns;
	size_t u;

	if (ns < 1000) {
		snprintf(buf, len, "%uns", (unsigned int)ns);
		return buf;
	}
	for (u = 0; u < 3; u++) {
		v /= 1000.0;
		if (v < 999.5 || u == 2)
			break;
	}
	if (v < 9.995)
		snprintf(buf, len, "%.2f%s", v, unit[u]);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f%s", v, unit[u]);
	else if (v < 999.5)
		snprintf(buf, len, "%.0f%s", v, unit[u]);
	else
		snprintf(buf, len, "%.3gs", v);
	return buf;
}

/* units_count - @n in full up to 10 digits, else as "1.84e+19" */
const char *units_count(char *buf, size_t len, uint64_t n)
{
	if (n < 10000000000ULL)
		snprintf(buf, len, "%llu", (unsigned long long)n);
	else
		snprintf(buf, len, "%.3g", (double)n);
	return buf;
}

/*
 * units_parse_ns - a duration with its unit, "5ms", "250us", "1.5s",
 * "800ns", or a bare "0"; at most 1000 s.  0 or -EINVAL.
 */
int units_parse_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	const char *p = s;
	size_t i;
	double v;

	while (isdigit((unsigned char)*p) || *p == '.')
		p++;
	if (p == s || p - s > 20)
		return -EINVAL;
	if (!*p) {
		if (strspn(s, "0") != strlen(s))
			return -EINVAL;	/* a number needs its unit */
		*ns = 0;
		return 0;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		char *end;

		if (strcmp(p, units[i].unit))
			continue;
		errno = 0;
		v = strtod(s, &end);
		if (errno || end != p || !isfinite(v) || v < 0)
			return -EINVAL;
		v *= units[i].ns;
		if (v > 1e12)
			return -EINVAL;
		*ns = (uint64_t)(v + 0.5);
		return 0;
	}
	return -EINVAL;
}

/* units_printable - copy of @s with control and non-ASCII bytes as '?' */
const char *units_printable(char *buf, size_t len, const char *s)
{
	size_t i;

	if (!len)
		return buf;
	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* wrap_begin - start a line with @first; continuations indent by @indent */
void wrap_begin(struct wrap *w, FILE *f, const char *first, size_t indent)
{
	w->f = f;
	w->indent = indent;
	w->col = strlen(first);
	fputs(first, f);
}

/* wrap_add - append @sep @token, or break the line before @token */
void wrap_add(struct wrap *w, const char *sep, const char *token)
{
	size_t s = strlen(sep), t = strlen(token);

	if (w->col + s + t >= UNITS_COLS) {
		fprintf(w->f, "\n%*s%s", (int)w->indent, "", token);
		w->col = w->indent + t;
		return;
	}
	fprintf(w->f, "%s%s", sep, token);
	w->col += s + t;
}

/* wrap_end - end the line */
void wrap_end(struct wrap *w)
{
	fputc('\n', w->f);
	w->col = 0;
}
