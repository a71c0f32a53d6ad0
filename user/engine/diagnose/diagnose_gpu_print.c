// SPDX-License-Identifier: GPL-2.0
/* gpulat diagnose, the GPU side printed: text (a block) and JSON. */
#include <string.h>

#include "engine/diagnose/diagnose_int.h"
#include "engine/nvml/nvml.h"

static void diag_gpu_print_one(FILE *f, const struct diag_gpu_one *g)
{
	char line[2 * DIAG_TEXT_LEN], link[96] = "", reasons[256], mem[64];

	if (!g->samples) {
		snprintf(line, sizeof(line), "GPU %u %s %s: no utilisation sampled",
			 g->index, g->name, g->bus_id);
		diag_wrap_words(f, " ", 4, line);
		return;
	}
	if (g->link_samples)
		snprintf(link, sizeof(link), "; link gen %u x%u of gen %u x%u",
			 g->min_gen, g->min_width, g->max_gen, g->max_width);
	if (g->power_capped) {
		size_t n = strlen(link);

		snprintf(link + n, sizeof(link) - n,
			 "; at its power cap in %u samples", g->power_capped);
	}
	if (g->mem_total)
		snprintf(mem, sizeof(mem), "%.1f of %.1f GiB at most",
			 gs_gib(g->mem_used_max), gs_gib(g->mem_total));
	else
		snprintf(mem, sizeof(mem), "not sampled");
	snprintf(line, sizeof(line),
		 "GPU %u %s %s: utilisation %.0f%% mean, %u%% max (memory bandwidth %.0f%%); memory %s; clocks held down: %s%s",
		 g->index, g->name, g->bus_id, g->util_mean, g->util_max,
		 g->mem_util_mean, mem,
		 g->throttled ? nvml_reasons_text(reasons, sizeof(reasons),
						  g->bad_reasons) : "no",
		 link);
	diag_wrap_words(f, " ", 4, line);
}

/* diag_gpu_print - the GPU block of the text verdict */
void diag_gpu_print(FILE *f, const struct diag_result *r)
{
	const struct diag_gpu_res *G = r->gpu;
	char line[2 * DIAG_TEXT_LEN];
	size_t k;
	uint32_t i;

	if (!G)
		return;
	fputc('\n', f);
	if (!G->present) {
		snprintf(line, sizeof(line), "GPU (NVML): not sampled: %s",
			 G->absent);
		diag_wrap_words(f, "", 4, line);
		for (k = 0; k < G->nr_causes; k++)
			diag_wrap_words(f, "  cause:", 4, G->causes[k].text);
		return;
	}
	snprintf(line, sizeof(line),
		 "GPU (NVML %s, driver %s): %zu samples, one per %.3g s%s; %u GPU%s%s; Xids from NVML's events: %s",
		 G->lib, G->driver[0] ? G->driver : "?", G->nr_samples,
		 G->interval_s, G->samples_lost ? " (older ones lost)" : "",
		 G->nr_gpus, G->nr_gpus == 1 ? "" : "s",
		 G->nr_sampled < G->nr_gpus ? " (the first ones sampled)" : "",
		 !G->events ? G->events_why : G->events_why[0] ?
		 G->events_why : "yes");
	diag_wrap_words(f, "", 4, line);
	snprintf(line, sizeof(line), "triage: %s", G->triage_text);
	diag_wrap_words(f, " ", 4, line);
	snprintf(line, sizeof(line), "sampling cost: %s", G->cost_text);
	diag_wrap_words(f, " ", 4, line);
	for (i = 0; i < G->nr_sampled; i++)
		diag_gpu_print_one(f, &G->gpu[i]);
	for (k = 0; k < G->nr_procs; k++) {
		const struct diag_gpu_proc *p = &G->procs[k];
		char sm[32] = "no SM sample";

		if (p->sm_mean >= 0)
			snprintf(sm, sizeof(sm), "%.0f%% of the SMs",
				 p->sm_mean);
		snprintf(line, sizeof(line),
			 "process %d (%s) on GPU %u: %s, %.1f GiB%s%s%s",
			 (int)p->pid, p->ours ? p->comm : !p->alive ?
			 "gone, or of another pid namespace" :
			 p->owner == DIAG_OWNER_UNKNOWN ? p->comm :
			 "not this pid namespace's: it has no /dev/nvidia* open",
			 p->gpu, sm, gs_gib(p->mem_max),
			 p->miner ? "; a cryptominer's name" : "",
			 p->cpu_culprit ? "; also a CPU culprit: " :
			 p->owner == DIAG_OWNER_UNKNOWN ?
			 "; not checked to be NVML's process (its descriptors may not be read)" :
			 "",
			 p->cpu_culprit ? p->cpu_doing : "");
		diag_wrap_words(f, " ", 4, line);
	}
	if (G->xids_lost)
		fprintf(f, "  %llu Xids from NVML lost: more than the sampler keeps\n",
			(unsigned long long)G->xids_lost);
	if (G->xids_nvml) {
		snprintf(line, sizeof(line),
			 "Xids from NVML: %zu (%zu also seen by the driver's tracepoint; each counted once, in the driver layer)",
			 G->xids_nvml, G->xids_both);
		diag_wrap_words(f, " ", 4, line);
	}
	for (k = 0; k < G->nr_causes; k++)
		diag_wrap_words(f, "  cause:", 4, G->causes[k].text);
	if (G->causes_lost)
		fprintf(f, "  (%llu more causes not listed)\n",
			(unsigned long long)G->causes_lost);
	if (G->cut[0]) {
		snprintf(line, sizeof(line), "note: %s", G->cut);
		diag_wrap_words(f, " ", 4, line);
	}
}

