// SPDX-License-Identifier: GPL-2.0
/*
 * GPU state through NVML, loaded at run time.  Hosts without the NVIDIA
 * driver (and the tool's static build, which cannot load libraries) get
 * an "absent" line; a library older than a function gets that function
 * listed as missing and the rest of the answers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef GPULAT_NO_DLOPEN
#include <dlfcn.h>
#endif

#include "engine/nvml/nvml.h"

/* Not asked: the function is missing from the library. */
#define NVML_NO_FN	(-1000)

/* Clock event reasons (nvmlClocksEventReason*, NVML's nvml.h), bit by bit. */
static const struct {
	unsigned long long bit;
	const char *name;
} nvml_reasons[] = {
	{ 0x1ULL,	"gpu idle" },
	{ 0x2ULL,	"applications clocks setting" },
	{ 0x4ULL,	"sw power cap" },
	{ 0x8ULL,	"hw slowdown" },
	{ 0x10ULL,	"sync boost" },
	{ 0x20ULL,	"sw thermal slowdown" },
	{ 0x40ULL,	"hw thermal slowdown" },
	{ 0x80ULL,	"hw power brake slowdown" },
	{ 0x100ULL,	"display clock setting" },
};

/* nvml_reasons_text - the names of the bits set, unknown ones in hex */
char *nvml_reasons_text(char *buf, size_t len, unsigned long long reasons)
{
	unsigned long long left = reasons;
	size_t i, off = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!reasons) {
		snprintf(buf, len, "none");
		return buf;
	}
	for (i = 0; i < sizeof(nvml_reasons) / sizeof(nvml_reasons[0]); i++) {
		if (!(reasons & nvml_reasons[i].bit))
			continue;
		left &= ~nvml_reasons[i].bit;
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%s",
				off ? ", " : "", nvml_reasons[i].name);
	}
	if (left)
		off += snprintf(buf + off, off < len ? len - off : 0,
				"%sunknown 0x%llx", off ? ", " : "", left);
	return buf;
}

/* nvml_error_text - see nvml.h */
const char *nvml_error_text(const struct nvml_info *n, nvmlReturn_t ret,
			    char *buf, size_t len)
{
	const char *s = NULL;

	if (ret == NVML_ERROR_NOT_SUPPORTED)
		return "not supported";
	if (n->error_string)
		s = n->error_string(ret);
	if (s && s[0])
		snprintf(buf, len, "%s (NVML error %d)", s, ret);
	else
		snprintf(buf, len, "NVML error %d", ret);
	return buf;
}

#ifdef GPULAT_NO_DLOPEN

void nvml_collect(struct nvml_info *n)
{
	memset(n, 0, sizeof(*n));
	snprintf(n->lib, sizeof(n->lib), "%s", NVML_SONAME);
	snprintf(n->absent, sizeof(n->absent),
		 "this gpulat is a static build, which cannot load %s",
		 NVML_SONAME);
}

void nvml_close(struct nvml_info *n)
{
	(void)n;
}

void *nvml_sym_at(struct nvml_info *n, const char *const *names, int *which)
{
	(void)n;
	(void)names;
	(void)which;
	return NULL;
}

#else

/* The functions used, each with the C type NVML gives it. */
struct nvml_fns {
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	nvmlReturn_t (*count)(unsigned int *);
	nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*pci)(nvmlDevice_t, nvmlPciInfo_t *);
	nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*cur_gen)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*cur_width)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*max_gen)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*max_width)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*persist)(nvmlDevice_t, int *);
	nvmlReturn_t (*util)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*replay)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*driver)(char *, unsigned int);
};

/* nvml_sym_at - see nvml.h */
void *nvml_sym_at(struct nvml_info *n, const char *const *names, int *which)
{
	size_t off = strlen(n->missing);
	void *p;
	int i;

	for (i = 0; names[i]; i++) {
		p = n->handle ? dlsym(n->handle, names[i]) : NULL;
		if (p) {
			if (which)
				*which = i;
			return p;
		}
	}
	snprintf(n->missing + off, sizeof(n->missing) - off, "%s%s",
		 off ? ", " : "", names[0]);
	return NULL;
}

