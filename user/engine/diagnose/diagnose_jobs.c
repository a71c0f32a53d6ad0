// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: the GPU jobs' own waits (the cuda family), per
 * process: how long their synchronising calls took, how much of that the
 * GPU took and how much the host added, part by part, and who the
 * layers name behind the host's parts (the driver layer's culprits held
 * the CPU of the driver's IRQ threads; the scheduler's, the CPU of the
 * waiting tasks), and the container or unit each process runs in.  The
 * host's share in ms per second watched is set beside the layers'
 * scores, so that it ranks like a layer.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/diagnose/diagnose_int.h"
#include "engine/watch/watch.h"
#include "lib/cgroup.h"
#include "lib/units.h"

/* the parts the host adds to a call on the driver's path */
static const unsigned int host_parts[] = {
	GPULAT_CUDA_DRIVER, GPULAT_CUDA_RUNQ, GPULAT_CUDA_PREEMPTED,
	GPULAT_CUDA_RETURN,
};

static uint64_t job_host_ns(const struct diag_job *j)
{
	uint64_t ns = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(host_parts); i++)
		ns += j->sum[host_parts[i]];
	return ns;
}

static int job_cmp(const void *a, const void *b)
{
	uint64_t x = job_host_ns(a), y = job_host_ns(b);

	return x < y ? 1 : x > y ? -1 : 0;
}

/* diag_job_fill - @j for process @tgid from the window @s */
static void diag_job_fill(struct diag_job *j, const struct gl_snapshot *s,
			  uint64_t tgid, const char *name)
{
	struct gl_hist h;
	unsigned int id;

	memset(j, 0, sizeof(*j));
	j->tgid = (int32_t)tgid;
	snprintf(j->comm, sizeof(j->comm), "%s", name);
	for (id = 0; id < DIAG_JOB_PARTS; id++) {
		if (gl_hist_merge_key(s, GPULAT_FAM_CUDA, id, tgid,
				      GPULAT_CPU_NONE, &h) < 1)
			continue;
		j->count[id] = h.count;
		j->sum[id] = h.sum_ns;
		if (id == GPULAT_CUDA_CALL) {
			j->p50 = gl_hist_quantile(&h, 500000);
			j->p99 = gl_hist_quantile(&h, 990000);
		}
	}
}

/*
 * diag_job_cgroup - where process @j runs: its cgroup2 path from
 * /proc/PID/cgroup (below $GPULAT_SYSROOT), and the container or unit
 * that path names, else the one its v1 lines name (a hybrid host)
 */
static void diag_job_cgroup(struct diag_job *j)
{
	char path[PATH_MAX], proc[PATH_MAX], text[4096], *line, *save;
	struct gl_cg_name n;
	size_t len;
	FILE *f;

	j->cgroup[0] = j->container[0] = '\0';
	snprintf(path, sizeof(path), "%s/proc/%d/cgroup", diag_root(),
		 j->tgid);
	f = fopen(path, "re");
	if (!f)
		return;
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "0::", 3))
			snprintf(j->cgroup, sizeof(j->cgroup), "%s", line + 3);
	if (gl_cg_name_path(j->cgroup, &n) == GL_CG_NONE) {
		snprintf(proc, sizeof(proc), "%s/proc", diag_root());
		gl_cg_name_v1(proc, j->tgid, NULL, &n);
	}
	gl_cg_name_text(j->container, sizeof(j->container), &n);
}

