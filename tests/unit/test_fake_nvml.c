// SPDX-License-Identifier: GPL-2.0
/*
 * The NVML test double's scripted timelines ($FAKE_NVML_SCRIPT, see
 * tests/nvml/fake_script.c): answers that change at their times, the
 * process tables and samples, Xids through the event wait, calls that
 * fail or never return, and the script's errors with their lines.  Each
 * test runs in its own process, so each loads the library afresh.
 */
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "engine/nvml/nvml.h"
#include "nvml_double.h"

_Static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "v1 stride");
_Static_assert(sizeof(nvmlProcessInfo_v2_t) == 24, "v2 stride");

#define SCRIPT_ERROR	999

/* The library's functions, looked up by name. */
struct fake {
	void *h;
	char script[64];
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
	nvmlReturn_t (*mem)(nvmlDevice_t, nvmlMemory_t *);
	nvmlReturn_t (*procs_v3)(nvmlDevice_t, unsigned int *,
				 nvmlProcessInfo_v2_t *);
	nvmlReturn_t (*procs_v2)(nvmlDevice_t, unsigned int *,
				 nvmlProcessInfo_v2_t *);
	nvmlReturn_t (*procs_v1)(nvmlDevice_t, unsigned int *,
				 nvmlProcessInfo_v1_t *);
	nvmlReturn_t (*putil)(nvmlDevice_t, nvmlProcessUtilizationSample_t *,
			      unsigned int *, unsigned long long);
	nvmlReturn_t (*set_create)(nvmlEventSet_t *);
	nvmlReturn_t (*supported)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*reg)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
	nvmlReturn_t (*wait)(nvmlEventSet_t, nvmlEventData_t *, unsigned int);
	nvmlReturn_t (*set_free)(nvmlEventSet_t);
};

static void *sym(void *h, const char *name)
{
	return dlsym(h, name);
}

/* Write @text as the script and load the double in folder @sub. */
static int fake_open(struct fake *f, const char *sub, const char *text)
{
	char lib[PATH_MAX];
	int fd;

	memset(f, 0, sizeof(*f));
	strcpy(f->script, "/tmp/fake-nvml-script-XXXXXX");
	fd = mkstemp(f->script);
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	close(fd);
	if (setenv("FAKE_NVML_SCRIPT", f->script, 1) ||
	    !nvml_double_path(lib, sizeof(lib), sub))
		return -1;
	f->h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!f->h)
		return -1;
	*(void **)&f->init = sym(f->h, "nvmlInit_v2");
	*(void **)&f->shutdown = sym(f->h, "nvmlShutdown");
	*(void **)&f->count = sym(f->h, "nvmlDeviceGetCount_v2");
	*(void **)&f->handle = sym(f->h, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&f->name = sym(f->h, "nvmlDeviceGetName");
	*(void **)&f->pci = sym(f->h, "nvmlDeviceGetPciInfo_v3");
	*(void **)&f->reasons = sym(f->h, "nvmlDeviceGetCurrentClocksEventReasons");
	*(void **)&f->cur_gen = sym(f->h, "nvmlDeviceGetCurrPcieLinkGeneration");
	*(void **)&f->cur_width = sym(f->h, "nvmlDeviceGetCurrPcieLinkWidth");
	*(void **)&f->max_gen = sym(f->h, "nvmlDeviceGetMaxPcieLinkGeneration");
	*(void **)&f->max_width = sym(f->h, "nvmlDeviceGetMaxPcieLinkWidth");
	*(void **)&f->persist = sym(f->h, "nvmlDeviceGetPersistenceMode");
	*(void **)&f->util = sym(f->h, "nvmlDeviceGetUtilizationRates");
	*(void **)&f->replay = sym(f->h, "nvmlDeviceGetPcieReplayCounter");
	*(void **)&f->mem = sym(f->h, "nvmlDeviceGetMemoryInfo");
	*(void **)&f->procs_v3 = sym(f->h, "nvmlDeviceGetComputeRunningProcesses_v3");
	*(void **)&f->procs_v2 = sym(f->h, "nvmlDeviceGetComputeRunningProcesses_v2");
	*(void **)&f->procs_v1 = sym(f->h, "nvmlDeviceGetComputeRunningProcesses");
	*(void **)&f->putil = sym(f->h, "nvmlDeviceGetProcessUtilization");
	*(void **)&f->set_create = sym(f->h, "nvmlEventSetCreate");
	*(void **)&f->supported = sym(f->h, "nvmlDeviceGetSupportedEventTypes");
	*(void **)&f->reg = sym(f->h, "nvmlDeviceRegisterEvents");
	*(void **)&f->wait = sym(f->h, "nvmlEventSetWait_v2");
	if (!f->wait)
		*(void **)&f->wait = sym(f->h, "nvmlEventSetWait");
	*(void **)&f->set_free = sym(f->h, "nvmlEventSetFree");
	return 0;
}

