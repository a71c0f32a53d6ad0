// SPDX-License-Identifier: GPL-2.0
/*
 * The job's GPU waits (the cuda family) against a GPU whose answers are
 * known, in each source: the module, and the BPF source loaded beside it.
 *
 * A CUDA job (tests/cuda/job.c) loads the libcuda.so.1 double by its
 * soname and makes synchronising calls.  Each waits in a read() of the
 * stand-in GPU (tests/kmod/gpulat_fake_gpu.c), which a hard hrtimer ends
 * after GPU_US by raising an interrupt named "nvidia"; its IRQ thread
 * irq/N-nvidia wakes the reader: the driver's path.  Known answers:
 *
 *   gpu_time_is_the_gpus     every call split on the driver's path; the
 *                            parts add up to the calls to the nanosecond;
 *                            the GPU's part at least GPU_US, the host's
 *                            share small
 *   outermost_call_only      cuMemcpyDtoH, which calls cuMemcpyDtoH_v2
 *                            through the PLT, is one call each
 *   spin_is_on_cpu           a spinning context's calls (the double's
 *                            FAKE_CUDA_SPIN) are on CPU, not the GPU's
 *   hog_on_job_cpu_is_runq   a nice 0 hog on the CPU of a nice 19 job:
 *                            the wait after the driver's wakeup grows,
 *                            and the trace's cuda.runq records name it
 *   rt_hogs_delay_the_driver FIFO hogs above the IRQ thread on every CPU:
 *                            the driver's path grows
 *
 * Each call counts once in each source, in the job's own key (its tgid).
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "both.h"
#include "lib/cudalib.h"
#include "lib/gpulat_user.h"
#include "shell.h"
#include "vmtest.h"

NEEDS_FAMILY(GPULAT_FAM_CUDA);

#define DYN		"/gpulat/dyn/cuda"
#define FAKE_DEV	"/dev/gpulat_fake_gpu"
#define GPU_US		3000
#define CALLS		50
#define CUDA_NR_SERIES	(GPULAT_CUDA_OTHER + 1)

static struct both B;
static char setup_why[512];

/* What one source saw of one job: per series, count, sum and mean. */
struct split {
	uint64_t n[CUDA_NR_SERIES], sum[CUDA_NR_SERIES];
};

static uint64_t mean_us(const struct split *s, unsigned int id)
{
	return s->n[id] ? s->sum[id] / s->n[id] / 1000 : 0;
}

static void split_of(struct gl_snapshot *snap, pid_t pid, struct split *sp)
{
	struct gl_hist h;
	unsigned int id;

	memset(sp, 0, sizeof(*sp));
	for (id = 0; id < CUDA_NR_SERIES; id++)
		if (gl_hist_merge_key(snap, GPULAT_FAM_CUDA, id, (uint64_t)pid,
				      GPULAT_CPU_NONE, &h) > 0) {
			sp->n[id] = h.count;
			sp->sum[id] = h.sum_ns;
		}
}

static void split_print(const char *src, const struct split *s)
{
	static const char *const names[] = {
		"call", "gpu", "driver", "runq", "preempted", "return",
		"oncpu", "other",
	};
	char line[512];
	size_t off = 0;
	unsigned int id;

	for (id = 0; id < CUDA_NR_SERIES; id++)
		off += snprintf(line + off, sizeof(line) - off,
				" %s %llu/%lluus", names[id],
				(unsigned long long)s->n[id],
				(unsigned long long)mean_us(s, id));
	fprintf(stderr, "# %s (count/mean):%s\n", src, line);
}

static bool fake_gpu_ours;
static pid_t fake_gpu_ours_pid;	/* the harness forks: its parent's */

/* the stand-in GPU left as found: the tests after load it their way */
static void __attribute__((destructor)) fake_gpu_unload(void)
{
	if (fake_gpu_ours && getpid() == fake_gpu_ours_pid)
		sh("rm -f " FAKE_DEV "; rmmod gpulat_fake_gpu");
}

