// SPDX-License-Identifier: GPL-2.0
/* The GPU timeline printed: text for people, JSON for tools. */
#include <string.h>

#include "engine/gpusample/gpusample.h"
#include "engine/nvml/nvml.h"
#include "lib/json.h"

static double gs_at(const struct gs_timeline *t, uint64_t ns)
{
	return ns > t->start_ns ? (ns - t->start_ns) / 1e9 : 0;
}

/* gs_slowest - the call kind with the longest single call */
static enum gs_call gs_slowest(const struct gs_timeline *t)
{
	enum gs_call c, worst = GS_CALL_NONE;

	for (c = GS_CALL_HANDLE; c < GS_NR_CALLS; c++)
		if (t->cost[c].max_ns > t->cost[worst].max_ns)
			worst = c;
	return worst;
}

/* gs_calls_ns - the calls' time of every sample (not the first reading) */
static uint64_t gs_calls_ns(const struct gs_timeline *t)
{
	uint64_t sum = 0;
	enum gs_call c;

	for (c = GS_CALL_UTIL; c < GS_NR_CALLS; c++)
		if (c != GS_CALL_EVENTS && c != GS_CALL_SHUTDOWN)
			sum += t->cost[c].sum_ns;
	return sum;
}

/* gs_cost_text - see gpusample.h */
char *gs_cost_text(char *buf, size_t len, const struct gs_timeline *t)
{
	double span = t->end_ns > t->start_ns ?
		      (t->end_ns - t->start_ns) / 1e9 : 0;
	enum gs_call w = gs_slowest(t);
	uint64_t n = t->nr_samples + t->samples_lost;

	snprintf(buf, len,
		 "NVML's calls took %.2f ms per sample (the slowest: %s, %.2f ms; nvmlInit and the first reading %.1f ms); the sampler used %.1f ms of CPU in %.1f s (%.2f%% of a CPU)",
		 n ? gs_calls_ns(t) / 1e6 / n : 0.0,
		 w ? gs_call_names[w] : "none", t->cost[w].max_ns / 1e6,
		 t->cost[GS_CALL_LOAD].max_ns / 1e6, t->cpu_ns / 1e6, span,
		 span > 0 ? t->cpu_ns / 1e7 / span : 0.0);
	return buf;
}

/* gs_cost_json - see gpusample.h */
void gs_cost_json(struct json *j, const struct gs_timeline *t)
{
	enum gs_call w = gs_slowest(t);
	uint64_t n = t->nr_samples + t->samples_lost;

	json_object_begin(j, "cost");
	json_double(j, "calls_ms_per_sample",
		    n ? gs_calls_ns(t) / 1e6 / n : 0.0);
	if (w)
		json_str(j, "slowest_call", gs_call_names[w]);
	else
		json_null(j, "slowest_call");
	json_double(j, "slowest_ms", t->cost[w].max_ns / 1e6);
	json_double(j, "init_ms", t->cost[GS_CALL_LOAD].max_ns / 1e6);
	json_double(j, "cpu_ms", t->cpu_ns / 1e6);
	json_object_end(j);
}

static void gs_print_head(FILE *f, const struct gs_timeline *t)
{
	char cost[512];

	fprintf(f, "library:   %s\n", t->lib[0] ? t->lib : NVML_SONAME);
	if (!t->present) {
		fprintf(f, "absent: %s\n", t->absent);
		if (t->hung)
			fprintf(f, "hung:      %s\n", t->hung_why);
		return;
	}
	fprintf(f, "driver:    %s\n", t->driver[0] ? t->driver : "?");
	if (t->missing[0])
		fprintf(f, "missing:   %s (older library; those answers are absent)\n",
			t->missing);
	fprintf(f, "gpus:      %u (%u sampled)\n", t->nr_gpus, t->nr_sampled);
	fprintf(f, "samples:   %zu, one per %.3g s, %llu older ones lost\n",
		t->nr_samples, t->interval_s,
		(unsigned long long)t->samples_lost);
	if (t->events)
		fprintf(f, "xids:      NVML's event API%s%s%s\n",
			t->events_why[0] ? " (" : "", t->events_why,
			t->events_why[0] ? ")" : "");
	else
		fprintf(f, "xids:      not from NVML: %s\n", t->events_why);
	if (t->cut[0])
		fprintf(f, "stopped:   %s\n", t->cut);
	if (t->hung)
		fprintf(f, "hung:      %s\n", t->hung_why);
	fprintf(f, "cost:      %s\n", gs_cost_text(cost, sizeof(cost), t));
}

