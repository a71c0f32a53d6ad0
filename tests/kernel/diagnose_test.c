// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose against loads with a known answer, in the VM: the tool
 * itself (/gpulat/bin/gpulat diagnose -j) must rank the layer under load
 * first.
 *
 * - Scheduler: two CPU hogs pinned to CPU 1, one of them named like a
 *   cryptominer, and a nice-19 sleeper there that wakes every 2 ms (as in
 *   sched_test.c).  The verdict is the scheduler, and its culprits name
 *   both hogs by name and pid (from the outlier trace when the module has
 *   it, else from their CPU time).
 * - Scheduler, a switch storm: a hog and a pipe ping-pong pair on CPU 1
 *   beside that sleeper, hundreds of switches per wait; the hog and the
 *   pair named from the trace.
 * - Storage: a null_blk disk that completes each request 100 ms after it
 *   was issued (irqmode=2, as in block_test.c), read by four readers with
 *   O_DIRECT.  The verdict is storage, its evidence names the disk, and
 *   its I/O users the readers.
 * - Memory, the host's own shortage: a process holds all but 96 MiB of
 *   what is available while readers stream a disk through the page
 *   cache; memory abnormal, and the advice says the host runs short.
 * - A quiet guest: nothing runs but the tool; nothing abnormal but, at
 *   most, the emulated CPUs' own stalls, barely over the bar.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vmtest.h"

#define GPULAT		"/gpulat/bin/gpulat"
#define SECONDS		"5"
#define VICTIM_CPU	1
#define NR_HOGS		2
#define NULLB_CONFIGFS	"/sys/kernel/config/nullb"
#define NULLB_NAME	"diagslow"
#define SLOW_NS		100000000UL
#define NR_READERS	4
#define BLOCK_SIZE	4096
#define NULLB_SIZE_MB	16

static const char *const hog_names[NR_HOGS] = { "xmrig", "diaghog" };

/* spawn - a child running @fn(@arg) under the name @comm until killed */
static pid_t spawn(const char *comm, void (*fn)(const void *), const void *arg)
{
	pid_t pid = fork();

	if (!pid) {
		prctl(PR_SET_NAME, comm, 0, 0, 0);
		fn(arg);
		_exit(0);
	}
	return pid;
}

static void stop(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

static void hog(const void *arg)
{
	(void)arg;
	pin_self(VICTIM_CPU);
	for (;;)
		;
}

static void sleeper(const void *arg)
{
	struct timespec ts = { 0, 2000000L };

	(void)arg;
	pin_self(VICTIM_CPU);
	if (setpriority(PRIO_PROCESS, 0, 19))
		_exit(91);
	for (;;)
		nanosleep(&ts, NULL);
}

/* diagnose - run the tool with @args; its output (malloc'd) or NULL */
static char *diagnose(const char *args, int *status)
{
	char cmd[256], *out = NULL;
	size_t len = 0, n;
	char buf[4096];
	FILE *p;

	snprintf(cmd, sizeof(cmd), GPULAT " diagnose %s 2>&1", args);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0) {
		char *o = realloc(out, len + n + 1);

		if (!o)
			break;
		out = o;
		memcpy(out + len, buf, n);
		len += n;
		out[len] = '\0';
	}
	*status = pclose(p);
	return out;
}

/*
 * layer_json - the object of layer @name in the JSON output: a copy of the
 * text from its start to the next layer's (malloc'd), or NULL
 */
static char *layer_json(const char *json, const char *name)
{
	char key[64];
	const char *a, *b;

	snprintf(key, sizeof(key), "{\"layer\":\"%s\"", name);
	a = strstr(json, key);
	if (!a)
		return NULL;
	b = strstr(a + 1, "{\"layer\":\"");
	return strndup(a, b ? (size_t)(b - a) : strlen(a));
}

