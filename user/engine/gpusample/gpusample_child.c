// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU sampler's child: NVML loaded once, every GPU asked once per
 * interval, and Xids waited for between the samples.  Each call is
 * published in the shared memory before it is made, so that gpulat can
 * name the one that does not return.  Nothing here talks to gpulat but
 * that memory: a child stuck in the driver blocks nobody.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "engine/gpusample/gpusample_int.h"
#include "engine/nvml/nvml.h"

/*
 * The process table NVML fills.  Room for 32-byte entries: drivers
 * 535.43 to 535.86 fill nvmlDeviceGetComputeRunningProcesses_v3 with
 * them (usedGpuCcProtectedMemory), so _v2's stable 24 bytes come first.
 */
#define GS_PROC_BUF	1024
#define GS_PROC_ROOM	32
#define GS_PUTIL_BUF	1024
/* Event waits failing in a row before the child stops waiting. */
#define GS_WAIT_ERRORS	3
/* The longest one event wait may block: gpulat's stop is seen this soon. */
#define GS_WAIT_MS	((unsigned int)(GS_WAIT_MAX_S * 1000))

struct gs_fns {
	nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*util)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*mem)(nvmlDevice_t, nvmlMemory_t *);
	nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*cur_gen)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*cur_width)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*max_gen)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*max_width)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*replay)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*persist)(nvmlDevice_t, int *);
	nvmlReturn_t (*procs)(nvmlDevice_t, unsigned int *, void *);
	size_t proc_size;	/* the table's stride: v1 or v2 */
	nvmlReturn_t (*putil)(nvmlDevice_t, nvmlProcessUtilizationSample_t *,
			      unsigned int *, unsigned long long);
	nvmlReturn_t (*set_create)(nvmlEventSet_t *);
	nvmlReturn_t (*reg)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
	nvmlReturn_t (*wait)(nvmlEventSet_t, nvmlEventData_t *, unsigned int);
	nvmlReturn_t (*set_free)(nvmlEventSet_t);
};

struct gs_child_state {
	struct gs_shared *sh;
	struct nvml_info *n;
	struct gs_fns f;
	nvmlDevice_t dev[GS_MAX_GPUS];
	unsigned long long last_seen[GS_MAX_GPUS];	/* putil's, us */
	nvmlEventSet_t set;
	pid_t parent;		/* gpulat */
	uint64_t start_ns, deadline_ns;	/* deadline 0: none */
	uint64_t waited_ns;	/* when the last event wait returned */
	unsigned char procs[GS_PROC_BUF * GS_PROC_ROOM];
	unsigned int wait_errors;
	nvmlProcessUtilizationSample_t putil[GS_PUTIL_BUF];
};

/* gs_enter - publish the call about to be made; its start */
static uint64_t gs_enter(struct gs_shared *sh, enum gs_call c, uint32_t gpu)
{
	uint64_t now = gs_now();

	sh->call_gpu = gpu;
	sh->call_since_ns = now;
	__atomic_store_n(&sh->call, c, __ATOMIC_RELEASE);
	return now;
}

/* gs_leave - the call returned: what it cost */
static void gs_leave(struct gs_shared *sh, enum gs_call c, uint64_t since)
{
	uint64_t ns = gs_now() - since;
	struct gs_cost *k = &sh->cost[c];

	__atomic_store_n(&sh->call, GS_CALL_NONE, __ATOMIC_RELEASE);
	if (c == GS_CALL_WAIT)
		return;
	k->count++;
	k->sum_ns += ns;
	if (ns > k->max_ns)
		k->max_ns = ns;
}

/* gs_realtime_us - the clock of NVML's process samples, microseconds */
static unsigned long long gs_realtime_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

