// SPDX-License-Identifier: GPL-2.0
/*
 * gpu_job: the GPU workload of scripts/gpu-check, which a GPU machine
 * runs without a compiler or CUDA headers.  It loads the driver API by
 * its soname, as CUDA applications do (dlopen("libcuda.so.1"): the driver
 * on a GPU machine, tests/cuda/fake_cuda.c in the tests), creates a
 * context whose synchronising calls block or spin, loads a tiny PTX
 * kernel that spins on the GPU for a given time (%globaltimer), and
 * launches it CALLS times, each followed by cuStreamSynchronize (and,
 * when asked, cuCtxSynchronize and a small cuMemcpyDtoH).  Then it prints
 * one line of JSON:
 *
 *   mode, ctx_flags   the context's scheduling (CU_CTX_SCHED_*)
 *   pid               whose calls gpulat's cuda family keys
 *   device, driver    cuDeviceGetName, cuDriverGetVersion
 *   kernel_ns         the kernel's requested spin time
 *   calls             iterations made (launch + synchronise[s])
 *   sync_calls        synchronising calls made (the family's cuda.call)
 *   min/p50/p99/max/total_ns   an iteration's wall time, launch to the
 *                     last synchronise's return
 *   sync_min/p50/max_ns        the cuStreamSynchronize call alone
 *   cpu_ns            the process's CPU time over the iterations
 *   stopped_early     -t ran out before CALLS
 *
 * usage: gpu_job [-m blocking|spin|yield|auto] [-n CALLS] [-k KERNEL_US]
 *                [-t MAX_SECONDS] [-c] [-d]
 *        gpu_job -P      print the kernel's PTX
 *
 * Only the driver API, through function pointers: the few types and
 * constants it needs are declared here.  Exits 1 when the library, a
 * function or a call fails (naming it), 2 on bad usage.
 */
#include <dlfcn.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS			0
#define CU_CTX_SCHED_AUTO		0x0
#define CU_CTX_SCHED_SPIN		0x1
#define CU_CTX_SCHED_YIELD		0x2
#define CU_CTX_SCHED_BLOCKING_SYNC	0x4
#define CU_JIT_ERROR_LOG_BUFFER		5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6

#define KERNEL_NAME	"gpu_job_spin"

/*
 * One thread spins until %globaltimer (ns) has advanced by the u64
 * parameter.  PTX 6.0 (CUDA 9), sm_50: the driver compiles it for
 * whatever GPU it finds.
 */
static const char ptx[] =
	".version 6.0\n"
	".target sm_50\n"
	".address_size 64\n"
	"\n"
	".visible .entry " KERNEL_NAME "(\n"
	"\t.param .u64 " KERNEL_NAME "_ns\n"
	")\n"
	"{\n"
	"\t.reg .pred\t%p<2>;\n"
	"\t.reg .b64\t%rd<5>;\n"
	"\n"
	"\tld.param.u64\t%rd1, [" KERNEL_NAME "_ns];\n"
	"\tmov.u64\t\t%rd2, %globaltimer;\n"
	"$Lspin:\n"
	"\tmov.u64\t\t%rd3, %globaltimer;\n"
	"\tsub.s64\t\t%rd4, %rd3, %rd2;\n"
	"\tsetp.lt.u64\t%p1, %rd4, %rd1;\n"
	"\t@%p1 bra\t$Lspin;\n"
	"\tret;\n"
	"}\n";

static struct {
	CUresult (*init)(unsigned int);
	CUresult (*driver_version)(int *);
	CUresult (*device_get)(CUdevice *, int);
	CUresult (*device_name)(char *, int, CUdevice);
	CUresult (*ctx_create)(CUcontext *, unsigned int, CUdevice);
	CUresult (*ctx_destroy)(CUcontext);
	CUresult (*ctx_sync)(void);
	CUresult (*module_load)(CUmodule *, const void *);
	CUresult (*module_load_ex)(CUmodule *, const void *, unsigned int,
				   int *, void **);
	CUresult (*module_unload)(CUmodule);
	CUresult (*get_function)(CUfunction *, CUmodule, const char *);
	CUresult (*launch)(CUfunction, unsigned int, unsigned int,
			   unsigned int, unsigned int, unsigned int,
			   unsigned int, unsigned int, CUstream, void **,
			   void **);
	CUresult (*stream_sync)(CUstream);
	CUresult (*mem_alloc)(CUdeviceptr *, size_t);
	CUresult (*mem_free)(CUdeviceptr);
	CUresult (*copy_dtoh)(void *, CUdeviceptr, size_t);
	CUresult (*error_name)(CUresult, const char **);
} cu;

