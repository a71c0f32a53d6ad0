// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: the rules as data.  How each series counts (its layer,
 * its expected p99, its weight) is a row of diag_rules below, found by
 * family; the expected p99s are the table of Documentation/runbook.rst,
 * section "gpulat diagnose".  Every family of the module has its entry:
 * a family added to the ABI without one does not build (the array's size
 * is checked against GPULAT_FAM_MAX), and an entry left empty fails
 * diag_rules_check(), which the unit tests run.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "diagnose_int.h"

const char *const diag_names[DIAG_NR_LAYERS] = {
	[DIAG_DRIVER]	= "driver",
	[DIAG_NETWORK]	= "network",
	[DIAG_STORAGE]	= "storage",
	[DIAG_SCHED]	= "scheduler",
	[DIAG_MEMORY]	= "memory",
};

const char *const diag_titles[DIAG_NR_LAYERS] = {
	[DIAG_DRIVER]	= "GPU driver interrupt path",
	[DIAG_NETWORK]	= "network",
	[DIAG_STORAGE]	= "storage",
	[DIAG_SCHED]	= "scheduler (waits for a CPU)",
	[DIAG_MEMORY]	= "memory (reclaim and compaction stalls)",
};

/* The families whose probes measure each layer. */
const uint32_t diag_families[DIAG_NR_LAYERS] = {
	[DIAG_DRIVER]	= GPULAT_FAM_NVIDIA,
	[DIAG_NETWORK]	= GPULAT_FAM_NET,
	[DIAG_STORAGE]	= GPULAT_FAM_BLOCK,
	[DIAG_SCHED]	= GPULAT_FAM_SCHED,
	[DIAG_MEMORY]	= GPULAT_FAM_MM,
};

/* diag_layer_name - "driver", "network", "storage", "scheduler", "memory" */
const char *diag_layer_name(enum diag_layer l)
{
	return l < DIAG_NR_LAYERS ? diag_names[l] : "none";
}

#define US	1000ULL
#define MS	1000000ULL

/*
 * One row: the series of its family whose id / @div lies in [@first,
 * @last] (and, with @key_prefix, whose key name starts so) count in
 * @layer with @expect_ns and @weight percent.  The first row that matches
 * wins; a series no row matches does not count.
 */
struct diag_rule_row {
	uint32_t div, first, last;
	const char *key_prefix;
	enum diag_layer layer;
	uint64_t expect_ns;
	unsigned int weight;
};

static const struct diag_rule_row diag_rows_sched[] = {
	{ 1, GPULAT_SCHED_WAKEUP, GPULAT_SCHED_WAKEUP, NULL,
	  DIAG_SCHED, 1 * MS, 100 },
	/* CPU-bound threads taking turns: slices of ms */
	{ 1, GPULAT_SCHED_PREEMPT, GPULAT_SCHED_PREEMPT, NULL,
	  DIAG_SCHED, 5 * MS, 50 },
};

static const struct diag_rule_row diag_rows_block[] = {
	/* id = GPULAT_BLOCK_SERIES(op, kind): by op */
	/* flushes and discards of healthy disks take longer */
	{ 2, GPULAT_BLOCK_FLUSH, GPULAT_BLOCK_DISCARD, NULL,
	  DIAG_STORAGE, 50 * MS, 100 },
	{ 2, 0, GPULAT_BLOCK_NR_OPS - 1, NULL, DIAG_STORAGE, 20 * MS, 100 },
};

static const struct diag_rule_row diag_rows_net[] = {
	{ 1, GPULAT_NET_TX, GPULAT_NET_BACKLOG, NULL,
	  DIAG_NETWORK, 1 * MS, 100 },
};

static const struct diag_rule_row diag_rows_irq[] = {
	/* an NVIDIA handler is the driver's; others take CPU time */
	{ 1, GPULAT_IRQ_HANDLER, GPULAT_IRQ_HANDLER, "nvidia",
	  DIAG_DRIVER, 100 * US, 100 },
	{ 1, GPULAT_IRQ_HANDLER, GPULAT_IRQ_HANDLER, NULL,
	  DIAG_SCHED, 100 * US, 100 },
};

static const struct diag_rule_row diag_rows_softirq[] = {
	/* id = vector * 2 + kind; net_rx_action() stops after 2 ms; so may a wait */
	{ 2, VIEW_NET_TX_SOFTIRQ, VIEW_NET_RX_SOFTIRQ, NULL,
	  DIAG_NETWORK, 2 * MS, 100 },
	{ 2, 0, GPULAT_SOFTIRQ_NR_VECS - 1, NULL, DIAG_SCHED, 2 * MS, 50 },
};

static const struct diag_rule_row diag_rows_nvidia[] = {
	{ 1, GPULAT_NV_HARDIRQ, GPULAT_NV_HARDIRQ, NULL,
	  DIAG_DRIVER, 100 * US, 100 },
	{ 1, GPULAT_NV_THREAD_WAKE, GPULAT_NV_THREAD_WAKE, NULL,
	  DIAG_DRIVER, 500 * US, 100 },
	{ 1, GPULAT_NV_THREAD_RUN, GPULAT_NV_KTHREAD_WAKE, NULL,
	  DIAG_DRIVER, 1 * MS, 100 },
};

