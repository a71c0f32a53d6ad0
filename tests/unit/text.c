// SPDX-License-Identifier: GPL-2.0
/* Checks on rendered text that several unit tests make. */
#include <stdio.h>
#include <string.h>

#include "family.h"
#include "text.h"

const char *family_list(char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < gl_family_count() && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				gl_family_name(gl_family_at(i)));
	return buf;
}

size_t longest_line(const char *text)
{
	size_t max = 0, n;
	const char *nl;

	while (*text) {
		nl = strchr(text, '\n');
		n = nl ? (size_t)(nl - text) : strlen(text);
		if (n > max)
			max = n;
		text += n + (nl ? 1 : 0);
	}
	return max;
}