static void fake_close(struct fake *f)
{
	if (f->h)
		dlclose(f->h);
	unlink(f->script);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep until @s seconds after @start. */
static void sleep_until(double start, double s)
{
	double left = start + s - mono();

	if (left > 0)
		usleep(left * 1e6);
}

static nvmlDevice_t dev(struct fake *f, unsigned int i)
{
	nvmlDevice_t d = NULL;

	f->handle(i, &d);
	return d;
}

TEST(timeline)
{
	struct fake f;
	nvmlUtilization_t u;
	unsigned long long r;
	nvmlPciInfo_t pci;
	unsigned int v, n;
	nvmlDevice_t d0, d1, d2, bad;
	nvmlMemory_t m;
	char name[96];
	double start;
	int p;

	ASSERT_EQ(0, fake_open(&f, "nvml",
		"# three GPUs; lines in any order\n"
		"at 0.6 gpu 0 util 55 66\n"
		"gpus 3\n"
		"\n"
		"at 0.3 gpu 0 util 10 20   # a comment\n"
		"at 0.3 gpu 0 mem 2048 4096\n"
		"at 0.3 gpu 0 reasons 0x41\n"
		"at 0.3 gpu 0 link 4 16 5 16\n"
		"at 0.3 gpu 0 replay -\n"
		"at 0.3 gpu 1 replay 7\n"
		"at 0.3 gpu 1 persist 0\n"
		"at 0.30 gpu 2 util 3 4\n"
		"at 0 gpu 2 util 1 2\n"));
	ASSERT_NE(NULL, f.init);
	ASSERT_EQ(0, f.init());
	start = mono();
	ASSERT_EQ(0, f.count(&n));
	EXPECT_EQ(3, n);
	ASSERT_EQ(0, f.handle(0, &d0));
	ASSERT_EQ(0, f.handle(1, &d1));
	ASSERT_EQ(0, f.handle(2, &d2));
	EXPECT_EQ(NVML_ERROR_INVALID_ARGUMENT, f.handle(3, &bad));

	/* T = 0: the fixed answers, and GPU 2 like GPU 1 but for T 0. */
	ASSERT_EQ(0, f.util(d0, &u));
	EXPECT_EQ(97, u.gpu);
	EXPECT_EQ(41, u.memory);
	ASSERT_EQ(0, f.mem(d0, &m));
	EXPECT_EQ(81559ULL << 20, m.total);
	EXPECT_EQ(1024ULL << 20, m.used);
	EXPECT_EQ((81559ULL - 1024) << 20, m.free);
	ASSERT_EQ(0, f.reasons(d0, &r));
	EXPECT_EQ(0x8, r);
	ASSERT_EQ(0, f.cur_gen(d0, &v));
	EXPECT_EQ(3, v);
	ASSERT_EQ(0, f.cur_width(d0, &v));
	EXPECT_EQ(8, v);
	ASSERT_EQ(0, f.replay(d0, &v));
	EXPECT_EQ(12, v);
	EXPECT_EQ(NVML_ERROR_NOT_SUPPORTED, f.replay(d1, &v));
	ASSERT_EQ(0, f.persist(d1, &p));
	EXPECT_EQ(1, p);
	ASSERT_EQ(0, f.name(d2, name, sizeof(name)));
	EXPECT_STREQ("NVIDIA H100 80GB HBM3", name);
	ASSERT_EQ(0, f.pci(d2, &pci));
	EXPECT_STREQ("00000000:12:00.0", pci.busId);
	ASSERT_EQ(0, f.pci(d1, &pci));
	EXPECT_STREQ("00000000:86:00.0", pci.busId);
	ASSERT_EQ(0, f.util(d2, &u));
	EXPECT_EQ(1, u.gpu);
	EXPECT_EQ(2, u.memory);
	ASSERT_EQ(0, f.reasons(d2, &r));
	EXPECT_EQ(0x41, r);
	ASSERT_EQ(0, f.mem(d2, &m));
	EXPECT_EQ(1024ULL << 20, m.used);
	EXPECT_EQ(NVML_ERROR_INVALID_ARGUMENT, f.mem(NULL, &m));
	EXPECT_GT(0.3, mono() - start);

	/* T = 0.3 has passed, 0.6 not. */
	sleep_until(start, 0.45);
	ASSERT_EQ(0, f.util(d0, &u));
	EXPECT_EQ(10, u.gpu);
	EXPECT_EQ(20, u.memory);
	ASSERT_EQ(0, f.mem(d0, &m));
	EXPECT_EQ(4096ULL << 20, m.total);
	EXPECT_EQ(2048ULL << 20, m.used);
	EXPECT_EQ(2048ULL << 20, m.free);
	ASSERT_EQ(0, f.reasons(d0, &r));
	EXPECT_EQ(0x41, r);
	ASSERT_EQ(0, f.cur_gen(d0, &v));
	EXPECT_EQ(4, v);
	ASSERT_EQ(0, f.cur_width(d0, &v));
	EXPECT_EQ(16, v);
	ASSERT_EQ(0, f.max_gen(d0, &v));
	EXPECT_EQ(5, v);
	ASSERT_EQ(0, f.max_width(d0, &v));
	EXPECT_EQ(16, v);
	EXPECT_EQ(NVML_ERROR_NOT_SUPPORTED, f.replay(d0, &v));
	ASSERT_EQ(0, f.replay(d1, &v));
	EXPECT_EQ(7, v);
	ASSERT_EQ(0, f.persist(d1, &p));
	EXPECT_EQ(0, p);
	ASSERT_EQ(0, f.util(d2, &u));
	EXPECT_EQ(3, u.gpu);
	EXPECT_EQ(4, u.memory);
	EXPECT_GT(0.6, mono() - start);

	sleep_until(start, 0.75);
	ASSERT_EQ(0, f.util(d0, &u));
	EXPECT_EQ(55, u.gpu);
	EXPECT_EQ(66, u.memory);

	/* Nothing answers after shutdown, the handles included. */
	ASSERT_EQ(0, f.shutdown());
	EXPECT_EQ(NVML_ERROR_INVALID_ARGUMENT, f.util(d0, &u));
	EXPECT_EQ(1, f.count(&n));
	fake_close(&f);
}

TEST(procs)
{
	nvmlProcessUtilizationSample_t s[4];
	nvmlProcessInfo_v2_t info[4];
	unsigned long long before, after;
	struct timespec ts;
	nvmlDevice_t d0, d1;
	struct fake f;
	unsigned int n;
	double start;

	ASSERT_EQ(0, fake_open(&f, "nvml",
		"at 0 gpu 0 procs 100:512:30 200:-:- 300:1024:5\n"
		"at 0.3 gpu 0 procs -\n"));
	ASSERT_EQ(0, f.init());
	start = mono();
	d0 = dev(&f, 0);
	d1 = dev(&f, 1);
	ASSERT_NE(NULL, f.procs_v3);
	ASSERT_NE(NULL, f.procs_v2);
	EXPECT_EQ(NULL, f.procs_v1);

	/* Asked for the size, then with too little room, then enough. */
	n = 0;
	EXPECT_EQ(NVML_ERROR_INSUFFICIENT_SIZE, f.procs_v3(d0, &n, NULL));
	EXPECT_EQ(3, n);
	n = 2;
	EXPECT_EQ(NVML_ERROR_INSUFFICIENT_SIZE, f.procs_v3(d0, &n, info));
	EXPECT_EQ(3, n);
	memset(info, 0x5a, sizeof(info));
	n = 4;
	ASSERT_EQ(0, f.procs_v3(d0, &n, info));
	ASSERT_EQ(3, n);
	EXPECT_EQ(100, info[0].pid);
	EXPECT_EQ(512ULL << 20, info[0].usedGpuMemory);
	EXPECT_EQ(~0U, info[0].gpuInstanceId);
	EXPECT_EQ(~0U, info[0].computeInstanceId);
	EXPECT_EQ(200, info[1].pid);
	EXPECT_EQ(NVML_VALUE_NOT_AVAILABLE, info[1].usedGpuMemory);
	EXPECT_EQ(300, info[2].pid);
	EXPECT_EQ(1024ULL << 20, info[2].usedGpuMemory);
	EXPECT_EQ(0x5a5a5a5a, info[3].pid);
	n = 3;
	memset(info, 0, sizeof(info));
	ASSERT_EQ(0, f.procs_v2(d0, &n, info));
	EXPECT_EQ(3, n);
	EXPECT_EQ(300, info[2].pid);
	n = 0;
	EXPECT_EQ(0, f.procs_v3(d1, &n, NULL));
	EXPECT_EQ(0, n);
	EXPECT_EQ(NVML_ERROR_INVALID_ARGUMENT, f.procs_v3(NULL, &n, NULL));

	/* One sample per process with an SM value, stamped now. */
	EXPECT_EQ(NVML_ERROR_INSUFFICIENT_SIZE, f.putil(d0, NULL, &n, 0));
	EXPECT_EQ(2, n);
	n = 1;
	EXPECT_EQ(NVML_ERROR_INSUFFICIENT_SIZE, f.putil(d0, s, &n, 0));
	EXPECT_EQ(2, n);
	clock_gettime(CLOCK_REALTIME, &ts);
	before = ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
	n = 4;
	ASSERT_EQ(0, f.putil(d0, s, &n, 0));
	clock_gettime(CLOCK_REALTIME, &ts);
	after = ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
	ASSERT_EQ(2, n);
	EXPECT_EQ(100, s[0].pid);
	EXPECT_EQ(30, s[0].smUtil);
	EXPECT_EQ(300, s[1].pid);
	EXPECT_EQ(5, s[1].smUtil);
	EXPECT_LE(before, s[0].timeStamp);
	EXPECT_GE(after, s[0].timeStamp);
	n = 4;
	EXPECT_EQ(NVML_ERROR_NOT_FOUND, f.putil(d0, s, &n, after + 10000000));
	n = 4;
	EXPECT_EQ(NVML_ERROR_NOT_FOUND, f.putil(d1, s, &n, 0));

	/* At 0.3 the list empties. */
	sleep_until(start, 0.4);
	n = 0;
	EXPECT_EQ(0, f.procs_v3(d0, &n, NULL));
	EXPECT_EQ(0, n);
	n = 4;
	EXPECT_EQ(NVML_ERROR_NOT_FOUND, f.putil(d0, s, &n, 0));
	f.shutdown();
	fake_close(&f);
}

TEST(xid)
{
	unsigned long long types;
	nvmlDevice_t d0, d1;
	nvmlEventData_t e;
	nvmlEventSet_t set;
	struct fake f;
	double start, t;

	ASSERT_EQ(0, fake_open(&f, "nvml",
		"at 5 xid 0 31\n"
		"at 0.3 xid 1 79\n"
		"at 0.3 xid 0 48\n"));
	/* before init: the timeline counts from it, and a busy host may
	 * take a while between the two */
	start = mono();
	ASSERT_EQ(0, f.init());
	d0 = dev(&f, 0);
	d1 = dev(&f, 1);
	ASSERT_EQ(0, f.set_create(&set));
	ASSERT_EQ(0, f.supported(d0, &types));
	EXPECT_EQ(NVML_EVENT_XID, types);
	EXPECT_EQ(NVML_ERROR_NOT_SUPPORTED, f.reg(d0, 0x1, set));
	ASSERT_EQ(0, f.reg(d0, NVML_EVENT_XID | 0x1, set));

	/* Nothing due yet: the wait takes its time and says so. */
	t = mono();
	EXPECT_EQ(NVML_ERROR_TIMEOUT, f.wait(set, &e, 50));
	EXPECT_LE(0.05, mono() - t);
	EXPECT_GT(0.25, mono() - t);

	/* Same time: the earlier line first, once; each when registered. */
	ASSERT_EQ(0, f.reg(d1, NVML_EVENT_XID, set));
	ASSERT_EQ(0, f.wait(set, &e, 2000));
	EXPECT_LE(0.3, mono() - start);
	EXPECT_GT(1.0, mono() - start);
	EXPECT_EQ(d1, e.device);
	EXPECT_EQ(NVML_EVENT_XID, e.eventType);
	EXPECT_EQ(79, e.eventData);
	EXPECT_EQ(~0U, e.gpuInstanceId);
	EXPECT_EQ(~0U, e.computeInstanceId);
	t = mono();
	ASSERT_EQ(0, f.wait(set, &e, 2000));
	EXPECT_GT(0.05, mono() - t);
	EXPECT_EQ(d0, e.device);
	EXPECT_EQ(48, e.eventData);
	EXPECT_EQ(NVML_ERROR_TIMEOUT, f.wait(set, &e, 100));

	ASSERT_EQ(0, f.set_free(set));
	EXPECT_EQ(NVML_ERROR_INVALID_ARGUMENT, f.set_free(set));
	EXPECT_EQ(NVML_ERROR_INVALID_ARGUMENT, f.wait(set, &e, 10));
	f.shutdown();
	fake_close(&f);
}

TEST(events_off)
{
	unsigned long long types = 1;
	nvmlEventSet_t set;
	struct fake f;

	ASSERT_EQ(0, fake_open(&f, "nvml", "events off\n"));
	ASSERT_EQ(0, f.init());
	ASSERT_EQ(0, f.set_create(&set));
	ASSERT_EQ(0, f.supported(dev(&f, 0), &types));
	EXPECT_EQ(0, types);
	EXPECT_EQ(NVML_ERROR_NOT_SUPPORTED,
		  f.reg(dev(&f, 0), NVML_EVENT_XID, set));
	EXPECT_EQ(0, f.set_free(set));
	f.shutdown();
	fake_close(&f);
}

TEST(fail)
{
	nvmlUtilization_t u;
	nvmlMemory_t m;
	struct fake f;
	double start;

	ASSERT_EQ(0, fake_open(&f, "nvml",
		"at 0.3 fail nvmlDeviceGetUtilizationRates 15\n"
		"at 0.6 fail nvmlDeviceGetUtilizationRates 0\n"
		"at 0 fail nvmlDeviceGetMemoryInfo 3\n"));
	ASSERT_EQ(0, f.init());
	start = mono();
	EXPECT_EQ(NVML_ERROR_NOT_SUPPORTED, f.mem(dev(&f, 0), &m));
	EXPECT_EQ(0, f.util(dev(&f, 0), &u));
	sleep_until(start, 0.4);
	EXPECT_EQ(15, f.util(dev(&f, 0), &u));
	EXPECT_EQ(15, f.util(dev(&f, 1), &u));
	sleep_until(start, 0.7);
	EXPECT_EQ(0, f.util(dev(&f, 0), &u));
	EXPECT_EQ(97, u.gpu);
	f.shutdown();
	fake_close(&f);

	/* nvmlInit_v2 itself, every time. */
	ASSERT_EQ(0, fake_open(&f, "nvml", "at 0 fail nvmlInit_v2 9\n"));
	EXPECT_EQ(9, f.init());
	EXPECT_EQ(9, f.init());
	fake_close(&f);
}

/*
 * A call from the hang's time on never returns: the child says it is
 * about to call, is still in the call 0.5 s later, and is killed.
 */
TEST(hang)
{
	static const char *const scripts[] = {
		"at 0.2 hang nvmlDeviceGetUtilizationRates\n",
		"at 0 hang nvmlInit_v2\n",
	};
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct fake f;
		int fds[2], status;
		char c = 0;
		pid_t pid;

		ASSERT_EQ(0, fake_open(&f, "nvml", scripts[i]));
		ASSERT_EQ(0, pipe(fds));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			nvmlUtilization_t u;
			double start;

			close(fds[0]);
			if (i == 0) {
				if (f.init())
					_exit(2);
				start = mono();
				if (f.util(dev(&f, 0), &u) || u.gpu != 97)
					_exit(3);
				sleep_until(start, 0.25);
				if (write(fds[1], "u", 1) != 1)
					_exit(4);
				f.util(dev(&f, 0), &u);
			} else {
				if (write(fds[1], "i", 1) != 1)
					_exit(4);
				f.init();
			}
			_exit(5);	/* it returned */
		}
		close(fds[1]);
		EXPECT_EQ(1, read(fds[0], &c, 1));
		EXPECT_EQ(i ? 'i' : 'u', c);
		close(fds[0]);
		usleep(500000);
		EXPECT_EQ(0, waitpid(pid, &status, WNOHANG))
			TH_LOG("script %u: the child ended, status 0x%x", i,
			       status);
		kill(pid, SIGKILL);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFSIGNALED(status));
		EXPECT_EQ(SIGKILL, WTERMSIG(status));
		fake_close(&f);
	}
}

