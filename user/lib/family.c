// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat family table: every probe family and series user space knows,
 * with how its key prints and the rule a diagnosis judges it by.  The
 * expected p99s are the table of Documentation/runbook.rst.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cgroup.h"
#include "family.h"
#include "units.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define US	1000ULL
#define MS	1000000ULL

/*
 * A series a diagnosis judges: layer, expected p99, weight in percent;
 * then its metric, M(metric, labels).
 */
#define JUDGED(n, k, l, p99, w, m) \
	{ .name = (n), .key = (k), .judged = true, .layer = (l), \
	  .expect_p99_ns = (p99), .weight = (w), m }
#define M(m, labels)	.metric = (m), .metric_labels = (labels)

/* Prometheus metrics: the unit is the second, as its conventions ask. */
static const struct gl_metric_info gl_metrics[GL_NR_METRICS] = {
	[GL_METRIC_RUNQUEUE] = {
		.name = "gpulat_runqueue_latency_seconds",
		.help = "Run-queue latency: wakeup (kind=wakeup) or preemption (kind=preempt) to running on a CPU",
	},
	[GL_METRIC_BLOCK] = {
		.name = "gpulat_block_latency_seconds",
		.help = "Block I/O latency: insert to issue (stage=queue), issue to completion (stage=device)",
	},
	[GL_METRIC_NET] = {
		.name = "gpulat_net_latency_seconds",
		.help = "Network latency: queued to the device to its completion (stage=tx), enqueued to the backlog to processed (stage=backlog)",
	},
	[GL_METRIC_IRQ] = {
		.name = "gpulat_irq_handler_seconds",
		.help = "Hard IRQ handler duration: irq_handler_entry to irq_handler_exit",
	},
	[GL_METRIC_SOFTIRQ] = {
		.name = "gpulat_softirq_latency_seconds",
		.help = "Softirq latency: raised to running (stage=wait), entry to exit (stage=run)",
	},
	[GL_METRIC_NVIDIA_IRQ] = {
		.name = "gpulat_nvidia_irq_latency_seconds",
		.help = "NVIDIA driver interrupts: hard handler duration (path=hardirq), its irq/N-nvidia thread woken to running (thread_wake) and its run (thread_run)",
		.key_is_gpu = true,
	},
	[GL_METRIC_NVIDIA_KTHREAD] = {
		.name = "gpulat_nvidia_kthread_wake_latency_seconds",
		.help = "NVIDIA driver kernel threads: woken to running",
	},
	[GL_METRIC_MM] = {
		.name = "gpulat_mm_stall_seconds",
		.help = "Memory stalls: direct reclaim begin to end, compaction begin to end (direct or background), reclaim of a memory cgroup over memory.high or memory.max begin to end",
	},
	[GL_METRIC_CGROUP] = {
		.name = "gpulat_cgroup_latency_seconds",
		.help = "Latency of the tasks of watched cgroups: run-queue waits (kind=wakeup, preempt), block requests they started from the first event to completion (kind=block), memory cgroup reclaim (kind=memcg_reclaim)",
	},
};

static const struct gl_series_info sched_series[] = {
	[GPULAT_SCHED_WAKEUP] =
		JUDGED("sched.wakeup", GL_KEY_NONE, GL_LAYER_SCHED, 1 * MS, 100,
		       M(GL_METRIC_RUNQUEUE, "kind=\"wakeup\"")),
	/* CPU-bound threads taking turns: slices of ms */
	[GPULAT_SCHED_PREEMPT] =
		JUDGED("sched.preempt", GL_KEY_NONE, GL_LAYER_SCHED, 5 * MS, 50,
		       M(GL_METRIC_RUNQUEUE, "kind=\"preempt\"")),
};

/* Flushes and discards of healthy disks take longer. */
#define BLOCK(op, name, p99) \
	[GPULAT_BLOCK_SERIES(op, GPULAT_BLOCK_QUEUE)] = \
		JUDGED("block." name ".queue", GL_KEY_DISK, GL_LAYER_STORAGE, \
		       p99, 100, M(GL_METRIC_BLOCK, \
				   "op=\"" name "\",stage=\"queue\"")), \
	[GPULAT_BLOCK_SERIES(op, GPULAT_BLOCK_DEVICE)] = \
		JUDGED("block." name ".device", GL_KEY_DISK, GL_LAYER_STORAGE, \
		       p99, 100, M(GL_METRIC_BLOCK, \
				   "op=\"" name "\",stage=\"device\""))