TEST(scheduler_first_under_cpu_hogs)
{
	pid_t pids[NR_HOGS + 1] = { 0 };
	char *json, *sched, *text, want[128];
	int i, status = -1;

	if (sysconf(_SC_NPROCESSORS_ONLN) <= VICTIM_CPU)
		SKIP(return, "needs at least %d CPUs", VICTIM_CPU + 1);
	for (i = 0; i < NR_HOGS; i++)
		pids[i] = spawn(hog_names[i], hog, NULL);
	pids[NR_HOGS] = spawn("victim", sleeper, NULL);
	usleep(200000);		/* let them settle on the CPU */
	json = diagnose("-d " SECONDS " -j", &status);
	text = diagnose("-d 2", &status);
	stop(pids, NR_HOGS + 1);
	ASSERT_NE(NULL, json);
	ASSERT_NE(NULL, text);
	TH_LOG("%s", text);
	TH_LOG("%s", json);
	ASSERT_EQ(0, status);

	EXPECT_NE(NULL, strstr(json, "\"abnormal\":true,\"verdict\":\"scheduler\""));
	EXPECT_NE(NULL, strstr(json, "\"layers\":[{\"layer\":\"scheduler\",\"title\":\"scheduler (waits for a CPU)\",\"rank\":1,\"measured\":true,\"not_measured_because\":null,\"abnormal\":true"));
	sched = layer_json(json, "scheduler");
	ASSERT_NE(NULL, sched);
	/* the evidence is CPU 1's waits */
	EXPECT_NE(NULL, strstr(sched, "\"evidence\":[{\"series\":\"sched."));
	EXPECT_NE(NULL, strstr(sched, "\"cpu\":1,"));
	/* both hogs named, the miner flagged */
	for (i = 0; i < NR_HOGS; i++) {
		snprintf(want, sizeof(want), "{\"comm\":\"%s\",\"pid\":%d,",
			 hog_names[i], pids[i]);
		EXPECT_NE(NULL, strstr(sched, want)) TH_LOG("no %s", want);
	}
	EXPECT_NE(NULL, strstr(sched, "\"miner\":true"));
	EXPECT_NE(NULL, strstr(sched, "kill -9"));
	if (strstr(json, "\"trace\":true")) {
		/* who held the CPU in the slow waits, straight from the trace */
		snprintf(want, sizeof(want), "\"pid\":%d,\"tgid\":%d,\"source\":\"trace\"",
			 pids[0], pids[0]);
		EXPECT_NE(NULL, strstr(sched, want)) TH_LOG("no %s", want);
	} else {
		TH_LOG("no outlier trace in this module: culprits from CPU time");
		EXPECT_NE(NULL, strstr(sched, "\"source\":\"cpu-time\""));
	}
	/* the text names them too */
	snprintf(want, sizeof(want), "xmrig pid %d", pids[0]);
	EXPECT_NE(NULL, strstr(text, want));
	EXPECT_NE(NULL, strstr(text, "Verdict: most likely cause: the scheduler"));
	free(sched);
	free(json);
	free(text);
}

/* chat - one end of a pipe ping-pong pair on the victim's CPU */
static void chat(const void *arg)
{
	const int *fd = arg;	/* read end, write end */
	char c = 0;

	pin_self(VICTIM_CPU);
	if (fd[2] && write(fd[1], &c, 1) != 1)
		_exit(92);
	for (;;)
		if (read(fd[0], &c, 1) != 1 || write(fd[1], &c, 1) != 1)
			_exit(93);
}

/*
 * A switch storm: a hog and a pipe ping-pong pair ("chatjob", thousands
 * of switches a second) share CPU 1 with the nice-19 sleeper, so each of
 * its waits has hundreds of switches, past the 16-entry switch history:
 * the verdict is the scheduler, and the trace names the hog and the pair
 * for most of the outlier wait time (Documentation/trace.rst).
 */
