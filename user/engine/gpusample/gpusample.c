// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU sampler, gpulat's side: the shared memory, the child started
 * and stopped, and what it wrote copied out.  gpulat only reads memory
 * and waits on the child with a bound: NVML is never called here.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/gpusample/gpusample_int.h"
#include "engine/nvml/nvml.h"

const char *const gs_call_names[GS_NR_CALLS] = {
	[GS_CALL_NONE]		= "no call",
	[GS_CALL_LOAD]		= "nvmlInit and the first reading",
	[GS_CALL_HANDLE]	= "nvmlDeviceGetHandleByIndex",
	[GS_CALL_UTIL]		= "nvmlDeviceGetUtilizationRates",
	[GS_CALL_MEM]		= "nvmlDeviceGetMemoryInfo",
	[GS_CALL_REASONS]	= "nvmlDeviceGetCurrentClocksEventReasons",
	[GS_CALL_LINK]		= "nvmlDeviceGet{Curr,Max}PcieLink{Generation,Width}",
	[GS_CALL_REPLAY]	= "nvmlDeviceGetPcieReplayCounter",
	[GS_CALL_PERSIST]	= "nvmlDeviceGetPersistenceMode",
	[GS_CALL_PROCS]		= "nvmlDeviceGetComputeRunningProcesses",
	[GS_CALL_PUTIL]		= "nvmlDeviceGetProcessUtilization",
	[GS_CALL_EVENTS]	= "nvmlEventSetCreate/nvmlDeviceRegisterEvents",
	[GS_CALL_WAIT]		= "nvmlEventSetWait",
	[GS_CALL_SHUTDOWN]	= "nvmlShutdown",
};

/* How long gpulat waits for a child asked to stop before killing it. */
#define GS_STOP_WAIT_S	1.0

uint64_t gs_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* gs_interval - see gpusample.h */
double gs_interval(double given, char *why, size_t len)
{
	const char *s = getenv("GPULAT_NVML_INTERVAL");
	char *end;
	double v;

	if (given >= 0)
		return given;
	if (!s || !s[0])
		return GS_INTERVAL_S;
	v = strtod(s, &end);
	if (*end || !(v == 0 || (v >= GS_INTERVAL_MIN &&
				 v <= GS_INTERVAL_MAX))) {
		snprintf(why, len,
			 "GPULAT_NVML_INTERVAL=%s: not 0 (off) or seconds from %g to %g",
			 s, GS_INTERVAL_MIN, GS_INTERVAL_MAX);
		return -1;
	}
	return v;
}

/* gs_start_mode - gs_start(), polling the GPUs or only waiting for Xids */
static int gs_start_mode(struct gs_sampler *s, double interval_s,
			 double window_s, bool xids_only)
{
	/* the Xid waiter writes no sample, and runs as long as its trace */
	double slots = xids_only ? 1 : window_s > 0 ?
		       window_s / interval_s + 4 : GS_MAX_SLOTS;
	uint32_t cap = slots < GS_MAX_SLOTS ? (uint32_t)slots : GS_MAX_SLOTS;
	size_t len = sizeof(struct gs_shared) + cap * sizeof(struct gs_sample);
	pid_t pid, parent = getpid();
	struct gs_shared *sh;
	int ret;

	memset(s, 0, sizeof(*s));
	s->interval_s = interval_s;
	s->start_ns = gs_now();	/* before the child: no sample precedes it */
	sh = mmap(NULL, len, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (sh == MAP_FAILED) {
		s->start_err = -errno;
		return s->start_err;
	}
	sh->magic = GS_MAGIC;
	sh->cap = cap;
	sh->xids_only = xids_only;
	sh->state = GS_STARTING;
	/* the child's stdio must not flush what gpulat buffered */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		munmap(sh, len);
		s->start_err = ret;
		return ret;
	}
	if (!pid)
		gs_child(sh, interval_s, parent, window_s);
	s->sh = sh;
	s->map_len = len;
	s->pid = pid;
	return 0;
}