static const struct gl_series_info block_series[] = {
	BLOCK(GPULAT_BLOCK_READ, "read", 20 * MS),
	BLOCK(GPULAT_BLOCK_WRITE, "write", 20 * MS),
	BLOCK(GPULAT_BLOCK_FLUSH, "flush", 50 * MS),
	BLOCK(GPULAT_BLOCK_DISCARD, "discard", 50 * MS),
	BLOCK(GPULAT_BLOCK_OTHER, "other", 20 * MS),
};

static const struct gl_series_info net_series[] = {
	[GPULAT_NET_TX] =
		JUDGED("net.tx", GL_KEY_NETDEV, GL_LAYER_NETWORK, 1 * MS, 100,
		       M(GL_METRIC_NET, "stage=\"tx\"")),
	[GPULAT_NET_BACKLOG] =
		JUDGED("net.backlog", GL_KEY_NETDEV, GL_LAYER_NETWORK, 1 * MS,
		       100, M(GL_METRIC_NET, "stage=\"backlog\"")),
};

/* An NVIDIA handler is the driver's; others take CPU time. */
static const struct gl_series_info irq_series[] = {
	[GPULAT_IRQ_HANDLER] = {
		.name = "irq.handler", .key = GL_KEY_IRQ, .judged = true,
		.layer = GL_LAYER_SCHED, .driver_key_prefix = "nvidia",
		.expect_p99_ns = 100 * US, .weight = 100,
		M(GL_METRIC_IRQ, ""),
	},
};

/*
 * The NET_TX and NET_RX vectors are the network's, the others take CPU
 * time (half weight).  net_rx_action() stops after 2 ms; so may a wait.
 */
#define SOFTIRQ(vec, l, w) \
	[GPULAT_SOFTIRQ_SERIES(vec, GPULAT_SOFTIRQ_WAIT)] = \
		JUDGED("softirq.wait", GL_KEY_VECTOR, l, 2 * MS, w, \
		       M(GL_METRIC_SOFTIRQ, "stage=\"wait\"")), \
	[GPULAT_SOFTIRQ_SERIES(vec, GPULAT_SOFTIRQ_RUN)] = \
		JUDGED("softirq.run", GL_KEY_VECTOR, l, 2 * MS, w, \
		       M(GL_METRIC_SOFTIRQ, "stage=\"run\""))

static const struct gl_series_info softirq_series[] = {
	SOFTIRQ(0, GL_LAYER_SCHED, 50),		/* HI */
	SOFTIRQ(1, GL_LAYER_SCHED, 50),		/* TIMER */
	SOFTIRQ(2, GL_LAYER_NETWORK, 100),	/* NET_TX */
	SOFTIRQ(3, GL_LAYER_NETWORK, 100),	/* NET_RX */
	SOFTIRQ(4, GL_LAYER_SCHED, 50),		/* BLOCK */
	SOFTIRQ(5, GL_LAYER_SCHED, 50),		/* IRQ_POLL */
	SOFTIRQ(6, GL_LAYER_SCHED, 50),		/* TASKLET */
	SOFTIRQ(7, GL_LAYER_SCHED, 50),		/* SCHED */
	SOFTIRQ(8, GL_LAYER_SCHED, 50),		/* HRTIMER */
	SOFTIRQ(9, GL_LAYER_SCHED, 50),		/* RCU */
};

_Static_assert(ARRAY_SIZE(softirq_series) == 2 * GPULAT_SOFTIRQ_NR_VECS,
	       "a row per softirq vector and kind");

