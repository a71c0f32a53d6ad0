// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for libnvidia-ml.so.1, built as a shared library with that
 * soname so that gpulat's NVML reader loads it through its ordinary
 * dlopen() path.  Without a script, two GPUs with fixed answers:
 *
 *   0  "NVIDIA H100 80GB HBM3" 00000000:3B:00.0, clock event reasons 0x8
 *      (hw slowdown), PCIe gen 3 x8 of max gen 5 x16, persistence off,
 *      utilisation 97% / 41%, 12 PCIe replays
 *   1  "NVIDIA H100 80GB HBM3" 00000000:86:00.0, reasons 0x41 (gpu idle,
 *      hw thermal slowdown), gen 5 x16 of gen 5 x16, persistence on,
 *      0% / 0%, replay counter not supported
 *
 * both with 1024 of 81559 MiB used, no processes, Xid events supported
 * but none coming.  $FAKE_NVML_SCRIPT names a timeline that changes all
 * of this over time (fake_script.c): more GPUs, processes, Xids, calls
 * that fail or never return.
 *
 * Built with -DFAKE_NVML_OLD it has only the names drivers before 535
 * had (nvmlDeviceGetCurrentClocksThrottleReasons), no replay counter, the
 * v1 process table (nvmlDeviceGetComputeRunningProcesses), no per-process
 * utilisation (not supported) and nvmlEventSetWait for nvmlEventSetWait_v2.
 * $FAKE_NVML_INIT_FAIL=N makes nvmlInit_v2 return N; $FAKE_NVML_INIT_HANG
 * makes it never return (a GPU fallen off the bus), $FAKE_NVML_INIT_CRASH
 * makes it abort the process.
 * fake_nvml_inits()/fake_nvml_shutdowns() count the calls.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_script.h"

#define FAKE_UNINITIALIZED	1
#define FAKE_ERROR_MEMORY	20
#define FAKE_MAX_SETS		16
#define FAKE_WAIT_STEP_NS	10000000ULL	/* the event wait's naps */

struct fake_set {
	bool used;
	unsigned int gpus;	/* registered for Xids, a bit per GPU */
};

static int fake_inits, fake_shutdowns, fake_live;
static bool fake_loaded;		/* the first nvmlInit_v2 came */
static nvmlReturn_t fake_load_ret;	/* the script's verdict */
static uint64_t fake_t0;		/* CLOCK_MONOTONIC of that call */
static struct fake_set fake_sets[FAKE_MAX_SETS];
/* An event wait sleeps without it; a sampler may sample meanwhile. */
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

int fake_nvml_inits(void)
{
	return fake_inits;
}

int fake_nvml_shutdowns(void)
{
	return fake_shutdowns;
}

static uint64_t fake_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void fake_unlock(int *held)
{
	if (*held)
		pthread_mutex_unlock(&fake_lock);
}

/*
 * fake_call - every exported call's entry: brings the timeline up to now
 * and hangs or fails as the script says; 0 to go on, with the lock held
 * (*held) until the caller returns
 */
static nvmlReturn_t fake_call(const char *fn, int *held)
{
	int i;

	pthread_mutex_lock(&fake_lock);
	*held = 1;
	if (!fake_loaded)
		return 0;
	fake_script_advance(fake_mono() - fake_t0);
	i = fake_fn_index(fn);
	if (i < 0)
		abort();	/* a name missing from fake_fns[] */
	if (fake_st.hang[i]) {
		pthread_mutex_unlock(&fake_lock);
		*held = 0;
		for (;;)
			pause();
	}
	return fake_st.fail[i];
}

#define FAKE_ENTER(fn)							\
	int fake_held_ __attribute__((cleanup(fake_unlock))) = 0;	\
	nvmlReturn_t fake_ret_ = fake_call(fn, &fake_held_);		\
									\
	if (fake_ret_)							\
		return fake_ret_

/* Handles are pointers into the table, as opaque to the caller as NVML's. */
static struct fake_gpu *fake_gpu(nvmlDevice_t d)
{
	uintptr_t off = (uintptr_t)d - (uintptr_t)fake_st.gpu;

	if (!fake_live || (uintptr_t)d < (uintptr_t)fake_st.gpu ||
	    off % sizeof(struct fake_gpu) ||
	    off / sizeof(struct fake_gpu) >= fake_st.nr_gpus)
		return NULL;
	return (struct fake_gpu *)d;
}

static struct fake_set *fake_set(nvmlEventSet_t set)
{
	uintptr_t off = (uintptr_t)set - (uintptr_t)fake_sets;

