/* SPDX-License-Identifier: GPL-2.0 */
/* gpulat diagnose: rank the layers by how likely each causes the spikes. */
#ifndef _GPULAT_DIAGNOSE_H
#define _GPULAT_DIAGNOSE_H

#include <stdio.h>

#include "watch.h"

struct diag_result;

/*
 * diag_analyze - the verdict over a finished watch (its window, its
 * totals since load as the baseline, its trace records).  0 or -ENOMEM.
 */
int diag_analyze(const struct watch *w, struct diag_result **out);
void diag_print_text(FILE *f, const struct diag_result *r);
void diag_print_json(FILE *f, const struct diag_result *r);
void diag_free(struct diag_result *r);

#endif /* _GPULAT_DIAGNOSE_H */
