// SPDX-License-Identifier: GPL-2.0
/* gpulat trace (placeholder until the reader lands). */
#include "gpulat.h"

int trace_run(const struct gpulat_opts *o)
{
	(void)o;
	fprintf(stderr, "gpulat: trace is not built yet\n");
	return GPULAT_EXIT_ERROR;
}