/* diag_jobs - the processes with calls in @w's window, most host first */
int diag_jobs(struct diag_result *r, const struct watch *w)
{
	const struct gl_snapshot *s = w->window;
	struct diag_job *all = NULL, *n;
	size_t i, k, nr = 0;

	for (i = 0; s && i < gl_snapshot_nr_series(s); i++) {
		const struct gpulat_series *sr = gl_snapshot_series(s, i);

		if (sr->family != GPULAT_FAM_CUDA ||
		    sr->id != GPULAT_CUDA_CALL || !sr->count)
			continue;
		for (k = 0; k < nr; k++)
			if ((uint64_t)all[k].tgid == sr->key)
				break;
		if (k < nr)
			continue;
		n = realloc(all, (nr + 1) * sizeof(*all));
		if (!n) {
			free(all);
			return -ENOMEM;
		}
		all = n;
		diag_job_fill(&all[nr++], s, sr->key, sr->key_name);
	}
	if (nr)
		qsort(all, nr, sizeof(*all), job_cmp);
	r->nr_jobs_seen = nr;
	r->nr_jobs = nr < DIAG_MAX_JOBS ? nr : DIAG_MAX_JOBS;
	if (nr)
		memcpy(r->jobs, all, r->nr_jobs * sizeof(*all));
	for (k = 0; k < r->nr_jobs; k++)
		diag_job_cgroup(&r->jobs[k]);
	free(all);
	return 0;
}

/* the host's share of the job's waits, ns per second watched */
static double job_host_rate(const struct diag_result *r,
			    const struct diag_job *j)
{
	return r->duration_s > 0 ? job_host_ns(j) / r->duration_s : 0;
}

/*
 * job_rank - the share's place among the abnormal layers, by their
 * scores (ns of waits beyond normal per second): 1 is above them all
 */
static unsigned int job_rank(const struct diag_result *r, double rate)
{
	unsigned int i, above = 0;

	for (i = 0; i < DIAG_NR_LAYERS; i++)
		above += r->layer[i].abnormal && r->layer[i].score > rate;
	return above + 1;
}

/* "; it ranks 2, after the scheduler's 487ms" or "" (none abnormal) */
static void job_rank_text(char *buf, size_t len, const struct diag_result *r,
			  double rate)
{
	const struct diag_layer_res *top = &r->layer[r->rank[0]];
	unsigned int rank = job_rank(r, rate);
	char score[32];

	buf[0] = '\0';
	if (!top->abnormal)
		return;
	diag_score_text(score, sizeof(score), top->score);
	if (rank == 1)
		snprintf(buf, len, ", more than the %s's %s beyond normal",
			 diag_names[r->rank[0]], score);
	else
		snprintf(buf, len, ", rank %u among the layers, after the %s's %s beyond normal",
			 rank, diag_names[r->rank[0]], score);
}

static uint64_t job_mean(const struct diag_job *j, unsigned int id)
{
	return j->count[id] ? j->sum[id] / j->count[id] : 0;
}

/* "driver path behind pid 4242 hog" from layer @l's first culprit */
static void job_behind(char *buf, size_t len, const struct diag_result *r,
		       enum diag_layer l, const char *what)
{
	const struct diag_culprit *c = diag_culprit(r, l, 0);

	buf[0] = '\0';
	if (c)
		snprintf(buf, len, "; %s behind pid %d %s", what, c->pid,
			 c->comm);
}

