// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: culprits that are many processes of one name.  A loop
 * that starts a program without pause (a script calling a tool per item,
 * a crash loop) holds a CPU through children that live a moment each:
 * no pid holds it long enough to be named alone, and each is gone when
 * the advice is read.  Summed by name, they are one culprit, and the
 * advice names what starts them when /proc shows one alive.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/diagnose/diagnose_int.h"
#include "lib/units.h"

static int diag_proc_comm_cmp(const void *a, const void *b)
{
	const struct diag_proc *x = a, *y = b;

	return strncmp(x->comm, y->comm, GPULAT_COMM_LEN);
}

/* diag_alone - whether @p's process is one of @L's culprits as a cause alone */
static bool diag_alone(const struct diag_layer_res *L,
		       const struct diag_proc *p)
{
	size_t k;

	for (k = 0; k < L->nr_culprits; k++)
		if ((L->culprits[k].pid == p->pid ||
		     (p->tgid > 0 && L->culprits[k].tgid == p->tgid)) &&
		    L->culprits[k].share >= DIAG_TRACE_SHARE)
			return true;
	return false;
}

/*
 * diag_fold - the culprits of @L named alone as members of @g (its name,
 * each under a cause's share) leave the list: the group counts them
 */
static void diag_fold(struct diag_layer_res *L, const struct diag_culprit *g)
{
	size_t k, n = 0;

	for (k = 0; k < L->nr_culprits; k++) {
		const struct diag_culprit *c = &L->culprits[k];

		if (!c->nr_procs && c->share < DIAG_TRACE_SHARE &&
		    !strncmp(c->comm, g->comm, GPULAT_COMM_LEN))
			continue;
		L->culprits[n++] = *c;
	}
	L->nr_culprits = n;
}

/* diag_gone - whether @p's thread is no longer there under its name */
static bool diag_gone(const struct diag_proc *p)
{
	char path[PATH_MAX], comm[GPULAT_COMM_LEN + 2];

	if (!p->comm[0])
		return true;
	snprintf(path, sizeof(path), "%s/proc/%d/comm", diag_root(), p->pid);
	if (diag_read_file(path, comm, sizeof(comm)))
		return true;
	comm[strcspn(comm, "\n")] = '\0';
	return strncmp(comm, p->comm, GPULAT_COMM_LEN - 1) != 0;
}

/* diag_stat_parse - see diagnose.h */
int diag_stat_parse(const char *buf, char *comm, size_t len, int *ppid,
		    unsigned long long *start)
{
	const char *a = strchr(buf, '('), *b = strrchr(buf, ')');
	size_t n;

	if (!a || !b || b < a || !len)
		return -EINVAL;
	n = (size_t)(b - a - 1) < len - 1 ? (size_t)(b - a - 1) : len - 1;
	memcpy(comm, a + 1, n);
	comm[n] = '\0';
	/* state ppid, then 17 fields to starttime (field 22) */
	return sscanf(b + 1, " %*c %d %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
		      ppid, start) == 2 ? 0 : -EINVAL;
}

/* diag_stat - PID's comm, parent and start (clock ticks after boot) */
static bool diag_stat(const char *pid, char *comm, size_t len, int *ppid,
		      unsigned long long *start)
{
	char path[PATH_MAX], buf[1024];

	snprintf(path, sizeof(path), "%s/proc/%s/stat", diag_root(), pid);
	return !diag_read_file(path, buf, sizeof(buf)) &&
	       !diag_stat_parse(buf, comm, len, ppid, start);
}

/*
 * diag_young_name - the name most of the processes started in the last
 * 100 ms have, over up to 10 scans of /proc 2 ms apart: what a loop
 * keeps starting (@comm "" when none)
 */
static void diag_young_name(char *comm, size_t len)
{
	char path[PATH_MAX], up[64], c[GPULAT_COMM_LEN], seen[16][GPULAT_COMM_LEN];
	struct timespec ts = { 0, 2000000L };
	unsigned int count[16] = { 0 }, nr = 0, i, best = 0;
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long long start, now;
	struct dirent *e;
	int try, ppid;
	double secs;
	DIR *d;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "%s/proc/uptime", diag_root());
	for (try = 0; try < 10; try++) {
		if (try)
			nanosleep(&ts, NULL);
		if (diag_read_file(path, up, sizeof(up)) ||
		    sscanf(up, "%lf", &secs) != 1 || hz <= 0)
			return;
		now = (unsigned long long)(secs * hz);
		snprintf(path, sizeof(path), "%s/proc", diag_root());
		d = opendir(path);
		if (!d)
			return;
		while ((e = readdir(d))) {
			if (e->d_name[0] < '1' || e->d_name[0] > '9' ||
			    !diag_stat(e->d_name, c, sizeof(c), &ppid, &start) ||
			    start + hz / 10 < now || ppid <= 2)
				continue;
			for (i = 0; i < nr && strcmp(seen[i], c); i++)
				;
			if (i == nr && nr < 16)
				memcpy(seen[nr++], c, sizeof(c));
			if (i < nr)
				count[i]++;
		}
		closedir(d);
		snprintf(path, sizeof(path), "%s/proc/uptime", diag_root());
	}
	for (i = 1; i < nr; i++)
		if (count[i] > count[best])
			best = i;
	if (nr)
		snprintf(comm, len, "%s", seen[best]);
}

