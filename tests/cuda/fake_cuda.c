// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for libcuda.so.1, the CUDA driver API, built as a shared
 * library with that soname so that a job finds it as CUDA applications
 * do (dlopen("libcuda.so.1")).  Test-only.  Its synchronising calls wait
 * the way the driver does, for a "GPU" that takes $FAKE_CUDA_GPU_US
 * microseconds (default 3000) per call:
 *
 *   blocking (default)  asleep in a futex until a timer thread wakes it,
 *                       as the driver's completion wakes a blocking-sync
 *                       thread;
 *   spin ($FAKE_CUDA_SPIN=1)  polling the clock on the CPU, as a context
 *                       with CU_CTX_SCHED_SPIN does;
 *   device ($FAKE_CUDA_DEV=/dev/gpulat_fake_gpu)  in a read() of the stand-in
 *                       GPU of tests/kmod/gpulat_fake_gpu.c, which the
 *                       "nvidia" IRQ thread completes (its gpu_us sets the
 *                       time, not $FAKE_CUDA_GPU_US).
 *
 * The calls a driver-API job makes around them (tests/cuda/gpu_job.c)
 * answer too: cuDeviceGet (device 0 only), cuCtxCreate[_v2] (its
 * scheduling flags: CU_CTX_SCHED_SPIN makes the waits spin, as
 * $FAKE_CUDA_SPIN=1 does, CU_CTX_SCHED_YIELD poll with sched_yield()),
 * cuModuleLoadData (any NUL-ended image), cuModuleGetFunction (a
 * ".entry NAME" of it), cuLaunchKernel, cuMemAlloc, cuMemFree, ...  Once
 * a kernel has been launched, the "GPU" takes the kernels' times instead
 * of $FAKE_CUDA_GPU_US: cuLaunchKernel adds its first parameter, a u64
 * of nanoseconds (gpu_job's spin time), to what the next synchronising
 * call waits; a call with no kernel pending then returns at once.  The
 * device read takes the stand-in GPU's time either way.
 *
 * Every other call returns CUDA_SUCCESS at once.  fake_cuda_calls()
 * counts the waits.
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUstream, *CUevent, *CUcontext, *CUmodule, *CUfunction;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS			0
#define CUDA_ERROR_INVALID_VALUE	1
#define CUDA_ERROR_OUT_OF_MEMORY	2
#define CUDA_ERROR_INVALID_DEVICE	101
#define CUDA_ERROR_INVALID_HANDLE	400
#define CUDA_ERROR_NOT_FOUND		500

#define CU_CTX_SCHED_SPIN		0x1
#define CU_CTX_SCHED_YIELD		0x2
#define CU_CTX_SCHED_MASK		0x7

static unsigned long fake_calls;
/* the last context's CU_CTX_SCHED_* (0 without one: the environment's) */
static unsigned int fake_sched;
/* kernels launched, and the ns they left for the next synchronise */
static unsigned long fake_launches;
static uint64_t fake_pending_ns;

unsigned long fake_cuda_calls(void)
{
	return __atomic_load_n(&fake_calls, __ATOMIC_RELAXED);
}

static uint64_t fake_gpu_ns(void)
{
	const char *e = getenv("FAKE_CUDA_GPU_US");

	return (e ? strtoull(e, NULL, 10) : 3000) * 1000ULL;
}

static uint64_t fake_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct fake_wait {
	uint32_t done;
	uint64_t ns;
};

/* fake_completion - the "GPU": done after @ns, then the wake-up */
static void *fake_completion(void *arg)
{
	struct fake_wait *w = arg;
	struct timespec ts = { w->ns / 1000000000ULL, w->ns % 1000000000ULL };

	nanosleep(&ts, NULL);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &w->done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return NULL;
}

/* fake_dev_sync - one read() of the stand-in GPU; -1: none named */
static int fake_dev_sync(void)
{
	static int fd = -1;
	const char *dev = getenv("FAKE_CUDA_DEV");
	uint64_t ns;

	if (!dev)
		return -1;
	if (fd < 0)
		fd = open(dev, O_RDONLY | O_CLOEXEC);
	return fd >= 0 && read(fd, &ns, sizeof(ns)) == sizeof(ns) ?
	       CUDA_SUCCESS : 999;	/* CUDA_ERROR_UNKNOWN */
}

static CUresult fake_sync(void)
{
	struct fake_wait w = { .ns = fake_gpu_ns() };
	const char *spin = getenv("FAKE_CUDA_SPIN");
	unsigned int sched = __atomic_load_n(&fake_sched, __ATOMIC_RELAXED);
	bool kernels = __atomic_load_n(&fake_launches, __ATOMIC_RELAXED);
	pthread_t t;
	uint64_t end;
	int ret;

	__atomic_add_fetch(&fake_calls, 1, __ATOMIC_RELAXED);
	ret = fake_dev_sync();
	if (ret >= 0)
		return ret;
	if (kernels) {
		w.ns = __atomic_exchange_n(&fake_pending_ns, 0, __ATOMIC_RELAXED);
		if (!w.ns)
			return CUDA_SUCCESS;
	}
	if ((spin && *spin == '1') || sched == CU_CTX_SCHED_SPIN) {
		for (end = fake_now() + w.ns; fake_now() < end;)
			;
		return CUDA_SUCCESS;
	}
	if (sched == CU_CTX_SCHED_YIELD) {
		for (end = fake_now() + w.ns; fake_now() < end;)
			sched_yield();
		return CUDA_SUCCESS;
	}
	if (pthread_create(&t, NULL, fake_completion, &w))
		return 2;	/* CUDA_ERROR_OUT_OF_MEMORY */
	while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &w.done, FUTEX_WAIT_PRIVATE, 0, NULL,
			NULL, 0);
	pthread_join(t, NULL);
	return CUDA_SUCCESS;
}

