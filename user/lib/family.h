/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgpulat family table: what user space knows of each probe family and
 * its series, in one place (family.c).  The module sends series and key
 * names in every snapshot; this table has what it does not send: the
 * series names known without a snapshot (trace records), the kind of
 * key and how to print it, and the rules a diagnosis judges a series by.
 *
 * A family the module adds needs its row here: family.c does not compile
 * while enum gpulat_family_id has a family past the table's last row.
 */
#ifndef _GPULAT_USER_FAMILY_H
#define _GPULAT_USER_FAMILY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpulat_series.h"
#include "uapi/gpulat.h"

/*
 * The layers a diagnosis ranks, in the order of enum diag_layer
 * (diagnose.h); GL_LAYER_NONE: a family whose series go to several.
 */
enum gl_layer {
	GL_LAYER_DRIVER,	/* nvidia family, nvidia IRQ handlers, Xids */
	GL_LAYER_NETWORK,	/* net family, NET_RX/NET_TX softirqs */
	GL_LAYER_STORAGE,	/* block family */
	GL_LAYER_SCHED,		/* sched family, other IRQs and softirqs */
	GL_LAYER_MEMORY,	/* mm family */
	GL_NR_LAYERS,
	GL_LAYER_NONE = GL_NR_LAYERS,
};

/* What struct gpulat_series.key holds, and so how it is printed. */
enum gl_key_kind {
	GL_KEY_NONE,	/* no key, or one the table does not know: "key N" */
	GL_KEY_DISK,	/* dev_t, MAJOR << 20 | MINOR: "dev 8:16" unnamed */
	GL_KEY_NETDEV,	/* ifindex (netns inode in bits 32-63): "ifindex 4" */
	GL_KEY_IRQ,	/* IRQ number in bits 0-31: "irq 130 NAME" */
	GL_KEY_PID,	/* a kthread's pid: "pid 4242 NAME" */
	GL_KEY_VECTOR,	/* softirq vector: "NET_RX", "vector 9" unnamed */
	GL_KEY_CGROUP,	/* cgroup (v2) id: its path, "cgroup 4242" unknown */
	GL_KEY_PROCESS,	/* a process's tgid: "pid 4242 NAME" */
};

/*
 * The Prometheus metric a series is exported as (engine/serve/prom.c,
 * Documentation/fleet.rst); several series share one, told apart by
 * their fixed labels.
 */
enum gl_metric {
	GL_METRIC_NONE,
#define GL_METRIC_ENUM(id, name, help, gpu)	GL_METRIC_##id,
	GPULAT_METRICS(GL_METRIC_ENUM)
#undef GL_METRIC_ENUM
	GL_NR_METRICS,
};

struct gl_metric_info {
	const char *name;	/* "gpulat_runqueue_latency_seconds" */
	const char *help;	/* start event -> end event */
	/*
	 * how its key is labelled: an IRQ key names the GPU behind it
	 * (gpu, irq) instead of the handler (irq, handler)
	 */
	bool key_is_gpu;
};

/* One series of a family (struct gpulat_series.id). */
struct gl_series_info {
	const char *name;	/* "sched.wakeup", as the module names it */
	const char *what;	/* its start event -> its end event */
	enum gl_key_kind key;
	/* The diagnosis rule: */
	bool judged;		/* false: a diagnosis leaves it out */
	enum gl_layer layer;	/* the layer its waits count for */
	/*
	 * A key whose name starts with this counts for GL_LAYER_DRIVER
	 * instead ("nvidia": an NVIDIA IRQ handler is the driver's); NULL:
	 * none
	 */
	const char *driver_key_prefix;
	uint64_t expect_p99_ns;	/* expected p99 (Documentation/runbook.rst) */
	unsigned int weight;	/* percent of its excess that counts */
	/* Its metric, and the labels that tell it from the metric's others. */
	enum gl_metric metric;
	const char *metric_labels;	/* "kind=\"wakeup\"" */
};

/* One probe family (enum gpulat_family_id). */
struct gl_family_info {
	uint32_t id;		/* enum gpulat_family_id; 0: no such family */
	const char *name;	/* "sched", as FAMILY arguments name it */
	enum gl_key_kind key;	/* of its series that the table does not list */
	const char *key_label;	/* trace text: "disk" in "disk sda"; NULL: keyless */
	enum gl_layer layer;	/* the layer its probes measure, or NONE */
	/*
	 * true: its series count again, per key, samples that other
	 * families' series count; they have no rule of their own (a
	 * diagnosis ranks their keys apart, never sums them into a layer)
	 */
	bool copies;
	const struct gl_series_info *series;	/* indexed by series id */
	uint32_t nr_series;
};

/* One softirq vector (struct gpulat_series.key of GL_KEY_VECTOR). */
struct gl_vector_info {
	const char *name;	/* "NET_RX", the kernel's softirq_to_name */
	uint32_t also_family;	/* its series also pass this FAMILY filter */
};

/* gl_family - the row of @family; NULL if the table has none */
const struct gl_family_info *gl_family(uint32_t family);
/* gl_series_info - the row of series @id of @family; NULL if unknown */
const struct gl_series_info *gl_series_info(uint32_t family, uint32_t id);
/* gl_vector_info - softirq vector @vec; NULL past GPULAT_SOFTIRQ_NR_VECS */
const struct gl_vector_info *gl_vector_info(uint64_t vec);

/* gl_metric_info - the row of @m; NULL for GL_METRIC_NONE and past the end */
const struct gl_metric_info *gl_metric_info(enum gl_metric m);

/* gl_family_name - "sched" for GPULAT_FAM_SCHED; NULL if unknown */
const char *gl_family_name(uint32_t family);
/* gl_family_lookup - family number of @name, or -ENOENT */
int gl_family_lookup(const char *name);
/* gl_family_count - families of the table, for gl_family_at() */
size_t gl_family_count(void);
/* gl_family_at - family number of table entry @i (0 past the end) */
uint32_t gl_family_at(size_t i);

/*
 * gl_series_name - "sched.wakeup" for (family, series) without a
 * snapshot; "family9.series0" when the table does not know it
 */
const char *gl_series_name(char *buf, size_t len, uint32_t family,
			   uint32_t id);
/* gl_key_kind - kind of key of series @id of @family */
enum gl_key_kind gl_key_kind(uint32_t family, uint32_t id);
/*
 * gl_key_text - the key of @sr as people name it: "nullb0", "eth0",
 * "irq 11 eth0", "NET_RX", "pid 123 nv_queue"; "" when it has none.
 * Printable ASCII only (names come from the kernel).
 */
const char *gl_key_text(char *buf, size_t len, const struct gpulat_series *sr);

/*
 * gl_series_layer - the layer series @si counts for, given its key's
 * name (@key_name: NUL-terminated, may be "")
 */
enum gl_layer gl_series_layer(const struct gl_series_info *si,
			      const char *key_name);
/* gl_layer_family - the family whose probes measure @layer; 0: none */
uint32_t gl_layer_family(enum gl_layer layer);

#endif /* _GPULAT_USER_FAMILY_H */