/* gs_start - see gpusample.h */
int gs_start(struct gs_sampler *s, double interval_s, double window_s)
{
	return gs_start_mode(s, interval_s, window_s, false);
}

/* gs_start_xids - see gpusample.h: one slot, never written; no deadline */
int gs_start_xids(struct gs_sampler *s)
{
	return gs_start_mode(s, 1.0, 0, true);
}

/*
 * gs_reap - the child ended within @wait_s (reaped; its status in
 * *@status, 0 when another reaper took it), or not
 */
static bool gs_reap(pid_t pid, double wait_s, int *status)
{
	uint64_t until = gs_now() + (uint64_t)(wait_s * 1e9);
	struct timespec step = { 0, 10 * 1000 * 1000 };
	pid_t r;

	*status = 0;
	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			return true;
		if (gs_now() >= until)
			return false;
		nanosleep(&step, NULL);
	}
}

/* gs_bound - how long call @c may run before it counts as hung, s */
static double gs_bound(enum gs_call c)
{
	if (c == GS_CALL_LOAD)
		return nvml_child_timeout();	/* nvmlInit: seconds, at times */
	if (c == GS_CALL_WAIT)
		return GS_WAIT_MAX_S + GS_WAIT_SLACK_S;
	return GS_CALL_BOUND_S;
}

/*
 * gs_hung - the child did not end when asked: the call it is in, named
 * in @t as hung past its bound, else as cut short
 */
static void gs_hung(const struct gs_sampler *s, struct gs_timeline *t,
		    uint64_t now)
{
	const struct gs_shared *sh = s->sh;
	uint32_t call = __atomic_load_n(&sh->call, __ATOMIC_ACQUIRE);
	uint32_t state = __atomic_load_n(&sh->state, __ATOMIC_ACQUIRE);
	uint64_t since = sh->call_since_ns;
	double ran, at;
	char gpu[32] = "";

	/* all is written by then: its nvmlShutdown costs nothing */
	if (state == GS_DONE || call == GS_CALL_NONE || call >= GS_NR_CALLS ||
	    since > now)
		return;
	ran = (now - since) / 1e9;
	at = since > s->start_ns ? (since - s->start_ns) / 1e9 : 0.0;
	if (sh->call_gpu != GS_NA)
		snprintf(gpu, sizeof(gpu), " on GPU %u", sh->call_gpu);
	if (ran < gs_bound(call)) {
		snprintf(t->cut, sizeof(t->cut),
			 "%s%s had run %.1f s (called %.1f s into the window, under its bound of %g s) when the sampler was stopped",
			 gs_call_names[call], gpu, ran, at, gs_bound(call));
		return;
	}
	t->hung = true;
	snprintf(t->hung_why, sizeof(t->hung_why),
		 "%s%s had not returned after %.1f s (called %.1f s into the window); the sampler was killed and no sample follows",
		 gs_call_names[call], gpu, ran, at);
}