TEST(scheduler_first_under_switch_storm)
{
	pid_t pids[4] = { 0 };
	int a[2], b[2], ends[2][3];
	char *json, *sched, want[128];
	int status = -1;

	if (sysconf(_SC_NPROCESSORS_ONLN) <= VICTIM_CPU)
		SKIP(return, "needs at least %d CPUs", VICTIM_CPU + 1);
	ASSERT_EQ(0, pipe(a));
	ASSERT_EQ(0, pipe(b));
	ends[0][0] = b[0], ends[0][1] = a[1], ends[0][2] = 1;
	ends[1][0] = a[0], ends[1][1] = b[1], ends[1][2] = 0;
	pids[0] = spawn("diaghog", hog, NULL);
	pids[1] = spawn("chatjob", chat, ends[0]);
	pids[2] = spawn("chatjob", chat, ends[1]);
	pids[3] = spawn("victim", sleeper, NULL);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	usleep(200000);
	json = diagnose("-d " SECONDS " -j", &status);
	stop(pids, 4);
	ASSERT_NE(NULL, json);
	TH_LOG("%s", json);
	ASSERT_EQ(0, status);
	EXPECT_NE(NULL, strstr(json, "\"abnormal\":true,\"verdict\":\"scheduler\""));
	sched = layer_json(json, "scheduler");
	ASSERT_NE(NULL, sched);
	snprintf(want, sizeof(want), "{\"comm\":\"diaghog\",\"pid\":%d,",
		 pids[0]);
	EXPECT_NE(NULL, strstr(sched, want)) TH_LOG("no %s", want);
	EXPECT_NE(NULL, strstr(sched, "{\"comm\":\"chatjob\""));
	if (strstr(json, "\"trace\":true")) {
		snprintf(want, sizeof(want),
			 "\"pid\":%d,\"tgid\":%d,\"source\":\"trace\"",
			 pids[0], pids[0]);
		EXPECT_NE(NULL, strstr(sched, want)) TH_LOG("no %s", want);
	}
	free(sched);
	free(json);
}

static int nullb_attr(const char *attr, unsigned long val)
{
	char path[128], s[32];

	snprintf(path, sizeof(path), NULLB_CONFIGFS "/" NULLB_NAME "/%s", attr);
	snprintf(s, sizeof(s), "%lu", val);
	return write_str(path, s);
}

/*
 * nullb_create - a null_blk disk of @mb MiB completing each request @ns
 * after it was issued (0: at once), @depth requests at a time; its name
 * in @name (newer kernels use ours)
 */
static int nullb_create(char *name, size_t len, unsigned long mb,
			unsigned long ns, unsigned long depth)
{
	struct stat st;
	char path[128];
	int ret, fd;
	ssize_t n;

	if (stat(NULLB_CONFIGFS, &st) &&
	    system("modprobe null_blk nr_devices=0 >/dev/null 2>&1"))
		return -ENOENT;
	if (mkdir(NULLB_CONFIGFS "/" NULLB_NAME, 0755))
		return -errno;
	ret = nullb_attr("size", mb);
	if (!ret)
		ret = nullb_attr("blocksize", BLOCK_SIZE);
	if (!ret)
		ret = nullb_attr("irqmode", ns ? 2 : 0);
	if (!ret && ns)
		ret = nullb_attr("completion_nsec", ns);
	if (!ret)
		ret = nullb_attr("hw_queue_depth", depth);
	if (!ret)
		ret = nullb_attr("power", 1);
	if (ret)
		return ret;
	snprintf(name, len, NULLB_NAME);
	if (stat("/sys/block/" NULLB_NAME, &st) == 0)
		return 0;
	fd = open(NULLB_CONFIGFS "/" NULLB_NAME "/index", O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, path, sizeof(path) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	path[n] = '\0';
	snprintf(name, len, "nullb%lu", strtoul(path, NULL, 10));
	return 0;
}

static void nullb_destroy(void)
{
	nullb_attr("power", 0);
	rmdir(NULLB_CONFIGFS "/" NULLB_NAME);
}

/* reader - O_DIRECT reads of one block each, spread over the disk */
static void reader(const void *arg)
{
	const unsigned long blocks = NULLB_SIZE_MB * (1048576 / BLOCK_SIZE);
	char path[64];
	unsigned long i = getpid();
	void *buf;
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", (const char *)arg);
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, BLOCK_SIZE, BLOCK_SIZE))
		_exit(92);
	for (;; i += 7919)
		if (pread(fd, buf, BLOCK_SIZE,
			  (off_t)(i % blocks) * BLOCK_SIZE) != BLOCK_SIZE)
			_exit(93);
}

