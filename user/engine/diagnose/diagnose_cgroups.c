// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose by cgroup.  The scheduler's outlier records name the
 * cgroup of the task that waited and of each task that held the CPU
 * meanwhile (ABI 1.3): summed by pair, they say which container causes
 * the waits in which.  Storage and memory records name the cgroup that
 * issued the I/O or reclaimed.  The advice quotes the limits that the
 * cgroup directory holds (cpuset.cpus, cpu.max, cpu.weight, io.max,
 * memory.high, memory.max), so that it can be acted on as written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/diagnose/diagnose_int.h"
#include "lib/units.h"

struct cg_acc {
	uint64_t who, by, ns, waits;
	int32_t pids[DIAG_CG_PIDS];
	char comms[DIAG_CG_PIDS][GPULAT_COMM_LEN];
	size_t nr_pids;
};

struct cg_table {
	struct cg_acc v[DIAG_CG_TABLE];
	size_t n;
	uint64_t ids[DIAG_CG_TABLE];	/* distinct cgroups seen */
	size_t nr_ids;
	uint64_t left_out;
};

static const char *const cg_files[DIAG_NR_LAYERS][DIAG_CG_LIMITS] = {
	[DIAG_SCHED] = { "cpuset.cpus", "cpuset.cpus.effective", "cpu.max",
			 "cpu.weight" },
	[DIAG_STORAGE] = { "io.max" },
	[DIAG_MEMORY] = { "memory.high", "memory.max" },
};

static void seen(struct cg_table *t, uint64_t id)
{
	size_t i;

	for (i = 0; i < t->nr_ids; i++)
		if (t->ids[i] == id)
			return;
	if (t->nr_ids < DIAG_CG_TABLE)
		t->ids[t->nr_ids++] = id;
}

static void add(struct cg_table *t, uint64_t who, uint64_t by, uint64_t ns,
		int32_t pid, const char *comm)
{
	struct cg_acc *a;
	size_t i;

	for (i = 0; i < t->n && (t->v[i].who != who || t->v[i].by != by); i++)
		;
	if (i == t->n) {
		if (t->n == DIAG_CG_TABLE) {
			t->left_out++;
			return;
		}
		memset(&t->v[t->n], 0, sizeof(t->v[0]));
		t->v[t->n].who = who;
		t->v[t->n++].by = by;
	}
	a = &t->v[i];
	a->ns += ns;
	a->waits++;
	for (i = 0; i < a->nr_pids && a->pids[i] != pid; i++)
		;
	if (pid > 0 && i == a->nr_pids && a->nr_pids < DIAG_CG_PIDS) {
		a->pids[a->nr_pids] = pid;
		snprintf(a->comms[a->nr_pids++], GPULAT_COMM_LEN, "%s", comm);
	}
}

/*
 * the records of @w into the tables of the scheduler, storage, memory;
 * and @held: each cgroup's time on the CPU in the scheduler's outlier
 * waits, its own tasks' waits included
 */
static void collect(const struct watch *w, struct cg_table *t,
		    struct cg_table *held)
{
	size_t i, k;

	for (i = 0; i < w->nr_recs; i++) {
		const struct gpulat_rec_sample *s = &w->recs[i].u.sample;

		if (w->recs[i].type != GPULAT_REC_SAMPLE ||
		    !(s->flags & GPULAT_REC_F_CGROUP) || !s->cgroup_id)
			continue;
		if (s->family == GPULAT_FAM_SCHED &&
		    (s->flags & GPULAT_REC_F_CULPRITS)) {
			seen(&t[DIAG_SCHED], s->cgroup_id);
			for (k = 0; k < s->nr_culprits &&
				    k < GPULAT_NR_CULPRITS; k++) {
				uint64_t by = s->culprit_cgroup[k];

				if (!by || !s->culprits[k].ns)
					continue;
				seen(&t[DIAG_SCHED], by);
				add(held, 0, by, s->culprits[k].ns,
				    s->culprits[k].pid, s->culprits[k].comm);
				/* a cgroup's own tasks taking turns: no pair */
				if (by != s->cgroup_id)
					add(&t[DIAG_SCHED], s->cgroup_id, by,
					    s->culprits[k].ns,
					    s->culprits[k].pid,
					    s->culprits[k].comm);
			}
		} else if (s->family == GPULAT_FAM_BLOCK) {
			seen(&t[DIAG_STORAGE], s->cgroup_id);
			add(&t[DIAG_STORAGE], s->cgroup_id, 0, s->latency_ns,
			    s->pid, s->comm);
		} else if (s->family == GPULAT_FAM_MM &&
			   s->series == GPULAT_MM_MEMCG_RECLAIM) {
			seen(&t[DIAG_MEMORY], s->cgroup_id);
			add(&t[DIAG_MEMORY], s->cgroup_id, 0, s->latency_ns,
			    s->pid, s->comm);
		}
	}
}