/* gs_copy - what the child wrote, into @t; 0 or -ENOMEM */
static int gs_copy(const struct gs_sampler *s, struct gs_timeline *t)
{
	const struct gs_shared *sh = s->sh;
	uint64_t n = __atomic_load_n(&sh->nr_samples, __ATOMIC_ACQUIRE);
	uint64_t x = __atomic_load_n(&sh->nr_xids, __ATOMIC_ACQUIRE);
	uint32_t state = __atomic_load_n(&sh->state, __ATOMIC_ACQUIRE);
	/*
	 * with the ring full, the oldest slot is the one a child killed (or
	 * stopped) inside a round was writing: then it is not read
	 */
	uint64_t first = n > sh->cap ? n - sh->cap : 0, i;

	snprintf(t->lib, sizeof(t->lib), "%s", sh->lib);
	t->present = state == GS_RUNNING || state == GS_DONE;
	if (state == GS_ABSENT)
		snprintf(t->absent, sizeof(t->absent), "%s", sh->absent);
	else if (state == GS_STARTING)
		snprintf(t->absent, sizeof(t->absent), "%s",
			 t->hung ? t->hung_why : t->cut[0] ? t->cut :
			 "NVML was still loading when the window ended");
	if (!t->present)
		return 0;
	if (__atomic_load_n(&sh->writing, __ATOMIC_ACQUIRE) && n >= sh->cap)
		first = n - sh->cap + 1;
	snprintf(t->driver, sizeof(t->driver), "%s", sh->driver);
	snprintf(t->missing, sizeof(t->missing), "%s", sh->missing);
	t->events = sh->events;
	snprintf(t->events_why, sizeof(t->events_why), "%s", sh->events_why);
	t->nr_gpus = sh->nr_gpus;
	t->nr_sampled = sh->nr_sampled < GS_MAX_GPUS ? sh->nr_sampled :
						       GS_MAX_GPUS;
	memcpy(t->info, sh->info, sizeof(t->info));
	memcpy(t->cost, sh->cost, sizeof(t->cost));
	t->cpu_ns = sh->cpu_ns;
	if (n > first) {
		t->samples = calloc(n - first, sizeof(*t->samples));
		if (!t->samples)
			return -ENOMEM;
	}
	for (i = first; i < n; i++)
		t->samples[t->nr_samples++] = sh->slots[i % sh->cap];
	t->samples_lost = first;
	if (x) {
		/* a live child may be writing the slot after the newest */
		size_t room = state == GS_DONE ? GS_MAX_XIDS : GS_MAX_XIDS - 1;
		size_t keep = x < room ? x : room;

		t->xids = calloc(keep, sizeof(*t->xids));
		if (!t->xids)
			return -ENOMEM;
		/* the newest, oldest first */
		for (i = x - keep; i < x; i++)
			t->xids[t->nr_xids++] = sh->xids[i % GS_MAX_XIDS];
		t->xids_lost = x - keep;
	}
	return 0;
}

