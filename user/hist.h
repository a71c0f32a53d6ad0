/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers of the hist view that the status view shares. */
#ifndef _GPULAT_HIST_VIEW_H
#define _GPULAT_HIST_VIEW_H

#include <stddef.h>

struct gl_snapshot;
struct gl_hist;
struct json;

size_t hist_group_end(const struct gl_snapshot *s, size_t i);
void hist_group_merge(const struct gl_snapshot *s, size_t i, size_t end,
		      struct gl_hist *h);
void hist_json_scheme(struct json *j);

#endif /* _GPULAT_HIST_VIEW_H */