/* gs_cpu - the child's own CPU time so far, ns */
static uint64_t gs_cpu(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void gs_resolve(struct gs_child_state *c)
{
	struct nvml_info *n = c->n;
	struct gs_fns *f = &c->f;
	int which = 0;

	/* dlsym() gives a void *; POSIX lets it convert to a function. */
	*(void **)&f->handle = NVML_SYM(n, "nvmlDeviceGetHandleByIndex_v2",
					"nvmlDeviceGetHandleByIndex");
	*(void **)&f->util = NVML_SYM(n, "nvmlDeviceGetUtilizationRates");
	*(void **)&f->mem = NVML_SYM(n, "nvmlDeviceGetMemoryInfo");
	*(void **)&f->reasons = NVML_SYM(n,
		"nvmlDeviceGetCurrentClocksEventReasons",
		"nvmlDeviceGetCurrentClocksThrottleReasons");
	*(void **)&f->cur_gen = NVML_SYM(n,
		"nvmlDeviceGetCurrPcieLinkGeneration");
	*(void **)&f->cur_width = NVML_SYM(n, "nvmlDeviceGetCurrPcieLinkWidth");
	*(void **)&f->max_gen = NVML_SYM(n,
		"nvmlDeviceGetMaxPcieLinkGeneration");
	*(void **)&f->max_width = NVML_SYM(n, "nvmlDeviceGetMaxPcieLinkWidth");
	*(void **)&f->replay = NVML_SYM(n, "nvmlDeviceGetPcieReplayCounter");
	*(void **)&f->persist = NVML_SYM(n, "nvmlDeviceGetPersistenceMode");
	/*
	 * _v2's table is 24 bytes an entry in every driver that has it;
	 * _v3's was 32 in 535.43-535.86; drivers before 450 had only v1
	 */
	*(void **)&f->procs = NVML_SYM_AT(n, &which,
		"nvmlDeviceGetComputeRunningProcesses_v2",
		"nvmlDeviceGetComputeRunningProcesses_v3",
		"nvmlDeviceGetComputeRunningProcesses");
	f->proc_size = which == 2 ? sizeof(nvmlProcessInfo_v1_t) :
				    sizeof(nvmlProcessInfo_v2_t);
	*(void **)&f->putil = NVML_SYM(n, "nvmlDeviceGetProcessUtilization");
	*(void **)&f->set_create = NVML_SYM(n, "nvmlEventSetCreate");
	*(void **)&f->reg = NVML_SYM(n, "nvmlDeviceRegisterEvents");
	*(void **)&f->wait = NVML_SYM(n, "nvmlEventSetWait_v2",
				      "nvmlEventSetWait");
	*(void **)&f->set_free = NVML_SYM(n, "nvmlEventSetFree");
}

#define GS_ASK(c, call, gpu, fn, ...)					\
	({								\
		nvmlReturn_t _ret = NVML_ERROR_NOT_SUPPORTED;		\
		if (fn) {						\
			uint64_t _t0 = gs_enter((c)->sh, call, gpu);	\
			_ret = (fn)(__VA_ARGS__);			\
			gs_leave((c)->sh, call, _t0);			\
		}							\
		_ret;							\
	})

static int gs_proc_cmp(const void *a, const void *b)
{
	const struct gs_proc *x = a, *y = b;

	if (x->mem != y->mem)
		return x->mem < y->mem ? 1 : -1;
	return x->pid - y->pid;
}

/* gs_procs - the compute processes, the most memory first, and their SMs */
static void gs_procs(struct gs_child_state *c, uint32_t i,
		     struct gs_gpu_sample *g)
{
	struct gs_proc all[GS_PROC_BUF];
	/* a count that fits even a table of 32-byte entries */
	unsigned int n = sizeof(c->procs) / GS_PROC_ROOM, k, j, m, kept = 0;
	nvmlDevice_t d = c->dev[i];
	unsigned long long seen = c->last_seen[i];
	nvmlReturn_t ret;

	ret = GS_ASK(c, GS_CALL_PROCS, i, c->f.procs, d, &n, c->procs);
	if (ret == NVML_ERROR_INSUFFICIENT_SIZE) {
		g->procs_total = n;	/* more than the room: counted only */
		g->ok |= GS_F_PROCS;
		return;
	}
	if (ret)
		return;
	if (n > sizeof(c->procs) / GS_PROC_ROOM)
		n = sizeof(c->procs) / GS_PROC_ROOM;
	for (k = 0; k < n; k++) {
		const unsigned char *e = c->procs + k * c->f.proc_size;
		nvmlProcessInfo_v1_t p;

		/* both layouts begin with pid and usedGpuMemory */
		memcpy(&p, e, sizeof(p));
		/* a table of another stride reads as nonsense: drop it */
		if (!p.pid || p.pid > GS_PID_MAX)
			continue;
		all[kept].pid = (int32_t)p.pid;
		all[kept].mem = p.usedGpuMemory == NVML_VALUE_NOT_AVAILABLE ?
				UINT64_MAX : p.usedGpuMemory;
		all[kept].sm = GS_NA;
		kept++;
	}
	qsort(all, kept, sizeof(all[0]), gs_proc_cmp);
	m = GS_PUTIL_BUF;
	ret = GS_ASK(c, GS_CALL_PUTIL, i, c->f.putil, d, c->putil, &m, seen);
	if (!ret || ret == NVML_ERROR_NOT_FOUND) {
		uint64_t sum[GS_MAX_PROCS] = { 0 };
		unsigned int cnt[GS_MAX_PROCS] = { 0 };

		/* NOT_FOUND: supported, and no process used an SM since */
		if (ret || m > GS_PUTIL_BUF)
			m = ret ? 0 : GS_PUTIL_BUF;
		for (j = 0; j < m; j++) {
			const nvmlProcessUtilizationSample_t *u = &c->putil[j];

			if (u->timeStamp > c->last_seen[i])
				c->last_seen[i] = u->timeStamp;
			for (k = 0; k < kept && k < GS_MAX_PROCS; k++)
				if ((unsigned int)all[k].pid == u->pid) {
					sum[k] += u->smUtil;
					cnt[k]++;
				}
		}
		for (k = 0; k < kept && k < GS_MAX_PROCS; k++)
			all[k].sm = cnt[k] ? (uint32_t)(sum[k] / cnt[k]) : 0;
		g->ok |= GS_F_PUTIL;
	} else if (ret == NVML_ERROR_INSUFFICIENT_SIZE) {
		/* more samples than room: skip them, not the whole window */
		c->last_seen[i] = gs_realtime_us();
	}
	g->procs_total = kept;
	g->nr_procs = kept < GS_MAX_PROCS ? kept : GS_MAX_PROCS;
	memcpy(g->procs, all, g->nr_procs * sizeof(all[0]));
	g->ok |= GS_F_PROCS;
}

/* gs_gpu - one GPU's sample; an answer NVML does not give stays unset */
static void gs_gpu(struct gs_child_state *c, uint32_t i,
		   struct gs_gpu_sample *g)
{
	const struct gs_fns *f = &c->f;
	nvmlDevice_t d = c->dev[i];
	nvmlUtilization_t u;
	nvmlMemory_t m;
	unsigned long long r;
	unsigned int a, b;
	int p;

	memset(g, 0, sizeof(*g));
	g->util_gpu = g->util_mem = GS_NA;
	if (!d)
		return;
	if (!GS_ASK(c, GS_CALL_UTIL, i, f->util, d, &u)) {
		g->util_gpu = u.gpu;
		g->util_mem = u.memory;
		g->ok |= GS_F_UTIL;
	}
	if (!GS_ASK(c, GS_CALL_MEM, i, f->mem, d, &m)) {
		g->mem_used = m.used;
		g->mem_total = m.total;
		g->ok |= GS_F_MEM;
	}
	if (!GS_ASK(c, GS_CALL_REASONS, i, f->reasons, d, &r)) {
		g->reasons = r;
		g->ok |= GS_F_REASONS;
	}
	if (!GS_ASK(c, GS_CALL_LINK, i, f->cur_gen, d, &a) &&
	    !GS_ASK(c, GS_CALL_LINK, i, f->cur_width, d, &b)) {
		g->cur_gen = a;
		g->cur_width = b;
		g->ok |= GS_F_LINK;
	}
	if (!GS_ASK(c, GS_CALL_LINK, i, f->max_gen, d, &a) &&
	    !GS_ASK(c, GS_CALL_LINK, i, f->max_width, d, &b)) {
		g->max_gen = a;
		g->max_width = b;
		g->ok |= GS_F_MAXLINK;
	}
	if (!GS_ASK(c, GS_CALL_REPLAY, i, f->replay, d, &a)) {
		g->replays = a;
		g->ok |= GS_F_REPLAY;
	}
	if (!GS_ASK(c, GS_CALL_PERSIST, i, f->persist, d, &p)) {
		g->persistence = p;
		g->ok |= GS_F_PERSIST;
	}
	gs_procs(c, i, g);
}

static void gs_sample_all(struct gs_child_state *c)
{
	struct gs_shared *sh = c->sh;
	uint64_t k = sh->nr_samples;
	struct gs_sample *s = &sh->slots[k % sh->cap];
	uint32_t i;

	/* the slot may be the oldest kept one: it is torn until published */
	__atomic_store_n(&sh->writing, 1, __ATOMIC_RELEASE);
	s->time_ns = gs_now();
	s->nr_gpus = sh->nr_sampled;
	for (i = 0; i < sh->nr_sampled; i++) {
		/* a round over many GPUs must not outlast gpulat's grace */
		if (__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE))
			return;	/* abandoned: not published, still "writing" */
		gs_gpu(c, i, &s->gpu[i]);
	}
	sh->cpu_ns = gs_cpu();
	__atomic_store_n(&sh->nr_samples, k + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&sh->writing, 0, __ATOMIC_RELEASE);
}

