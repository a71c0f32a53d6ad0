// SPDX-License-Identifier: GPL-2.0
/* gpulat report (placeholder until the bundle lands). */
#include "gpulat.h"

int report_run(const struct gpulat_opts *o)
{
	(void)o;
	fprintf(stderr, "gpulat: report is not built yet\n");
	return GPULAT_EXIT_ERROR;
}