static int acc_cmp(const void *a, const void *b)
{
	const struct cg_acc *x = a, *y = b;

	return x->ns == y->ns ? 0 : x->ns > y->ns ? -1 : 1;
}

/* the first line of @path into @buf; false if it cannot be read */
static bool first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	buf[0] = '\0';
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* A cgroup2 limit file and where a hybrid host keeps its v1 twin. */
static const struct {
	const char *v2, *ctrl, *v1, *v1_period;
} v1_twins[] = {
	{ "cpuset.cpus", "cpuset", "cpuset.cpus", NULL },
	{ "cpuset.cpus.effective", "cpuset", "cpuset.effective_cpus", NULL },
	{ "cpu.max", "cpu", "cpu.cfs_quota_us", "cpu.cfs_period_us" },
	{ "cpu.weight", "cpu", "cpu.shares", NULL },
	{ "memory.max", "memory", "memory.limit_in_bytes", NULL },
};

/*
 * read_v1 - on a hybrid host, @file's v1 twin for @pid's cgroups: the
 * value, and which v1 files it came from
 */
static void read_v1(const char *file, pid_t pid, struct diag_cg_limit *lim)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], v[64], p[64];
	char proc[PATH_MAX], v1[PATH_MAX];
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(v1_twins); i++)
		if (!strcmp(v1_twins[i].v2, file))
			break;
	snprintf(proc, sizeof(proc), "%s/proc", diag_root());
	snprintf(v1, sizeof(v1), "%s/sys/fs/cgroup", diag_root());
	if (i == ARRAY_SIZE(v1_twins) ||
	    !gl_cg_v1_dir(proc, v1, pid, v1_twins[i].ctrl, dir, sizeof(dir)))
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, v1_twins[i].v1);
	if (!first_line(path, v, sizeof(v)))
		return;
	if (v1_twins[i].v1_period) {
		snprintf(path, sizeof(path), "%s/%s", dir,
			 v1_twins[i].v1_period);
		if (!first_line(path, p, sizeof(p)))
			return;
		n = snprintf(lim->value, sizeof(lim->value),
			     "%s %s (v1 %s, %s)", strcmp(v, "-1") ? v : "max",
			     p, v1_twins[i].v1, v1_twins[i].v1_period);
	} else {
		n = snprintf(lim->value, sizeof(lim->value), "%s (v1 %s)", v,
			     v1_twins[i].v1);
	}
	/* a cut value still says what it is */
	units_printable(lim->value, sizeof(lim->value), lim->value);
	lim->present = n > 0;
}

/*
 * the first line of @file in the directory of @d, into @lim; on a hybrid
 * host whose cgroup2 tree has no such file, its v1 twin for @pid
 */
static void read_limit(const struct cg_desc *d, const char *file, pid_t pid,
		       struct diag_cg_limit *lim)
{
	const char *root = gl_cg_root();
	char path[PATH_MAX + 64];

	lim->file = file;
	lim->value[0] = '\0';
	lim->present = false;
	if (!root || !d->path[0] ||
	    snprintf(path, sizeof(path), "%s%s/%s", root,
		     strcmp(d->path, "/") ? d->path : "", file) >=
	    (int)sizeof(path))
		return;
	if (first_line(path, lim->value, sizeof(lim->value))) {
		units_printable(lim->value, sizeof(lim->value), lim->value);
		lim->present = true;
	} else if (pid > 0 && gl_cg_hybrid()) {
		read_v1(file, pid, lim);
	}
}