static const struct gl_series_info nvidia_series[] = {
	[GPULAT_NV_HARDIRQ] =
		JUDGED("nvidia.hardirq", GL_KEY_IRQ, GL_LAYER_DRIVER, 100 * US,
		       100, M(GL_METRIC_NVIDIA_IRQ, "path=\"hardirq\"")),
	[GPULAT_NV_THREAD_WAKE] =
		JUDGED("nvidia.thread.wake", GL_KEY_IRQ, GL_LAYER_DRIVER,
		       500 * US, 100,
		       M(GL_METRIC_NVIDIA_IRQ, "path=\"thread_wake\"")),
	[GPULAT_NV_THREAD_RUN] =
		JUDGED("nvidia.thread.run", GL_KEY_IRQ, GL_LAYER_DRIVER, 1 * MS,
		       100, M(GL_METRIC_NVIDIA_IRQ, "path=\"thread_run\"")),
	[GPULAT_NV_KTHREAD_WAKE] =
		JUDGED("nvidia.kthread.wake", GL_KEY_PID, GL_LAYER_DRIVER,
		       1 * MS, 100, M(GL_METRIC_NVIDIA_KTHREAD, "")),
};

static const struct gl_series_info mm_series[] = {
	[GPULAT_MM_DIRECT_RECLAIM] =
		JUDGED("mm.direct_reclaim", GL_KEY_NONE, GL_LAYER_MEMORY, 1 * MS,
		       100, M(GL_METRIC_MM, "kind=\"direct_reclaim\"")),
	[GPULAT_MM_COMPACTION] =
		JUDGED("mm.compaction", GL_KEY_NONE, GL_LAYER_MEMORY, 1 * MS,
		       100, M(GL_METRIC_MM, "kind=\"compaction\"")),
	/* background compaction: no task waits for it */
	[GPULAT_MM_COMPACTION_BG] = {
		.name = "mm.compaction_bg", .key = GL_KEY_NONE, .judged = false,
		.layer = GL_LAYER_MEMORY, .expect_p99_ns = 1 * MS,
		.weight = 100, M(GL_METRIC_MM, "kind=\"compaction_bg\""),
	},
	/* a cgroup at its memory.high or memory.max: its own tasks stall */
	[GPULAT_MM_MEMCG_RECLAIM] =
		JUDGED("mm.memcg_reclaim", GL_KEY_NONE, GL_LAYER_MEMORY, 1 * MS,
		       100, M(GL_METRIC_MM, "kind=\"memcg_reclaim\"")),
};

/*
 * Per-cgroup copies of samples the sched, block and mm series already
 * count: not judged again (the diagnosis ranks cgroups from them apart).
 */
#define CGROUP(id, n, l, kind) \
	[id] = { .name = (n), .key = GL_KEY_CGROUP, .judged = false, \
		 .layer = (l), M(GL_METRIC_CGROUP, "kind=\"" kind "\"") }

static const struct gl_series_info cgroup_series[] = {
	CGROUP(GPULAT_CG_WAKEUP, "cgroup.wakeup", GL_LAYER_SCHED, "wakeup"),
	CGROUP(GPULAT_CG_PREEMPT, "cgroup.preempt", GL_LAYER_SCHED, "preempt"),
	CGROUP(GPULAT_CG_BLOCK, "cgroup.block", GL_LAYER_STORAGE, "block"),
	CGROUP(GPULAT_CG_MEMCG, "cgroup.memcg_reclaim", GL_LAYER_MEMORY,
	       "memcg_reclaim"),
};

#define SERIES(a)	.series = (a), .nr_series = ARRAY_SIZE(a)

