// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the trace record decoder and the record printers: whatever read()
 * returns, decoding stays inside the buffer and printing is safe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/view/view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct gl_trace_rec r;
	size_t off = 0, last = 0;
	int ret;

	if (!null)
		null = fopen("/dev/null", "w");
	while ((ret = gl_trace_parse(data, size, &off, &r)) > 0) {
		if (off <= last || off > size)
			abort();
		last = off;
		if (r.type == GPULAT_REC_SAMPLE &&
		    (r.u.sample.nr_culprits > GPULAT_NR_CULPRITS ||
		     memchr(r.u.sample.comm, 0, GPULAT_COMM_LEN) == NULL))
			abort();
		trace_print_text(null, &r, NULL);
		trace_print_json(null, &r, NULL);
	}
	if (ret < 0 && off != last)
		abort();
	return 0;
}
