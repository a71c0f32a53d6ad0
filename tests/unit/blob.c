// SPDX-License-Identifier: GPL-2.0
/* Synthetic snapshot blobs for tests and fuzz seeds. */
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "gpulat_hist.h"

/* blob_init - empty blob: ABI 1.0, 4 CPUs, generation 1, time 10 s */
void blob_init(struct blob *b)
{
	memset(b, 0, sizeof(*b));
	b->hdr.magic = GPULAT_SNAP_MAGIC;
	b->hdr.abi_major = GPULAT_ABI_MAJOR;
	b->hdr.abi_minor = GPULAT_ABI_MINOR;
	b->hdr.time_ns = 10000000000ULL;
	b->hdr.reset_time_ns = 1000000000ULL;
	b->hdr.generation = 1;
	b->hdr.nr_cpu_ids = 4;
	b->hdr.hist_sub_bits = GPULAT_HIST_SUB_BITS;
	b->hdr.hist_min_shift = GPULAT_HIST_MIN_SHIFT;
	b->hdr.hist_max_shift = GPULAT_HIST_MAX_SHIFT;
	b->hdr.hist_nr_buckets = GPULAT_HIST_NR_BUCKETS;
}

void blob_release(struct blob *b)
{
	free(b->series);
	free(b->counters);
	free(b->probes);
	memset(b, 0, sizeof(*b));
}

/* blob_grow - realloc or abort: tests have no use for half a blob */
static void *blob_grow(void *p, size_t n, size_t size)
{
	p = realloc(p, n * size);
	if (!p)
		abort();
	memset((char *)p + (n - 1) * size, 0, size);
	return p;
}

struct gpulat_series *blob_series(struct blob *b, size_t i)
{
	return (struct gpulat_series *)(b->series + i * BLOB_SERIES_SIZE);
}

size_t blob_add_series(struct blob *b, uint32_t family, uint32_t id,
		       uint32_t cpu, uint64_t key, const char *name,
		       const char *key_name)
{
	struct gpulat_series *s;

	b->series = blob_grow(b->series, ++b->nr_series, BLOB_SERIES_SIZE);
	s = blob_series(b, b->nr_series - 1);
	s->family = family;
	s->id = id;
	s->cpu = cpu;
	s->key = key;
	strncpy(s->name, name, sizeof(s->name) - 1);
	strncpy(s->key_name, key_name, sizeof(s->key_name) - 1);
	return b->nr_series - 1;
}

void blob_record(struct blob *b, size_t i, uint64_t ns, uint64_t n)
{
	struct gpulat_series *s = blob_series(b, i);

	s->count += n;
	s->sum_ns += ns * n;
	if (n && ns > s->max_ns)
		s->max_ns = ns;
	s->buckets[gpulat_hist_slot(ns)] += n;
}

void blob_add_counter(struct blob *b, uint32_t family, uint32_t id,
		      const char *name, uint64_t value)
{
	struct gpulat_counter *c;

	b->counters = blob_grow(b->counters, ++b->nr_counters, sizeof(*c));
	c = &b->counters[b->nr_counters - 1];
	c->family = family;
	c->id = id;
	strncpy(c->name, name, sizeof(c->name) - 1);
	c->value = value;
}

void blob_add_probe(struct blob *b, uint32_t family, uint32_t state,
		    uint32_t error, const char *family_name,
		    const char *tracepoint, uint64_t hits)
{
	struct gpulat_probe *p;

	b->probes = blob_grow(b->probes, ++b->nr_probes, sizeof(*p));
	p = &b->probes[b->nr_probes - 1];
	p->family = family;
	p->state = state;
	p->error = error;
	strncpy(p->family_name, family_name, sizeof(p->family_name) - 1);
	strncpy(p->tracepoint, tracepoint, sizeof(p->tracepoint) - 1);
	p->hits = hits;
}

/* blob_build - lay the blob out (malloc'd, free() it); *len its size */
void *blob_build(const struct blob *b, size_t *len)
{
	struct gpulat_snap_header h = b->hdr;
	uint32_t ss = BLOB_SERIES_SIZE + b->series_extra;
	uint32_t cs = sizeof(struct gpulat_counter) + b->counter_extra;
	uint32_t ps = sizeof(struct gpulat_probe) + b->probe_extra;
	unsigned char *buf;
	uint64_t off;
	size_t i;

	h.header_size = sizeof(h) + b->header_extra;
	off = h.header_size;
	h.series = (struct gpulat_snap_section){ off, b->nr_series, ss };
	off += (uint64_t)ss * b->nr_series;
	h.counters = (struct gpulat_snap_section){ off, b->nr_counters, cs };
	off += (uint64_t)cs * b->nr_counters;
	h.probes = (struct gpulat_snap_section){ off, b->nr_probes, ps };
	off += (uint64_t)ps * b->nr_probes;
	h.total_size = off;
	buf = calloc(1, off);
	if (!buf)
		abort();
	memcpy(buf, &h, sizeof(h));
	for (i = 0; i < b->nr_series; i++)
		memcpy(buf + h.series.offset + i * ss,
		       b->series + i * BLOB_SERIES_SIZE, BLOB_SERIES_SIZE);
	for (i = 0; i < b->nr_counters; i++)
		memcpy(buf + h.counters.offset + i * cs, &b->counters[i],
		       sizeof(b->counters[i]));
	for (i = 0; i < b->nr_probes; i++)
		memcpy(buf + h.probes.offset + i * ps, &b->probes[i],
		       sizeof(b->probes[i]));
	*len = off;
	return buf;
}

/* blob_sched - typical sched blob: 2 series x @cpus CPUs, counters, probes */
void blob_sched(struct blob *b, uint32_t cpus)
{
	static const char *const counters[] = {
		"sched.no_start", "sched.evicted", "sched.negative",
	};
	uint32_t cpu, i;
	size_t s;

	blob_init(b);
	b->hdr.nr_cpu_ids = cpus;
	for (cpu = 0; cpu < cpus; cpu++) {
		s = blob_add_series(b, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP,
				    cpu, 0, "sched.wakeup", "");
		blob_record(b, s, 3000 + cpu * 100, 100);
		blob_record(b, s, 40000, 10 + cpu);
		s = blob_add_series(b, GPULAT_FAM_SCHED, GPULAT_SCHED_PREEMPT,
				    cpu, 0, "sched.preempt", "");
		if (cpu != 1)
			blob_record(b, s, 1000000, 5);
	}
	for (i = 0; i < 3; i++)
		blob_add_counter(b, GPULAT_FAM_SCHED, i, counters[i], i);
	blob_add_probe(b, GPULAT_FAM_SCHED, GPULAT_PROBE_ATTACHED, 0, "sched",
		       "sched_switch", 123456);
	blob_add_probe(b, GPULAT_FAM_SCHED, GPULAT_PROBE_ATTACHED, 0, "sched",
		       "sched_wakeup", 65432);
	blob_add_probe(b, GPULAT_FAM_SCHED, GPULAT_PROBE_FAILED, 22, "sched",
		       "sched_wakeup_new", 0);
}
