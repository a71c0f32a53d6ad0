// SPDX-License-Identifier: GPL-2.0
/*
 * mm family: placeholder until its probes land; it has no tracepoints,
 * so it stays off and lists nothing.
 */
#include "gpulat.h"

struct gpulat_family gpulat_mm_family = {
	.id		= GPULAT_FAM_MM,
	.name		= "mm",
};