/* gs_stop - see gpusample.h */
int gs_stop(struct gs_sampler *s, struct gs_timeline *t)
{
	uint64_t now = gs_now();
	int ret, status;
	bool gone;

	memset(t, 0, sizeof(*t));
	t->interval_s = s->interval_s;
	t->start_ns = s->start_ns;
	t->end_ns = now;
	if (!s->sh) {
		if (s->start_err) {
			/* asked for, but it could not start: say so */
			t->started = t->start_failed = true;
			snprintf(t->absent, sizeof(t->absent),
				 "the NVML sampler could not start: %s",
				 strerror(-s->start_err));
		} else {
			snprintf(t->absent, sizeof(t->absent), "not sampled");
		}
		return 0;
	}
	t->started = true;
	__atomic_store_n(&s->sh->stop, 1, __ATOMIC_RELEASE);
	gone = gs_reap(s->pid, GS_STOP_WAIT_S, &status);
	if (gone && WIFSIGNALED(status) &&
	    __atomic_load_n(&s->sh->state, __ATOMIC_ACQUIRE) == GS_DONE) {
		/* every sample was written: the library's exit is no hang */
		snprintf(t->cut, sizeof(t->cut),
			 "NVML crashed the sampler (signal %d, %s) in nvmlShutdown, after every sample was written",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	} else if (gone && WIFSIGNALED(status)) {
		uint32_t call = s->sh->call;

		/*
		 * it ignores the terminal's signals: a crash inside the vendor
		 * library, as bad as a hang, or a kill from outside
		 */
		t->hung = true;
		if (call != GS_CALL_NONE && call < GS_NR_CALLS)
			snprintf(t->hung_why, sizeof(t->hung_why),
				 "NVML crashed the process sampling it: signal %d (%s), in %s; no sample follows",
				 WTERMSIG(status), strsignal(WTERMSIG(status)),
				 gs_call_names[call]);
		else
			snprintf(t->hung_why, sizeof(t->hung_why),
				 "the sampler died of signal %d (%s) outside any NVML call; no sample follows",
				 WTERMSIG(status), strsignal(WTERMSIG(status)));
	}
	if (!gone) {
		gs_hung(s, t, gs_now());
		kill(s->pid, SIGKILL);
		/* one stuck in the driver may not die: it is left behind */
		gone = gs_reap(s->pid, GS_STOP_WAIT_S, &status);
	}
	ret = gs_copy(s, t);
	if (!gone && !t->hung) {
		t->hung = true;
		snprintf(t->hung_why, sizeof(t->hung_why),
			 "the sampler (pid %d) did not end when asked, nor when killed",
			 (int)s->pid);
	}
	munmap(s->sh, s->map_len);
	s->sh = NULL;
	s->pid = 0;
	if (ret)
		gs_timeline_free(t);
	return ret;
}

void gs_timeline_free(struct gs_timeline *t)
{
	free(t->samples);
	free(t->xids);
	t->samples = NULL;
	t->xids = NULL;
	t->nr_samples = t->nr_xids = 0;
}

/* gs_xids_read - see gpusample.h */
size_t gs_xids_read(const struct gs_sampler *s, uint64_t *cursor,
		    struct gs_xid *out, char (*bus)[32], size_t max,
		    uint64_t *lost)
{
	const struct gs_shared *sh = s->sh;
	uint64_t n, i, first;
	size_t k = 0;

	if (!sh)
		return 0;
	n = __atomic_load_n(&sh->nr_xids, __ATOMIC_ACQUIRE);
	for (i = *cursor; i < n && k < max; i++) {
		/* slot n % GS_MAX_XIDS (= that of n - GS_MAX_XIDS) is next */
		if (n - i >= GS_MAX_XIDS) {
			(*lost)++;	/* overwritten before it was read */
			continue;
		}
		out[k] = sh->xids[i % GS_MAX_XIDS];
		if (out[k].gpu < GS_MAX_GPUS)
			memcpy(bus[k], sh->info[out[k].gpu].bus_id, 32);
		else
			bus[k][0] = '\0';
		bus[k][31] = '\0';
		k++;
	}
	/* those overwritten while they were copied are lost, not read torn */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	n = __atomic_load_n(&sh->nr_xids, __ATOMIC_ACQUIRE);
	first = n >= GS_MAX_XIDS ? n - GS_MAX_XIDS + 1 : 0;
	if (i - k < first) {
		size_t drop = first - (i - k) < k ? first - (i - k) : k;

		memmove(out, out + drop, (k - drop) * sizeof(*out));
		memmove(bus, bus + drop, (k - drop) * sizeof(*bus));
		k -= drop;
		*lost += drop;
	}
	*cursor = i;
	return k;
}

/* gs_bus_kernel - see gpusample.h */
char *gs_bus_kernel(char *buf, size_t len, const char *nvml_bus)
{
	unsigned int d, b, sl, f;

	if (sscanf(nvml_bus, "%x:%x:%x.%x", &d, &b, &sl, &f) == 4)
		snprintf(buf, len, "%04x:%02x:%02x.%x", d, b, sl, f);
	else
		snprintf(buf, len, "%s", nvml_bus);
	return buf;
}

/* gs_xid_same - see gpusample.h */
bool gs_xid_same(uint32_t code_a, const char *dev_a, uint64_t lo_a,
		 uint64_t hi_a, uint32_t code_b, const char *dev_b,
		 uint64_t lo_b, uint64_t hi_b)
{
	if (code_a != code_b)
		return false;
	if (dev_a[0] && dev_b[0] && strncmp(dev_a, dev_b, 32))
		return false;
	/* the gap between the two intervals, 0 when they overlap */
	if (lo_b > hi_a)
		return lo_b - hi_a <= GS_XID_SAME_NS;
	if (lo_a > hi_b)
		return lo_a - hi_b <= GS_XID_SAME_NS;
	return true;
}
