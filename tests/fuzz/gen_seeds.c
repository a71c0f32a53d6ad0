// SPDX-License-Identifier: GPL-2.0
/* Write valid snapshot blobs into DIR as seeds for fuzz_snapshot. */
#include <stdio.h>
#include <stdlib.h>

#include "blob.h"

/* seed_write - build @b into DIR/NAME */
static int seed_write(const char *dir, const char *name, struct blob *b)
{
	char path[4096];
	size_t len;
	void *buf;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	buf = blob_build(b, &len);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len)
		ret = 1;
	if (f && fclose(f))
		ret = 1;
	free(buf);
	blob_release(b);
	if (ret)
		perror(path);
	return ret;
}

int main(int argc, char **argv)
{
	struct blob b;
	int ret = 0;
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 1;
	}
	blob_init(&b);
	ret |= seed_write(argv[1], "empty", &b);
	blob_sched(&b, 1);
	ret |= seed_write(argv[1], "sched-1cpu", &b);
	blob_sched(&b, 2);
	b.hdr.abi_minor = 3;
	b.header_extra = 8;
	b.series_extra = 8;
	b.probe_extra = 8;
	ret |= seed_write(argv[1], "sched-2cpu-minor", &b);
	blob_init(&b);
	i = blob_add_series(&b, GPULAT_FAM_SCHED, 0, GPULAT_CPU_NONE, 7,
			    "sched.wakeup", "key7");
	blob_record(&b, i, 1ULL << 40, 3);
	blob_record(&b, i, 100, 2);
	blob_add_counter(&b, GPULAT_FAM_SCHED, 0, "sched.no_start", 5);
	ret |= seed_write(argv[1], "keyed-overflow", &b);
	blob_families(&b);
	ret |= seed_write(argv[1], "families", &b);
	blob_families(&b);
	b.ver0 = true;
	ret |= seed_write(argv[1], "families-abi1.0", &b);
	blob_families(&b);
	b.hdr.abi_minor = 5;
	b.header_extra = 16;
	b.event_extra = 8;
	b.series_extra = 8;
	ret |= seed_write(argv[1], "families-minor", &b);
	return ret;
}
