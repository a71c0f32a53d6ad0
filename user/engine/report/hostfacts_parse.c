// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report: the parsers of kernel text (/proc/interrupts, /dev/kmsg
 * records, sysfs choices, AER counters, link speeds).  Pure functions of
 * their input, fuzzed by tests/fuzz/fuzz_hostfacts.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/report/hostfacts_int.h"


bool hf_is_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* hf_interrupts_header - the CPU columns of the first line */
static int hf_interrupts_header(const char *p, const char *end,
				struct hf_interrupts *in)
{
	size_t alloc = 0;
	unsigned int *c;
	uint64_t v;

	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end)
			break;
		if (end - p < 4 || memcmp(p, "CPU", 3))
			return -EINVAL;
		p += 3;
		if (!units_dec(&p, end, &v) || v >= CPUSET_MAX_CPUS)
			return -EINVAL;
		if (in->nr_cols == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			c = realloc(in->cpu, alloc * sizeof(*c));
			if (!c)
				return -ENOMEM;
			in->cpu = c;
		}
		in->cpu[in->nr_cols++] = v;
	}
	return in->nr_cols ? 0 : -EINVAL;
}

/* hf_interrupts_row - one IRQ row; 1 added, 0 skipped, -ENOMEM */
static int hf_interrupts_row(const char *p, const char *end,
			     struct hf_interrupts *in, size_t *alloc)
{
	struct hf_irq_line *l;
	const char *colon, *q;
	unsigned int col;
	uint64_t v;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	colon = memchr(p, ':', end - p);
	if (!colon || colon == p || colon - p >= (long)sizeof(l->name))
		return 0;
	for (q = p; q < colon; q++)
		if (isspace((unsigned char)*q) || !isprint((unsigned char)*q))
			return 0;
	if (in->nr == *alloc) {
		size_t n = *alloc ? 2 * *alloc : 64;

		l = realloc(in->line, n * sizeof(*l));
		if (!l)
			return -ENOMEM;
		in->line = l;
		*alloc = n;
	}
	l = &in->line[in->nr];
	memset(l, 0, sizeof(*l));
	memcpy(l->name, p, colon - p);
	l->irq = -1;
	if (hf_is_digits(l->name) && strlen(l->name) < 10)
		l->irq = atoi(l->name);
	l->counts = calloc(in->nr_cols, sizeof(*l->counts));
	if (!l->counts)
		return -ENOMEM;
	p = colon + 1;
	/* Named rows (ERR, MIS) have fewer columns than there are CPUs. */
	for (col = 0; col < in->nr_cols; col++) {
		q = p;
		while (q < end && *q == ' ')
			q++;
		if (!units_dec(&q, end, &v) || (q < end && !isspace((unsigned char)*q)))
			break;
		l->counts[col] = v;
		l->total = l->total > UINT64_MAX - v ? UINT64_MAX : l->total + v;
		p = q;
	}
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	l->desc = strndup(p, end - p);
	if (!l->desc) {
		free(l->counts);
		return -ENOMEM;
	}
	in->nr++;
	return 1;
}

int hf_interrupts_parse(const char *text, size_t len,
			struct hf_interrupts *out)
{
	const char *p = text, *end = text + len, *nl;
	size_t alloc = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	nl = memchr(p, '\n', end - p);
	ret = hf_interrupts_header(p, nl ? nl : end, out);
	if (ret)
		goto fail;
	while (nl) {
		p = nl + 1;
		nl = memchr(p, '\n', end - p);
		ret = hf_interrupts_row(p, nl ? nl : end, out, &alloc);
		if (ret < 0)
			goto fail;
	}
	return 0;
fail:
	hf_interrupts_free(out);
	return ret;
}

void hf_interrupts_free(struct hf_interrupts *in)
{
	size_t i;

	for (i = 0; i < in->nr; i++) {
		free(in->line[i].counts);
		free(in->line[i].desc);
	}
	free(in->line);
	free(in->cpu);
	memset(in, 0, sizeof(*in));
}

const struct hf_irq_line *hf_interrupts_find(const struct hf_interrupts *in,
					     int irq)
{
	size_t i;

	for (i = 0; i < in->nr; i++)
		if (in->line[i].irq == irq && irq >= 0)
			return &in->line[i];
	return NULL;
}

bool hf_desc_has_action(const char *desc, const char *name)
{
	size_t n = strlen(name);
	const char *p = desc;

	/* Actions end the row, separated by spaces or ", ". */
	while ((p = strstr(p, name))) {
		bool start = p == desc || p[-1] == ' ' || p[-1] == ',';
		bool stop = !p[n] || p[n] == ',' || p[n] == ' ';

		if (start && stop)
			return true;
		p += n;
	}
	return false;
}

int hf_kmsg_parse(const char *rec, size_t len, uint64_t *usec,
		  const char **msg, size_t *msglen)
{
	const char *p = rec, *end = rec + len, *semi, *nl;
	uint64_t v;

	if (!units_dec(&p, end, &v) || p >= end || *p++ != ',')
		return -EINVAL;
	if (!units_dec(&p, end, &v) || p >= end || *p++ != ',')
		return -EINVAL;
	if (!units_dec(&p, end, usec) || p >= end || (*p != ',' && *p != ';'))
		return -EINVAL;
	semi = memchr(p, ';', end - p);
	if (!semi)
		return -EINVAL;
	*msg = semi + 1;
	nl = memchr(*msg, '\n', end - *msg);
	*msglen = (nl ? nl : end) - *msg;
	return 0;
}

bool hf_kmsg_wanted(const char *msg, size_t len)
{
	return memmem(msg, len, "NVRM", 4) || memmem(msg, len, "Xid", 3);
}

int hf_bracket_choice(const char *s, char *out, size_t len)
{
	const char *a = strchr(s, '['), *b;

	if (!a || !(b = strchr(a, ']')) || b == a + 1 || !len)
		return -EINVAL;
	snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
	return 0;
}

int hf_aer_total(const char *text, uint64_t *total)
{
	const char *p = text, *end = text + strlen(text), *nl;

	for (; p < end; p = nl + 1) {
		nl = strchrnul(p, '\n');
		if (!strncmp(p, "TOTAL_ERR_", 10)) {
			p = strchr(p, ' ');
			if (!p || p > nl)
				return -EINVAL;
			while (p < nl && *p == ' ')
				p++;
			return units_dec(&p, nl, total) ? 0 : -EINVAL;
		}
		if (!*nl)
			break;
	}
	return -EINVAL;
}

double hf_link_speed(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	return end == s || v < 0 ? 0 : v;
}