	if (!fake_live || (uintptr_t)set < (uintptr_t)fake_sets ||
	    off % sizeof(struct fake_set) ||
	    off / sizeof(struct fake_set) >= FAKE_MAX_SETS ||
	    !fake_sets[off / sizeof(struct fake_set)].used)
		return NULL;
	return &fake_sets[off / sizeof(struct fake_set)];
}

nvmlReturn_t nvmlInit_v2(void)
{
	const char *fail = getenv("FAKE_NVML_INIT_FAIL");
	const char *script = getenv("FAKE_NVML_SCRIPT");

	pthread_mutex_lock(&fake_lock);
	fake_inits++;
	if (!fake_loaded) {
		fake_loaded = true;
		fake_t0 = fake_mono();
		if (fake_script_load(script && *script ? script : NULL))
			fake_load_ret = FAKE_SCRIPT_ERROR;
	}
	pthread_mutex_unlock(&fake_lock);
	if (getenv("FAKE_NVML_INIT_HANG"))
		for (;;)
			pause();
	if (getenv("FAKE_NVML_INIT_CRASH"))
		abort();
	if (fake_load_ret)
		return fake_load_ret;

	FAKE_ENTER("nvmlInit_v2");
	if (fail && atoi(fail))
		return atoi(fail);
	fake_live++;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void)
{
	pthread_mutex_lock(&fake_lock);
	fake_shutdowns++;
	pthread_mutex_unlock(&fake_lock);

	FAKE_ENTER("nvmlShutdown");
	if (!fake_live)
		return FAKE_UNINITIALIZED;
	if (!--fake_live)
		memset(fake_sets, 0, sizeof(fake_sets));
	return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t ret)
{
	switch (ret) {
	case FAKE_UNINITIALIZED:
		return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT:
		return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
	case NVML_ERROR_NOT_FOUND:
		return "Not Found";
	case NVML_ERROR_INSUFFICIENT_SIZE:
		return "Insufficient Size";
	case 9:
		return "Driver Not Loaded";
	case NVML_ERROR_TIMEOUT:
		return "Timeout";
	default:
		return "Unknown Error";
	}
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned int len)
{
	FAKE_ENTER("nvmlSystemGetDriverVersion");
	if (!fake_live)
		return FAKE_UNINITIALIZED;
	if (len < 10)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	strcpy(buf, "595.45.04");
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
	FAKE_ENTER("nvmlDeviceGetCount_v2");
	if (!fake_live)
		return FAKE_UNINITIALIZED;
	*count = fake_st.nr_gpus;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
	FAKE_ENTER("nvmlDeviceGetHandleByIndex_v2");
	if (!fake_live)
		return FAKE_UNINITIALIZED;
	if (i >= fake_st.nr_gpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	*d = (nvmlDevice_t)&fake_st.gpu[i];
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *buf, unsigned int len)
{
	FAKE_ENTER("nvmlDeviceGetName");
	struct fake_gpu *g = fake_gpu(d);

	if (!g)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (len <= strlen(g->name))
		return NVML_ERROR_INSUFFICIENT_SIZE;
	strcpy(buf, g->name);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci)
{
	FAKE_ENTER("nvmlDeviceGetPciInfo_v3");
	struct fake_gpu *g = fake_gpu(d);

	if (!g)
		return NVML_ERROR_INVALID_ARGUMENT;
	memset(pci, 0, sizeof(*pci));
	strcpy(pci->busId, g->bus_id);
	pci->pciDeviceId = 0x233010de;
	return NVML_SUCCESS;
}

#ifdef FAKE_NVML_OLD
#define FAKE_REASONS	nvmlDeviceGetCurrentClocksThrottleReasons
#else
#define FAKE_REASONS	nvmlDeviceGetCurrentClocksEventReasons
#endif
#define FAKE_STR_(x)	#x
#define FAKE_STR(x)	FAKE_STR_(x)

nvmlReturn_t FAKE_REASONS(nvmlDevice_t d, unsigned long long *r)
{
	FAKE_ENTER(FAKE_STR(FAKE_REASONS));
	struct fake_gpu *g = fake_gpu(d);

	if (!g)
		return NVML_ERROR_INVALID_ARGUMENT;
	*r = g->reasons;
	return NVML_SUCCESS;
}

#define FAKE_UINT(fn, field)					\
nvmlReturn_t fn(nvmlDevice_t d, unsigned int *v)		\
{								\
	FAKE_ENTER(#fn);					\
	struct fake_gpu *g = fake_gpu(d);			\
								\
	if (!g)							\
		return NVML_ERROR_INVALID_ARGUMENT;		\
	*v = g->field;						\
	return NVML_SUCCESS;					\
}

FAKE_UINT(nvmlDeviceGetCurrPcieLinkGeneration, cur_gen)
FAKE_UINT(nvmlDeviceGetCurrPcieLinkWidth, cur_width)
FAKE_UINT(nvmlDeviceGetMaxPcieLinkGeneration, max_gen)
FAKE_UINT(nvmlDeviceGetMaxPcieLinkWidth, max_width)

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, int *mode)
{
	FAKE_ENTER("nvmlDeviceGetPersistenceMode");
	struct fake_gpu *g = fake_gpu(d);

	if (!g)
		return NVML_ERROR_INVALID_ARGUMENT;
	*mode = g->persistence;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d,
					   nvmlUtilization_t *u)
{
	FAKE_ENTER("nvmlDeviceGetUtilizationRates");
	struct fake_gpu *g = fake_gpu(d);

	if (!g)
		return NVML_ERROR_INVALID_ARGUMENT;
	*u = g->util;
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t d, unsigned int *v)
{
	FAKE_ENTER("nvmlDeviceGetPcieReplayCounter");
	struct fake_gpu *g = fake_gpu(d);

	if (!g)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (g->replays < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	*v = g->replays;
	return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
	FAKE_ENTER("nvmlDeviceGetMemoryInfo");
	struct fake_gpu *g = fake_gpu(d);

	if (!g || !m)
		return NVML_ERROR_INVALID_ARGUMENT;
	m->total = g->mem_total << 20;
	m->used = g->mem_used << 20;
	m->free = m->total - m->used;
	return NVML_SUCCESS;
}

/*
 * The process table, as NVML fills it: *count is the room in @infos on
 * entry, too little is INSUFFICIENT_SIZE with the room needed.
 */
static nvmlReturn_t fake_procs(nvmlDevice_t d, unsigned int *count,
			       void *infos, bool v1)
{
	struct fake_gpu *g = fake_gpu(d);
	unsigned int i;

	if (!g || !count)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (*count < g->nr_procs) {
		*count = g->nr_procs;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	if (g->nr_procs && !infos)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (i = 0; i < g->nr_procs; i++) {
		const struct fake_proc *p = &g->procs[i];

		if (v1) {
			nvmlProcessInfo_v1_t *o = (nvmlProcessInfo_v1_t *)infos + i;

			o->pid = p->pid;
			o->usedGpuMemory = p->mem;
		} else {
			nvmlProcessInfo_v2_t *o = (nvmlProcessInfo_v2_t *)infos + i;

			o->pid = p->pid;
			o->usedGpuMemory = p->mem;
			o->gpuInstanceId = ~0U;
			o->computeInstanceId = ~0U;
		}
	}
	*count = g->nr_procs;
	return NVML_SUCCESS;
}

#ifdef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d,
						  unsigned int *count,
						  nvmlProcessInfo_v1_t *infos)
{
	FAKE_ENTER("nvmlDeviceGetComputeRunningProcesses");
	return fake_procs(d, count, infos, true);
}
#else
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d,
						     unsigned int *count,
						     nvmlProcessInfo_v2_t *infos)
{
	FAKE_ENTER("nvmlDeviceGetComputeRunningProcesses_v3");
	return fake_procs(d, count, infos, false);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t d,
						     unsigned int *count,
						     nvmlProcessInfo_v2_t *infos)
{
	FAKE_ENTER("nvmlDeviceGetComputeRunningProcesses_v2");
	return fake_procs(d, count, infos, false);
}
#endif

#ifdef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t d,
		nvmlProcessUtilizationSample_t *samples, unsigned int *count,
		unsigned long long last)
{
	FAKE_ENTER("nvmlDeviceGetProcessUtilization");

	(void)samples, (void)last;
	if (!fake_gpu(d) || !count)
		return NVML_ERROR_INVALID_ARGUMENT;
	return NVML_ERROR_NOT_SUPPORTED;
}
#else
/*
 * A sample for each listed process with an SM value, stamped now
 * (CLOCK_REALTIME, microseconds): none when now is not past @last.
 */
nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t d,
		nvmlProcessUtilizationSample_t *samples, unsigned int *count,
		unsigned long long last)
{
	FAKE_ENTER("nvmlDeviceGetProcessUtilization");
	struct fake_gpu *g = fake_gpu(d);
	unsigned long long now;
	unsigned int i, n = 0;
	struct timespec ts;

	if (!g || !count)
		return NVML_ERROR_INVALID_ARGUMENT;
	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
	for (i = 0; now > last && i < g->nr_procs; i++)
		n += g->procs[i].sm != FAKE_NO_SM;
	if (!n) {
		*count = 0;
		return NVML_ERROR_NOT_FOUND;
	}
	if (!samples || *count < n) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (i = 0, n = 0; i < g->nr_procs; i++) {
		if (g->procs[i].sm == FAKE_NO_SM)
			continue;
		memset(&samples[n], 0, sizeof(samples[n]));
		samples[n].pid = g->procs[i].pid;
		samples[n].timeStamp = now;
		samples[n].smUtil = g->procs[i].sm;
		n++;
	}
	*count = n;
	return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
	FAKE_ENTER("nvmlEventSetCreate");
	unsigned int i;

	if (!fake_live)
		return FAKE_UNINITIALIZED;
	if (!set)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (i = 0; i < FAKE_MAX_SETS && fake_sets[i].used; i++)
		;
	if (i == FAKE_MAX_SETS)
		return FAKE_ERROR_MEMORY;
	fake_sets[i].used = true;
	fake_sets[i].gpus = 0;
	*set = (nvmlEventSet_t)&fake_sets[i];
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t d,
					      unsigned long long *types)
{
	FAKE_ENTER("nvmlDeviceGetSupportedEventTypes");
	struct fake_gpu *g = fake_gpu(d);

	if (!g || !types)
		return NVML_ERROR_INVALID_ARGUMENT;
	*types = fake_st.events_off ? 0 : NVML_EVENT_XID;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types,
				      nvmlEventSet_t set)
{
	FAKE_ENTER("nvmlDeviceRegisterEvents");
	struct fake_gpu *g = fake_gpu(d);
	struct fake_set *s = fake_set(set);

	if (!g || !s)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (fake_st.events_off || !(types & NVML_EVENT_XID))
		return NVML_ERROR_NOT_SUPPORTED;
	s->gpus |= 1U << (g - fake_st.gpu);
	return NVML_SUCCESS;
}