static const struct diag_rule_row diag_rows_mm[] = {
	/* not GPULAT_MM_COMPACTION_BG: no task waits for kcompactd */
	{ 1, GPULAT_MM_DIRECT_RECLAIM, GPULAT_MM_COMPACTION, NULL,
	  DIAG_MEMORY, 1 * MS, 100 },
};

struct diag_family_rules {
	const struct diag_rule_row *rows;
	size_t nr;
};

#define DIAG_ROWS(a)	{ a, ARRAY_SIZE(a) }

/* Every family of the ABI, by number. */
static const struct diag_family_rules diag_rules[] = {
	[GPULAT_FAM_SCHED]	= DIAG_ROWS(diag_rows_sched),
	[GPULAT_FAM_BLOCK]	= DIAG_ROWS(diag_rows_block),
	[GPULAT_FAM_NET]	= DIAG_ROWS(diag_rows_net),
	[GPULAT_FAM_IRQ]	= DIAG_ROWS(diag_rows_irq),
	[GPULAT_FAM_SOFTIRQ]	= DIAG_ROWS(diag_rows_softirq),
	[GPULAT_FAM_NVIDIA]	= DIAG_ROWS(diag_rows_nvidia),
	[GPULAT_FAM_MM]		= DIAG_ROWS(diag_rows_mm),
};

_Static_assert(ARRAY_SIZE(diag_rules) == GPULAT_FAM_MAX,
	       "a family of the ABI has no diagnosis rules (diag_rules)");

/* diag_row_matches - whether @row covers series @sr */
static bool diag_row_matches(const struct diag_rule_row *row,
			     const struct gpulat_series *sr)
{
	uint32_t id = sr->id / row->div;

	if (id < row->first || id > row->last)
		return false;
	return !row->key_prefix ||
	       !strncmp(sr->key_name, row->key_prefix,
			strlen(row->key_prefix));
}

/* diag_rule_of - see diagnose_int.h */
bool diag_rule_of(const struct gpulat_series *sr, struct diag_rule *r)
{
	const struct diag_family_rules *fr;
	size_t i;

	if (sr->family >= ARRAY_SIZE(diag_rules))
		return false;
	fr = &diag_rules[sr->family];
	for (i = 0; i < fr->nr; i++) {
		const struct diag_rule_row *row = &fr->rows[i];

		if (!diag_row_matches(row, sr))
			continue;
		r->layer = row->layer;
		r->expect_ns = row->expect_ns;
		r->weight = row->weight;
		return true;
	}
	return false;
}

/* diag_rules_check - see diagnose.h */
int diag_rules_check(char *why, size_t len)
{
	uint32_t f;
	size_t i;

	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		const struct diag_family_rules *fr = &diag_rules[f];
		const char *name = gl_family_name(f);

		if (!fr->nr) {
			snprintf(why, len, "family %u (%s) has no diagnosis rules",
				 f, name ? name : "?");
			return -EINVAL;
		}
		for (i = 0; i < fr->nr; i++) {
			const struct diag_rule_row *row = &fr->rows[i];

			if (!row->div || row->first > row->last ||
			    row->layer >= DIAG_NR_LAYERS || !row->expect_ns ||
			    !row->weight || row->weight > 100) {
				snprintf(why, len,
					 "family %u (%s): rule %zu is not valid",
					 f, name ? name : "?", i);
				return -EINVAL;
			}
		}
	}
	for (i = 0; i < DIAG_NR_LAYERS; i++) {
		if (!diag_families[i] || diag_families[i] >= GPULAT_FAM_MAX) {
			snprintf(why, len, "layer %s has no family", diag_names[i]);
			return -EINVAL;
		}
	}
	return 0;
}

/* --- Xid events ------------------------------------------------------- */

static const struct {
	uint32_t code;
	enum diag_xid_class cls;
	const char *meaning;
} diag_xid_table[] = {
	{ 13, DIAG_XID_PROCESS, "graphics engine exception" },
	{ 31, DIAG_XID_PROCESS, "GPU memory page fault" },
	{ 43, DIAG_XID_PROCESS, "GPU stopped processing" },
	{ 45, DIAG_XID_PROCESS, "preemptive cleanup after an earlier error" },
	{ 48, DIAG_XID_RESET, "double-bit ECC error" },
	{ 63, DIAG_XID_RESET, "ECC page retirement or row remapping event" },
	{ 64, DIAG_XID_RESET, "ECC page retirement or row remapping failure" },
	{ 79, DIAG_XID_STALL, "GPU has fallen off the bus" },
	{ 92, DIAG_XID_STALL, "high single-bit ECC error rate" },
	{ 94, DIAG_XID_PROCESS, "contained ECC error" },
	{ 95, DIAG_XID_RESET, "uncontained ECC error" },
	{ 119, DIAG_XID_STALL, "GSP RPC timeout" },
	{ 120, DIAG_XID_STALL, "GSP error" },
	{ 154, DIAG_XID_RESET, "GPU recovery action changed: reset needed" },
	{ 167, DIAG_XID_STALL, "PCIe bus error or timeout" },
};

/* diag_xid_meaning - see diagnose_int.h */
const char *diag_xid_meaning(uint32_t code, enum diag_xid_class *cls)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(diag_xid_table); i++) {
		if (diag_xid_table[i].code == code) {
			if (cls)
				*cls = diag_xid_table[i].cls;
			return diag_xid_table[i].meaning;
		}
	}
	if (cls)
		*cls = DIAG_XID_OTHER;
	return "see NVIDIA's Xid catalog";
}
