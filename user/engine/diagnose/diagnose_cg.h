/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat diagnose by cgroup: which cgroup's tasks held the CPU while
 * another cgroup's tasks waited (from the culprits of sched records),
 * which cgroups issued the slow I/O and which reclaimed at their memory
 * limit, with the limits read from their cgroup directories.
 */
#ifndef _GPULAT_USER_DIAGNOSE_CG_H
#define _GPULAT_USER_DIAGNOSE_CG_H

#include "engine/cgview/cgview.h"
#include "lib/json.h"

/* Rows a layer lists at most; pairs or cgroups past the table counted. */
#define DIAG_CG_ROWS		4
#define DIAG_CG_TABLE		64
#define DIAG_CG_PIDS		3
#define DIAG_CG_LIMITS		4
#define DIAG_CG_LIMIT_LEN	128

struct diag_cg_limit {
	const char *file;		/* "cpu.max" */
	char value[DIAG_CG_LIMIT_LEN];	/* its first line; "" absent */
	bool present;
};

/*
 * One row: scheduler, the cgroup that waited (@who) and the one that held
 * the CPU (@by); storage and memory, the cgroup (@who) alone.
 */
struct diag_cg_row {
	struct cg_desc who, by;
	uint64_t ns, waits;
	int32_t pids[DIAG_CG_PIDS];
	char comms[DIAG_CG_PIDS][GPULAT_COMM_LEN];
	size_t nr_pids;
	/* of @by (scheduler) or @who (storage, memory) */
	struct diag_cg_limit limits[DIAG_CG_LIMITS];
	size_t nr_limits;
};

struct diag_cg_layer {
	struct diag_cg_row rows[DIAG_CG_ROWS];
	size_t nr_rows;
	size_t nr_cgroups;	/* distinct cgroups in the layer's records */
	uint64_t left_out;	/* pairs or cgroups past DIAG_CG_TABLE */
};

struct diag_result;
struct watch;

/*
 * diag_cgroups - the rows of each layer from @w's records, their limits,
 * and advice on them in @r's layers; 0 or -ENOMEM
 */
int diag_cgroups(struct diag_result *r, const struct watch *w);
/* diag_cg_print - the rows of layer @l as text */
void diag_cg_print(FILE *f, const struct diag_result *r, int l);
/* diag_cg_json - "cgroups": the rows of layer @l */
void diag_cg_json(struct json *j, const struct diag_result *r, int l);

#endif /* _GPULAT_USER_DIAGNOSE_CG_H */
