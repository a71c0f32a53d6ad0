// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose, the GPU side: each GPU's utilisation and memory over
 * the watch, the operators' triage rule ("GPU utilisation low while
 * latency is abnormal: the host's layers; very high with its memory
 * full: the job exceeds what it was given"), the processes holding a GPU
 * joined with the CPU culprits, and throttling, a downtrained link and
 * PCIe replays as causes of their own.  Rules: diagnose_gpu.h.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/diagnose/diagnose_int.h"
#include "engine/nvml/nvml.h"

/*
 * The clock event reasons that slow a GPU down, and what to check.  Not
 * sw power cap (0x4): a saturated GPU runs at its power limit by design;
 * it is shown, not counted as a cause.
 */
static const struct {
	unsigned long long bit;
	const char *check;
} diag_gpu_throttles[] = {
	{ 0x8ULL, "hardware slowdown (temperature or power brake): nvidia-smi -q -d PERFORMANCE,TEMPERATURE, the fans and the power supply" },
	{ 0x20ULL, "it runs hot: nvidia-smi -q -d TEMPERATURE, the airflow and fans" },
	{ 0x40ULL, "it runs hot: nvidia-smi -q -d TEMPERATURE, the airflow and fans" },
	{ 0x80ULL, "the power brake is asserted: check the power supply and the system's power capping" },
};

static const char *const diag_triage_names[DIAG_NR_TRIAGE] = {
	[DIAG_TRIAGE_NONE]	= "none",
	[DIAG_TRIAGE_HOST]	= "host",
	[DIAG_TRIAGE_DRIVER]	= "driver",
	[DIAG_TRIAGE_JOB]	= "job",
	[DIAG_TRIAGE_BUSY]	= "busy",
	[DIAG_TRIAGE_IDLE]	= "idle",
	[DIAG_TRIAGE_MIXED]	= "mixed",
};

static const char *const diag_gc_names[DIAG_NR_GC] = {
	[DIAG_GC_MEMORY]	= "memory_full",
	[DIAG_GC_THROTTLE]	= "throttle",
	[DIAG_GC_LINK]		= "link",
	[DIAG_GC_REPLAY]	= "replays",
	[DIAG_GC_HOG]		= "hog",
	[DIAG_GC_HUNG]		= "hung",
};

const char *diag_gpu_triage_name(enum diag_triage t)
{
	return t < DIAG_NR_TRIAGE ? diag_triage_names[t] : "?";
}

const char *diag_gpu_cause_name(enum diag_gpu_cause_kind k)
{
	return k < DIAG_NR_GC ? diag_gc_names[k] : "?";
}

static uint64_t diag_gpu_throttle_mask(void)
{
	uint64_t m = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(diag_gpu_throttles); i++)
		m |= diag_gpu_throttles[i].bit;
	return m;
}

/* diag_gpu_xids - see diagnose_gpu.h */
void diag_gpu_xids(struct diag_result *r, const struct gs_timeline *t)
{
	struct diag_layer_res *L = &r->layer[DIAG_DRIVER];
	char dev[32];
	size_t i;

	for (i = 0; i < t->nr_xids; i++) {
		const struct gs_xid *x = &t->xids[i];

		dev[0] = '\0';
		if (x->gpu < t->nr_sampled)
			gs_bus_kernel(dev, sizeof(dev),
				      t->info[x->gpu].bus_id);
		diag_xid_add(L, x->lo_ns, x->time_ns, x->code, dev, true,
			     DIAG_XID_FROM_NVML);
	}
}

/* diag_gpu_one - one GPU's numbers over the samples */
static void diag_gpu_one(const struct gs_timeline *t, uint32_t i,
			 struct diag_gpu_one *g)
{
	uint64_t bad = diag_gpu_throttle_mask(), util_sum = 0, mu_sum = 0;
	bool first_replay = true;
	uint32_t replay0 = 0;
	size_t k;

