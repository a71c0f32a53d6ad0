/* SPDX-License-Identifier: GPL-2.0 */
/* Printing outlier trace records (gpulat trace, report, diagnose). */
#ifndef _GPULAT_USER_TRACE_H
#define _GPULAT_USER_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gpulat_user.h"

/*
 * Series and key names come from a snapshot's series (disk, device, IRQ
 * handler) where it has them, else from the family table; @names may be
 * NULL, then keys print as numbers (softirq vectors by name).
 */
void trace_print_text(FILE *f, const struct gl_trace_rec *r,
		      const struct gl_snapshot *names);
/*
 * trace_print_nvml_xid - an Xid that NVML's events gave (no record of
 * the module's): a line as trace_print_text() writes Xids, or (@json)
 * an object as trace_print_json() does, with "source":"nvml"
 */
void trace_print_nvml_xid(FILE *f, bool json, uint64_t time_ns,
			  uint32_t code, const char *device);
/* trace_print_json - one JSON object and a newline (JSON lines) */
void trace_print_json(FILE *f, const struct gl_trace_rec *r,
		      const struct gl_snapshot *names);
/* trace_has_key - whether samples of @family have a key worth naming */
bool trace_has_key(uint32_t family);
/* trace_series_name - "sched.wakeup": its name in @names, else the table's */
const char *trace_series_name(char *buf, size_t len,
			      const struct gl_snapshot *names,
			      uint32_t family, uint32_t id);
/* trace_key_name - the key's name in @names (softirq: the table's), or NULL */
const char *trace_key_name(const struct gl_snapshot *names, uint32_t family,
			   uint64_t key);

#endif /* _GPULAT_USER_TRACE_H */