static void fill_row(struct diag_cg_row *row, const struct cg_acc *a, int l)
{
	const struct cg_desc *of;
	size_t k;

	memset(row, 0, sizeof(*row));
	row->ns = a->ns;
	row->waits = a->waits;
	row->nr_pids = a->nr_pids;
	memcpy(row->pids, a->pids, sizeof(row->pids));
	memcpy(row->comms, a->comms, sizeof(row->comms));
	cg_describe(&row->who, a->who, l == DIAG_SCHED ? 0 : a->pids[0]);
	if (a->by)
		cg_describe(&row->by, a->by, a->pids[0]);
	of = l == DIAG_SCHED ? &row->by : &row->who;
	for (k = 0; k < DIAG_CG_LIMITS && cg_files[l][k]; k++)
		read_limit(of, cg_files[l][k], a->pids[0],
			   &row->limits[row->nr_limits++]);
}

/* "docker 0123456789ab" where the path names one, else the path */
static const char *cg_name(char *buf, size_t len, const struct cg_desc *d)
{
	if (d->name.kind != GL_CG_NONE)
		return gl_cg_name_text(buf, len, &d->name);
	if (d->path[0])
		return units_printable(buf, len, d->path);
	snprintf(buf, len, "cgroup %llu", (unsigned long long)d->id);
	return buf;
}

static const char *limit_of(const struct diag_cg_row *row, const char *file)
{
	size_t k;

	for (k = 0; k < row->nr_limits; k++)
		if (!strcmp(row->limits[k].file, file))
			return row->limits[k].present ? row->limits[k].value :
			       NULL;
	return NULL;
}

static const char *pids_text(char *buf, size_t len,
			     const struct diag_cg_row *row)
{
	size_t k, o = 0;

	buf[0] = '\0';
	for (k = 0; k < row->nr_pids && o < len; k++)
		o += snprintf(buf + o, len - o, "%s%d (%s)", k ? ", " : "",
			      row->pids[k], row->comms[k]);
	return buf;
}

static const char *q(const char *v)
{
	return v ? v : "(absent)";
}

/*
 * Where a limit of a cgroup is written on this host: its cgroup2
 * directory, or on a hybrid host the directory of its v1 controller
 * (the task's, from /proc/PID/cgroup: the cgroup2 one holds no
 * controller files there).  A hierarchy's root takes no limits.
 */
struct cg_where {
	char dir[PATH_MAX];
	bool root, v1;
};

static bool where_of(const struct cg_desc *of, pid_t pid, const char *ctrl,
		     struct cg_where *w)
{
	char proc[PATH_MAX], v1[PATH_MAX];
	const char *root = gl_cg_root();
	size_t n;

	memset(w, 0, sizeof(*w));
	if (gl_cg_hybrid()) {
		snprintf(proc, sizeof(proc), "%s/proc", diag_root());
		n = snprintf(v1, sizeof(v1), "%s/sys/fs/cgroup", diag_root());
		if (pid <= 0 || !gl_cg_v1_dir(proc, v1, pid, ctrl, w->dir,
					      sizeof(w->dir)))
			return false;
		/* ROOT_V1/CONTROLLERS, with no path below it */
		w->root = !strchr(w->dir + n + 1, '/');
		w->v1 = true;
		return true;
	}
	if (!root || !of->path[0])
		return false;
	snprintf(w->dir, sizeof(w->dir), "%s%s", root,
		 strcmp(of->path, "/") ? of->path : "");
	w->root = !strcmp(of->path, "/");
	return true;
}

/* "its tasks: 4242 (xmrig)", or where to list them when none was named */
static const char *tasks_text(char *buf, size_t len,
			      const struct diag_cg_row *row,
			      const struct cg_where *w)
{
	char pids[160];

	if (row->nr_pids)
		snprintf(buf, len, "its tasks: %s",
			 pids_text(pids, sizeof(pids), row));
	else
		snprintf(buf, len, "list its tasks with cat %s/cgroup.procs",
			 w->dir);
	return buf;
}

/*
 * advise_sched - cap @row's holder: @lead says why ("Keep A off the CPUs
 * of B"), then its limits, where to change them, and its tasks
 */