	memset(g, 0, sizeof(*g));
	g->index = i;
	snprintf(g->name, sizeof(g->name), "%s", t->info[i].name);
	snprintf(g->bus_id, sizeof(g->bus_id), "%s", t->info[i].bus_id);
	gs_bus_kernel(g->dev, sizeof(g->dev), g->bus_id);
	g->persistence = -1;
	g->min_gen = g->min_width = g->min_gen_busy = UINT32_MAX;
	for (k = 0; k < t->nr_samples; k++) {
		const struct gs_gpu_sample *s = &t->samples[k].gpu[i];
		double at = (t->samples[k].time_ns - t->start_ns) / 1e9;
		bool busy;

		if (i >= t->samples[k].nr_gpus)
			continue;
		busy = (s->ok & GS_F_UTIL) &&
		       s->util_gpu >= DIAG_GPU_LINK_BUSY_PCT;
		if (s->ok & GS_F_UTIL) {
			g->samples++;
			util_sum += s->util_gpu;
			mu_sum += s->util_mem;
			if (s->util_gpu > g->util_max)
				g->util_max = s->util_gpu;
		}
		if ((s->ok & GS_F_MEM) && s->mem_total) {
			if (s->mem_used > g->mem_used_max)
				g->mem_used_max = s->mem_used;
			g->mem_total = s->mem_total;
		}
		if ((s->ok & GS_F_REASONS) && (s->reasons & GS_POWER_CAP))
			g->power_capped++;
		if ((s->ok & GS_F_REASONS) && (s->reasons & bad)) {
			if (!g->throttled)
				g->first_throttle_s = at > 0 ? at : 0;
			g->throttled++;
			g->bad_reasons |= s->reasons & bad;
		}
		if ((s->ok & GS_F_LINK) && (s->ok & GS_F_MAXLINK)) {
			g->link_samples++;
			g->max_gen = s->max_gen;
			g->max_width = s->max_width;
			if (s->cur_gen < g->min_gen)
				g->min_gen = s->cur_gen;
			if (s->cur_width < g->min_width)
				g->min_width = s->cur_width;
			if (s->cur_width < s->max_width) {
				g->width_low++;
			} else if (busy && s->cur_gen < s->max_gen) {
				g->gen_low_busy++;
				if (s->cur_gen < g->min_gen_busy)
					g->min_gen_busy = s->cur_gen;
			}
		}
		if (s->ok & GS_F_REPLAY) {
			if (first_replay)
				replay0 = s->replays;
			first_replay = false;
			g->replay_known = true;
			g->replays_delta = s->replays >= replay0 ?
					   s->replays - replay0 : 0;
		}
		if (s->ok & GS_F_PERSIST)
			g->persistence = s->persistence;
	}
	if (g->samples) {
		g->util_mean = (double)util_sum / g->samples;
		g->mem_util_mean = (double)mu_sum / g->samples;
	}
}

static struct diag_gpu_cause *diag_gpu_cause(struct diag_gpu_res *G,
					     enum diag_gpu_cause_kind kind,
					     uint32_t gpu)
{
	struct diag_gpu_cause *c;

	if (G->nr_causes == DIAG_GPU_MAX_CAUSES) {
		G->causes_lost++;
		return NULL;
	}
	c = &G->causes[G->nr_causes++];
	c->kind = kind;
	c->gpu = gpu;
	return c;
}

/* diag_gpu_full - whether GPU @g was busy with its memory full */
static bool diag_gpu_full(const struct diag_gpu_one *g)
{
	return g->samples && g->util_mean >= DIAG_GPU_BUSY_PCT &&
	       g->mem_total &&
	       g->mem_used_max * 1000 >= g->mem_total * DIAG_GPU_FULL_PERMILLE;
}