/* gs_events - register every GPU for Xids; false when none can be */
static bool gs_events(struct gs_child_state *c)
{
	struct gs_shared *sh = c->sh;
	const struct gs_fns *f = &c->f;
	unsigned int i, ok = 0;
	nvmlReturn_t ret;
	char eb[128];

	if (!f->set_create || !f->reg || !f->wait) {
		snprintf(sh->events_why, sizeof(sh->events_why),
			 "the library lacks NVML's event calls");
		return false;
	}
	ret = GS_ASK(c, GS_CALL_EVENTS, GS_NA, f->set_create, &c->set);
	if (ret) {
		snprintf(sh->events_why, sizeof(sh->events_why),
			 "nvmlEventSetCreate: %s",
			 nvml_error_text(c->n, ret, eb, sizeof(eb)));
		return false;
	}
	for (i = 0; i < sh->nr_sampled; i++) {
		if (!c->dev[i])
			continue;
		ret = GS_ASK(c, GS_CALL_EVENTS, i, f->reg, c->dev[i],
			     NVML_EVENT_XID, c->set);
		if (!ret)
			ok++;
		else
			snprintf(sh->events_why, sizeof(sh->events_why),
				 "nvmlDeviceRegisterEvents (Xid) on GPU %u: %s",
				 i, nvml_error_text(c->n, ret, eb, sizeof(eb)));
	}
	if (ok && ok < sh->nr_sampled) {
		char why[sizeof(sh->events_why)];

		memcpy(why, sh->events_why, sizeof(why));
		snprintf(sh->events_why, sizeof(sh->events_why),
			 "on %u of %u GPUs (%.200s)", ok, sh->nr_sampled, why);
	}
	return ok > 0;
}