static void advise_sched(char *a, size_t len, const struct diag_cg_row *row,
			 const char *by)
{
	char tasks[PATH_MAX + 200];
	struct cg_where set, cpu;
	pid_t pid = row->pids[0];

	/* the holder: its cpuset and its CPU share */
	if (!where_of(&row->by, pid, "cpuset", &set) ||
	    !where_of(&row->by, pid, "cpu", &cpu) || (set.root && cpu.root))
		return;
	tasks_text(tasks, sizeof(tasks), row, set.root ? &cpu : &set);
	if (!set.v1)
		snprintf(a, len,
			 "%s: its cpuset.cpus is %s (effective %s), cpu.max %s, cpu.weight %s; give it other CPUs in %s/cpuset.cpus, or cap it in cpu.max (\"50000 100000\": half a CPU) or lower its cpu.weight; %s.",
			 by, q(limit_of(row, "cpuset.cpus")),
			 q(limit_of(row, "cpuset.cpus.effective")),
			 q(limit_of(row, "cpu.max")),
			 q(limit_of(row, "cpu.weight")), set.dir, tasks);
	else if (set.root)
		snprintf(a, len,
			 "%s: cap it in %s/cpu.cfs_quota_us (50000 with a cpu.cfs_period_us of 100000: half a CPU; now %s) or lower %s/cpu.shares (now %s); it has no cpuset of its own (cgroup v1); %s.",
			 by, cpu.dir, q(limit_of(row, "cpu.max")),
			 cpu.dir, q(limit_of(row, "cpu.weight")), tasks);
	else if (cpu.root)
		snprintf(a, len,
			 "%s: its cpuset.cpus is %s; give it other CPUs in %s/cpuset.cpus (cgroup v1); %s.",
			 by, q(limit_of(row, "cpuset.cpus")), set.dir,
			 tasks);
	else
		snprintf(a, len,
			 "%s: its cpuset.cpus is %s; give it other CPUs in %s/cpuset.cpus, or cap it in %s/cpu.cfs_quota_us (50000 with a cpu.cfs_period_us of 100000: half a CPU; now %s) or lower its cpu.shares (now %s) (cgroup v1); %s.",
			 by, q(limit_of(row, "cpuset.cpus")), set.dir,
			 cpu.dir, q(limit_of(row, "cpu.max")),
			 q(limit_of(row, "cpu.weight")), tasks);
}

static void advise_storage(char *a, size_t len, const struct diag_cg_row *row)
{
	char who[300], tasks[PATH_MAX + 200];
	struct cg_where io;

	if (!where_of(&row->who, row->pids[0], "blkio", &io) || io.root)
		return;
	tasks_text(tasks, sizeof(tasks), row, &io);
	if (!io.v1) {
		cg_name(who, sizeof(who), &row->who);
		snprintf(a, len,
			 "Cap the I/O of %s, which issued the slow requests: its io.max is %s; write \"MAJ:MIN wbps=... rbps=...\" to %s/io.max; %s.",
			 who, q(limit_of(row, "io.max")), io.dir, tasks);
	} else {
		/* its cgroup2 cgroup is not the one with the limit */
		snprintf(a, len,
			 "Cap the I/O of the blkio cgroup %s, which issued the slow requests: write \"MAJ:MIN BYTES_PER_SECOND\" to its blkio.throttle.read_bps_device (and write_bps_device; cgroup v1 throttles direct and synchronous I/O only); %s.",
			 io.dir, tasks);
	}
}

static void advise_memory(char *a, size_t len, const struct diag_cg_row *row)
{
	char who[PATH_MAX + 300], tasks[PATH_MAX + 200];
	struct cg_where mem;

	if (!where_of(&row->who, row->pids[0], "memory", &mem) || mem.root)
		return;
	tasks_text(tasks, sizeof(tasks), row, &mem);
	if (!mem.v1) {
		cg_name(who, sizeof(who), &row->who);
		snprintf(a, len,
			 "%s reclaims at its own memory limit: memory.high %s, memory.max %s; raise memory.high in %s (or memory.max), or shrink its working set; %s.",
			 who, q(limit_of(row, "memory.high")),
			 q(limit_of(row, "memory.max")), mem.dir, tasks);
	} else {
		/* its cgroup2 cgroup is not the one with the limit */
		snprintf(a, len,
			 "The memory cgroup %s reclaims at its own limit, memory.limit_in_bytes %s: raise it there, or shrink its working set (cgroup v1); %s.",
			 mem.dir, q(limit_of(row, "memory.max")), tasks);
	}
}

