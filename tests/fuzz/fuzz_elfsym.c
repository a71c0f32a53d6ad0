// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the lookup of functions' file offsets in a shared library
 * (lib/elfsym.c) with arbitrary ELF images, seeded with the libcuda.so.1
 * test double: no crash, no read out of the image, and an offset found
 * lies inside the image.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elfsym.h"

static const char *const names[] = {
	"cuStreamSynchronize", "cuEventSynchronize", "cuCtxSynchronize",
	"cuMemcpyDtoH_v2", "cuMemcpyHtoD_v2",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t offs[5];
	char why[128];
	void *img;
	size_t i;
	int ret;

	img = malloc(size ? size : 1);
	if (!img)
		return 0;
	memcpy(img, data, size);
	ret = gl_elf_mem_sym_offsets(img, size, names, 5, offs, why,
				     sizeof(why));
	for (i = 0; ret > 0 && i < 5; i++)
		if (offs[i] >= size)
			abort();
	free(img);
	return 0;
}