/* diag_groups - see diagnose_int.h */
int diag_groups(struct diag_layer_res *L, const struct diag_procs *held)
{
	struct diag_culprit best = { 0 }, *at;
	struct diag_proc *v;
	size_t i, j, n = 0, k;

	if (!L->trace_wait_ns || !held->n)
		return 0;
	v = malloc(held->n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < held->n; i++)
		if (!diag_alone(L, &held->v[i]))
			v[n++] = held->v[i];
	qsort(v, n, sizeof(*v), diag_proc_comm_cmp);
	for (i = 0; i < n; i = j) {
		struct diag_culprit g = { 0 };
		uint64_t top = 0;
		uint32_t gone = 0;

		for (j = i; j < n && !diag_proc_comm_cmp(&v[i], &v[j]); j++) {
			g.ns += v[j].ns;
			g.nr_procs++;
			cpuset_or(&g.cpus, &v[j].cpus);
			if (v[j].ns > top) {
				top = v[j].ns;
				g.pid = v[j].pid;
			}
		}
		if (g.nr_procs < DIAG_GROUP_MIN || g.ns <= best.ns ||
		    (double)g.ns < DIAG_TRACE_SHARE * L->trace_wait_ns)
			continue;
		/* short-lived: most of them gone (long-lived ones are named) */
		for (k = i; k < j; k++)
			gone += diag_gone(&v[k]);
		if (2 * gone <= g.nr_procs)
			continue;
		memcpy(g.comm, v[i].comm, sizeof(g.comm));
		best = g;
	}
	free(v);
	best.share = (double)best.ns / L->trace_wait_ns;
	if (best.share < DIAG_TRACE_SHARE)
		return 0;
	diag_fold(L, &best);
	/* gone before any record named them: what is starting now */
	if (!best.comm[0])
		diag_young_name(best.comm, sizeof(best.comm));
	best.tgid = -1;
	best.from_trace = true;
	best.miner = diag_is_miner(best.comm);
	/* in its place by share: the last one gives way when full */
	if (L->nr_culprits == DIAG_MAX_CULPRITS) {
		if (L->culprits[DIAG_MAX_CULPRITS - 1].share >= best.share)
			return 0;
		L->nr_culprits--;
	}
	for (k = L->nr_culprits; k && L->culprits[k - 1].share < best.share;
	     k--)
		;
	at = &L->culprits[k];
	memmove(at + 1, at, (L->nr_culprits - k) * sizeof(*at));
	*at = best;
	L->nr_culprits++;
	return 0;
}

/*
 * diag_parent_of - the parent of a live process named @comm: /proc
 * scanned up to 10 times, 2 ms apart, as each child lives a moment (the
 * rolling verdict of serve runs this too: bounded).  Its pid (0: none
 * seen) and name in @pcomm.
 */
static int32_t diag_parent_of(const char *comm, char *pcomm, size_t len)
{
	char path[PATH_MAX], c[GPULAT_COMM_LEN];
	struct timespec ts = { 0, 2000000L };
	unsigned long long start;
	int try, pp, ppid = 0;
	struct dirent *e;
	DIR *d;

	for (try = 0; try < 10 && !ppid; try++) {
		if (try)
			nanosleep(&ts, NULL);
		snprintf(path, sizeof(path), "%s/proc", diag_root());
		d = opendir(path);
		if (!d)
			return 0;
		while (!ppid && (e = readdir(d))) {
			if (e->d_name[0] < '1' || e->d_name[0] > '9')
				continue;
			if (!diag_stat(e->d_name, c, sizeof(c), &pp, &start) ||
			    strcmp(c, comm))
				continue;
			ppid = pp;
		}
		closedir(d);
	}
	if (ppid <= 0)
		return 0;
	snprintf(path, sizeof(path), "%s/proc/%d/comm", diag_root(), ppid);
	if (diag_read_file(path, pcomm, len))
		return 0;
	pcomm[strcspn(pcomm, "\n")] = '\0';
	return ppid;
}

/* diag_advise_groups - see diagnose_int.h */
void diag_advise_groups(struct diag_layer_res *L)
{
	char cpus[64], comm[GPULAT_COMM_LEN], pcomm[GPULAT_COMM_LEN + 2];
	char parent[GPULAT_COMM_LEN];
	size_t k;
	int32_t pp;

	for (k = 0; k < L->nr_culprits; k++) {
		const struct diag_culprit *c = &L->culprits[k];

		if (!c->nr_procs)
			continue;
		diag_cpus_text(cpus, sizeof(cpus), &c->cpus);
		units_printable(comm, sizeof(comm), c->comm);
		pcomm[0] = '\0';
		pp = c->comm[0] ? diag_parent_of(c->comm, pcomm, sizeof(pcomm)) :
				  0;
		units_printable(parent, sizeof(parent), pcomm);
		if (!c->comm[0])
			diag_advise(L,
				    "%u short-lived processes, gone before they could be named, held %s in %.0f%% of the outlier waits: find what starts them (execsnoop, or ps -eo pid,ppid,lstart,comm --sort=start_time | tail while it runs) and stop it or move it off the CPUs of the GPU feeder threads.",
				    c->nr_procs, cpus, 100 * c->share);
		else if (pp > 1 && !diag_is_kthread(pp))
			diag_advise(L,
				    "%s: %u short-lived processes held %s in %.0f%% of the outlier waits, none for long: %s (pid %d) starts them; if it is a runaway, forgotten or unknown job, stop it (kill %d); if it belongs here, make it start fewer, or move it off the CPUs of the GPU feeder threads.",
				    comm, c->nr_procs, cpus, 100 * c->share,
				    parent, pp, pp);
		else
			diag_advise(L,
				    "%s: %u short-lived processes held %s in %.0f%% of the outlier waits, none for long, each gone by now: find what starts them (ps -eo pid,ppid,comm | grep -w %s while it runs, or execsnoop) and stop it or move it off the CPUs of the GPU feeder threads.",
				    comm, c->nr_procs, cpus, 100 * c->share,
				    comm);
	}
}
