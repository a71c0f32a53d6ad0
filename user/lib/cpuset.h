/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat CPU sets: the CPUs a culprit was seen on, the slow CPUs of a
 * diagnosis, an IRQ's affinity, the CPUs of a cpufreq governor.
 *
 * A set holds the CPUs 0 to CPUSET_MAX_CPUS - 1, the most any kernel
 * allows (NR_CPUS is at most 8192); CPU c is bit c % 64 of w[c / 64].  A
 * CPU list naming a higher number does not parse, and cpuset_add() refuses
 * one (diagnose drops such numbers: they are no CPU).  A set is a plain
 * value of 1 KiB: no allocation, copied by assignment, empty when zeroed.
 */
#ifndef _GPULAT_USER_CPUSET_H
#define _GPULAT_USER_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPUSET_MAX_CPUS		8192
#define CPUSET_WORDS		(CPUSET_MAX_CPUS / 64)

struct cpuset {
	uint64_t w[CPUSET_WORDS];
};

/* cpuset_clear - empty @s */
void cpuset_clear(struct cpuset *s);
/* cpuset_add - put @cpu in @s; 0, or -EINVAL (@s unchanged) past the limit */
int cpuset_add(struct cpuset *s, uint32_t cpu);
/* cpuset_has - whether @cpu is in @s */
bool cpuset_has(const struct cpuset *s, uint32_t cpu);
/* cpuset_weight - how many CPUs @s holds */
size_t cpuset_weight(const struct cpuset *s);
/* cpuset_meets - whether @a and @b have a CPU in common */
bool cpuset_meets(const struct cpuset *a, const struct cpuset *b);
/* cpuset_subset - whether every CPU of @a is in @b */
bool cpuset_subset(const struct cpuset *a, const struct cpuset *b);
/* cpuset_or - put every CPU of @b in @a */
void cpuset_or(struct cpuset *a, const struct cpuset *b);
/*
 * cpuset_next - the first CPU of @s at or after @cpu, or CPUSET_MAX_CPUS:
 * for (c = cpuset_next(s, 0); c < CPUSET_MAX_CPUS; c = cpuset_next(s, c + 1))
 */
uint32_t cpuset_next(const struct cpuset *s, uint32_t cpu);

/*
 * cpuset_parse - a kernel CPU list ("0-3,8,10-11", trailing white space
 * allowed, "" empty) into @s; 0 or -EINVAL
 */
int cpuset_parse(struct cpuset *s, const char *list);
/* cpuset_format - @s as a CPU list "0-3,8"; "" when empty; cut to @len; @buf */
char *cpuset_format(char *buf, size_t len, const struct cpuset *s);

#endif /* _GPULAT_USER_CPUSET_H */
