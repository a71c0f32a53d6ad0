/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers of the hist view that the status view shares. */
#ifndef _GPULAT_USER_HIST_VIEW_H
#define _GPULAT_USER_HIST_VIEW_H

#include <stddef.h>

struct json;

void hist_json_scheme(struct json *j);

#endif /* _GPULAT_USER_HIST_VIEW_H */