static void gs_print_gpu(FILE *f, double at, uint32_t i,
			 const struct gs_gpu_sample *g)
{
	char reasons[256];
	uint32_t k;

	fprintf(f, "%8.1f %3u", at, i);
	if (g->ok & GS_F_UTIL)
		fprintf(f, " %4u%% %4u%%", g->util_gpu, g->util_mem);
	else
		fprintf(f, "     -     -");
	if (g->ok & GS_F_MEM)
		fprintf(f, " %6.1f/%-6.1f", gs_gib(g->mem_used),
			gs_gib(g->mem_total));
	else
		fprintf(f, "       -/-     ");
	if (g->ok & GS_F_LINK)
		fprintf(f, " gen%u x%-2u", g->cur_gen, g->cur_width);
	else
		fprintf(f, "  -      ");
	if (g->ok & GS_F_MAXLINK)
		fprintf(f, "/gen%u x%-2u", g->max_gen, g->max_width);
	else
		fprintf(f, "/-       ");
	if (g->ok & GS_F_REPLAY)
		fprintf(f, " %7u", g->replays);
	else
		fprintf(f, "       -");
	if (g->ok & GS_F_REASONS)
		fprintf(f, "  0x%llx (%s)", (unsigned long long)g->reasons,
			nvml_reasons_text(reasons, sizeof(reasons),
					  g->reasons));
	else
		fprintf(f, "  -");
	for (k = 0; (g->ok & GS_F_PROCS) && k < g->nr_procs; k++) {
		const struct gs_proc *p = &g->procs[k];

		if (p->mem == UINT64_MAX)
			fprintf(f, "%s %d:?", k ? "," : "  procs", (int)p->pid);
		else
			fprintf(f, "%s %d:%.1fGiB", k ? "," : "  procs",
				(int)p->pid, gs_gib(p->mem));
		if (p->sm != GS_NA)
			fprintf(f, ":%u%%", p->sm);
	}
	if ((g->ok & GS_F_PROCS) && g->procs_total > g->nr_procs)
		fprintf(f, " (+%u more)", g->procs_total - g->nr_procs);
	fputc('\n', f);
}

/* gs_print_text - see gpusample.h */
void gs_print_text(FILE *f, const struct gs_timeline *t)
{
	size_t k;
	uint32_t i;

	gs_print_head(f, t);
	if (!t->present)
		return;
	fprintf(f, "\n#      t gpu  util memio  used/total GiB link/max        replays  clock events  procs pid:memory[:SM%%]\n");
	for (k = 0; k < t->nr_samples; k++) {
		const struct gs_sample *s = &t->samples[k];

		for (i = 0; i < s->nr_gpus && i < GS_MAX_GPUS; i++)
			gs_print_gpu(f, gs_at(t, s->time_ns), i, &s->gpu[i]);
	}
	if (!t->nr_xids)
		return;
	fprintf(f, "\n# Xids from NVML's event API\n");
	for (k = 0; k < t->nr_xids; k++) {
		const struct gs_xid *x = &t->xids[k];

		fprintf(f, "%8.1f %3d Xid %u\n", gs_at(t, x->time_ns),
			x->gpu == GS_NA ? -1 : (int)x->gpu, x->code);
	}
	if (t->xids_lost)
		fprintf(f, "# %llu more Xids not kept\n",
			(unsigned long long)t->xids_lost);
}