/*
 * The message a bad script gives, run in a child: its stderr in @err,
 * whether nvmlInit_v2 returned 999.
 */
static int script_error(const char *text, const char *script_env,
			char *err, size_t len, char *path, size_t plen)
{
	char out[] = "/tmp/fake-nvml-err-XXXXXX";
	int fd = mkstemp(out), status;
	struct fake f;
	ssize_t n;
	pid_t pid;

	if (fd < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (fake_open(&f, "nvml", text))
			_exit(2);
		if (script_env)
			setenv("FAKE_NVML_SCRIPT", script_env, 1);
		dup2(fd, 2);
		n = f.init();
		unlink(f.script);
		_exit(n == SCRIPT_ERROR ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	n = pread(fd, err, len - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(out);
	/* The script's name, from the message itself. */
	snprintf(path, plen, "%s", err);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(script_errors)
{
	static char procs65[1024], longline[2048];
	static const struct {
		const char *text, *says;
	} cases[] = {
		{ "gpus 2\n\nat 0.1 gpu 0 util 5 5\nat x gpu 0 util 1 1\n",
		  "4: time 'x' is not seconds (0 to 1000000)" },
		{ "at 0 gpu 0 util 5 5\nat 0 gpu 2 util 1 1\n",
		  "2: gpu 2 out of range (2 GPUs)" },
		{ "gpus 3\nat 0 gpu 8 util 1 1\n",
		  "2: gpu index '8' above 7" },
		{ "# c\nat 0 gpu 0 util 101 0\n", "2: util '101' above 100" },
		{ procs65, "1: procs: 65 processes, at most 64" },
		{ "at 0 gpu 0 procs 1:2:3 1:5:-\n", "1: pid 1 listed twice" },
		{ "at 0 gpu 0 procs 1:2\n", "1: procs: '1:2' is not PID:MIB:SM" },
		{ "\nfrob 1\n", "2: unknown word 'frob'" },
		{ "at 0 gpu 0 frob 1\n", "1: unknown word 'frob' after gpu 0" },
		{ "at 1 hang nvmlFoo\n", "1: no function 'nvmlFoo' in this library" },
		{ "at 1 hang nvmlEventSetWait\n",
		  "1: no function 'nvmlEventSetWait' in this library" },
		{ "at 0 gpu 0 mem 10 5\n", "1: mem: used 10 MiB above total 5 MiB" },
		{ "at 0 gpu 0 reasons 41\n", "1: reasons '41' is not 0x<hex>" },
		{ "at 0 gpu 0 link 1 2 3\n", "1: link wants 4 values, not 3" },
		{ "at 0 gpu 0 persist 2\n", "1: persist '2' above 1" },
		{ "at 0.1234567891 xid 0 1\n",
		  "1: time '0.1234567891': more than 9 decimals" },
		{ "at 0 xid 0\n", "1: xid wants a GPU and a code" },
		{ "at 0 fail nvmlShutdown\n", "1: fail wants a function and a code" },
		{ "gpus 9\n", "1: gpus '9' above 8" },
		{ "gpus 2\ngpus 2\n", "2: gpus given twice" },
		{ "events on\n", "1: 'events off' is the only events line" },
		{ longline, "2: longer than 1023 characters" },
	};
	char err[4096], path[4096], want[8400];
	unsigned int i;
	int off;

	off = snprintf(procs65, sizeof(procs65), "at 0 gpu 0 procs");
	for (i = 1; i <= 65; i++)
		off += snprintf(procs65 + off, sizeof(procs65) - off,
				" %u:1:-", i);
	snprintf(procs65 + off, sizeof(procs65) - off, "\n");
	strcpy(longline, "gpus 1\n");
	memset(longline + 7, ' ', 1100);
	strcpy(longline + 1107, "# too long\n");

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *colon;

		EXPECT_EQ(0, script_error(cases[i].text, NULL, err,
					  sizeof(err), path, sizeof(path)))
			TH_LOG("case %u: %s", i, err);
		/* "fake_nvml: /tmp/fake-nvml-script-XXXXXX:LINE: what\n" */
		colon = strchr(path + strlen("fake_nvml: "), ':');
		if (colon)
			colon[1] = '\0';
		snprintf(want, sizeof(want), "%s%s\n", path, cases[i].says);
		EXPECT_EQ(0, strncmp(err, "fake_nvml: /tmp/fake-nvml-script-",
				     strlen("fake_nvml: /tmp/fake-nvml-script-")))
			TH_LOG("case %u: %s", i, err);
		EXPECT_STREQ(want, err) TH_LOG("case %u", i);
	}

	/* A "gpus" line after the lines that need it is fine. */
	EXPECT_EQ(1, script_error("at 0 gpu 2 util 1 1\ngpus 3\n", NULL, err,
				  sizeof(err), path, sizeof(path)));
	EXPECT_STREQ("", err);

	EXPECT_EQ(0, script_error("", "/nonexistent/script", err, sizeof(err),
				  path, sizeof(path)));
	EXPECT_STREQ("fake_nvml: /nonexistent/script:0: cannot open: No such file or directory\n",
		     err);
}

/* A library from before driver 535: v1 process table, nvmlEventSetWait. */
TEST(old_library)
{
	nvmlProcessUtilizationSample_t s[2];
	nvmlProcessInfo_v1_t info[3];
	nvmlEventSet_t set;
	nvmlEventData_t e;
	struct fake f;
	unsigned int n;

	ASSERT_EQ(0, fake_open(&f, "nvml-old",
		"at 0 gpu 1 procs 42:100:7 43:-:-\n"
		"at 0.2 xid 1 62\n"));
	ASSERT_EQ(0, f.init());
	EXPECT_EQ(NULL, f.procs_v3);
	EXPECT_EQ(NULL, f.procs_v2);
	EXPECT_EQ(NULL, sym(f.h, "nvmlEventSetWait_v2"));
	EXPECT_EQ(NULL, f.replay);
	ASSERT_NE(NULL, f.procs_v1);
	ASSERT_NE(NULL, sym(f.h, "nvmlEventSetWait"));

	n = 1;
	EXPECT_EQ(NVML_ERROR_INSUFFICIENT_SIZE, f.procs_v1(dev(&f, 1), &n, info));
	EXPECT_EQ(2, n);
	memset(info, 0x5a, sizeof(info));
	n = 3;
	ASSERT_EQ(0, f.procs_v1(dev(&f, 1), &n, info));
	ASSERT_EQ(2, n);
	EXPECT_EQ(42, info[0].pid);
	EXPECT_EQ(100ULL << 20, info[0].usedGpuMemory);
	EXPECT_EQ(43, info[1].pid);
	EXPECT_EQ(NVML_VALUE_NOT_AVAILABLE, info[1].usedGpuMemory);
	EXPECT_EQ(0x5a5a5a5a, info[2].pid);
	n = 2;
	EXPECT_EQ(NVML_ERROR_NOT_SUPPORTED, f.putil(dev(&f, 1), s, &n, 0));

	ASSERT_EQ(0, f.set_create(&set));
	ASSERT_EQ(0, f.reg(dev(&f, 1), NVML_EVENT_XID, set));
	ASSERT_EQ(0, f.wait(set, &e, 2000));
	EXPECT_EQ(dev(&f, 1), e.device);
	EXPECT_EQ(62, e.eventData);
	EXPECT_EQ(NVML_ERROR_TIMEOUT, f.wait(set, &e, 50));
	EXPECT_EQ(0, f.set_free(set));
	f.shutdown();
	fake_close(&f);
}

TEST_HARNESS_MAIN
