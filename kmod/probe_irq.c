// SPDX-License-Identifier: GPL-2.0
/*
 * irq family: placeholder until its probes land; it has no tracepoints,
 * so it stays off and lists nothing.
 */
#include "gpulat.h"

struct gpulat_family gpulat_irq_family = {
	.id		= GPULAT_FAM_IRQ,
	.name		= "irq",
};