static void gs_json_gpu(struct json *j, uint32_t i,
			const struct gs_gpu_sample *g)
{
	uint32_t k;

	json_object_begin(j, NULL);
	json_u64(j, "gpu", i);
	if (g->ok & GS_F_UTIL) {
		json_u64(j, "util_gpu", g->util_gpu);
		json_u64(j, "util_mem", g->util_mem);
	}
	if (g->ok & GS_F_MEM) {
		json_u64(j, "mem_used", g->mem_used);
		json_u64(j, "mem_total", g->mem_total);
	}
	if (g->ok & GS_F_REASONS)
		json_u64(j, "clock_event_reasons", g->reasons);
	if (g->ok & GS_F_LINK) {
		json_u64(j, "link_gen", g->cur_gen);
		json_u64(j, "link_width", g->cur_width);
	}
	if (g->ok & GS_F_MAXLINK) {
		json_u64(j, "link_max_gen", g->max_gen);
		json_u64(j, "link_max_width", g->max_width);
	}
	if (g->ok & GS_F_REPLAY)
		json_u64(j, "pcie_replays", g->replays);
	if (g->ok & GS_F_PERSIST)
		json_bool(j, "persistence", g->persistence > 0);
	if (g->ok & GS_F_PROCS) {
		json_u64(j, "procs_total", g->procs_total);
		json_array_begin(j, "procs");
		for (k = 0; k < g->nr_procs; k++) {
			const struct gs_proc *p = &g->procs[k];

			json_object_begin(j, NULL);
			json_u64(j, "pid", p->pid > 0 ? (uint64_t)p->pid : 0);
			if (p->mem == UINT64_MAX)
				json_null(j, "mem");
			else
				json_u64(j, "mem", p->mem);
			if (p->sm == GS_NA)
				json_null(j, "sm");
			else
				json_u64(j, "sm", p->sm);
			json_object_end(j);
		}
		json_array_end(j);
	}
	json_object_end(j);
}

/* gs_print_json - see gpusample.h */
void gs_print_json(FILE *f, const struct gs_timeline *t)
{
	struct json j;
	size_t k;
	uint32_t i;

	json_begin(&j, f);
	json_object_begin(&j, NULL);
	json_u64(&j, "version", 1);
	json_str(&j, "library", t->lib[0] ? t->lib : NVML_SONAME);
	json_bool(&j, "present", t->present);
	if (t->present)
		json_null(&j, "absent");
	else
		json_str(&j, "absent", t->absent);
	if (t->hung)
		json_str(&j, "hung", t->hung_why);
	else
		json_null(&j, "hung");
	json_str(&j, "driver", t->driver);
	json_double(&j, "interval_s", t->interval_s);
	json_u64(&j, "nr_gpus", t->nr_gpus);
	json_u64(&j, "samples_lost", t->samples_lost);
	json_bool(&j, "xid_events", t->events);
	json_str(&j, "xid_events_why", t->events_why);
	if (t->cut[0])
		json_str(&j, "cut", t->cut);
	else
		json_null(&j, "cut");
	if (t->present)
		gs_cost_json(&j, t);
	else
		json_null(&j, "cost");
	json_array_begin(&j, "gpus");
	for (i = 0; t->present && i < t->nr_sampled; i++) {
		json_object_begin(&j, NULL);
		json_u64(&j, "index", i);
		json_str(&j, "name", t->info[i].name);
		json_str(&j, "bus_id", t->info[i].bus_id);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_array_begin(&j, "samples");
	for (k = 0; k < t->nr_samples; k++) {
		const struct gs_sample *s = &t->samples[k];

		json_object_begin(&j, NULL);
		json_double(&j, "t", gs_at(t, s->time_ns));
		json_array_begin(&j, "gpus");
		for (i = 0; i < s->nr_gpus && i < GS_MAX_GPUS; i++)
			gs_json_gpu(&j, i, &s->gpu[i]);
		json_array_end(&j);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_array_begin(&j, "xids");
	for (k = 0; k < t->nr_xids; k++) {
		json_object_begin(&j, NULL);
		json_double(&j, "t_lo", gs_at(t, t->xids[k].lo_ns));
		json_double(&j, "t", gs_at(t, t->xids[k].time_ns));
		if (t->xids[k].gpu == GS_NA)
			json_null(&j, "gpu");
		else
			json_u64(&j, "gpu", t->xids[k].gpu);
		json_u64(&j, "code", t->xids[k].code);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_u64(&j, "xids_lost", t->xids_lost);
	json_object_end(&j);
	json_end(&j);
}