static void diag_job_print(FILE *f, const struct diag_result *r,
			   const struct diag_job *j)
{
	char p99[UNITS_LEN], gpu[UNITS_LEN], host[UNITS_LEN], drv[UNITS_LEN];
	char rq[UNITS_LEN], pre[UNITS_LEN], ret[UNITS_LEN], on[UNITS_LEN];
	char score[32], b1[96], b2[96], rk[160], line[DIAG_TEXT_LEN];
	uint64_t calls = j->count[GPULAT_CUDA_CALL];
	uint64_t woken = j->count[GPULAT_CUDA_GPU];
	double rate = job_host_rate(r, j);

	job_rank_text(rk, sizeof(rk), r, rate);
	snprintf(line, sizeof(line),
		 "pid %d %s%s%s: %llu calls, p99 %s (p50 %s)", j->tgid,
		 j->comm, j->container[0] ? " in " : "", j->container,
		 (unsigned long long)calls, units_ns(p99, sizeof(p99), j->p99),
		 units_ns(gpu, sizeof(gpu), j->p50));
	diag_wrap_words(f, " ", 4, line);
	if (woken) {
		job_behind(b1, sizeof(b1), r, DIAG_DRIVER, "driver path");
		job_behind(b2, sizeof(b2), r, DIAG_SCHED, "run queue");
		snprintf(line, sizeof(line),
			 "%llu woken by the driver: per call the GPU took %s and the host added %s (driver path %s, run queue %s, preempted %s, return %s)%s%s; the host's share: %s per second watched%s",
			 (unsigned long long)woken,
			 units_ns(gpu, sizeof(gpu), job_mean(j, GPULAT_CUDA_GPU)),
			 units_ns(host, sizeof(host),
				  job_host_ns(j) / (woken ? woken : 1)),
			 units_ns(drv, sizeof(drv),
				  job_mean(j, GPULAT_CUDA_DRIVER)),
			 units_ns(rq, sizeof(rq), job_mean(j, GPULAT_CUDA_RUNQ)),
			 units_ns(pre, sizeof(pre),
				  job_mean(j, GPULAT_CUDA_PREEMPTED)),
			 units_ns(ret, sizeof(ret),
				  job_mean(j, GPULAT_CUDA_RETURN)),
			 b1, b2, diag_score_text(score, sizeof(score), rate),
			 rk);
		diag_wrap_words(f, "  ", 4, line);
	}
	if (j->count[GPULAT_CUDA_ONCPU]) {
		snprintf(line, sizeof(line),
			 "%llu not woken by the driver (spinning, or another wakeup): per call on CPU %s, asleep or waiting %s",
			 (unsigned long long)j->count[GPULAT_CUDA_ONCPU],
			 units_ns(on, sizeof(on),
				  job_mean(j, GPULAT_CUDA_ONCPU)),
			 units_ns(host, sizeof(host),
				  job_mean(j, GPULAT_CUDA_OTHER)));
		diag_wrap_words(f, "  ", 4, line);
	}
}

/* diag_jobs_print - the jobs' waits, after the verdict; none: nothing */
void diag_jobs_print(FILE *f, const struct diag_result *r)
{
	size_t i;

	if (!r->nr_jobs)
		return;
	fprintf(f, "\nThe GPU jobs' waits (libcuda's synchronising calls):\n");
	for (i = 0; i < r->nr_jobs; i++)
		diag_job_print(f, r, &r->jobs[i]);
	if (r->nr_jobs_seen > r->nr_jobs)
		fprintf(f, "  and %zu more processes\n",
			r->nr_jobs_seen - r->nr_jobs);
}

/* diag_jobs_json - "gpu_jobs": each job's calls and parts */
void diag_jobs_json(struct json *jn, const struct diag_result *r)
{
	static const char *const parts[DIAG_JOB_PARTS] = {
		"call", "gpu", "driver", "runq", "preempted", "return",
		"oncpu", "other",
	};
	size_t i, id;

	json_array_begin(jn, "gpu_jobs");
	for (i = 0; i < r->nr_jobs; i++) {
		const struct diag_job *j = &r->jobs[i];
		double rate = job_host_rate(r, j);

		json_object_begin(jn, NULL);
		json_u64(jn, "pid", (uint64_t)j->tgid);
		json_str(jn, "comm", j->comm);
		json_str(jn, "cgroup", j->cgroup);
		json_str(jn, "container", j->container);
		json_u64(jn, "p50_ns", j->p50);
		json_u64(jn, "p99_ns", j->p99);
		json_double(jn, "host_ms_per_s", rate / 1e6);
		/* among the abnormal layers' scores; 1: above them all */
		json_u64(jn, "host_rank", job_rank(r, rate));
		json_object_begin(jn, "parts");
		for (id = 0; id < DIAG_JOB_PARTS; id++) {
			json_object_begin(jn, parts[id]);
			json_u64(jn, "count", j->count[id]);
			json_u64(jn, "sum_ns", j->sum[id]);
			json_object_end(jn);
		}
		json_object_end(jn);
		json_object_end(jn);
	}
	json_array_end(jn);
	json_u64(jn, "gpu_jobs_seen", r->nr_jobs_seen);
}
