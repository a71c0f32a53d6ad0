// SPDX-License-Identifier: GPL-2.0
/* Synthetic snapshot blobs for tests and fuzz seeds. */
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "gpulat_hist.h"
#include "lib/family.h"

/* blob_init - empty blob: this ABI, 4 CPUs, generation 1, time 10 s */
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
	free(b->events);
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
	if (name)
		strncpy(s->name, name, sizeof(s->name) - 1);
	else
		gl_series_name(s->name, sizeof(s->name), family, id);
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
	if (!family_name)
		family_name = gl_family_name(family);
	strncpy(p->family_name, family_name ? family_name : "",
		sizeof(p->family_name) - 1);
	strncpy(p->tracepoint, tracepoint, sizeof(p->tracepoint) - 1);
	p->hits = hits;
}

void blob_add_event(struct blob *b, uint64_t time_ns, uint32_t type,
		    uint32_t code, uint32_t cpu, const char *device)
{
	struct gpulat_event *e;

	b->events = blob_grow(b->events, ++b->nr_events, sizeof(*e));
	e = &b->events[b->nr_events - 1];
	e->time_ns = time_ns;
	e->type = type;
	e->code = code;
	e->cpu = cpu;
	strncpy(e->device, device, sizeof(e->device) - 1);
}

/*
 * blob_build - lay the blob out (malloc'd, free() it); *len its size.
 * Header, series, counters, probes, events; a ver0 blob has a VER0 header
 * (ABI 1.0) and no events section.
 */
void *blob_build(const struct blob *b, size_t *len)
{
	struct gpulat_snap_header h = b->hdr;
	uint32_t ss = BLOB_SERIES_SIZE + b->series_extra;
	uint32_t cs = sizeof(struct gpulat_counter) + b->counter_extra;
	uint32_t ps = sizeof(struct gpulat_probe) + b->probe_extra;
	uint32_t es = sizeof(struct gpulat_event) + b->event_extra;
	size_t hcopy = b->ver0 ? GPULAT_SNAP_HEADER_SIZE_VER0 : sizeof(h);
	size_t nr_events = b->ver0 ? 0 : b->nr_events;
	unsigned char *buf;
	uint64_t off;
	size_t i;

	if (b->ver0)
		h.abi_minor = 0;
	h.header_size = hcopy + b->header_extra;
	off = h.header_size;
	h.series = (struct gpulat_snap_section){ off, b->nr_series, ss };
	off += (uint64_t)ss * b->nr_series;
	h.counters = (struct gpulat_snap_section){ off, b->nr_counters, cs };
	off += (uint64_t)cs * b->nr_counters;
	h.probes = (struct gpulat_snap_section){ off, b->nr_probes, ps };
	off += (uint64_t)ps * b->nr_probes;
	if (b->ver0)
		memset(&h.events, 0, sizeof(h.events));
	else
		h.events = (struct gpulat_snap_section){ off, nr_events, es };
	off += (uint64_t)es * nr_events;
	h.total_size = off;
	/* room for the whole struct even when only hcopy bytes are header */
	buf = calloc(1, off > sizeof(h) ? off : sizeof(h));
	if (!buf)
		abort();
	memcpy(buf, &h, hcopy);
	for (i = 0; i < b->nr_series; i++)
		memcpy(buf + h.series.offset + i * ss,
		       b->series + i * BLOB_SERIES_SIZE, BLOB_SERIES_SIZE);
	for (i = 0; i < b->nr_counters; i++)
		memcpy(buf + h.counters.offset + i * cs, &b->counters[i],
		       sizeof(b->counters[i]));
	for (i = 0; i < b->nr_probes; i++)
		memcpy(buf + h.probes.offset + i * ps, &b->probes[i],
		       sizeof(b->probes[i]));
	for (i = 0; i < nr_events; i++)
		memcpy(buf + h.events.offset + i * es, &b->events[i],
		       sizeof(b->events[i]));
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
				    cpu, 0, NULL, "");
		blob_record(b, s, 3000 + cpu * 100, 100);
		blob_record(b, s, 40000, 10 + cpu);
		s = blob_add_series(b, GPULAT_FAM_SCHED, GPULAT_SCHED_PREEMPT,
				    cpu, 0, NULL, "");
		if (cpu != 1)
			blob_record(b, s, 1000000, 5);
	}
	for (i = 0; i < 3; i++)
		blob_add_counter(b, GPULAT_FAM_SCHED, i, counters[i], i);
	blob_add_probe(b, GPULAT_FAM_SCHED, GPULAT_PROBE_ATTACHED, 0, NULL,
		       "sched_switch", 123456);
	blob_add_probe(b, GPULAT_FAM_SCHED, GPULAT_PROBE_ATTACHED, 0, NULL,
		       "sched_wakeup", 65432);
	blob_add_probe(b, GPULAT_FAM_SCHED, GPULAT_PROBE_FAILED, 22, NULL,
		       "sched_wakeup_new", 0);
}