/* the stand-in GPU and its device node (misc, its minor dynamic) */
static int fake_gpu_load(void)
{
	if (!sh("grep -q '^gpulat_fake_gpu ' /proc/modules")) {
		/* another's: its gpu_us is ours for the run */
		if (write_str("/sys/module/gpulat_fake_gpu/parameters/gpu_us",
			      "3000"))
			return -ENODEV;
	} else if (sh("insmod /gpulat/modules/gpulat_fake_gpu.ko gpu_us=%d",
		      GPU_US)) {
		return -ENODEV;
	} else {
		fake_gpu_ours = true;
		fake_gpu_ours_pid = getpid();
	}
	if (access(FAKE_DEV, F_OK) &&
	    sh("mknod " FAKE_DEV " c $(cut -d: -f1 /sys/class/misc/gpulat_fake_gpu/dev) $(cut -d: -f2 /sys/class/misc/gpulat_fake_gpu/dev)"))
		return -ENODEV;
	return 0;
}

/*
 * Once for the program: the stand-in GPU, both sources with the nvidia
 * and cuda families on, and the double handed to each (the module by
 * GPULAT_IOC_CUDA, the BPF source through $GPULAT_LIBCUDA at its load).
 */
static void __attribute__((constructor)) cuda_setup(void)
{
	struct gl_cudalib lib;
	char why[256];
	unsigned int i;
	int ret;

	if (access(DYN "/job", X_OK) || access(DYN "/libcuda.so.1", R_OK)) {
		snprintf(setup_why, sizeof(setup_why),
			 "no CUDA job or double in %s (make guest-dyn)", DYN);
		return;
	}
	if (fake_gpu_load()) {
		snprintf(setup_why, sizeof(setup_why),
			 "cannot load gpulat_fake_gpu.ko");
		return;
	}
	setenv("GPULAT_LIBCUDA", DYN "/libcuda.so.1", 1);
	ret = gl_cudalib_resolve(&lib, NULL, why, sizeof(why));
	if (ret) {
		snprintf(setup_why, sizeof(setup_why), "the double: %s", why);
		return;
	}
	ret = both_open(&B, GPULAT_FAM_CUDA);
	if (ret && !B.src[BOTH_KMOD]) {
		snprintf(setup_why, sizeof(setup_why), "%s", B.why);
		return;
	}
	/* a BPF source that cannot serve the family fails the cross checks */
	B.nr = B.src[BOTH_BPF] && !ret ? B.nr : 1;
	for (i = 0; i < B.nr; i++)
		gl_source_family_switch(B.src[i], GPULAT_FAM_NVIDIA, true);
	ret = gl_source_cuda_set(B.src[BOTH_KMOD], &lib);
	if (ret)
		snprintf(setup_why, sizeof(setup_why),
			 "the module refused the library: %s", strerror(-ret));
	if (B.nr < BOTH_MAX)
		printf("# the BPF source does not serve cuda: %s\n", B.why);
}

struct job_opts {
	const char *fn;
	unsigned int calls;
	int cpu;		/* -1: any */
	int nice;
	unsigned int spin_us;	/* 0: waits on the stand-in GPU */
};