/*
 * gs_xid - an Xid the wait that began at @lo_ns returned: it happened
 * between the end of the previous wait and now
 */
static void gs_xid(struct gs_child_state *c, const nvmlEventData_t *e,
		   uint64_t lo_ns)
{
	struct gs_shared *sh = c->sh;
	uint64_t k = sh->nr_xids;
	uint32_t i, gpu = GS_NA;

	if (!(e->eventType & NVML_EVENT_XID))
		return;
	for (i = 0; i < sh->nr_sampled; i++)
		if (c->dev[i] == e->device)
			gpu = i;
	/* a ring: the newest GS_MAX_XIDS are kept */
	sh->xids[k % GS_MAX_XIDS].lo_ns = lo_ns;
	sh->xids[k % GS_MAX_XIDS].time_ns = gs_now();
	sh->xids[k % GS_MAX_XIDS].gpu = gpu;
	sh->xids[k % GS_MAX_XIDS].code = (uint32_t)e->eventData;
	__atomic_store_n(&sh->nr_xids, k + 1, __ATOMIC_RELEASE);
}

/* gs_nap - sleep @ms milliseconds */
static void gs_nap(uint64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* gs_wait_error - an event wait failed: after a few in a row, stop waiting */
static void gs_wait_error(struct gs_child_state *c, nvmlReturn_t ret,
			  uint64_t ms)
{
	struct gs_shared *sh = c->sh;
	char eb[128];

	gs_nap(ms);
	if (++c->wait_errors < GS_WAIT_ERRORS)
		return;
	snprintf(sh->events_why, sizeof(sh->events_why),
		 "nvmlEventSetWait failed %u times in a row (%s), %.1f s into the window: no Xids from NVML after that",
		 c->wait_errors, nvml_error_text(c->n, ret, eb, sizeof(eb)),
		 (gs_now() - c->start_ns) / 1e9);
	__atomic_store_n(&sh->events, 0, __ATOMIC_RELEASE);
}

/* gs_wait_until - Xids (or a sleep) until @until or a stop */
static void gs_wait_until(struct gs_child_state *c, uint64_t until)
{
	struct gs_shared *sh = c->sh;
	nvmlEventData_t e;
	nvmlReturn_t ret;
	uint64_t now;

	while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE) &&
	       (now = gs_now()) < until) {
		uint64_t ms = (until - now + 999999) / 1000000;

		if (ms > GS_WAIT_MS)
			ms = GS_WAIT_MS;
		if (!sh->events) {
			gs_nap(ms);
			continue;
		}
		memset(&e, 0, sizeof(e));
		ret = GS_ASK(c, GS_CALL_WAIT, GS_NA, c->f.wait, c->set, &e,
			     (unsigned int)ms);
		if (!ret) {
			/*
			 * more may be queued behind it: the queue was last
			 * known empty when a wait timed out, so that stays the
			 * lower bound of the next one's time too
			 */
			c->wait_errors = 0;
			gs_xid(c, &e, c->waited_ns);
		} else if (ret == NVML_ERROR_TIMEOUT) {
			c->wait_errors = 0;
			c->waited_ns = gs_now();
			/* a wait that times out at once must not be spun on */
			if (c->waited_ns - now < ms * 1000000 / 2)
				gs_nap(ms / 2);
		} else {
			/* GPU lost, unknown: no busy loop on a failing wait */
			gs_wait_error(c, ret, ms);
		}
	}
}