static const struct {
	const char *name;
	unsigned int flags;
} modes[] = {
	{ "blocking", CU_CTX_SCHED_BLOCKING_SYNC },
	{ "spin", CU_CTX_SCHED_SPIN },
	{ "yield", CU_CTX_SCHED_YIELD },
	{ "auto", CU_CTX_SCHED_AUTO },
};

static const char usage[] =
	"usage: gpu_job [-m blocking|spin|yield|auto] [-n CALLS] [-k KERNEL_US]\n"
	"               [-t MAX_SECONDS] [-c] [-d]\n"
	"  -m  the context's scheduling (default blocking: CU_CTX_SCHED_BLOCKING_SYNC)\n"
	"  -n  launches, each followed by cuStreamSynchronize (default 1000)\n"
	"  -k  the kernel's spin time on the GPU in microseconds (default 1000)\n"
	"  -t  stop launching after this many seconds (default: no limit)\n"
	"  -c  also cuCtxSynchronize after each\n"
	"  -d  also cuMemcpyDtoH of 64 bytes after each\n";

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* check - exit 1 naming the call when @r is an error */
static void check(CUresult r, const char *what)
{
	const char *name = NULL;

	if (r == CUDA_SUCCESS)
		return;
	if (cu.error_name)
		cu.error_name(r, &name);
	fprintf(stderr, "gpu_job: %s failed: %s (%d)\n", what,
		name ? name : "error", r);
	exit(1);
}

/* sym - the first of @names (NULL-ended) that @h exports; @need: or exit */
static void *sym(void *h, const char *const *names, int need)
{
	const char *const *n;
	void *p;

	for (n = names; *n; n++) {
		p = dlsym(h, *n);
		if (p)
			return p;
	}
	if (need) {
		fprintf(stderr, "gpu_job: libcuda.so.1 has no %s\n", names[0]);
		exit(1);
	}
	return NULL;
}

/* LOAD(field, need, names...): cu.field from the first name exported */
#define LOAD(f, need, ...) \
	(cu.f = (typeof(cu.f))sym(h, (const char *const []){ __VA_ARGS__, NULL }, need))

static void load(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "gpu_job: %s\n", dlerror());
		exit(1);
	}
	LOAD(init, 1, "cuInit");
	LOAD(driver_version, 0, "cuDriverGetVersion");
	LOAD(device_get, 1, "cuDeviceGet");
	LOAD(device_name, 0, "cuDeviceGetName");
	LOAD(ctx_create, 1, "cuCtxCreate_v2", "cuCtxCreate");
	LOAD(ctx_destroy, 1, "cuCtxDestroy_v2", "cuCtxDestroy");
	LOAD(ctx_sync, 1, "cuCtxSynchronize");
	LOAD(module_load, 1, "cuModuleLoadData");
	LOAD(module_load_ex, 0, "cuModuleLoadDataEx");
	LOAD(module_unload, 0, "cuModuleUnload");
	LOAD(get_function, 1, "cuModuleGetFunction");
	LOAD(launch, 1, "cuLaunchKernel");
	LOAD(stream_sync, 1, "cuStreamSynchronize");
	LOAD(mem_alloc, 1, "cuMemAlloc_v2", "cuMemAlloc");
	LOAD(mem_free, 1, "cuMemFree_v2", "cuMemFree");
	LOAD(copy_dtoh, 1, "cuMemcpyDtoH_v2", "cuMemcpyDtoH");
	LOAD(error_name, 0, "cuGetErrorName");
}