static void diag_gpu_throttle_cause(struct diag_gpu_res *G,
				    const struct diag_gpu_one *g)
{
	char names[256];
	const char *check = "";
	struct diag_gpu_cause *c;
	size_t i;

	if (!g->throttled)
		return;
	for (i = 0; i < ARRAY_SIZE(diag_gpu_throttles); i++)
		if (g->bad_reasons & diag_gpu_throttles[i].bit)
			check = diag_gpu_throttles[i].check;
	c = diag_gpu_cause(G, DIAG_GC_THROTTLE, g->index);
	if (!c)
		return;
	snprintf(c->text, sizeof(c->text),
		 "GPU %u's clocks were held down in %u of %u samples, from %.1f s into the watch: %s; %s",
		 g->index, g->throttled, g->samples ? g->samples : g->throttled,
		 g->first_throttle_s,
		 nvml_reasons_text(names, sizeof(names), g->bad_reasons),
		 check);
}

static void diag_gpu_link_cause(struct diag_gpu_res *G,
				const struct diag_gpu_one *g)
{
	struct diag_gpu_cause *c;

	if (!g->width_low && !g->gen_low_busy)
		return;
	c = diag_gpu_cause(G, DIAG_GC_LINK, g->index);
	if (!c)
		return;
	if (g->width_low)
		snprintf(c->text, sizeof(c->text),
			 "GPU %u's PCIe link ran at x%u of x%u (gen %u of %u) in %u of %u samples: a downtrained link cuts its bandwidth. Check lspci -vv -s %s (LnkSta against LnkCap, AER errors), reseat the card or its riser",
			 g->index, g->min_width, g->max_width, g->min_gen,
			 g->max_gen, g->width_low, g->link_samples, g->dev);
	else
		snprintf(c->text, sizeof(c->text),
			 "GPU %u's PCIe link ran at gen %u of %u while the GPU was busy (%u of %u samples): the link did not train to its speed. Check lspci -vv -s %s (LnkSta against LnkCap), the BIOS's PCIe settings, the slot",
			 g->index, g->min_gen_busy, g->max_gen, g->gen_low_busy,
			 g->link_samples, g->dev);
}

/* diag_gpu_comm - /proc/PID/comm (under $GPULAT_SYSROOT); false if gone */
static bool diag_gpu_comm(int32_t pid, char *comm, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	snprintf(comm, len, "?");
	snprintf(path, sizeof(path), "%s/proc/%d/comm", diag_root(), (int)pid);
	f = fopen(path, "re");
	if (!f) {
		/* the main thread's, the same name */
		snprintf(path, sizeof(path), "%s/proc/%d/task/%d/comm",
			 diag_root(), (int)pid, (int)pid);
		f = fopen(path, "re");
	}
	if (!f)
		return false;
	if (fgets(comm, (int)len, f)) {
		n = strcspn(comm, "\n");
		comm[n] = '\0';
	}
	fclose(f);
	return true;
}

/* diag_gpu_proc_add - process @p of GPU @gpu seen in one sample */
static void diag_gpu_proc_add(struct diag_gpu_proc *v, size_t *n,
			      size_t cap, uint64_t *lost, uint32_t gpu,
			      const struct gs_proc *p, double *sm_sum,
			      uint32_t *sm_cnt)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (v[i].pid == p->pid && v[i].gpu == gpu)
			break;
	if (i == *n) {
		if (*n == cap) {
			(*lost)++;
			return;
		}
		memset(&v[i], 0, sizeof(v[i]));
		v[i].pid = p->pid;
		v[i].gpu = gpu;
		sm_sum[i] = 0;
		sm_cnt[i] = 0;
		(*n)++;
	}
	v[i].seen++;
	if (p->mem != UINT64_MAX && p->mem > v[i].mem_max)
		v[i].mem_max = p->mem;
	if (p->sm != GS_NA) {
		sm_sum[i] += p->sm;
		sm_cnt[i]++;
	}
}

