/* SPDX-License-Identifier: GPL-2.0 */
/* A small streaming JSON writer: one compact object per line. */
#ifndef _GPULAT_USER_JSON_H
#define _GPULAT_USER_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	16

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
};

/* In every call @key is the member name inside an object, NULL elsewhere. */
void json_begin(struct json *j, FILE *f);
void json_end(struct json *j);
void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_double(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
void json_str(struct json *j, const char *key, const char *s);
void json_escape(FILE *f, const char *s);

#endif /* _GPULAT_USER_JSON_H */
