// SPDX-License-Identifier: GPL-2.0
/*
 * block family: placeholder until its probes land; it has no tracepoints,
 * so it stays off and lists nothing.
 */
#include "gpulat.h"

struct gpulat_family gpulat_block_family = {
	.id		= GPULAT_FAM_BLOCK,
	.name		= "block",
};
