// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat family table: every probe family and series user space knows,
 * with how its key prints and the rule a diagnosis judges it by.  The
 * series, their rules and metrics are kmod/gpulat_series.h's, expanded
 * here; Documentation/'s tables are made from this table (make gen).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "gpulat_series.h"
#include "lib/array_size.h"
#include "lib/cgroup.h"
#include "lib/family.h"
#include "lib/units.h"


#define US	1000ULL

/* A row of a GPULAT_DECL_<FAMILY>() list (gpulat_series.h), at its id. */
#define ROW(fam, id, name_, what_, key, rule, metric) \
	[id] = { .name = (name_), .what = (what_), ROW_KEY key, \
		 ROW_RULE rule, ROW_METRIC metric },
#define ROW_KEY(kind, value, kname)	.key = GL_KEY_##kind
#define ROW_RULE(l, p99_us, w, j, drv) \
	.layer = GL_LAYER_##l, .expect_p99_ns = (p99_us) * US, \
	.weight = (w), .judged = (j), .driver_key_prefix = (drv)
#define ROW_METRIC(m, labels) \
	.metric = GL_METRIC_##m, .metric_labels = (labels)

/* Prometheus metrics: the unit is the second, as its conventions ask. */
#define METRIC(id, name_, help_, gpu) \
	[GL_METRIC_##id] = { .name = (name_), .help = (help_), \
			     .key_is_gpu = (gpu) },

static const struct gl_metric_info gl_metrics[GL_NR_METRICS] = {
	GPULAT_METRICS(METRIC)
};

static const struct gl_series_info sched_series[] = { GPULAT_DECL_SCHED(ROW) };
static const struct gl_series_info block_series[] = { GPULAT_DECL_BLOCK(ROW) };
static const struct gl_series_info net_series[] = { GPULAT_DECL_NET(ROW) };
static const struct gl_series_info irq_series[] = { GPULAT_DECL_IRQ(ROW) };
static const struct gl_series_info softirq_series[] = {
	GPULAT_DECL_SOFTIRQ(ROW)
};

_Static_assert(ARRAY_SIZE(softirq_series) == 2 * GPULAT_SOFTIRQ_NR_VECS,
	       "a row per softirq vector and kind");

static const struct gl_series_info nvidia_series[] = {
	GPULAT_DECL_NVIDIA(ROW)
};
static const struct gl_series_info mm_series[] = { GPULAT_DECL_MM(ROW) };
static const struct gl_series_info cgroup_series[] = {
	GPULAT_DECL_CGROUP(ROW)
};
static const struct gl_series_info cuda_series[] = { GPULAT_DECL_CUDA(ROW) };

/* A families.h row, its series gpulat_series.h's GPULAT_DECL_<NAME>(). */
#define FAMILY(name_, id_, threshold_us, keeps, tool) \
	[id_] = { .id = (id_), .name = #name_, FAMILY_TOOL tool, \
		  .series = name_##_series, \
		  .nr_series = ARRAY_SIZE(name_##_series) },
#define FAMILY_TOOL(k, label, l, cp) \
	.key = GL_KEY_##k, .key_label = (label), .layer = GL_LAYER_##l, \
	.copies = (cp)

/* The one table of probe families, indexed by enum gpulat_family_id. */
static const struct gl_family_info gl_families[] = {
#define GPULAT_FAMILY FAMILY
#include "families.h"
#undef GPULAT_FAMILY
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
	case GL_KEY_PROCESS:
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
