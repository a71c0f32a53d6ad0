// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the parsers of /proc text that gpulat diagnose reads: the first
 * byte picks one, the rest is its input.  A thread's stat line (name,
 * CPU time, CPU), an io file (bytes to and from storage) and a
 * process's stat line (name, parent, start): a name that parses is
 * NUL-ended within its buffer and holds no more than the text gave.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/diagnose/diagnose.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long long start;
	struct diag_task t;
	char comm[8], *s;
	int ppid;

	if (!size)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] % 3) {
	case 0:
		memset(&t, 0, sizeof(t));
		if (!diag_task_parse(s, &t, 100) &&
		    (strnlen(t.comm, sizeof(t.comm)) == sizeof(t.comm) ||
		     !strchr(s, '(')))
			abort();
		break;
	case 1:
		diag_io_parse(s);
		break;
	case 2:
		/* a buffer shorter than a name: cut, still ended */
		if (!diag_stat_parse(s, comm, sizeof(comm), &ppid, &start) &&
		    strnlen(comm, sizeof(comm)) == sizeof(comm))
			abort();
		break;
	}
	free(s);
	return 0;
}
