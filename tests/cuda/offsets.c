// SPDX-License-Identifier: GPL-2.0
/*
 * Print the file offsets of a library's functions, one "NAME 0xOFFSET"
 * line each, as the tool finds them (lib/elfsym.c): made on the build
 * host for the guest's uprobe test, whose busybox has no nm.
 *
 *   offsets LIBRARY NAME...     exits 1 when one is missing
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/elfsym.h"

int main(int argc, char **argv)
{
	uint64_t *offs;
	char why[256];
	int i, n;

	if (argc < 3) {
		fprintf(stderr, "usage: offsets LIBRARY NAME...\n");
		return 1;
	}
	offs = calloc(argc - 2, sizeof(*offs));
	if (!offs)
		return 1;
	n = gl_elf_sym_offsets(argv[1], (const char *const *)argv + 2,
			       argc - 2, offs, why, sizeof(why));
	if (n < 0) {
		fprintf(stderr, "offsets: %s\n", why);
		return 1;
	}
	for (i = 0; i < argc - 2; i++)
		printf("%s 0x%" PRIx64 "\n", argv[i + 2], offs[i]);
	free(offs);
	return n == argc - 2 ? 0 : 1;
}