static int diag_gpu_proc_cmp(const void *a, const void *b)
{
	const struct diag_gpu_proc *x = a, *y = b;

	if (x->hog != y->hog)
		return x->hog ? -1 : 1;
	if (x->sm_mean != y->sm_mean)
		return x->sm_mean > y->sm_mean ? -1 : 1;
	if (x->mem_max != y->mem_max)
		return x->mem_max > y->mem_max ? -1 : 1;
	return x->pid - y->pid;
}

/* diag_gpu_cpu_join - whether @p is also a CPU culprit of a layer */
static void diag_gpu_cpu_join(const struct diag_result *r,
			      struct diag_gpu_proc *p)
{
	char doing[128];
	int l;
	size_t k;

	for (l = 0; l < DIAG_NR_LAYERS; l++) {
		const struct diag_layer_res *L = &r->layer[l];

		for (k = 0; k < L->nr_culprits; k++) {
			const struct diag_culprit *c = &L->culprits[k];

			if (c->pid != p->pid && c->tgid != p->pid)
				continue;
			p->cpu_culprit = true;
			snprintf(p->cpu_doing, sizeof(p->cpu_doing), "%s (%s)",
				 diag_culprit_doing(doing, sizeof(doing), c),
				 diag_names[l]);
			return;
		}
	}
}

/*
 * diag_gpu_ours - whether process @pid has a /dev/nvidia* file open:
 * NVML's pids are the host's, and in another pid namespace the same
 * number is another process (the descriptors looked at are bounded)
 */
static enum diag_gpu_owner diag_gpu_ours(int32_t pid)
{
	char path[PATH_MAX], link[64];
	struct dirent *e;
	unsigned int seen = 0;
	bool ours = false;
	ssize_t n;
	DIR *d;

	snprintf(path, sizeof(path), "%s/proc/%d/fd", diag_root(), (int)pid);
	d = opendir(path);
	if (!d)	/* no CAP_SYS_PTRACE, or not dumpable: cannot tell */
		return errno == EACCES || errno == EPERM ? DIAG_OWNER_UNKNOWN :
							   DIAG_OWNER_OTHER;
	while (!ours && seen++ < DIAG_GPU_MAX_FDS && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/proc/%d/fd/%s", diag_root(),
			 (int)pid, e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		ours = !strncmp(link, "/dev/nvidia", 11);
	}
	closedir(d);
	return ours ? DIAG_OWNER_OURS : DIAG_OWNER_OTHER;
}

/* diag_gpu_noticeable - whether @p used its GPU: 1% of @total or an SM */
static uint32_t diag_gpu_noticeable(const struct gs_proc *p, uint64_t total)
{
	return (p->sm != GS_NA && p->sm > 0) ||
	       (p->mem != UINT64_MAX && total && p->mem * 100 >= total);
}