static void nvml_load(struct nvml_info *n, struct nvml_fns *f)
{
	/* dlsym() gives a void *; POSIX guarantees it converts to a function pointer. */
	*(void **)&f->init = NVML_SYM(n, "nvmlInit_v2", "nvmlInit");
	*(void **)&f->shutdown = NVML_SYM(n, "nvmlShutdown");
	*(void **)&f->count = NVML_SYM(n, "nvmlDeviceGetCount_v2",
				       "nvmlDeviceGetCount");
	*(void **)&f->handle = NVML_SYM(n, "nvmlDeviceGetHandleByIndex_v2",
					"nvmlDeviceGetHandleByIndex");
	*(void **)&f->name = NVML_SYM(n, "nvmlDeviceGetName");
	*(void **)&f->pci = NVML_SYM(n, "nvmlDeviceGetPciInfo_v3",
				     "nvmlDeviceGetPciInfo_v2");
	/* "Throttle" was renamed "ClocksEvent" in driver 535; same bits. */
	*(void **)&f->reasons = NVML_SYM(n,
		"nvmlDeviceGetCurrentClocksEventReasons",
		"nvmlDeviceGetCurrentClocksThrottleReasons");
	*(void **)&f->cur_gen = NVML_SYM(n,
		"nvmlDeviceGetCurrPcieLinkGeneration");
	*(void **)&f->cur_width = NVML_SYM(n, "nvmlDeviceGetCurrPcieLinkWidth");
	*(void **)&f->max_gen = NVML_SYM(n,
		"nvmlDeviceGetMaxPcieLinkGeneration");
	*(void **)&f->max_width = NVML_SYM(n, "nvmlDeviceGetMaxPcieLinkWidth");
	*(void **)&f->persist = NVML_SYM(n, "nvmlDeviceGetPersistenceMode");
	*(void **)&f->util = NVML_SYM(n, "nvmlDeviceGetUtilizationRates");
	*(void **)&f->replay = NVML_SYM(n, "nvmlDeviceGetPcieReplayCounter");
	*(void **)&f->driver = NVML_SYM(n, "nvmlSystemGetDriverVersion");
	*(void **)&n->error_string = dlsym(n->handle, "nvmlErrorString");
}

#define NVML_ASK(fn, ...)	((fn) ? (fn)(__VA_ARGS__) : NVML_NO_FN)

static void nvml_gpu(const struct nvml_fns *f, nvmlDevice_t d,
		     struct nvml_gpu *g)
{
	nvmlPciInfo_t pci;
	unsigned int w;

	g->name_ret = NVML_ASK(f->name, d, g->name, sizeof(g->name));
	g->name[sizeof(g->name) - 1] = '\0';
	memset(&pci, 0, sizeof(pci));
	g->pci_ret = NVML_ASK(f->pci, d, &pci);
	pci.busId[sizeof(pci.busId) - 1] = '\0';
	snprintf(g->bus_id, sizeof(g->bus_id), "%s", pci.busId);
	g->reasons_ret = NVML_ASK(f->reasons, d, &g->reasons);
	g->link_ret = NVML_ASK(f->cur_gen, d, &g->cur_gen);
	w = NVML_ASK(f->cur_width, d, &g->cur_width);
	if (!g->link_ret)
		g->link_ret = w;
	g->max_link_ret = NVML_ASK(f->max_gen, d, &g->max_gen);
	w = NVML_ASK(f->max_width, d, &g->max_width);
	if (!g->max_link_ret)
		g->max_link_ret = w;
	g->persist_ret = NVML_ASK(f->persist, d, &g->persistence);
	g->util_ret = NVML_ASK(f->util, d, &g->util);
	g->replay_ret = NVML_ASK(f->replay, d, &g->replays);
}

/* nvml_collect - load the library, initialise it and ask every GPU */
void nvml_collect(struct nvml_info *n)
{
	const char *lib = getenv("GPULAT_NVML_LIB");
	struct nvml_fns f = { 0 };
	nvmlDevice_t d;
	nvmlReturn_t ret;
	const char *why;
	char eb[128];
	unsigned int i;

	memset(n, 0, sizeof(*n));
	if (!lib || !lib[0])
		lib = NVML_SONAME;
	snprintf(n->lib, sizeof(n->lib), "%s", lib);
	n->handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!n->handle) {
		why = dlerror();
		snprintf(n->absent, sizeof(n->absent),
			 "%s not loadable: %s (is the NVIDIA driver's user space installed?)",
			 lib, why ? why : "unknown reason");
		return;
	}
	nvml_load(n, &f);
	if (!f.init || !f.shutdown) {
		snprintf(n->absent, sizeof(n->absent),
			 "%s lacks nvmlInit_v2/nvmlShutdown", lib);
		goto unload;
	}
	ret = f.init();
	if (ret) {
		snprintf(n->absent, sizeof(n->absent), "nvmlInit failed: %s",
			 nvml_error_text(n, ret, eb, sizeof(eb)));
		goto unload;
	}
	n->present = true;
	n->driver_ret = NVML_ASK(f.driver, n->driver, sizeof(n->driver));
	n->driver[sizeof(n->driver) - 1] = '\0';
	n->count_ret = NVML_ASK(f.count, &n->nr_gpus);
	if (n->count_ret || !f.handle)
		n->nr_gpus = 0;
	n->nr_listed = n->nr_gpus < NVML_MAX_GPUS ? n->nr_gpus : NVML_MAX_GPUS;
	for (i = 0; i < n->nr_listed; i++) {
		struct nvml_gpu *g = &n->gpu[i];

		d = NULL;
		g->handle_ret = f.handle(i, &d);
		if (!g->handle_ret)
			nvml_gpu(&f, d, g);
	}
	return;