/* job_run - the job's pid after it made its calls (reaped), or -1 */
static pid_t job_run(const struct job_opts *jo, uint64_t *calls)
{
	char count[16], buf[512] = "";
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	*calls = 0;
	if (pipe(fds))
		return -1;
	pid = fork();
	if (!pid) {
		char us[16];

		if (jo->cpu >= 0)
			pin_self(jo->cpu);
		if (jo->nice && setpriority(PRIO_PROCESS, 0, jo->nice))
			_exit(91);
		setenv("LD_LIBRARY_PATH", DYN, 1);
		if (jo->spin_us) {
			snprintf(us, sizeof(us), "%u", jo->spin_us);
			setenv("FAKE_CUDA_SPIN", "1", 1);
			setenv("FAKE_CUDA_GPU_US", us, 1);
		} else {
			setenv("FAKE_CUDA_DEV", FAKE_DEV, 1);
		}
		snprintf(count, sizeof(count), "%u", jo->calls);
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl(DYN "/job", "job", jo->fn, count, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return -1;
	}
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	buf[n > 0 ? n : 0] = '\0';
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	fprintf(stderr, "# job %d: %s", pid, buf);
	if (sscanf(strstr(buf, "\"calls\":") ?: "", "\"calls\":%llu",
		   (unsigned long long *)calls) != 1)
		return -1;
	return pid;
}

/* job_split - run @jo and read what each source saw of it */
static pid_t job_split(struct __test_metadata *_metadata,
		       const struct job_opts *jo, struct split sp[BOTH_MAX])
{
	struct gl_snapshot *s[BOTH_MAX] = { NULL };
	uint64_t calls;
	unsigned int i;
	pid_t pid;

	if (setup_why[0])
		SKIP(return -1, "%s", setup_why);
	pid = job_run(jo, &calls);
	ASSERT_LT(0, pid);
	ASSERT_EQ(jo->calls, calls);
	ASSERT_EQ(0, both_snapshot(&B, s));
	for (i = 0; i < B.nr; i++) {
		split_of(s[i], pid, &sp[i]);
		split_print(both_name[i], &sp[i]);
	}
	both_free(s);
	/* the cross case: both sources, and the same counts in each part */
	EXPECT_EQ(BOTH_MAX, B.nr);
	for (i = 1; i < B.nr; i++)
		EXPECT_EQ(0, memcmp(sp[0].n, sp[i].n, sizeof(sp[0].n)));
	return pid;
}

/* the parts of every call add up to the calls, in each source */
static void expect_adds_up(struct __test_metadata *_metadata,
			   const struct split *s)
{
	uint64_t parts = s->sum[GPULAT_CUDA_GPU] + s->sum[GPULAT_CUDA_DRIVER] +
			 s->sum[GPULAT_CUDA_RUNQ] +
			 s->sum[GPULAT_CUDA_PREEMPTED] +
			 s->sum[GPULAT_CUDA_RETURN] +
			 s->sum[GPULAT_CUDA_ONCPU] + s->sum[GPULAT_CUDA_OTHER];

	EXPECT_EQ(s->sum[GPULAT_CUDA_CALL], parts);
	EXPECT_EQ(s->n[GPULAT_CUDA_CALL], s->n[GPULAT_CUDA_PREEMPTED]);
	EXPECT_EQ(s->n[GPULAT_CUDA_CALL],
		  s->n[GPULAT_CUDA_GPU] + s->n[GPULAT_CUDA_ONCPU]);
}

static uint64_t host_us(const struct split *s)
{
	return mean_us(s, GPULAT_CUDA_DRIVER) + mean_us(s, GPULAT_CUDA_RUNQ) +
	       mean_us(s, GPULAT_CUDA_PREEMPTED) + mean_us(s, GPULAT_CUDA_RETURN);
}

TEST(gpu_time_is_the_gpus)
{
	struct job_opts jo = { "cuStreamSynchronize", CALLS, 0, 0, 0 };
	struct split sp[BOTH_MAX];
	unsigned int i;

	if (job_split(_metadata, &jo, sp) < 0)
		return;
	for (i = 0; i < B.nr; i++) {
		TH_LOG("%s: GPU %llu us, host %llu us a call", both_name[i],
		       (unsigned long long)mean_us(&sp[i], GPULAT_CUDA_GPU),
		       (unsigned long long)host_us(&sp[i]));
		EXPECT_EQ(CALLS, sp[i].n[GPULAT_CUDA_CALL]);
		EXPECT_EQ(CALLS, sp[i].n[GPULAT_CUDA_GPU]);
		EXPECT_EQ(0, sp[i].n[GPULAT_CUDA_ONCPU]);
		expect_adds_up(_metadata, &sp[i]);
		/* the stand-in's timer ends no earlier than GPU_US */
		EXPECT_LE(GPU_US, mean_us(&sp[i], GPULAT_CUDA_GPU));
		EXPECT_GT(GPU_US + 1000, mean_us(&sp[i], GPULAT_CUDA_GPU));
		/* what the host added, on an idle guest: well under the GPU's */
		EXPECT_GT(GPU_US / 3, host_us(&sp[i]));
	}
}

TEST(outermost_call_only)
{
	struct job_opts jo = { "cuMemcpyDtoH", 20, 0, 0, 0 };
	struct split sp[BOTH_MAX];
	unsigned int i;

	if (job_split(_metadata, &jo, sp) < 0)
		return;
	for (i = 0; i < B.nr; i++) {
		EXPECT_EQ(20, sp[i].n[GPULAT_CUDA_CALL]);
		EXPECT_EQ(20, sp[i].n[GPULAT_CUDA_GPU]);
		expect_adds_up(_metadata, &sp[i]);
	}
}

TEST(spin_is_on_cpu)
{
	struct job_opts jo = { "cuStreamSynchronize", 30, 0, 0, 2000 };
	struct split sp[BOTH_MAX];
	unsigned int i;

	if (job_split(_metadata, &jo, sp) < 0)
		return;
	for (i = 0; i < B.nr; i++) {
		EXPECT_EQ(30, sp[i].n[GPULAT_CUDA_CALL]);
		EXPECT_EQ(30, sp[i].n[GPULAT_CUDA_ONCPU]);
		EXPECT_EQ(0, sp[i].n[GPULAT_CUDA_GPU]);
		expect_adds_up(_metadata, &sp[i]);
		/* polling 2 ms: on CPU or preempted, never asleep */
		EXPECT_LE(1900, mean_us(&sp[i], GPULAT_CUDA_ONCPU) +
				mean_us(&sp[i], GPULAT_CUDA_PREEMPTED));
		EXPECT_GT(200, mean_us(&sp[i], GPULAT_CUDA_OTHER));
	}
}

/*
 * runq_named - of the trace records waiting on @src's trace, the
 * cuda.runq records of process @pid, and how many name @hog first
 */
static void runq_named(struct gl_source *src, pid_t pid, pid_t hog,
		       unsigned int *recs, unsigned int *named)
{
	static unsigned char buf[GL_TRACE_BUF];
	struct gl_trace_rec r;
	size_t off;
	ssize_t n;

	struct pollfd p = { .fd = gl_source_poll_fd(src), .events = POLLIN };

	*recs = *named = 0;
	/* what is there, and what the module's per-CPU rings still hold */
	while (poll(&p, 1, 300) == 1 &&
	       (n = gl_source_trace_read(src, buf, sizeof(buf))) > 0)
		for (off = 0; gl_trace_parse(buf, n, &off, &r) > 0;) {
			const struct gpulat_rec_sample *s = &r.u.sample;

			if (r.type != GPULAT_REC_SAMPLE ||
			    s->family != GPULAT_FAM_CUDA ||
			    s->series != GPULAT_CUDA_RUNQ || s->tgid != pid)
				continue;
			(*recs)++;
			*named += s->nr_culprits && s->culprits[0].pid == hog;
		}
}

TEST(hog_on_job_cpu_is_runq)
{
	struct job_opts jo = { "cuStreamSynchronize", 30, 1, 19, 0 };
	struct split sp[BOTH_MAX];
	unsigned int i, recs, named;
	pid_t hog, pid;

	if (setup_why[0])
		SKIP(return, "%s", setup_why);
	/* readers of the trace from now (a first poll): the calls below */
	for (i = 0; i < B.nr; i++) {
		struct pollfd p = { .fd = gl_source_poll_fd(B.src[i]),
				    .events = POLLIN };

		ASSERT_LE(0, p.fd);
		poll(&p, 1, 0);
	}
	hog = vm_spawn(1, "gl_cuda_hog", 0, 0);
	ASSERT_LT(0, hog);
	pid = job_split(_metadata, &jo, sp);
	if (pid < 0) {
		vm_stop(hog);
		return;
	}
	for (i = 0; i < B.nr; i++) {
		runq_named(B.src[i], pid, hog, &recs, &named);
		TH_LOG("%s: %u cuda.runq records, %u name the hog first",
		       both_name[i], recs, named);
		/*
		 * the host's share is over 1 ms in most calls here; read
		 * after the job, the 32-record rings keep a few calls' six
		 */
		EXPECT_LE(3, recs);
		EXPECT_LE((recs + 1) / 2, named);
	}
	vm_stop(hog);
	for (i = 0; i < B.nr; i++) {
		EXPECT_EQ(30, sp[i].n[GPULAT_CUDA_GPU]);
		expect_adds_up(_metadata, &sp[i]);
		/* nice 19 behind nice 0: its turn comes after the hog's slice */
		EXPECT_LE(1000, mean_us(&sp[i], GPULAT_CUDA_RUNQ));
		/* the IRQ thread is real-time: the hog delays the job far more */
		EXPECT_GT(mean_us(&sp[i], GPULAT_CUDA_RUNQ) / 4,
			  mean_us(&sp[i], GPULAT_CUDA_DRIVER));
	}
}

/* rt_hog - FIFO 51, above the IRQ threads' 50, on @cpu: 9 ms on, 1 off */
static pid_t rt_hog(int cpu)
{
	struct sched_param sp = { .sched_priority = 51 };
	pid_t pid = fork();

	if (!pid) {
		struct timespec t0, t, off = { 0, 1000000 };

		pin_self(cpu);
		prctl(PR_SET_NAME, "gl_cuda_rthog");
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(92);
		for (;;) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			do
				clock_gettime(CLOCK_MONOTONIC, &t);
			while ((t.tv_sec - t0.tv_sec) * 1000000000L +
			       t.tv_nsec - t0.tv_nsec < 9000000L);
			nanosleep(&off, NULL);
		}
	}
	return pid;
}