/* The one table of probe families, indexed by enum gpulat_family_id. */
static const struct gl_family_info gl_families[] = {
	[GPULAT_FAM_SCHED] = {
		.id = GPULAT_FAM_SCHED, .name = "sched", .key = GL_KEY_NONE,
		.layer = GL_LAYER_SCHED, SERIES(sched_series),
	},
	[GPULAT_FAM_BLOCK] = {
		.id = GPULAT_FAM_BLOCK, .name = "block", .key = GL_KEY_DISK,
		.key_label = "disk", .layer = GL_LAYER_STORAGE,
		SERIES(block_series),
	},
	[GPULAT_FAM_NET] = {
		.id = GPULAT_FAM_NET, .name = "net", .key = GL_KEY_NETDEV,
		.key_label = "dev", .layer = GL_LAYER_NETWORK,
		SERIES(net_series),
	},
	[GPULAT_FAM_IRQ] = {
		.id = GPULAT_FAM_IRQ, .name = "irq", .key = GL_KEY_IRQ,
		.key_label = "irq", .layer = GL_LAYER_NONE,
		SERIES(irq_series),
	},
	[GPULAT_FAM_SOFTIRQ] = {
		.id = GPULAT_FAM_SOFTIRQ, .name = "softirq",
		.key = GL_KEY_VECTOR, .key_label = "vec",
		.layer = GL_LAYER_NONE, SERIES(softirq_series),
	},
	[GPULAT_FAM_NVIDIA] = {
		.id = GPULAT_FAM_NVIDIA, .name = "nvidia", .key = GL_KEY_NONE,
		.key_label = "nv", .layer = GL_LAYER_DRIVER,
		SERIES(nvidia_series),
	},
	[GPULAT_FAM_MM] = {
		.id = GPULAT_FAM_MM, .name = "mm", .key = GL_KEY_NONE,
		.layer = GL_LAYER_MEMORY, SERIES(mm_series),
	},
	[GPULAT_FAM_CGROUP] = {
		.id = GPULAT_FAM_CGROUP, .name = "cgroup", .key = GL_KEY_CGROUP,
		.key_label = "cgroup", .layer = GL_LAYER_NONE, .copies = true,
		SERIES(cgroup_series),
	},
};

_Static_assert(ARRAY_SIZE(gl_families) == GPULAT_FAM_MAX,
	       "enum gpulat_family_id has a family without a row here");

/* The kernel's softirq vectors (softirq_to_name), stable. */
static const struct gl_vector_info gl_vectors[GPULAT_SOFTIRQ_NR_VECS] = {
	{ .name = "HI" },
	{ .name = "TIMER" },
	{ .name = "NET_TX", .also_family = GPULAT_FAM_NET },
	{ .name = "NET_RX", .also_family = GPULAT_FAM_NET },
	{ .name = "BLOCK" },
	{ .name = "IRQ_POLL" },
	{ .name = "TASKLET" },
	{ .name = "SCHED" },
	{ .name = "HRTIMER" },
	{ .name = "RCU" },
};

/* gl_family - the row of @family; NULL if the table has none */
const struct gl_family_info *gl_family(uint32_t family)
{
	if (family >= ARRAY_SIZE(gl_families) || !gl_families[family].id)
		return NULL;
	return &gl_families[family];
}

/* gl_series_info - the row of series @id of @family; NULL if unknown */
const struct gl_series_info *gl_series_info(uint32_t family, uint32_t id)
{
	const struct gl_family_info *f = gl_family(family);

	if (!f || id >= f->nr_series || !f->series[id].name)
		return NULL;
	return &f->series[id];
}

/* gl_vector_info - softirq vector @vec; NULL past GPULAT_SOFTIRQ_NR_VECS */
const struct gl_vector_info *gl_vector_info(uint64_t vec)
{
	return vec < ARRAY_SIZE(gl_vectors) ? &gl_vectors[vec] : NULL;
}

/* gl_metric_info - the row of @m; NULL for GL_METRIC_NONE and past the end */
const struct gl_metric_info *gl_metric_info(enum gl_metric m)
{
	if ((unsigned int)m >= ARRAY_SIZE(gl_metrics) || !gl_metrics[m].name)
		return NULL;
	return &gl_metrics[m];
}

/* gl_family_name - "sched" for GPULAT_FAM_SCHED; NULL if unknown */
const char *gl_family_name(uint32_t family)
{
	const struct gl_family_info *f = gl_family(family);

	return f ? f->name : NULL;
}

/* gl_family_lookup - family number of @name, or -ENOENT */
int gl_family_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gl_families); i++)
		if (gl_families[i].id && !strcmp(gl_families[i].name, name))
			return gl_families[i].id;
	return -ENOENT;
}

/* gl_family_count - families of the table */
size_t gl_family_count(void)
{
	size_t i, n = 0;

	for (i = 0; i < ARRAY_SIZE(gl_families); i++)
		n += gl_families[i].id != 0;
	return n;
}