/* diag_gpu_json - the "gpu" member of the JSON verdict */
void diag_gpu_json(struct json *j, const struct diag_result *r)
{
	const struct diag_gpu_res *G = r->gpu;
	char reasons[256];
	size_t k;
	uint32_t i;

	if (!G) {
		json_null(j, "gpu");
		return;
	}
	json_object_begin(j, "gpu");
	json_bool(j, "present", G->present);
	if (G->present)
		json_null(j, "absent");
	else
		json_str(j, "absent", G->absent);
	json_str(j, "library", G->lib);
	json_str(j, "driver", G->driver);
	json_double(j, "interval_s", G->interval_s);
	json_u64(j, "samples", G->nr_samples);
	json_u64(j, "samples_lost", G->samples_lost);
	if (G->hung)
		json_str(j, "hung", G->hung_why);
	else
		json_null(j, "hung");
	json_bool(j, "xid_events", G->events);
	if (G->present)
		gs_cost_json(j, &G->cost);
	else
		json_null(j, "cost");
	json_str(j, "xid_events_why", G->events_why);
	json_u64(j, "xids_nvml", G->xids_nvml);
	json_u64(j, "xids_both", G->xids_both);
	json_u64(j, "xids_lost", G->xids_lost);
	json_str(j, "triage", diag_gpu_triage_name(G->triage));
	json_str(j, "triage_text", G->triage_text);
	json_u64(j, "nr_gpus", G->nr_gpus);
	json_array_begin(j, "gpus");
	for (i = 0; G->present && i < G->nr_sampled; i++) {
		const struct diag_gpu_one *g = &G->gpu[i];

		json_object_begin(j, NULL);
		json_u64(j, "index", g->index);
		json_str(j, "name", g->name);
		json_str(j, "bus_id", g->bus_id);
		json_u64(j, "samples", g->samples);
		json_double(j, "util_mean", g->util_mean);
		json_u64(j, "util_max", g->util_max);
		json_double(j, "mem_util_mean", g->mem_util_mean);
		json_u64(j, "mem_used_max", g->mem_used_max);
		json_u64(j, "mem_total", g->mem_total);
		json_u64(j, "throttled_samples", g->throttled);
		json_u64(j, "power_capped_samples", g->power_capped);
		json_str(j, "throttle_reasons",
			 nvml_reasons_text(reasons, sizeof(reasons),
					   g->bad_reasons));
		json_u64(j, "link_samples", g->link_samples);
		json_u64(j, "link_width_low", g->width_low);
		json_u64(j, "link_gen_low_busy", g->gen_low_busy);
		if (g->replay_known)
			json_u64(j, "replays_delta", g->replays_delta);
		else
			json_null(j, "replays_delta");
		if (g->persistence < 0)
			json_null(j, "persistence");
		else
			json_bool(j, "persistence", g->persistence > 0);
		json_object_end(j);
	}
	json_array_end(j);
	json_array_begin(j, "processes");
	for (k = 0; k < G->nr_procs; k++) {
		const struct diag_gpu_proc *p = &G->procs[k];

		json_object_begin(j, NULL);
		json_u64(j, "pid", p->pid > 0 ? (uint64_t)p->pid : 0);
		json_str(j, "comm", p->comm);
		json_u64(j, "gpu", p->gpu);
		json_bool(j, "alive", p->alive);
		if (p->owner == DIAG_OWNER_UNKNOWN)
			json_null(j, "ours");	/* could not be checked */
		else
			json_bool(j, "ours", p->ours);
		json_u64(j, "sharing", p->sharing);
		if (p->sm_mean >= 0)
			json_double(j, "sm_mean", p->sm_mean);
		else
			json_null(j, "sm_mean");
		json_u64(j, "mem_max", p->mem_max);
		json_bool(j, "hog", p->hog);
		json_bool(j, "miner", p->miner);
		json_bool(j, "cpu_culprit", p->cpu_culprit);
		json_object_end(j);
	}
	json_array_end(j);
	json_u64(j, "processes_lost", G->procs_lost);
	json_array_begin(j, "causes");
	for (k = 0; k < G->nr_causes; k++) {
		const struct diag_gpu_cause *c = &G->causes[k];

		json_object_begin(j, NULL);
		json_str(j, "kind", diag_gpu_cause_name(c->kind));
		if (c->gpu == GS_NA)
			json_null(j, "gpu");
		else
			json_u64(j, "gpu", c->gpu);
		json_str(j, "text", c->text);
		json_object_end(j);
	}
	json_array_end(j);
	json_u64(j, "causes_lost", G->causes_lost);
	if (G->cut[0])
		json_str(j, "cut", G->cut);
	else
		json_null(j, "cut");
	json_object_end(j);
}
