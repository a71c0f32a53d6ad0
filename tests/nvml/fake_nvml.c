// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for libnvidia-ml.so.1 with fixed answers, built as a shared
 * library with that soname so that gpulat's NVML reader loads it through
 * its ordinary dlopen() path.  Two GPUs:
 *
 *   0  "NVIDIA H100 80GB HBM3" 00000000:3B:00.0, clock event reasons 0x8
 *      (hw slowdown), PCIe gen 3 x8 of max gen 5 x16, persistence off,
 *      utilisation 97% / 41%, 12 PCIe replays
 *   1  "NVIDIA H100 80GB HBM3" 00000000:86:00.0, reasons 0x41 (gpu idle,
 *      hw thermal slowdown), gen 5 x16 of gen 5 x16, persistence on,
 *      0% / 0%, replay counter not supported
 *
 * Built with -DFAKE_NVML_OLD it has only the names drivers before 535
 * had (nvmlDeviceGetCurrentClocksThrottleReasons) and no replay counter.
 * $FAKE_NVML_INIT_FAIL=N makes nvmlInit_v2 return N; $FAKE_NVML_INIT_HANG
 * makes it never return (a GPU fallen off the bus), $FAKE_NVML_INIT_CRASH
 * makes it abort the process.
 * fake_nvml_inits()/fake_nvml_shutdowns() count the calls.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvml.h"

#define FAKE_NR_GPUS	2

struct fake_gpu {
	const char *name, *bus_id;
	unsigned long long reasons;
	unsigned int cur_gen, cur_width, max_gen, max_width;
	int persistence;
	nvmlUtilization_t util;
	int replays;		/* < 0: not supported */
};

static struct fake_gpu fake_gpus[FAKE_NR_GPUS] = {
	{ "NVIDIA H100 80GB HBM3", "00000000:3B:00.0", 0x8, 3, 8, 5, 16, 0,
	  { 97, 41 }, 12 },
	{ "NVIDIA H100 80GB HBM3", "00000000:86:00.0", 0x41, 5, 16, 5, 16, 1,
	  { 0, 0 }, -1 },
};

static int fake_inits, fake_shutdowns, fake_live;

int fake_nvml_inits(void)
{
	return fake_inits;
}

int fake_nvml_shutdowns(void)
{
	return fake_shutdowns;
}

/* Handles are pointers into the table, as opaque to the caller as NVML's. */
static struct fake_gpu *fake_gpu(nvmlDevice_t d)
{
	struct fake_gpu *g = (struct fake_gpu *)d;

	if (!fake_live || g < fake_gpus || g >= fake_gpus + FAKE_NR_GPUS)
		return NULL;
	return g;
}

nvmlReturn_t nvmlInit_v2(void)
{
	const char *fail = getenv("FAKE_NVML_INIT_FAIL");

	fake_inits++;
	if (getenv("FAKE_NVML_INIT_HANG"))
		for (;;)
			pause();
	if (getenv("FAKE_NVML_INIT_CRASH"))
		abort();
	if (fail && atoi(fail))
		return atoi(fail);
	fake_live++;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void)
{
	fake_shutdowns++;
	if (!fake_live)
		return 1;	/* NVML_ERROR_UNINITIALIZED */
	fake_live--;
	return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t ret)
{
	switch (ret) {
	case 1:
		return "Uninitialized";
	case 3:
		return "Not Supported";
	case 9:
		return "Driver Not Loaded";
	default:
		return "Unknown Error";
	}
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned int len)
{
	if (!fake_live)
		return 1;
	if (len < 10)
		return 7;	/* NVML_ERROR_INSUFFICIENT_SIZE */
	strcpy(buf, "595.45.04");
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
	if (!fake_live)
		return 1;
	*count = FAKE_NR_GPUS;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
	if (!fake_live)
		return 1;
	if (i >= FAKE_NR_GPUS)
		return 2;	/* NVML_ERROR_INVALID_ARGUMENT */
	*d = (nvmlDevice_t)&fake_gpus[i];
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *buf, unsigned int len)
{
	struct fake_gpu *g = fake_gpu(d);

	if (!g)
		return 2;
	if (len <= strlen(g->name))
		return 7;
	strcpy(buf, g->name);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci)
{
	struct fake_gpu *g = fake_gpu(d);

	if (!g)
		return 2;
	memset(pci, 0, sizeof(*pci));
	strcpy(pci->busId, g->bus_id);
	pci->pciDeviceId = 0x233010de;
	return NVML_SUCCESS;
}

#ifdef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d,
						       unsigned long long *r)
#else
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d,
						    unsigned long long *r)
#endif
{
	struct fake_gpu *g = fake_gpu(d);

	if (!g)
		return 2;
	*r = g->reasons;
	return NVML_SUCCESS;
}

#define FAKE_UINT(fn, field)					\
nvmlReturn_t fn(nvmlDevice_t d, unsigned int *v)		\
{								\
	struct fake_gpu *g = fake_gpu(d);			\
								\
	if (!g)							\
		return 2;					\
	*v = g->field;						\
	return NVML_SUCCESS;					\
}

FAKE_UINT(nvmlDeviceGetCurrPcieLinkGeneration, cur_gen)
FAKE_UINT(nvmlDeviceGetCurrPcieLinkWidth, cur_width)
FAKE_UINT(nvmlDeviceGetMaxPcieLinkGeneration, max_gen)
FAKE_UINT(nvmlDeviceGetMaxPcieLinkWidth, max_width)

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, int *mode)
{
	struct fake_gpu *g = fake_gpu(d);

	if (!g)
		return 2;
	*mode = g->persistence;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d,
					   nvmlUtilization_t *u)
{
	struct fake_gpu *g = fake_gpu(d);

	if (!g)
		return 2;
	*u = g->util;
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t d, unsigned int *v)
{
	struct fake_gpu *g = fake_gpu(d);

	if (!g)
		return 2;
	if (g->replays < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	*v = g->replays;
	return NVML_SUCCESS;
}
#endif