TEST(storage_first_under_slow_disk)
{
	pid_t pids[NR_READERS] = { 0 };
	char name[32], want[96], *json, *storage;
	int i, ret, status = -1;

	ret = nullb_create(name, sizeof(name), NULLB_SIZE_MB, SLOW_NS,
			   NR_READERS);
	if (ret == -ENOENT) {
		nullb_destroy();
		SKIP(return, "no null_blk (vmrun --kmod null_blk)");
	}
	ASSERT_EQ(0, ret) nullb_destroy();
	for (i = 0; i < NR_READERS; i++)
		pids[i] = spawn("diagreader", reader, name);
	usleep(200000);
	json = diagnose("-d " SECONDS " -j", &status);
	stop(pids, NR_READERS);
	nullb_destroy();
	ASSERT_NE(NULL, json);
	TH_LOG("%s", json);
	ASSERT_EQ(0, status);

	EXPECT_NE(NULL, strstr(json, "\"abnormal\":true,\"verdict\":\"storage\""));
	EXPECT_NE(NULL, strstr(json, "\"layers\":[{\"layer\":\"storage\""));
	storage = layer_json(json, "storage");
	ASSERT_NE(NULL, storage);
	snprintf(want, sizeof(want),
		 "{\"series\":\"block.read.device\",\"cpu\":null,\"key\":");
	EXPECT_NE(NULL, strstr(storage, want));
	snprintf(want, sizeof(want), "\"key_name\":\"%s\"", name);
	EXPECT_NE(NULL, strstr(storage, want)) TH_LOG("no %s", want);
	EXPECT_NE(NULL, strstr(storage, "iostat -x 1 10"));
	/* whose I/O it was: the readers, from /proc, none past the trace */
	EXPECT_NE(NULL, strstr(storage, "\"io_users\":[{\"comm\":\"diagreader\""));
	EXPECT_NE(NULL, strstr(storage, ") moved "));
	free(storage);
	free(json);
}

/* mem_avail_kb - MemAvailable of /proc/meminfo, or 0 */
static unsigned long mem_avail_kb(void)
{
	unsigned long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* allocstall - tasks' direct reclaim entries so far (/proc/vmstat) */
static unsigned long long allocstall(void)
{
	unsigned long long sum = 0, v;
	char line[128], name[64];
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu", name, &v) == 2 &&
		    !strncmp(name, "allocstall", 10))
			sum += v;
	fclose(f);
	return sum;
}

/*
 * holder - take @arg KiB of anonymous memory, touched, and keep it; then
 * take 32 MiB more and give it back, again and again: allocations
 * faster than kswapd frees the page cache
 */
static void holder(const void *arg)
{
	size_t len = *(const unsigned long *)arg * 1024UL, more = 32UL << 20;
	char *p = malloc(len), *q;

	if (!p)
		_exit(92);
	memset(p, 1, len);
	for (;;) {
		q = mmap(NULL, more, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q == MAP_FAILED)
			_exit(93);
		memset(q, 1, more);
		munmap(q, more);
	}
}

/* streamer - buffered reads of the whole disk @arg, again and again */
static void streamer(const void *arg)
{
	static char buf[1 << 20];
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", (const char *)arg);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		_exit(92);
	for (;;)
		if (read(fd, buf, sizeof(buf)) <= 0 &&
		    lseek(fd, 0, SEEK_SET) < 0)
			_exit(93);
}

/*
 * Memory, the host's own shortage: a process holds all but 96 MiB of the
 * guest's available memory, and takes 32 MiB more and gives it back
 * without pause, while four readers stream a 2 GiB disk through the
 * page cache.  The reclaim is the host's (no memory cgroup
 * limit): memory abnormal with direct reclaim, and the advice says the
 * host runs short, never that a cgroup reclaims at its limit.  When no
 * task stalled in reclaim during the watch (allocstall in /proc/vmstat:
 * kswapd kept up, as on 6.1-rt under a loaded emulator once), there is
 * no shortage to diagnose: only the last holds, and the rest is skipped.  (Five
 * busy processes on two CPUs: the scheduler is abnormal too, and may
 * rank first; the memcg incident, its counterpart, runs on the host:
 * tests/scenarios/s_memcg_reclaim.sh.)
 */
