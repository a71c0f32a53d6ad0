// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the reading of ld.so.conf files (lib/cudalib.c, where the tool
 * looks for libcuda.so.1): any text gives folders that start with '/',
 * fit their buffer, hold no blank, newline or '#', and the walk ends.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cudalib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), dir[64];
	const char *t = text;
	size_t n = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	while (gl_ldconf_next(&t, dir, sizeof(dir))) {
		if (dir[0] != '/' || strlen(dir) >= sizeof(dir) ||
		    strpbrk(dir, " \t\r\n#") || t < text ||
		    t > text + strlen(text) || ++n > size)
			abort();
	}
	free(text);
	return 0;
}
