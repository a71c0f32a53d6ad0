// SPDX-License-Identifier: GPL-2.0
/* gpulat diagnose (placeholder until the analysis lands). */
#include "gpulat.h"

int diagnose_run(const struct gpulat_opts *o)
{
	(void)o;
	fprintf(stderr, "gpulat: diagnose is not built yet\n");
	return GPULAT_EXIT_ERROR;
}
