// SPDX-License-Identifier: GPL-2.0
/*
 * A small CUDA "job" for the tests of the job's GPU waits: it loads the
 * driver API by its soname, as CUDA applications do
 * (dlopen("libcuda.so.1"): the test double in the tests, the driver on a
 * GPU machine), and makes COUNT calls of one synchronising function,
 * then prints one line of JSON: the calls made and their wall time
 * (min, p50, max, total in ns).
 *
 *   job [FUNCTION [COUNT]]   default cuStreamSynchronize 100
 *
 * The test double's calls are its stand-in GPU's ($FAKE_CUDA_*).  Exits
 * 1 when the library, the function or a call fails.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*cu_init_t)(unsigned int);
typedef int (*cu_sync_t)(void *);
typedef int (*cu_copy_t)(void *, uint64_t, size_t);

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *fn = argc > 1 ? argv[1] : "cuStreamSynchronize";
	unsigned long i, count = argc > 2 ? strtoul(argv[2], NULL, 10) : 100;
	uint64_t *ns, t0, total = 0;
	char buf[64];
	cu_init_t init;
	void *h, *call;
	int ret;

	if (!count || count > 10000000) {
		fprintf(stderr, "job: COUNT is 1 to 10000000\n");
		return 1;
	}
	h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "job: %s\n", dlerror());
		return 1;
	}
	init = (cu_init_t)dlsym(h, "cuInit");
	call = dlsym(h, fn);
	ns = calloc(count, sizeof(*ns));
	if (!init || !call || !ns) {
		fprintf(stderr, "job: %s: %s\n", init ? fn : "cuInit",
			ns ? "no such function" : "out of memory");
		return 1;
	}
	ret = init(0);
	for (i = 0; !ret && i < count; i++) {
		t0 = now_ns();
		/* a copy's arguments are ignored by the double */
		ret = strncmp(fn, "cuMemcpy", 8) ? ((cu_sync_t)call)(NULL) :
		      ((cu_copy_t)call)(buf, 0, sizeof(buf));
		ns[i] = now_ns() - t0;
		total += ns[i];
	}
	if (ret) {
		fprintf(stderr, "job: %s returned %d, call %lu\n", fn, ret, i);
		return 1;
	}
	qsort(ns, count, sizeof(*ns), cmp_u64);
	printf("{\"function\":\"%s\",\"calls\":%lu,\"min_ns\":%llu,\"p50_ns\":%llu,\"max_ns\":%llu,\"total_ns\":%llu}\n",
	       fn, count, (unsigned long long)ns[0],
	       (unsigned long long)ns[count / 2],
	       (unsigned long long)ns[count - 1], (unsigned long long)total);
	free(ns);
	dlclose(h);
	return 0;
}
