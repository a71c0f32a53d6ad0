/* SPDX-License-Identifier: GPL-2.0 */
/* Human units and line wrapping for the text views. */
#ifndef _GPULAT_USER_UNITS_H
#define _GPULAT_USER_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Text views keep every line below this many columns. */
#define UNITS_COLS	80
/* Room for any units_ns()/units_count() result. */
#define UNITS_LEN	24

const char *units_ns(char *buf, size_t len, uint64_t ns);
const char *units_count(char *buf, size_t len, uint64_t n);
/* units_parse_ns - "5ms", "250us", "1.5s", "800ns", "0" -> ns; 0 or -EINVAL */
int units_parse_ns(const char *s, uint64_t *ns);
const char *units_printable(char *buf, size_t len, const char *s);
/*
 * units_dec - the decimal digits at *@p (before @end) into @v, saturating
 * at UINT64_MAX, *@p moved past them; false when there are none.  The CPU
 * lists and the host facts' kernel text read their numbers with it.
 */
bool units_dec(const char **p, const char *end, uint64_t *v);

/* A line that wraps before UNITS_COLS, continuing with an indent. */
struct wrap {
	FILE *f;
	size_t col;
	size_t indent;
};

void wrap_begin(struct wrap *w, FILE *f, const char *first, size_t indent);
void wrap_add(struct wrap *w, const char *sep, const char *token);
void wrap_end(struct wrap *w);

#endif /* _GPULAT_USER_UNITS_H */