/* diag_gpu_procs - every GPU process over the samples; the hogs named */
static int diag_gpu_procs(struct diag_result *r, struct diag_gpu_res *G,
			  const struct gs_timeline *t)
{
	enum { CAP = 256 };
	uint32_t on_gpu[GS_MAX_GPUS] = { 0 }, sm_cnt[CAP], g;
	struct diag_gpu_proc *v;
	double sm_sum[CAP];
	size_t n = 0, k, i;

	v = calloc(CAP, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (k = 0; k < t->nr_samples; k++)
		for (g = 0; g < t->samples[k].nr_gpus && g < GS_MAX_GPUS; g++) {
			const struct gs_gpu_sample *s = &t->samples[k].gpu[g];

			for (i = 0; (s->ok & GS_F_PROCS) && i < s->nr_procs &&
				    i < GS_MAX_PROCS; i++)
				diag_gpu_proc_add(v, &n, CAP, &G->procs_lost,
						  g, &s->procs[i], sm_sum,
						  sm_cnt);
		}
	/* sharing: processes on a GPU at once, that used it noticeably */
	for (k = 0; k < t->nr_samples; k++)
		for (g = 0; g < t->samples[k].nr_gpus && g < GS_MAX_GPUS; g++) {
			const struct gs_gpu_sample *s = &t->samples[k].gpu[g];
			uint32_t busy = 0;

			for (i = 0; (s->ok & GS_F_PROCS) && i < s->nr_procs &&
				    i < GS_MAX_PROCS; i++)
				busy += diag_gpu_noticeable(&s->procs[i],
							    G->gpu[g].mem_total);
			if (busy > on_gpu[g])
				on_gpu[g] = busy;
		}
	for (i = 0; i < n; i++) {
		const struct diag_gpu_one *o = &G->gpu[v[i].gpu];

		v[i].sm_mean = sm_cnt[i] ? sm_sum[i] / sm_cnt[i] : -1;
		v[i].sharing = on_gpu[v[i].gpu];
		/* heavy use; whether it hogs is decided below */
		v[i].hog = v[i].sm_mean >= DIAG_GPU_HOG_SM ||
			   (o->mem_total && v[i].mem_max * 1000 >=
			    o->mem_total * DIAG_GPU_HOG_PERMILLE);
	}
	qsort(v, n, sizeof(*v), diag_gpu_proc_cmp);
	G->nr_procs = n < DIAG_GPU_MAX_PROCS ? n : DIAG_GPU_MAX_PROCS;
	G->procs_lost += n - G->nr_procs;
	for (i = 0; i < G->nr_procs; i++) {
		struct diag_gpu_proc *p = &G->procs[i];

		*p = v[i];
		p->alive = diag_gpu_comm(p->pid, p->comm, sizeof(p->comm));
		p->owner = p->alive ? diag_gpu_ours(p->pid) : DIAG_OWNER_OTHER;
		p->ours = p->owner == DIAG_OWNER_OURS;
		if (!p->ours) {
			/* not known to be NVML's process: no join, no kill */
			if (p->owner == DIAG_OWNER_OTHER)
				snprintf(p->comm, sizeof(p->comm), "?");
			p->hog = false;
			continue;
		}
		p->miner = diag_is_miner(p->comm);
		diag_gpu_cpu_join(r, p);
		p->hog = p->hog && (p->sharing > 1 || p->miner ||
				    p->cpu_culprit);
	}
	free(v);
	return 0;
}

static void diag_gpu_hog_causes(struct diag_gpu_res *G)
{
	struct diag_gpu_cause *c;
	char sm[32], tail[256], next[128];
	size_t i;

	for (i = 0; i < G->nr_procs; i++) {
		const struct diag_gpu_proc *p = &G->procs[i];

		if (!p->hog)
			continue;
		c = diag_gpu_cause(G, DIAG_GC_HOG, p->gpu);
		if (!c)
			return;
		if (p->sm_mean >= 0)
			snprintf(sm, sizeof(sm), "%.0f%% of its SMs, ",
				 p->sm_mean);
		else
			sm[0] = '\0';
		if (p->cpu_culprit)
			snprintf(tail, sizeof(tail),
				 "; the same process %s: it holds both the GPU and a feeder's CPU",
				 p->cpu_doing);
		else if (p->sharing > 1)
			snprintf(tail, sizeof(tail),
				 "; %u other process%s shared the GPU with it",
				 p->sharing - 1, p->sharing == 2 ? "" : "es");
		else
			tail[0] = '\0';
		if (p->miner)
			snprintf(next, sizeof(next),
				 "Stop it (kill %d) and find how it got there.",
				 (int)p->pid);
		else
			snprintf(next, sizeof(next),
				 "If it is not this GPU's job, release it (nvidia-smi | grep %d; kill %d).",
				 (int)p->pid, (int)p->pid);
		snprintf(c->text, sizeof(c->text),
			 "process %d (%s) holds GPU %u: %s%.1f GiB%s%s. %s",
			 (int)p->pid, p->comm, p->gpu, sm,
			 gs_gib(p->mem_max),
			 p->miner ? "; its name is a cryptominer's" : "",
			 tail, next);
	}
}

/* diag_gpu_triage_rule - the operators' first question, answered */
static void diag_gpu_triage_rule(const struct diag_result *r,
				 struct diag_gpu_res *G)
{
	bool all_idle = true, any_busy = false;
	uint32_t i, nr = 0, full = GS_NA, busy = GS_NA;
	double sum = 0, mean;

	for (i = 0; i < G->nr_sampled; i++) {
		const struct diag_gpu_one *g = &G->gpu[i];

		if (!g->samples)
			continue;
		nr++;
		sum += g->util_mean;
		if (g->util_mean >= DIAG_GPU_IDLE_PCT)
			all_idle = false;
		if (g->util_mean >= DIAG_GPU_BUSY_PCT) {
			any_busy = true;
			if (busy == GS_NA)
				busy = i;
		}
		if (diag_gpu_full(g) && full == GS_NA)
			full = i;
	}
	if (!nr) {
		G->triage = DIAG_TRIAGE_NONE;
		snprintf(G->triage_text, sizeof(G->triage_text),
			 "no GPU utilisation was sampled: the triage rule cannot be applied");
		return;
	}
	mean = sum / nr;	/* over the GPUs that answered */
	if (full != GS_NA && r->abnormal) {
		const struct diag_gpu_one *g = &G->gpu[full];

		G->triage = DIAG_TRIAGE_JOB;
		snprintf(G->triage_text, sizeof(G->triage_text),
			 "GPU %u was busy (%.0f%% mean) with its memory full (%.1f of %.1f GiB) while latency was abnormal: the job exceeds what it was given. Give it more GPUs or memory, or make it smaller (batch size, model sharding); check the processes on the GPU below",
			 full, g->util_mean, gs_gib(g->mem_used_max),
			 gs_gib(g->mem_total));
	} else if (all_idle && r->abnormal && r->rank[0] == DIAG_DRIVER) {
		G->triage = DIAG_TRIAGE_DRIVER;
		snprintf(G->triage_text, sizeof(G->triage_text),
			 "the GPUs were mostly idle (%.0f%% mean) while the GPU driver's layer was abnormal: the GPU or its driver stalls, not the host's other layers (see the %s below)",
			 mean, diag_titles[DIAG_DRIVER]);
	} else if (all_idle && r->abnormal) {
		G->triage = DIAG_TRIAGE_HOST;
		snprintf(G->triage_text, sizeof(G->triage_text),
			 "the GPUs were mostly idle (%.0f%% mean) while latency was abnormal: they wait for the host. Look at the layers ranked above, the %s first",
			 mean, diag_titles[r->rank[0]]);
	} else if (all_idle) {
		G->triage = DIAG_TRIAGE_IDLE;
		snprintf(G->triage_text, sizeof(G->triage_text),
			 "the GPUs were mostly idle (%.0f%% mean) and no layer was abnormal",
			 mean);
	} else if (any_busy) {
		/* full memory alone is how frameworks that preallocate run */
		G->triage = DIAG_TRIAGE_BUSY;
		/* a full GPU is a busy one: name that one */
		if (full != GS_NA)
			busy = full;
		snprintf(G->triage_text, sizeof(G->triage_text),
			 "GPU %u was busy (%.0f%% mean)%s: the GPU works; %s",
			 busy, G->gpu[busy].util_mean,
			 full != GS_NA ? ", its memory full" :
			 " with memory to spare",
			 r->abnormal ? "the latency comes from the layers ranked above" :
			 "no layer was abnormal");
	} else {
		G->triage = DIAG_TRIAGE_MIXED;
		snprintf(G->triage_text, sizeof(G->triage_text),
			 "the GPUs were partly busy (%.0f%% mean): neither side of the triage rule applies; read the layers and the causes below",
			 mean);
	}
}

/* diag_gpu - see diagnose_gpu.h */
int diag_gpu(struct diag_result *r, const struct gs_timeline *t)
{
	const struct diag_layer_res *D = &r->layer[DIAG_DRIVER];
	struct diag_gpu_res *G;
	struct diag_gpu_cause *c;
	uint32_t i;
	size_t k;
	int ret;

	if (!t->started)
		return 0;
	G = calloc(1, sizeof(*G));
	if (!G)
		return -ENOMEM;
	r->gpu = G;
	G->present = t->present;
	snprintf(G->absent, sizeof(G->absent), "%s", t->absent);
	snprintf(G->lib, sizeof(G->lib), "%s", t->lib);
	snprintf(G->driver, sizeof(G->driver), "%s", t->driver);
	G->hung = t->hung;
	snprintf(G->hung_why, sizeof(G->hung_why), "%s", t->hung_why);
	snprintf(G->cut, sizeof(G->cut), "%s", t->cut);
	G->events = t->events;
	snprintf(G->events_why, sizeof(G->events_why), "%s", t->events_why);
	G->interval_s = t->interval_s;
	G->nr_samples = t->nr_samples;
	G->samples_lost = t->samples_lost;
	G->xids_lost = t->xids_lost;
	G->nr_gpus = t->nr_gpus;
	G->nr_sampled = t->nr_sampled;
	gs_cost_text(G->cost_text, sizeof(G->cost_text), t);
	/* the numbers alone: no samples, no Xids */
	memcpy(G->cost.cost, t->cost, sizeof(t->cost));
	G->cost.cpu_ns = t->cpu_ns;
	G->cost.start_ns = t->start_ns;
	G->cost.end_ns = t->end_ns;
	G->cost.nr_samples = t->nr_samples;
	G->cost.samples_lost = t->samples_lost;
	for (k = 0; k < D->nr_xids; k++) {
		if (!D->xids[k].in_window)
			continue;
		if (D->xids[k].from & DIAG_XID_FROM_NVML)
			G->xids_nvml++;
		if (D->xids[k].from == (DIAG_XID_FROM_NVML |
					DIAG_XID_FROM_KERNEL))
			G->xids_both++;
	}
	if (G->hung) {
		c = diag_gpu_cause(G, DIAG_GC_HUNG, GS_NA);
		if (c)
			snprintf(c->text, sizeof(c->text),
				 "NVML: %s. A driver call that does not return stalls every NVML user (nvidia-smi, exporters, the job's own monitoring): check dmesg | grep -i NVRM for Xids and the GPU's state (nvidia-smi -q), and send the vendor a bundle (gpulat report)",
				 G->hung_why);
	}
	if (!G->present)
		return 0;
	for (i = 0; i < G->nr_sampled; i++)
		diag_gpu_one(t, i, &G->gpu[i]);
	ret = diag_gpu_procs(r, G, t);
	if (ret)
		return ret;
	diag_gpu_triage_rule(r, G);
	if (G->triage == DIAG_TRIAGE_JOB) {
		c = diag_gpu_cause(G, DIAG_GC_MEMORY, GS_NA);
		if (c)
			snprintf(c->text, sizeof(c->text), "%s",
				 G->triage_text);
	}
	for (i = 0; i < G->nr_sampled; i++) {
		const struct diag_gpu_one *g = &G->gpu[i];

		diag_gpu_throttle_cause(G, g);
		diag_gpu_link_cause(G, g);
		if (g->replays_delta) {
			c = diag_gpu_cause(G, DIAG_GC_REPLAY, i);
			if (c)
				snprintf(c->text, sizeof(c->text),
					 "GPU %u's PCIe link replayed %u packets during the watch: errors on the link. Check lspci -vv -s %s (AER: CorrErr, BadTLP, BadDLLP) and the slot or riser",
					 i, g->replays_delta, g->dev);
		}
	}
	diag_gpu_hog_causes(G);
	return 0;
}