TEST(memory_shortage_is_the_hosts)
{
	pid_t pids[5] = { 0 };
	unsigned long avail = mem_avail_kb(), take;
	unsigned long long stalls;
	char name[32], *json, *mem;
	int i, ret, status = -1;

	if (avail < 256 * 1024)
		SKIP(return, "MemAvailable %lu kB: too little to take", avail);
	take = avail - 96 * 1024;
	ret = nullb_create(name, sizeof(name), 2048, 0, 64);
	if (ret == -ENOENT) {
		nullb_destroy();
		SKIP(return, "no null_blk (vmrun --kmod null_blk)");
	}
	ASSERT_EQ(0, ret) nullb_destroy();
	pids[0] = spawn("memhold", holder, &take);
	sleep(2);	/* it has taken it */
	for (i = 1; i < 5; i++)
		pids[i] = spawn("streamer", streamer, name);
	usleep(500000);
	stalls = allocstall();
	json = diagnose("-d " SECONDS " -j", &status);
	stalls = allocstall() - stalls;
	stop(pids, 5);
	nullb_destroy();
	/* the guest as it was for the tests after: caches out, compacted */
	write_str("/proc/sys/vm/drop_caches", "3");
	write_str("/proc/sys/vm/compact_memory", "1");
	ASSERT_NE(NULL, json);
	TH_LOG("%s", json);
	ASSERT_EQ(0, status);

	mem = layer_json(json, "memory");
	ASSERT_NE(NULL, mem);
	/* never a cgroup's limit, whatever the reclaim did */
	EXPECT_EQ(NULL, strstr(json, "reclaims at its own"));
	TH_LOG("allocstall +%llu during the watch", stalls);
	if (stalls < 5) {
		/* kswapd kept up (the kernel's timing, not the tool's) */
		free(mem);
		free(json);
		SKIP(return, "no task stalled in reclaim (allocstall +%llu): no shortage to diagnose",
		     stalls);
	}
	EXPECT_NE(NULL, strstr(mem, "\"abnormal\":true"));
	EXPECT_NE(NULL, strstr(mem, "mm.direct_reclaim"));
	EXPECT_NE(NULL, strstr(mem, "the host runs short of free memory"));
	free(mem);
	free(json);
}

/*
 * A quiet guest: every layer but the scheduler normal, and the scheduler
 * normal or barely over its bar (5 ms/s): an emulated guest waits for
 * its virtual CPUs (TCG on a busy host: wakeups of a few ms, 5.7-11.3
 * ms/s measured on 6.1-rt, 0 on 6.1), which is the host's doing; every
 * incident above scores 100 ms/s or more.  No miner advice.
 */
TEST(quiet_guest_is_normal)
{
	const char *const others[] = { "driver", "network", "storage",
				       "memory" };
	char *json, *layer, *p;
	int status = -1;
	double score;
	size_t i;

	json = diagnose("-d " SECONDS " -j", &status);
	ASSERT_NE(NULL, json);
	TH_LOG("%s", json);
	ASSERT_EQ(0, status);
	EXPECT_EQ(NULL, strstr(json, "cryptominer"));
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		layer = layer_json(json, others[i]);
		ASSERT_NE(NULL, layer);
		EXPECT_NE(NULL, strstr(layer, "\"abnormal\":false"))
			TH_LOG("%s abnormal on a quiet guest", others[i]);
		free(layer);
	}
	layer = layer_json(json, "scheduler");
	ASSERT_NE(NULL, layer);
	p = strstr(layer, "\"score_ms_per_s\":");
	ASSERT_NE(NULL, p);
	score = strtod(p + strlen("\"score_ms_per_s\":"), NULL);
	TH_LOG("the scheduler's waits beyond normal: %.2f ms/s", score);
	EXPECT_GT(50.0, score);
	free(layer);
	free(json);
}

VMTEST_HARNESS_MAIN
