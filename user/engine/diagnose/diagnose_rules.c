// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: the rules as data.  How each series counts (its layer,
 * its expected p99, its weight, whether it is judged at all) is its row of
 * the family table, user/lib/family.c, the one table of families in user
 * space; the expected p99s are the table of Documentation/runbook.rst,
 * section "gpulat diagnose".  A family the ABI adds without a row there
 * does not build; one with no series judged, or a rule out of range,
 * fails diag_rules_check(), which the unit tests run.  Here: the layers'
 * names and the meaning of the Xid codes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/diagnose/diagnose_int.h"

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

/* diag_layer_name - "driver", "network", "storage", "scheduler", "memory" */
const char *diag_layer_name(enum diag_layer l)
{
	return l < DIAG_NR_LAYERS ? diag_names[l] : "none";
}

/* The layers of the family table are diagnose's, in the same order. */
_Static_assert((int)GL_NR_LAYERS == (int)DIAG_NR_LAYERS &&
	       (int)GL_LAYER_DRIVER == (int)DIAG_DRIVER &&
	       (int)GL_LAYER_NETWORK == (int)DIAG_NETWORK &&
	       (int)GL_LAYER_STORAGE == (int)DIAG_STORAGE &&
	       (int)GL_LAYER_SCHED == (int)DIAG_SCHED &&
	       (int)GL_LAYER_MEMORY == (int)DIAG_MEMORY,
	       "enum gl_layer (family.h) and enum diag_layer differ");

/* diag_layer_family - see diagnose_int.h */
uint32_t diag_layer_family(enum diag_layer l)
{
	return gl_layer_family((enum gl_layer)l);
}

/* diag_rule_of - see diagnose_int.h: the series' row of the family table */
bool diag_rule_of(const struct gpulat_series *sr, struct diag_rule *r)
{
	const struct gl_series_info *si = gl_series_info(sr->family, sr->id);
	enum gl_layer layer;

	if (!si || !si->judged)
		return false;
	layer = gl_series_layer(si, sr->key_name);
	if (layer >= GL_NR_LAYERS)
		return false;
	r->layer = (enum diag_layer)layer;
	r->expect_ns = si->expect_p99_ns;
	r->weight = si->weight;
	return true;
}

/* diag_rules_check - see diagnose.h */
int diag_rules_check(char *why, size_t len)
{
	uint32_t f, id;
	size_t judged;
	int l;

	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		const struct gl_family_info *fi = gl_family(f);

		if (!fi) {
			snprintf(why, len, "family %u has no row in the family table",
				 f);
			return -EINVAL;
		}
		for (id = 0, judged = 0; id < fi->nr_series; id++) {
			const struct gl_series_info *si = gl_series_info(f, id);

			if (si && si->judged && fi->copies) {
				snprintf(why, len,
					 "%s: a copy of other series is judged twice",
					 si->name);
				return -EINVAL;
			}
			if (!si || !si->judged)
				continue;
			judged++;
			if (si->layer >= GL_NR_LAYERS || !si->expect_p99_ns ||
			    !si->weight || si->weight > 100) {
				snprintf(why, len,
					 "%s: the diagnosis rule is not valid",
					 si->name);
				return -EINVAL;
			}
		}
		if (!judged && !fi->copies) {
			snprintf(why, len,
				 "family %s has no series a diagnosis judges",
				 fi->name);
			return -EINVAL;
		}
	}
	for (l = 0; l < DIAG_NR_LAYERS; l++) {
		if (!diag_layer_family(l)) {
			snprintf(why, len, "no family measures the %s layer",
				 diag_names[l]);
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
