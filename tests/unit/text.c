// SPDX-License-Identifier: GPL-2.0
/* Checks on rendered text that several unit tests make. */
#include <stdio.h>
#include <string.h>

#include "lib/family.h"
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

/*
 * longest_line - the longest line of @text, a line that holds only an
 * indented path (a word of its own, too long to wrap) not counted
 */
size_t longest_line(const char *text)
{
	size_t max = 0, n;
	const char *nl;

	while (*text) {
		size_t lead;

		nl = strchr(text, '\n');
		n = nl ? (size_t)(nl - text) : strlen(text);
		lead = strspn(text, " ");
		/* "   /a/long/path," alone on its line: nothing to wrap */
		if (n > max && !(lead < n && text[lead] == '/' &&
				 !memchr(text + lead, ' ', n - lead)))
			max = n;
		text += n + (nl ? 1 : 0);
	}
	return max;
}
