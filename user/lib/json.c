// SPDX-License-Identifier: GPL-2.0
/*
 * A small streaming JSON writer.  Strings come from the kernel and are not
 * trusted: quotes, backslashes, control bytes and every byte >= 0x7f are
 * escaped, so the output is valid JSON and plain ASCII whatever they hold.
 */
#include <math.h>

#include "lib/json.h"

/* json_begin - start a document on @f */
void json_begin(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
}

/* json_end - end the document with a newline (JSON lines) */
void json_end(struct json *j)
{
	fputc('\n', j->f);
}

/* json_escape - write @s as a quoted JSON string */
void json_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* json_member - comma and key before a value */
static void json_member(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key) {
		json_escape(j->f, key);
		fputc(':', j->f);
	}
}

/* json_push - open a container */
static void json_push(struct json *j, const char *key, char c)
{
	json_member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

/* json_pop - close a container */
static void json_pop(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_object_begin(struct json *j, const char *key)
{
	json_push(j, key, '{');
}

void json_object_end(struct json *j)
{
	json_pop(j, '}');
}

void json_array_begin(struct json *j, const char *key)
{
	json_push(j, key, '[');
}

void json_array_end(struct json *j)
{
	json_pop(j, ']');
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_member(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

/* json_double - @v with 9 significant digits; not finite: null */
void json_double(struct json *j, const char *key, double v)
{
	json_member(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.9g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	json_member(j, key);
	fputs("null", j->f);
}

/* json_str - @s as a string; NULL: null */
void json_str(struct json *j, const char *key, const char *s)
{
	json_member(j, key);
	if (s)
		json_escape(j->f, s);
	else
		fputs("null", j->f);
}