/* gs_alone - gpulat is gone, or the window is long over */
static bool gs_alone(const struct gs_child_state *c)
{
	return getppid() != c->parent ||
	       (c->deadline_ns && gs_now() > c->deadline_ns);
}

/* gs_quiet - stdin, stdout and stderr on /dev/null */
static void gs_quiet(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	/*
	 * a child stuck in the driver must not hold the caller's pipe open
	 * ($(gpulat diagnose -j) would wait for it)
	 */
	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

/* gs_child - see gpusample_int.h */
void gs_child(struct gs_shared *sh, double interval_s, pid_t parent,
	      double window_s)
{
	static struct gs_child_state c;
	uint64_t step = (uint64_t)(interval_s * 1e9), next, t0;
	uint32_t i;

	/* gpulat gone, the child goes: nothing it started outlives it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	/*
	 * Ctrl-C reaches the whole process group: gpulat ends the child
	 * itself, after reading what it wrote, so a signal death means a
	 * crash.  gpulat's handlers, inherited, have no business here.
	 */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	nvml_close_fds(-1);
	gs_quiet();
	c.sh = sh;
	c.parent = parent;
	c.start_ns = gs_now();
	/* a window's sampler ends by itself well after the window, at worst */
	c.deadline_ns = window_s > 0 ?
			c.start_ns + (uint64_t)((window_s + GS_GRACE_S) * 1e9) : 0;
	c.n = calloc(1, sizeof(*c.n));
	if (!c.n) {
		snprintf(sh->absent, sizeof(sh->absent), "out of memory");
		__atomic_store_n(&sh->state, GS_ABSENT, __ATOMIC_RELEASE);
		_exit(3);
	}
	t0 = gs_enter(sh, GS_CALL_LOAD, GS_NA);
	nvml_collect(c.n);
	gs_leave(sh, GS_CALL_LOAD, t0);
	snprintf(sh->lib, sizeof(sh->lib), "%s", c.n->lib);
	if (!c.n->present) {
		snprintf(sh->absent, sizeof(sh->absent), "%s", c.n->absent);
		__atomic_store_n(&sh->state, GS_ABSENT, __ATOMIC_RELEASE);
		_exit(0);
	}
	if (!c.n->driver_ret)
		snprintf(sh->driver, sizeof(sh->driver), "%s", c.n->driver);
	sh->nr_gpus = c.n->nr_gpus;
	sh->nr_sampled = c.n->nr_listed < GS_MAX_GPUS ? c.n->nr_listed :
							 GS_MAX_GPUS;
	for (i = 0; i < sh->nr_sampled; i++) {
		snprintf(sh->info[i].name, sizeof(sh->info[i].name), "%s",
			 c.n->gpu[i].name_ret ? "" : c.n->gpu[i].name);
		snprintf(sh->info[i].bus_id, sizeof(sh->info[i].bus_id), "%s",
			 c.n->gpu[i].pci_ret ? "" : c.n->gpu[i].bus_id);
	}
	gs_resolve(&c);
	snprintf(sh->missing, sizeof(sh->missing), "%s", c.n->missing);
	for (i = 0; i < sh->nr_sampled; i++) {
		if (GS_ASK(&c, GS_CALL_HANDLE, i, c.f.handle, i, &c.dev[i]))
			c.dev[i] = NULL;
		/* SM shares from now on, not NVML's history before the window */
		c.last_seen[i] = gs_realtime_us();
	}
	sh->events = gs_events(&c);
	__atomic_store_n(&sh->state, GS_RUNNING, __ATOMIC_RELEASE);
	next = gs_now();
	c.waited_ns = next;
	while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE) && !gs_alone(&c)) {
		if (!sh->xids_only)
			gs_sample_all(&c);
		next += step;
		/* a slow round is not made up: the next sample waits its turn */
		if (next < gs_now())
			next = gs_now() + step;
		gs_wait_until(&c, next);
	}
	/* all is written: a slow or hung nvmlShutdown costs nothing now */
	__atomic_store_n(&sh->state, GS_DONE, __ATOMIC_RELEASE);
	t0 = gs_enter(sh, GS_CALL_SHUTDOWN, GS_NA);
	if (c.set && c.f.set_free)
		c.f.set_free(c.set);
	nvml_close(c.n);
	gs_leave(sh, GS_CALL_SHUTDOWN, t0);
	_exit(0);
}