/* gl_family_at - family number of table entry @i (0 past the end) */
uint32_t gl_family_at(size_t i)
{
	size_t j;

	for (j = 0; j < ARRAY_SIZE(gl_families); j++)
		if (gl_families[j].id && !i--)
			return gl_families[j].id;
	return 0;
}

/* gl_series_name - "sched.wakeup", or "family9.series0" when unknown */
const char *gl_series_name(char *buf, size_t len, uint32_t family,
			   uint32_t id)
{
	const struct gl_series_info *si = gl_series_info(family, id);

	if (si)
		snprintf(buf, len, "%s", si->name);
	else
		snprintf(buf, len, "family%u.series%u", family, id);
	return buf;
}

/* gl_key_kind - kind of key of series @id of @family */
enum gl_key_kind gl_key_kind(uint32_t family, uint32_t id)
{
	const struct gl_series_info *si = gl_series_info(family, id);
	const struct gl_family_info *f = gl_family(family);

	if (si)
		return si->key;
	return f ? f->key : GL_KEY_NONE;
}

/* gl_key_text - the key of @sr as people name it; "" when it has none */
const char *gl_key_text(char *buf, size_t len, const struct gpulat_series *sr)
{
	char name[GPULAT_NAME_LEN], raw[2 * GPULAT_NAME_LEN + 32];
	unsigned long long key = sr->key;
	bool named;

	units_printable(name, sizeof(name), sr->key_name);
	named = name[0] != '\0';
	if (!sr->key && !sr->key_name[0]) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	switch (gl_key_kind(sr->family, sr->id)) {
	case GL_KEY_CGROUP: {
		char path[PATH_MAX];

		/* the path from the mount, if this host still has it */
		if (gl_cg_path(sr->key, path, sizeof(path)))
			return units_printable(buf, len, path);
		snprintf(raw, sizeof(raw), "cgroup %llu%s%s", key,
			 named ? " " : "", name);
		break;
	}
	case GL_KEY_IRQ:
		/* bits 32-63 only tell handlers of a shared line apart */
		snprintf(raw, sizeof(raw), "irq %u%s%s",
			 (unsigned int)(key & 0xffffffffu), named ? " " : "",
			 name);
		break;
	case GL_KEY_PID:
		snprintf(raw, sizeof(raw), "pid %llu%s%s", key,
			 named ? " " : "", name);
		break;
	case GL_KEY_DISK:
		if (named)
			snprintf(raw, sizeof(raw), "%s", name);
		else
			snprintf(raw, sizeof(raw), "dev %llu:%llu", key >> 20,
				 key & 0xfffff);
		break;
	case GL_KEY_NETDEV:
		if (named)
			snprintf(raw, sizeof(raw), "%s", name);
		else
			snprintf(raw, sizeof(raw), "ifindex %llu", key);
		break;
	case GL_KEY_VECTOR:
		if (named)
			snprintf(raw, sizeof(raw), "%s", name);
		else
			snprintf(raw, sizeof(raw), "vector %llu", key);
		break;
	case GL_KEY_NONE:
	default:
		if (named)
			snprintf(raw, sizeof(raw), "%s", name);
		else
			snprintf(raw, sizeof(raw), "key %llu", key);
		break;
	}
	snprintf(buf, len, "%s", raw);
	return buf;
}

/* gl_series_layer - the layer series @si counts for, given its key's name */
enum gl_layer gl_series_layer(const struct gl_series_info *si,
			      const char *key_name)
{
	if (!si)
		return GL_LAYER_NONE;
	if (si->driver_key_prefix &&
	    !strncmp(key_name, si->driver_key_prefix,
		     strlen(si->driver_key_prefix)))
		return GL_LAYER_DRIVER;
	return si->layer;
}

/* gl_layer_family - the family whose probes measure @layer; 0: none */
uint32_t gl_layer_family(enum gl_layer layer)
{
	size_t i;

	if (layer >= GL_NR_LAYERS)
		return 0;
	for (i = 0; i < ARRAY_SIZE(gl_families); i++)
		if (gl_families[i].id && gl_families[i].layer == layer)
			return gl_families[i].id;
	return 0;
}