TEST(rt_hogs_delay_the_driver)
{
	struct job_opts jo = { "cuStreamSynchronize", 30, 0, 0, 0 };
	struct split sp[BOTH_MAX];
	pid_t hogs[2];
	unsigned int i;

	hogs[0] = rt_hog(0);
	hogs[1] = rt_hog(1);
	if (job_split(_metadata, &jo, sp) >= 0) {
		for (i = 0; i < B.nr; i++) {
			/*
			 * the job is preempted for 9 ms at a time too: a call
			 * whose interrupt came while it was preempted before it
			 * slept is not split (cuda.negative), nor one that found
			 * the GPU done without sleeping (cuda.other)
			 */
			EXPECT_LE(27, sp[i].n[GPULAT_CUDA_CALL]);
			EXPECT_LE(sp[i].n[GPULAT_CUDA_CALL] * 9 / 10,
				  sp[i].n[GPULAT_CUDA_GPU]);
			expect_adds_up(_metadata, &sp[i]);
			/* irq/N-nvidia waits for a hog's 9 ms most of the time */
			EXPECT_LE(1000, mean_us(&sp[i], GPULAT_CUDA_DRIVER));
		}
	}
	vm_stop(hogs[0]);
	vm_stop(hogs[1]);
}

/*
 * diagnose names the job: its calls, split, in the "gpu_jobs" of its JSON,
 * with the parts adding up to the calls
 */
