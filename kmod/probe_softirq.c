// SPDX-License-Identifier: GPL-2.0
/*
 * softirq family: placeholder until its probes land; it has no tracepoints,
 * so it stays off and lists nothing.
 */
#include "gpulat.h"

struct gpulat_family gpulat_softirq_family = {
	.id		= GPULAT_FAM_SOFTIRQ,
	.name		= "softirq",
};
