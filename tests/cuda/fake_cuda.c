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
 * Every other call returns CUDA_SUCCESS at once.  fake_cuda_calls()
 * counts the waits.
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef void *CUstream, *CUevent;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS	0

static unsigned long fake_calls;

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
	pthread_t t;
	uint64_t end;
	int ret;

	__atomic_add_fetch(&fake_calls, 1, __ATOMIC_RELAXED);
	ret = fake_dev_sync();
	if (ret >= 0)
		return ret;
	if (spin && *spin == '1') {
		for (end = fake_now() + w.ns; fake_now() < end;)
			;
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