CUresult cuInit(unsigned int flags)
{
	(void)flags;
	return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream s)
{
	(void)s;
	return fake_sync();
}

CUresult cuEventSynchronize(CUevent e)
{
	(void)e;
	return fake_sync();
}

CUresult cuCtxSynchronize(void)
{
	return fake_sync();
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
	(void)dst, (void)src, (void)n;
	return fake_sync();
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
	(void)dst, (void)src, (void)n;
	return fake_sync();
}

/* the names before CUDA 3.2, still exported by the driver */
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n)
{
	return cuMemcpyDtoH_v2(dst, src, n);
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n)
{
	return cuMemcpyHtoD_v2(dst, src, n);
}

/* --- what a driver-API job calls around the waits (tests/cuda/gpu_job.c) */

CUresult cuDriverGetVersion(int *version)
{
	if (!version)
		return CUDA_ERROR_INVALID_VALUE;
	*version = 12000;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
	if (!dev)
		return CUDA_ERROR_INVALID_VALUE;
	if (ordinal)
		return CUDA_ERROR_INVALID_DEVICE;
	*dev = 0;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	if (!name || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (dev)
		return CUDA_ERROR_INVALID_DEVICE;
	snprintf(name, len, "fake_cuda");
	return CUDA_SUCCESS;
}

/* one context at a time: the handle is its flags' address */
CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned int flags, CUdevice dev)
{
	if (!ctx)
		return CUDA_ERROR_INVALID_VALUE;
	if (dev)
		return CUDA_ERROR_INVALID_DEVICE;
	__atomic_store_n(&fake_sched, flags & CU_CTX_SCHED_MASK,
			 __ATOMIC_RELAXED);
	*ctx = &fake_sched;
	return CUDA_SUCCESS;
}

CUresult cuCtxCreate(CUcontext *ctx, unsigned int flags, CUdevice dev)
{
	return cuCtxCreate_v2(ctx, flags, dev);
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
	if (ctx != &fake_sched)
		return CUDA_ERROR_INVALID_HANDLE;
	__atomic_store_n(&fake_sched, 0, __ATOMIC_RELAXED);
	return CUDA_SUCCESS;
}

CUresult cuCtxDestroy(CUcontext ctx)
{
	return cuCtxDestroy_v2(ctx);
}

/* a module is a copy of its image (PTX text, NUL-ended) */
CUresult cuModuleLoadData(CUmodule *mod, const void *image)
{
	if (!mod || !image)
		return CUDA_ERROR_INVALID_VALUE;
	*mod = strdup(image);
	return *mod ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuModuleUnload(CUmodule mod)
{
	if (!mod)
		return CUDA_ERROR_INVALID_HANDLE;
	free(mod);
	return CUDA_SUCCESS;
}

/* a function is where ".entry NAME" stands in its module's image */
CUresult cuModuleGetFunction(CUfunction *fn, CUmodule mod, const char *name)
{
	const char *p;
	size_t n;

	if (!fn || !mod || !name)
		return CUDA_ERROR_INVALID_VALUE;
	n = strlen(name);
	for (p = mod; (p = strstr(p, ".entry ")); p++)
		if (!strncmp(p + 7, name, n) &&
		    (p[7 + n] == '(' || p[7 + n] == ' ' || p[7 + n] == '\n')) {
			*fn = (void *)p;
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_NOT_FOUND;
}

/* the "GPU" runs the kernel for its first parameter's nanoseconds */
CUresult cuLaunchKernel(CUfunction fn, unsigned int gx, unsigned int gy,
			unsigned int gz, unsigned int bx, unsigned int by,
			unsigned int bz, unsigned int shared, CUstream s,
			void **params, void **extra)
{
	uint64_t ns = params && params[0] ? *(const uint64_t *)params[0] : 0;

	(void)shared, (void)s, (void)extra;
	if (!fn)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!gx || !gy || !gz || !bx || !by || !bz)
		return CUDA_ERROR_INVALID_VALUE;
	__atomic_add_fetch(&fake_pending_ns, ns, __ATOMIC_RELAXED);
	__atomic_add_fetch(&fake_launches, 1, __ATOMIC_RELAXED);
	return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	void *m;

	if (!p || !n)
		return CUDA_ERROR_INVALID_VALUE;
	m = malloc(n);
	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*p = (CUdeviceptr)(uintptr_t)m;
	return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr *p, size_t n)
{
	return cuMemAlloc_v2(p, n);
}

CUresult cuMemFree_v2(CUdeviceptr p)
{
	free((void *)(uintptr_t)p);
	return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr p)
{
	return cuMemFree_v2(p);
}
