// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the parsers of kernel text that gpulat report reads: the first
 * byte picks one, the rest is its input.  /proc/interrupts rows must keep
 * within their columns and their totals must add up; a CPU list that
 * parses must format back to one that parses to the same mask; a kmsg
 * record's text must lie inside the record.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/report/hostfacts.h"

static void fuzz_interrupts(const char *s, size_t len)
{
	struct hf_interrupts in;
	uint64_t sum;
	size_t i;
	unsigned int c;

	if (hf_interrupts_parse(s, len, &in))
		return;
	if (!in.nr_cols || in.nr_cols > CPUSET_MAX_CPUS)
		abort();
	for (i = 0; i < in.nr; i++) {
		const struct hf_irq_line *l = &in.line[i];

		for (sum = 0, c = 0; c < in.nr_cols; c++)
			sum = sum > UINT64_MAX - l->counts[c] ?
				UINT64_MAX : sum + l->counts[c];
		if (sum != l->total || !l->desc || !l->name[0])
			abort();
		if (l->irq >= 0 && hf_interrupts_find(&in, l->irq) == NULL)
			abort();
		hf_desc_has_action(l->desc, "nvidia");
	}
	hf_interrupts_free(&in);
}

static void fuzz_cpulist(const char *s)
{
	struct cpuset a, b;
	static char buf[CPUSET_MAX_CPUS * 6];

	if (cpuset_parse(&a, s))
		return;
	cpuset_format(buf, sizeof(buf), &a);
	if (cpuset_parse(&b, buf) || memcmp(&a, &b, sizeof(a)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *msg;
	char *s, out[64];
	uint64_t v;
	size_t len, mlen;

	if (!size)
		return 0;
	len = size - 1;
	s = malloc(len + 1);
	if (!s)
		return 0;
	memcpy(s, data + 1, len);
	s[len] = '\0';
	switch (data[0] % 5) {
	case 0:
		fuzz_interrupts(s, len);
		break;
	case 1:
		fuzz_cpulist(s);
		break;
	case 2:
		if (!hf_kmsg_parse(s, len, &v, &msg, &mlen) &&
		    (msg < s || msg + mlen > s + len))
			abort();
		if (!hf_kmsg_parse(s, len, &v, &msg, &mlen))
			hf_kmsg_wanted(msg, mlen);
		break;
	case 3:
		if (!hf_bracket_choice(s, out, sizeof(out)) && !out[0])
			abort();
		break;
	case 4:
		hf_aer_total(s, &v);
		hf_link_speed(s);
		break;
	}
	free(s);
	return 0;
}