/* put_advice - @a (if any) as @L's next advice; true when it was put */
static bool put_advice(struct diag_layer_res *L, const char *a)
{
	size_t n;

	if (!a[0] || L->nr_advice >= DIAG_MAX_ADVICE)
		return false;
	/* a long path cuts the advice short, not the tool */
	n = strnlen(a, DIAG_TEXT_LEN - 1);
	memcpy(L->advice[L->nr_advice], a, n);
	L->advice[L->nr_advice++][n] = '\0';
	return true;
}

/*
 * advise - a row's advice: the limits to change, in the files this host
 * has (v2, or v1 on a hybrid host); none for a hierarchy's root.  True
 * when it advised.
 */
static bool advise(struct diag_layer_res *L, const struct diag_cg_row *row,
		   int l)
{
	char a[4 * PATH_MAX];

	if (L->nr_advice >= DIAG_MAX_ADVICE)
		return false;
	a[0] = '\0';
	if (l == DIAG_SCHED) {
		char who[300], by[300], lead[700];

		snprintf(lead, sizeof(lead), "Keep %s off the CPUs of %s",
			 cg_name(by, sizeof(by), &row->by),
			 cg_name(who, sizeof(who), &row->who));
		advise_sched(a, sizeof(a), row, lead);
	} else if (l == DIAG_STORAGE) {
		advise_storage(a, sizeof(a), row);
	} else {
		advise_memory(a, sizeof(a), row);
	}
	return put_advice(L, a);
}

/*
 * advise_holder - no pair to advise, but one cgroup (not a root) held the
 * CPU in half the scheduler's outlier wait time or more, its own tasks'
 * turns included (a container whose workers contend with each other and
 * with what shares their CPUs): cap that one
 */
static void advise_holder(struct diag_layer_res *L, struct cg_table *held)
{
	char by[300], lead[600], a[4 * PATH_MAX];
	struct diag_cg_row row;

	if (!held->n || L->nr_advice >= DIAG_MAX_ADVICE)
		return;
	qsort(held->v, held->n, sizeof(held->v[0]), acc_cmp);
	if (2 * held->v[0].ns < L->trace_wait_ns || !held->v[0].nr_pids)
		return;
	fill_row(&row, &held->v[0], DIAG_SCHED);
	snprintf(lead, sizeof(lead),
		 "Cap %s: its tasks held the CPU in %.0f%% of the outlier waits (their own waits included)",
		 cg_name(by, sizeof(by), &row.by),
		 100.0 * held->v[0].ns / L->trace_wait_ns);
	a[0] = '\0';
	advise_sched(a, sizeof(a), &row, lead);
	put_advice(L, a);
}

/* diag_cgroups - see diagnose_cg.h */
int diag_cgroups(struct diag_result *r, const struct watch *w)
{
	static const int layers[] = { DIAG_SCHED, DIAG_STORAGE, DIAG_MEMORY };
	struct cg_table *t;
	bool advised;
	size_t i, k;
	int l;

	t = calloc(DIAG_NR_LAYERS + 1, sizeof(*t));
	r->cg = calloc(DIAG_NR_LAYERS, sizeof(*r->cg));
	if (!t || !r->cg) {
		free(t);
		return -ENOMEM;
	}
	/* t[DIAG_NR_LAYERS]: the scheduler's holders, by cgroup */
	collect(w, t, &t[DIAG_NR_LAYERS]);
	for (i = 0; i < ARRAY_SIZE(layers); i++) {
		struct diag_cg_layer *C = &r->cg[layers[i]];

		l = layers[i];
		C->nr_cgroups = t[l].nr_ids;
		C->left_out = t[l].left_out;
		/* the scheduler's pairs need two cgroups */
		if (l == DIAG_SCHED && t[l].nr_ids < 2)
			continue;
		qsort(t[l].v, t[l].n, sizeof(t[l].v[0]), acc_cmp);
		for (k = 0; k < t[l].n && k < DIAG_CG_ROWS; k++)
			fill_row(&C->rows[C->nr_rows++], &t[l].v[k], l);
		/*
		 * the first row with advice, of those with half the top's
		 * time at least: a container's waits behind the root's tasks
		 * (nothing to cap there) may come just before the root's
		 * behind the container's
		 */
		advised = false;
		for (k = 0; k < C->nr_rows && !advised &&
			    2 * C->rows[k].ns >= C->rows[0].ns; k++)
			advised = advise(&r->layer[l], &C->rows[k], l);
		if (l == DIAG_SCHED && !advised)
			advise_holder(&r->layer[l], &t[DIAG_NR_LAYERS]);
	}
	free(t);
	return 0;
}