TEST(diagnose_lists_the_job)
{
	unsigned long long call = 0, sums = 0, v;
	char *buf = calloc(1, 1 << 20), key[64], *p;
	static const char *const parts[] = {
		"\"gpu\":", "\"driver\":", "\"runq\":", "\"preempted\":",
		"\"return\":", "\"oncpu\":", "\"other\":",
	};
	unsigned int i;
	size_t n;
	FILE *f;
	pid_t job;

	ASSERT_NE(NULL, buf);
	if (setup_why[0])
		SKIP(return, "%s", setup_why);
	job = fork();
	if (!job) {
		setenv("LD_LIBRARY_PATH", DYN, 1);
		setenv("FAKE_CUDA_DEV", FAKE_DEV, 1);
		execl(DYN "/job", "job", "cuStreamSynchronize", "3000",
		      (char *)NULL);
		_exit(127);
	}
	ASSERT_LT(0, job);
	f = popen("gpulat --source kmod diagnose -d 2 -j 2>/dev/null", "r");
	ASSERT_NE(NULL, f);
	n = fread(buf, 1, (1 << 20) - 1, f);
	pclose(f);
	kill(job, SIGKILL);
	waitpid(job, NULL, 0);
	buf[n] = '\0';
	snprintf(key, sizeof(key), "{\"pid\":%d,", job);
	p = strstr(buf, key);
	ASSERT_NE(NULL, p);
	p = strstr(p, "\"call\":{\"count\":");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(1, sscanf(strstr(p, "\"sum_ns\":"), "\"sum_ns\":%llu",
			    &call));
	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		char *q = strstr(p, parts[i]);

		ASSERT_NE(NULL, q);
		ASSERT_EQ(1, sscanf(strstr(q, "\"sum_ns\":"),
				    "\"sum_ns\":%llu", &v));
		sums += v;
	}
	TH_LOG("diagnose: the job's calls %llu ns in the window", call);
	EXPECT_LT(0, call);
	EXPECT_EQ(call, sums);
	free(buf);
}

VMTEST_HARNESS_MAIN