unload:
	dlclose(n->handle);
	n->handle = NULL;
	n->error_string = NULL;
}

/* nvml_close - nvmlShutdown and dlclose, once */
void nvml_close(struct nvml_info *n)
{
	nvmlReturn_t (*shutdown)(void);

	if (!n->handle)
		return;
	if (n->present) {
		*(void **)&shutdown = dlsym(n->handle, "nvmlShutdown");
		if (shutdown)
			shutdown();
	}
	dlclose(n->handle);
	n->handle = NULL;
	n->error_string = NULL;
	n->present = false;
}

#endif /* GPULAT_NO_DLOPEN */

/* nvml_val - the answer's text, or why there is none */
static const char *nvml_val(const struct nvml_info *n, nvmlReturn_t ret,
			    char *buf, size_t len)
{
	char eb[128];

	if (ret == NVML_NO_FN)
		return "absent: the library lacks the function";
	snprintf(buf, len, "absent: %s", nvml_error_text(n, ret, eb, sizeof(eb)));
	return buf;
}

/* nvml_print_text - nvml.txt: one block per GPU */
void nvml_print_text(FILE *f, const struct nvml_info *n)
{
	char eb[256], rb[256];
	unsigned int i;

	fprintf(f, "library:      %s\n", n->lib);
	if (!n->present) {
		fprintf(f, "absent: %s\n", n->absent);
		return;
	}
	if (n->missing[0])
		fprintf(f, "missing:      %s (older library; those answers are absent)\n",
			n->missing);
	if (n->driver_ret)
		fprintf(f, "driver:       %s\n",
			nvml_val(n, n->driver_ret, eb, sizeof(eb)));
	else
		fprintf(f, "driver:       %s\n", n->driver);
	if (n->count_ret) {
		fprintf(f, "gpus:         %s\n",
			nvml_val(n, n->count_ret, eb, sizeof(eb)));
		return;
	}
	fprintf(f, "gpus:         %u", n->nr_gpus);
	if (n->nr_listed < n->nr_gpus)
		fprintf(f, " (the first %u listed)", n->nr_listed);
	fputc('\n', f);

	for (i = 0; i < n->nr_listed; i++) {
		const struct nvml_gpu *g = &n->gpu[i];

		fprintf(f, "\ngpu %u\n", i);
		if (g->handle_ret) {
			fprintf(f, "  %s\n",
				nvml_val(n, g->handle_ret, eb, sizeof(eb)));
			continue;
		}
		fprintf(f, "  name:         %s\n", g->name_ret ?
			nvml_val(n, g->name_ret, eb, sizeof(eb)) : g->name);
		fprintf(f, "  pci:          %s\n", g->pci_ret ?
			nvml_val(n, g->pci_ret, eb, sizeof(eb)) : g->bus_id);
		if (g->reasons_ret)
			fprintf(f, "  clock events: %s\n",
				nvml_val(n, g->reasons_ret, eb, sizeof(eb)));
		else
			fprintf(f, "  clock events: 0x%llx (%s)\n", g->reasons,
				nvml_reasons_text(rb, sizeof(rb), g->reasons));
		if (g->link_ret)
			fprintf(f, "  pcie link:    %s\n",
				nvml_val(n, g->link_ret, eb, sizeof(eb)));
		else if (g->max_link_ret)
			fprintf(f, "  pcie link:    gen %u x%u (max: %s)\n",
				g->cur_gen, g->cur_width,
				nvml_val(n, g->max_link_ret, eb, sizeof(eb)));
		else
			fprintf(f, "  pcie link:    gen %u x%u of max gen %u x%u%s\n",
				g->cur_gen, g->cur_width, g->max_gen,
				g->max_width,
				g->cur_width < g->max_width ?
				"  (width below maximum)" :
				g->cur_gen < g->max_gen ?
				"  (speed below maximum; normal when idle)" : "");
		if (g->replay_ret)
			fprintf(f, "  pcie replays: %s\n",
				nvml_val(n, g->replay_ret, eb, sizeof(eb)));
		else
			fprintf(f, "  pcie replays: %u\n", g->replays);
		if (g->persist_ret)
			fprintf(f, "  persistence:  %s\n",
				nvml_val(n, g->persist_ret, eb, sizeof(eb)));
		else
			fprintf(f, "  persistence:  %s\n", g->persistence ?
				"enabled" :
				"disabled (each first open initialises the GPU: seconds)");
		if (g->util_ret)
			fprintf(f, "  utilisation:  %s\n",
				nvml_val(n, g->util_ret, eb, sizeof(eb)));
		else
			fprintf(f, "  utilisation:  gpu %u%%, memory %u%%\n",
				g->util.gpu, g->util.memory);
	}
}