/* load_module - the PTX; on failure the JIT's log when the driver gives one */
static CUmodule load_module(void)
{
	char log[4096] = "";
	int opt[2] = { CU_JIT_ERROR_LOG_BUFFER,
		       CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *val[2] = { log, (void *)(uintptr_t)sizeof(log) };
	CUmodule mod;
	CUresult r;

	r = cu.module_load(&mod, ptx);
	if (r != CUDA_SUCCESS && cu.module_load_ex &&
	    cu.module_load_ex(&mod, ptx, 2, opt, val) != CUDA_SUCCESS && *log)
		fprintf(stderr, "gpu_job: the PTX JIT says: %.*s\n",
			(int)sizeof(log), log);
	check(r, "cuModuleLoadData");
	return mod;
}

/* json_safe - @s with what JSON would need escaped replaced by '?' */
static void json_safe(char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
			*s = '?';
}

static unsigned long arg_ul(const char *s, unsigned long max, char opt)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || *s == '-' || !v || v > max) {
		fprintf(stderr, "gpu_job: -%c is 1 to %lu\n%s", opt, max, usage);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long i, calls = 1000, kernel_us = 1000, max_s = 0;
	int c, ctx_sync = 0, copy = 0, mode = 0, driver = 0;
	uint64_t *wall, *sync, kernel_ns, t0, t1, t2, end = 0, cpu0, total = 0;
	char name[256] = "unknown", buf[64];
	CUdeviceptr dbuf = 0;
	CUfunction fn;
	CUcontext ctx;
	CUmodule mod;
	CUdevice dev;
	void *params[1];
	size_t m;

	while ((c = getopt(argc, argv, "m:n:k:t:cdhP")) != -1) {
		switch (c) {
		case 'm':
			for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
				if (!strcmp(optarg, modes[m].name))
					break;
			if (m == sizeof(modes) / sizeof(modes[0])) {
				fprintf(stderr, "gpu_job: no mode %s\n%s",
					optarg, usage);
				return 2;
			}
			mode = m;
			break;
		case 'n':
			calls = arg_ul(optarg, 10000000, 'n');
			break;
		case 'k':
			kernel_us = arg_ul(optarg, 10000000, 'k');
			break;
		case 't':
			max_s = arg_ul(optarg, 86400, 't');
			break;
		case 'c':
			ctx_sync = 1;
			break;
		case 'd':
			copy = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'P':	/* the kernel's PTX, for ptxas in the tests */
			fputs(ptx, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fputs(usage, stderr);
		return 2;
	}
	kernel_ns = kernel_us * 1000ULL;
	wall = calloc(calls, sizeof(*wall));
	sync = calloc(calls, sizeof(*sync));
	if (!wall || !sync) {
		fprintf(stderr, "gpu_job: out of memory\n");
		return 1;
	}

	load();
	check(cu.init(0), "cuInit");
	if (cu.driver_version)
		check(cu.driver_version(&driver), "cuDriverGetVersion");
	check(cu.device_get(&dev, 0), "cuDeviceGet");
	if (cu.device_name) {
		check(cu.device_name(name, sizeof(name) - 1, dev),
		      "cuDeviceGetName");
		json_safe(name);
	}
	check(cu.ctx_create(&ctx, modes[mode].flags, dev), "cuCtxCreate");
	mod = load_module();
	check(cu.get_function(&fn, mod, KERNEL_NAME), "cuModuleGetFunction");
	if (copy)
		check(cu.mem_alloc(&dbuf, sizeof(buf)), "cuMemAlloc");

	params[0] = &kernel_ns;
	cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (max_s)
		end = clock_ns(CLOCK_MONOTONIC) + max_s * 1000000000ULL;
	for (i = 0; i < calls; i++) {
		t0 = clock_ns(CLOCK_MONOTONIC);
		if (end && t0 >= end)
			break;
		check(cu.launch(fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL),
		      "cuLaunchKernel");
		t1 = clock_ns(CLOCK_MONOTONIC);
		check(cu.stream_sync(NULL), "cuStreamSynchronize");
		t2 = clock_ns(CLOCK_MONOTONIC);
		if (ctx_sync)
			check(cu.ctx_sync(), "cuCtxSynchronize");
		if (copy)
			check(cu.copy_dtoh(buf, dbuf, sizeof(buf)),
			      "cuMemcpyDtoH");
		wall[i] = clock_ns(CLOCK_MONOTONIC) - t0;
		sync[i] = t2 - t1;
		total += wall[i];
	}
	cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;

	if (copy)
		check(cu.mem_free(dbuf), "cuMemFree");
	if (cu.module_unload)
		check(cu.module_unload(mod), "cuModuleUnload");
	check(cu.ctx_destroy(ctx), "cuCtxDestroy");
	if (!i) {
		fprintf(stderr, "gpu_job: no call made within -t %lu\n", max_s);
		return 1;
	}
	qsort(wall, i, sizeof(*wall), cmp_u64);
	qsort(sync, i, sizeof(*sync), cmp_u64);
	printf("{\"mode\":\"%s\",\"ctx_flags\":%u,\"pid\":%d,\"device\":\"%s\",\"driver\":%d,"
	       "\"kernel_ns\":%llu,\"calls\":%lu,\"sync_calls\":%lu,"
	       "\"min_ns\":%llu,\"p50_ns\":%llu,\"p99_ns\":%llu,\"max_ns\":%llu,\"total_ns\":%llu,"
	       "\"sync_min_ns\":%llu,\"sync_p50_ns\":%llu,\"sync_max_ns\":%llu,"
	       "\"cpu_ns\":%llu,\"stopped_early\":%s}\n",
	       modes[mode].name, modes[mode].flags, (int)getpid(), name, driver,
	       (unsigned long long)kernel_ns, i, i * (1 + ctx_sync + copy),
	       (unsigned long long)wall[0], (unsigned long long)wall[i / 2],
	       (unsigned long long)wall[i * 99 / 100],
	       (unsigned long long)wall[i - 1], (unsigned long long)total,
	       (unsigned long long)sync[0], (unsigned long long)sync[i / 2],
	       (unsigned long long)sync[i - 1], (unsigned long long)cpu0,
	       i < calls ? "true" : "false");
	free(wall);
	free(sync);
	return 0;
}