/*
 * The next Xid due (oldest first) on a GPU registered in @set, each given
 * once; an Xid due before its GPU was registered still comes.  Naps
 * without the lock until @ms have passed.
 */
static nvmlReturn_t fake_wait(nvmlEventSet_t set, nvmlEventData_t *data,
			      unsigned int ms, int *held)
{
	uint64_t end = fake_mono() + ms * 1000000ULL;

	for (;;) {
		struct fake_set *s = fake_set(set);
		struct timespec nap;
		unsigned int i;
		uint64_t now;

		if (!s || !data)
			return NVML_ERROR_INVALID_ARGUMENT;
		for (i = 0; i < fake_st.applied; i++) {
			struct fake_event *e = &fake_st.ev[i];

			if (e->kind != FK_XID || e->delivered ||
			    !(s->gpus & 1U << e->gpu))
				continue;
			e->delivered = true;
			memset(data, 0, sizeof(*data));
			data->device = (nvmlDevice_t)&fake_st.gpu[e->gpu];
			data->eventType = NVML_EVENT_XID;
			data->eventData = e->v[0];
			data->gpuInstanceId = ~0U;
			data->computeInstanceId = ~0U;
			return NVML_SUCCESS;
		}
		now = fake_mono();
		if (now >= end)
			return NVML_ERROR_TIMEOUT;
		now = end - now < FAKE_WAIT_STEP_NS ? end - now :
						      FAKE_WAIT_STEP_NS;
		nap.tv_sec = 0;
		nap.tv_nsec = now;
		pthread_mutex_unlock(&fake_lock);
		*held = 0;
		nanosleep(&nap, NULL);
		pthread_mutex_lock(&fake_lock);
		*held = 1;
		fake_script_advance(fake_mono() - fake_t0);
	}
}

#ifdef FAKE_NVML_OLD
nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data,
			      unsigned int timeoutms)
{
	FAKE_ENTER("nvmlEventSetWait");
	return fake_wait(set, data, timeoutms, &fake_held_);
}
#else
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data,
				 unsigned int timeoutms)
{
	FAKE_ENTER("nvmlEventSetWait_v2");
	return fake_wait(set, data, timeoutms, &fake_held_);
}
#endif

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
	FAKE_ENTER("nvmlEventSetFree");
	struct fake_set *s = fake_set(set);

	if (!s)
		return NVML_ERROR_INVALID_ARGUMENT;
	s->used = false;
	return NVML_SUCCESS;
}