/* "  held: PATH", wrapped: the path on a line of its own when long */
static void print_path(FILE *f, const char *what, const struct cg_desc *d)
{
	char line[PATH_MAX + 32];

	if (!d->path[0])
		return;
	snprintf(line, sizeof(line), "%s %s", what, d->path);
	units_printable(line, sizeof(line), line);
	diag_wrap_words(f, "     ", 8, line);
}

/* diag_cg_print - see diagnose_cg.h */
void diag_cg_print(FILE *f, const struct diag_result *r, int l)
{
	char who[300], by[300], d[UNITS_LEN], pids[160], line[2 * DIAG_TEXT_LEN];
	const struct diag_cg_layer *C = r->cg ? &r->cg[l] : NULL;
	size_t i, k, o;

	if (!C || !C->nr_rows)
		return;
	fprintf(f, "  by cgroup (%zu cgroups in the records):\n", C->nr_cgroups);
	for (i = 0; i < C->nr_rows; i++) {
		const struct diag_cg_row *row = &C->rows[i];

		cg_name(who, sizeof(who), &row->who);
		units_ns(d, sizeof(d), row->ns);
		if (l == DIAG_SCHED) {
			cg_name(by, sizeof(by), &row->by);
			snprintf(line, sizeof(line),
				 "the tasks of %s held the CPU while tasks of %s waited: %s over %llu waits",
				 by, who, d, (unsigned long long)row->waits);
		} else {
			snprintf(line, sizeof(line), "%s: %s over %llu %s", who,
				 d, (unsigned long long)row->waits,
				 l == DIAG_STORAGE ? "requests" : "stalls");
		}
		diag_wrap_words(f, "   ", 6, line);
		if (l == DIAG_SCHED)
			print_path(f, "held:", &row->by);
		print_path(f, l == DIAG_SCHED ? "waited:" : "cgroup:", &row->who);
		o = snprintf(line, sizeof(line), "tasks %s;",
			     pids_text(pids, sizeof(pids), row));
		for (k = 0; k < row->nr_limits && o < sizeof(line); k++)
			o += snprintf(line + o, sizeof(line) - o, " %s %s%s",
				      row->limits[k].file,
				      q(row->limits[k].present ?
					row->limits[k].value : NULL),
				      k + 1 < row->nr_limits ? "," : "");
		diag_wrap_words(f, "     ", 8, line);
	}
	if (C->left_out)
		fprintf(f, "    (%llu more left out)\n",
			(unsigned long long)C->left_out);
}

/* diag_cg_json - see diagnose_cg.h */
void diag_cg_json(struct json *j, const struct diag_result *r, int l)
{
	const struct diag_cg_layer *C = r->cg ? &r->cg[l] : NULL;
	size_t i, k;

	json_object_begin(j, "cgroups");
	json_u64(j, "seen", C ? C->nr_cgroups : 0);
	json_u64(j, "left_out", C ? C->left_out : 0);
	json_array_begin(j, "rows");
	for (i = 0; C && i < C->nr_rows; i++) {
		const struct diag_cg_row *row = &C->rows[i];

		json_object_begin(j, NULL);
		cg_json(j, l == DIAG_SCHED ? "waited" : "cgroup", &row->who);
		if (l == DIAG_SCHED)
			cg_json(j, "held", &row->by);
		json_u64(j, "ns", row->ns);
		json_u64(j, "count", row->waits);
		json_array_begin(j, "tasks");
		for (k = 0; k < row->nr_pids; k++) {
			json_object_begin(j, NULL);
			json_u64(j, "pid", row->pids[k]);
			json_str(j, "comm", row->comms[k]);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_begin(j, "limits");
		for (k = 0; k < row->nr_limits; k++) {
			if (row->limits[k].present)
				json_str(j, row->limits[k].file,
					 row->limits[k].value);
			else
				json_null(j, row->limits[k].file);
		}
		json_object_end(j);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}