/*
 * blob_families - every family on 2 CPUs, time 10 s:
 *   block.read.queue   sda 10 x 5 us
 *   block.read.device  sda 10 x 100 us, nullb0 4 x 1 ms
 *   block.write.device nullb0 empty
 *   net.tx             eth0 (ifindex 2) 6 x 20 us, lo (1) empty
 *   irq.handler        irq 11 eth0 5 x 3 us, irq 24 nvme0q1 2 x 8 us
 *   softirq.wait       NET_RX CPU 0 2 x 50 us
 *   softirq.run        NET_TX CPU 0 1 x 2 us; NET_RX CPU 0 7 x 10 us,
 *                      CPU 1 3 x 20 us; TIMER CPU 1 4 x 1 us
 *   nvidia.hardirq     irq 45 nvidia 3 x 4 us
 *   nvidia.kthread.wake pid 123 nv_queue 2 x 30 us
 *   mm.direct_reclaim  CPU 1 1 x 2 ms
 * probes: block attached, net disabled, irq failed (EBUSY), softirq
 * missing, mm attached, nvidia none; Xid 79 at 8 s, Xid 13 at 9.5 s
 */
void blob_families(struct blob *b)
{
	size_t s;

	blob_init(b);
	b->hdr.nr_cpu_ids = 2;
	s = blob_add_series(b, GPULAT_FAM_BLOCK,
			    GPULAT_BLOCK_SERIES(GPULAT_BLOCK_READ,
						GPULAT_BLOCK_QUEUE),
			    GPULAT_CPU_NONE, BLOB_SDA, NULL,
			    "sda");
	blob_record(b, s, 5000, 10);
	s = blob_add_series(b, GPULAT_FAM_BLOCK,
			    GPULAT_BLOCK_SERIES(GPULAT_BLOCK_READ,
						GPULAT_BLOCK_DEVICE),
			    GPULAT_CPU_NONE, BLOB_SDA, NULL,
			    "sda");
	blob_record(b, s, 100000, 10);
	s = blob_add_series(b, GPULAT_FAM_BLOCK,
			    GPULAT_BLOCK_SERIES(GPULAT_BLOCK_READ,
						GPULAT_BLOCK_DEVICE),
			    GPULAT_CPU_NONE, BLOB_NULLB0, NULL,
			    "nullb0");
	blob_record(b, s, 1000000, 4);
	blob_add_series(b, GPULAT_FAM_BLOCK,
			GPULAT_BLOCK_SERIES(GPULAT_BLOCK_WRITE,
					    GPULAT_BLOCK_DEVICE),
			GPULAT_CPU_NONE, BLOB_NULLB0, NULL,
			"nullb0");
	s = blob_add_series(b, GPULAT_FAM_NET, GPULAT_NET_TX, GPULAT_CPU_NONE,
			    2, NULL, "eth0");
	blob_record(b, s, 20000, 6);
	blob_add_series(b, GPULAT_FAM_NET, GPULAT_NET_TX, GPULAT_CPU_NONE, 1,
			NULL, "lo");
	s = blob_add_series(b, GPULAT_FAM_IRQ, GPULAT_IRQ_HANDLER,
			    GPULAT_CPU_NONE, BLOB_IRQ_ETH0, NULL,
			    "eth0");
	blob_record(b, s, 3000, 5);
	s = blob_add_series(b, GPULAT_FAM_IRQ, GPULAT_IRQ_HANDLER,
			    GPULAT_CPU_NONE, BLOB_IRQ_NVME, NULL,
			    "nvme0q1");
	blob_record(b, s, 8000, 2);
	s = blob_add_series(b, GPULAT_FAM_SOFTIRQ,
			    GPULAT_SOFTIRQ_SERIES(3, GPULAT_SOFTIRQ_WAIT), 0, 3,
			    NULL, "NET_RX");
	blob_record(b, s, 50000, 2);
	s = blob_add_series(b, GPULAT_FAM_SOFTIRQ,
			    GPULAT_SOFTIRQ_SERIES(2, GPULAT_SOFTIRQ_RUN), 0, 2,
			    NULL, "NET_TX");
	blob_record(b, s, 2000, 1);
	s = blob_add_series(b, GPULAT_FAM_SOFTIRQ,
			    GPULAT_SOFTIRQ_SERIES(3, GPULAT_SOFTIRQ_RUN), 0, 3,
			    NULL, "NET_RX");
	blob_record(b, s, 10000, 7);
	s = blob_add_series(b, GPULAT_FAM_SOFTIRQ,
			    GPULAT_SOFTIRQ_SERIES(3, GPULAT_SOFTIRQ_RUN), 1, 3,
			    NULL, "NET_RX");
	blob_record(b, s, 20000, 3);
	s = blob_add_series(b, GPULAT_FAM_SOFTIRQ,
			    GPULAT_SOFTIRQ_SERIES(1, GPULAT_SOFTIRQ_RUN), 1, 1,
			    NULL, "TIMER");
	blob_record(b, s, 1000, 4);
	s = blob_add_series(b, GPULAT_FAM_NVIDIA, GPULAT_NV_HARDIRQ,
			    GPULAT_CPU_NONE, 45, NULL, "nvidia");
	blob_record(b, s, 4000, 3);
	s = blob_add_series(b, GPULAT_FAM_NVIDIA, GPULAT_NV_KTHREAD_WAKE,
			    GPULAT_CPU_NONE, 123, NULL,
			    "nv_queue");
	blob_record(b, s, 30000, 2);
	s = blob_add_series(b, GPULAT_FAM_MM, GPULAT_MM_DIRECT_RECLAIM, 1, 0,
			    NULL, "");
	blob_record(b, s, 2000000, 1);
	blob_add_counter(b, GPULAT_FAM_BLOCK, GPULAT_BLOCK_NO_START,
			 "block.no_start", 1);
	blob_add_counter(b, GPULAT_FAM_NET, GPULAT_NET_EXPIRED, "net.expired",
			 2);
	blob_add_counter(b, GPULAT_FAM_NVIDIA, GPULAT_NV_XID_LOST,
			 "nvidia.xid_lost", 3);
	blob_add_counter(b, GPULAT_FAM_SOFTIRQ, GPULAT_SOFTIRQ_NO_START,
			 "softirq.no_start", 0);
	blob_add_probe(b, GPULAT_FAM_BLOCK, GPULAT_PROBE_ATTACHED, 0, NULL,
		       "block_rq_insert", 10);
	blob_add_probe(b, GPULAT_FAM_BLOCK, GPULAT_PROBE_ATTACHED, 0, NULL,
		       "block_rq_issue", 24);
	blob_add_probe(b, GPULAT_FAM_BLOCK, GPULAT_PROBE_ATTACHED, 0, NULL,
		       "block_rq_complete", 14);
	blob_add_probe(b, GPULAT_FAM_NET, GPULAT_PROBE_DISABLED, 0, NULL,
		       "net_dev_queue", 6);
	blob_add_probe(b, GPULAT_FAM_NET, GPULAT_PROBE_DISABLED, 0, NULL,
		       "net_dev_xmit", 6);
	blob_add_probe(b, GPULAT_FAM_IRQ, GPULAT_PROBE_FAILED, 16, NULL,
		       "irq_handler_entry", 0);
	blob_add_probe(b, GPULAT_FAM_IRQ, GPULAT_PROBE_DISABLED, 0, NULL,
		       "irq_handler_exit", 0);
	blob_add_probe(b, GPULAT_FAM_SOFTIRQ, GPULAT_PROBE_MISSING, 0,
		       NULL, "softirq_raise", 0);
	blob_add_probe(b, GPULAT_FAM_SOFTIRQ, GPULAT_PROBE_DISABLED, 0,
		       NULL, "softirq_entry", 0);
	blob_add_probe(b, GPULAT_FAM_SOFTIRQ, GPULAT_PROBE_MISSING, 0,
		       NULL, "softirq_exit", 0);
	blob_add_probe(b, GPULAT_FAM_MM, GPULAT_PROBE_ATTACHED, 0, NULL,
		       "mm_vmscan_direct_reclaim_begin", 1);
	blob_add_event(b, 8000000000ULL, GPULAT_EVENT_XID, 79, 1,
		       "0000:3b:00.0");
	blob_add_event(b, 9500000000ULL, GPULAT_EVENT_XID, 13, 0,
		       "0000:86:00.0");
}
