// SPDX-License-Identifier: GPL-2.0
/* gpulat CPU sets (cpuset.h): one bitmap of CPUSET_MAX_CPUS bits. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/cpuset.h"
#include "lib/units.h"

void cpuset_clear(struct cpuset *s)
{
	memset(s, 0, sizeof(*s));
}

int cpuset_add(struct cpuset *s, uint32_t cpu)
{
	if (cpu >= CPUSET_MAX_CPUS)
		return -EINVAL;
	s->w[cpu / 64] |= 1ULL << (cpu % 64);
	return 0;
}

bool cpuset_has(const struct cpuset *s, uint32_t cpu)
{
	return cpu < CPUSET_MAX_CPUS && (s->w[cpu / 64] >> (cpu % 64)) & 1;
}

size_t cpuset_weight(const struct cpuset *s)
{
	size_t i, n = 0;

	for (i = 0; i < CPUSET_WORDS; i++)
		n += __builtin_popcountll(s->w[i]);
	return n;
}

bool cpuset_meets(const struct cpuset *a, const struct cpuset *b)
{
	size_t i;

	for (i = 0; i < CPUSET_WORDS; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

bool cpuset_subset(const struct cpuset *a, const struct cpuset *b)
{
	size_t i;

	for (i = 0; i < CPUSET_WORDS; i++)
		if (a->w[i] & ~b->w[i])
			return false;
	return true;
}

void cpuset_or(struct cpuset *a, const struct cpuset *b)
{
	size_t i;

	for (i = 0; i < CPUSET_WORDS; i++)
		a->w[i] |= b->w[i];
}

uint32_t cpuset_next(const struct cpuset *s, uint32_t cpu)
{
	uint64_t word;
	size_t i;

	if (cpu >= CPUSET_MAX_CPUS)
		return CPUSET_MAX_CPUS;
	i = cpu / 64;
	word = s->w[i] & (~0ULL << (cpu % 64));
	while (!word) {
		if (++i == CPUSET_WORDS)
			return CPUSET_MAX_CPUS;
		word = s->w[i];
	}
	return i * 64 + __builtin_ctzll(word);
}

int cpuset_parse(struct cpuset *set, const char *s)
{
	const char *end = s + strlen(s);
	uint64_t a, b, c;

	cpuset_clear(set);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	while (s < end) {
		if (!units_dec(&s, end, &a))
			return -EINVAL;
		b = a;
		if (s < end && *s == '-') {
			s++;
			if (!units_dec(&s, end, &b))
				return -EINVAL;
		}
		if (a > b || b >= CPUSET_MAX_CPUS)
			return -EINVAL;
		for (c = a; c <= b; c++)
			set->w[c / 64] |= 1ULL << (c % 64);
		if (s < end && *s++ != ',')
			return -EINVAL;
		if (s == end && s[-1] == ',')
			return -EINVAL;
	}
	return 0;
}

char *cpuset_format(char *buf, size_t len, const struct cpuset *s)
{
	uint32_t c, a;
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (c = cpuset_next(s, 0); c < CPUSET_MAX_CPUS;
	     c = cpuset_next(s, c + 1)) {
		a = c;
		while (c + 1 < CPUSET_MAX_CPUS && cpuset_has(s, c + 1))
			c++;
		if (a == c)
			off += snprintf(buf + off, off < len ? len - off : 0,
					"%s%u", off ? "," : "", a);
		else
			off += snprintf(buf + off, off < len ? len - off : 0,
					"%s%u-%u", off ? "," : "", a, c);
	}
	return buf;
}
