// SPDX-License-Identifier: GPL-2.0
/* Checks on rendered text that several unit tests make. */
#include <string.h>

#include "text.h"

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
