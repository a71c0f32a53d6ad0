// SPDX-License-Identifier: GPL-2.0
/*
 * The nvidia family against stand-ins for the NVIDIA driver, in the VM.
 *
 * gpulat_fake_nvidia.ko shares the e1000's legacy IRQ line as a threaded
 * handler named "nvidia" and wakes a kthread named "UVM GPU1 BH"; it
 * counts its own hard handler calls, thread function calls and kthread
 * sleeps.  Traffic to the user-mode network's host makes interrupts.  Once
 * the line is quiet, nvidia.hardirq of that handler must hold exactly as
 * many samples as its handler counted, the thread and kthread series must
 * hold the wakeups the counts allow, and nothing may be dropped.  The
 * stand-in is loaded twice: the IRQ and its threads come and go, as the
 * driver's do when persistence mode is off.
 *
 * Run twice by make vmtest: without threadirqs the hard handler runs in
 * hard IRQ context and the thread function in irq/N-nvidia; with it the
 * kernel runs a stub in hard IRQ context (what nvidia.hardirq then times),
 * the hard handler in irq/N-nvidia and the thread function in
 * irq/N-s-nvidia, and both threads are followed.
 *
 * The BPF source, loaded beside the module, is held to the same counts
 * in the same windows: the nvidia family's cross case.
 *
 * gpulat_fake_xid.ko provides nvidia:nvidia_dev_xid and is loaded after
 * gpulat: the Xids it reports must show in the snapshot's events, in
 * order, with their PCI address, and the ring must count what it loses.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "both.h"
#include "lib/gpulat_user.h"
#include "shell.h"
#include "vmtest.h"

NEEDS_FAMILY(GPULAT_FAM_NVIDIA);

#define MODDIR		"/gpulat/modules"
#define FAKE_NV		"gpulat_fake_nvidia"
#define FAKE_XID	"gpulat_fake_xid"
#define XID_RING	64

static long long read_param(const char *mod, const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", mod,
		 name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* eth_irq - the IRQ line eth0 uses, from /proc/interrupts, or -1 */
static int eth_irq(void)
{
	char line[1024];
	int irq = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (irq < 0 && fgets(line, sizeof(line), f))
		if (strstr(line, "eth0") && sscanf(line, " %d:", &irq) != 1)
			irq = -1;
	fclose(f);
	return irq;
}

/* have_task - whether a task named @comm exists */
static bool have_task(const char *comm)
{
	struct dirent *d;
	bool found = false;
	DIR *dir = opendir("/proc");

	if (!dir)
		return false;
	while (!found && (d = readdir(dir))) {
		char path[300], name[64] = "";
		FILE *f;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f))
			name[strcspn(name, "\n")] = '\0';
		fclose(f);
		found = !strcmp(name, comm);
	}
	closedir(dir);
	return found;
}

/* threadirqs - handlers forced into threads: the boot option, or RT */
static bool threadirqs(void)
{
	struct utsname u;
	char buf[4096] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	if (!uname(&u) && strstr(u.version, "PREEMPT_RT"))
		return true;
	return strstr(buf, "threadirqs") != NULL;
}

/* have_key - whether @s lists a key of the family named @name */
static bool have_key(const struct gl_snapshot *s, const char *name)
{
	size_t i;

	for (i = 0; i < gl_snapshot_nr_series(s); i++) {
		const struct gpulat_series *sr = gl_snapshot_series(s, i);

		if (sr->family == GPULAT_FAM_NVIDIA &&
		    !strcmp(sr->key_name, name))
			return true;
	}
	return false;
}

/* key_count - samples of series @id for @key, or over all keys */
static uint64_t key_count(const struct gl_snapshot *s, uint32_t id,
			  const uint64_t *key)
{
	struct gl_hist h;
	int n;

	if (key)
		n = gl_hist_merge_key(s, GPULAT_FAM_NVIDIA, id, *key,
				      GPULAT_CPU_NONE, &h);
	else
		n = gl_hist_merge(s, GPULAT_FAM_NVIDIA, id, GPULAT_CPU_NONE,
				  &h);
	return n < 1 ? 0 : h.count;
}

static uint64_t counter(const struct gl_snapshot *s, uint32_t id)
{
	uint64_t v = 0;

	gl_counter(s, GPULAT_FAM_NVIDIA, id, &v);
	return v;
}

static int family_attached(const struct gl_snapshot *s)
{
	size_t i, n = 0;

	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		const struct gpulat_probe *p = gl_snapshot_probe(s, i);

		if (p->family != GPULAT_FAM_NVIDIA)
			continue;
		/* the BPF source's Xid tracepoint: only with the driver */
		if (p->state == GPULAT_PROBE_MISSING &&
		    strstr(p->tracepoint, "nvidia_dev_xid"))
			continue;
		if (p->state != GPULAT_PROBE_ATTACHED)
			return 0;
		n++;
	}
	return n > 0;
}

static void traffic(void)
{
	/* busybox ping: 300 echoes, 10 ms apart */
	if (sh("ping -q -c 300 -i 0.01 -W 5 10.0.2.2 >/dev/null 2>&1"))
		sh("ping -q -c 100 10.0.2.2 >/dev/null 2>&1");
}

struct counts {
	long long hard, thread, naps;
};

static int fake_counts(struct counts *c)
{
	c->hard = read_param(FAKE_NV, "hard_calls");
	c->thread = read_param(FAKE_NV, "thread_calls");
	c->naps = read_param(FAKE_NV, "bh_naps");
	return c->hard < 0 || c->thread < 0 || c->naps < 0 ? -1 : 0;
}

/*
 * quiet_snapshot - a snapshot of each source with the stand-in's counts
 * around them, taken when no interrupt, thread run or kthread sleep came
 * in between (the e1000's watchdog interrupts every 2 s); 0 or -errno
 */
static int quiet_snapshot(struct both *b, struct gl_snapshot **s,
			  struct counts *c)
{
	struct counts after;
	int try, ret;

	for (try = 0; try < 30; try++) {
		usleep(100000);
		if (fake_counts(c))
			return -ENOENT;
		ret = both_snapshot(b, s);
		if (ret)
			return ret;
		usleep(100000);
		if (fake_counts(&after))
			return -ENOENT;
		if (!memcmp(c, &after, sizeof(after)))
			return 0;
		both_free(s);
	}
	return -EAGAIN;
}

/* What one source saw of the stand-in in one load. */
struct nv_seen {
	uint64_t hardirq, wake, run, kwake;
};

/*
 * load_check - what source @src saw from @s0 (before the load) and @s1
 * (the stand-in loaded, its kthread alive) to @s2 (after the traffic),
 * against the stand-in's counts @c1 and @c2
 */
static void load_check(struct __test_metadata *_metadata, const char *src,
		       struct gl_snapshot *s0, struct gl_snapshot *s1,
		       struct gl_snapshot *s2, const struct counts *c1,
		       const struct counts *c2, int irq, int round,
		       uint64_t kkey, struct nv_seen *n)
{
	struct gl_snapshot *d = NULL, *dk = NULL;
	uint64_t no_start, neg, full;
	bool tirq = threadirqs();
	char name[32];

	snprintf(name, sizeof(name), "nvidia/%d", irq);
	EXPECT_TRUE(have_key(s2, name)) TH_LOG("%s: no key %s", src, name);
	EXPECT_TRUE(have_key(s2, "UVM GPU1 BH")) TH_LOG("%s", src);
	ASSERT_EQ(0, gl_snapshot_diff(s0, s2, &d));
	ASSERT_EQ(0, gl_snapshot_diff(s1, s2, &dk));
	n->hardirq = key_count(d, GPULAT_NV_HARDIRQ, NULL);
	n->wake = key_count(d, GPULAT_NV_THREAD_WAKE, NULL);
	n->run = key_count(d, GPULAT_NV_THREAD_RUN, NULL);
	n->kwake = key_count(dk, GPULAT_NV_KTHREAD_WAKE, &kkey);
	no_start = counter(d, GPULAT_NV_NO_START);
	neg = counter(d, GPULAT_NV_NEGATIVE);
	full = counter(d, GPULAT_NV_KEYS_FULL);
	TH_LOG("%s: load %d, %s, irq %d: hard %lld thread %lld | nvidia.hardirq %llu thread.wake %llu thread.run %llu | kthread naps %lld kthread.wake %llu | no_start %llu negative %llu keys_full %llu",
	       src, round, tirq ? "threadirqs" : "hardirq", irq, c2->hard,
	       c2->thread, (unsigned long long)n->hardirq,
	       (unsigned long long)n->wake, (unsigned long long)n->run,
	       c2->naps - c1->naps, (unsigned long long)n->kwake,
	       (unsigned long long)no_start, (unsigned long long)neg,
	       (unsigned long long)full);

	/* every call of the handler (of the stub, threaded) is one sample */
	EXPECT_EQ((uint64_t)c2->hard, n->hardirq) TH_LOG("%s", src);
	/*
	 * Each wakeup of a thread follows a hard IRQ that asked for it (and,
	 * threaded, a run of irq/N-nvidia that woke irq/N-s-nvidia); each
	 * ends in a switch-in that a switch-out follows.  Threaded, both
	 * threads count: more wakeups than interrupts.
	 */
	EXPECT_LE(1, n->wake) TH_LOG("%s", src);
	EXPECT_LE(n->wake, (uint64_t)c2->thread +
		  (tirq ? (uint64_t)c2->hard : 0)) TH_LOG("%s", src);
	EXPECT_LE(n->wake, n->run) TH_LOG("%s", src);
	if (tirq)
		EXPECT_LT(n->hardirq, n->wake) TH_LOG("%s", src);
	/* every sleep of the kthread is one wakeup, bar a racing wakeup */
	EXPECT_LE(1, n->kwake) TH_LOG("%s", src);
	EXPECT_LE(n->kwake, (uint64_t)(c2->naps - c1->naps)) TH_LOG("%s", src);
	EXPECT_LE((uint64_t)(c2->naps - c1->naps) * 9 / 10, n->kwake)
		TH_LOG("%s", src);
	EXPECT_EQ(0, no_start) TH_LOG("%s", src);
	EXPECT_EQ(0, neg) TH_LOG("%s", src);
	EXPECT_EQ(0, full) TH_LOG("%s", src);
	gl_snapshot_free(d);
	gl_snapshot_free(dk);
}

static uint64_t apart(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * one_load - load the stand-in on @irq, make interrupts, check what each
 * source saw against what the stand-in counted, unload it.  Every
 * interrupt of the line runs the stand-in's handler; only its handler
 * and threads are ours, so the family's IRQ series summed over keys hold
 * exactly its samples.
 */
static void one_load(struct __test_metadata *_metadata, struct both *b,
		     int irq, int round)
{
	struct gl_snapshot *s0[BOTH_MAX] = { NULL }, *s1[BOTH_MAX] = { NULL };
	struct gl_snapshot *s2[BOTH_MAX] = { NULL };
	struct nv_seen seen[BOTH_MAX];
	bool tirq = threadirqs();
	struct counts c1, c2;
	unsigned int i;
	char name[32];
	uint64_t kkey;

	ASSERT_EQ(0, both_snapshot(b, s0));
	for (i = 0; i < b->nr; i++)
		ASSERT_TRUE(family_attached(s0[i])) TH_LOG("%s", both_name[i]);
	ASSERT_EQ(0, sh("insmod " MODDIR "/" FAKE_NV ".ko irq=%d", irq));
	kkey = (uint32_t)read_param(FAKE_NV, "bh_pid");

	/* the kthread is followed from its creation (fork or rename) */
	EXPECT_EQ(0, quiet_snapshot(b, s1, &c1));
	traffic();
	EXPECT_EQ(0, quiet_snapshot(b, s2, &c2));

	snprintf(name, sizeof(name), "irq/%d-nvidia", irq);
	EXPECT_TRUE(have_task(name)) TH_LOG("no %s", name);
	snprintf(name, sizeof(name), "irq/%d-s-nvidia", irq);
	EXPECT_EQ(tirq, have_task(name)) TH_LOG("%s %s", name,
						 tirq ? "missing" : "present");
	/* the traffic interrupted: enough samples for the bounds to bite */
	EXPECT_LE(100, c2.hard);

	ASSERT_TRUE(s1[0] && s2[0]);
	for (i = 0; i < b->nr; i++)
		load_check(_metadata, both_name[i], s0[i], s1[i], s2[i], &c1,
			   &c2, irq, round, kkey, &seen[i]);
	/*
	 * Both sources saw one window whose ends no interrupt, thread run or
	 * kthread sleep came between: the same counts.
	 */
	if (b->nr == BOTH_MAX) {
		EXPECT_EQ(seen[BOTH_KMOD].hardirq, seen[BOTH_BPF].hardirq);
		EXPECT_EQ(seen[BOTH_KMOD].wake, seen[BOTH_BPF].wake);
		EXPECT_EQ(seen[BOTH_KMOD].run, seen[BOTH_BPF].run);
		EXPECT_GE(1, apart(seen[BOTH_KMOD].kwake, seen[BOTH_BPF].kwake));
	}

	EXPECT_EQ(0, sh("rmmod " FAKE_NV));
	EXPECT_FALSE(have_task("UVM GPU1 BH"));
	both_free(s0);
	both_free(s1);
	both_free(s2);
}

/*
 * The driver requests its IRQs when a client opens the GPU and frees them
 * when the last one closes: the second load has new threads (and a new
 * kthread) that must be followed as the first ones were.
 */
TEST(hardirq_threads_kthread_known_counts)
{
	struct both b;
	int irq;

	irq = eth_irq();
	if (irq < 0)
		SKIP(return, "no eth0 in /proc/interrupts (needs vmrun --net)");
	if (access(MODDIR "/" FAKE_NV ".ko", R_OK))
		SKIP(return, "no %s.ko", FAKE_NV);
	/* switched on by hand: the BPF source holds it back with no driver */
	ASSERT_EQ(0, both_open(&b, GPULAT_FAM_NVIDIA)) TH_LOG("%s", b.why);
	EXPECT_EQ(BOTH_MAX, b.nr) TH_LOG("%s", b.why);
	ASSERT_EQ(0, sh("udhcpc -i eth0 -n -q -t 20 -T 1 >/dev/null 2>&1"));
	one_load(_metadata, &b, irq, 1);
	one_load(_metadata, &b, irq, 2);
	both_close(&b);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int fire(unsigned int code, const char *pci)
{
	return sh("echo '%u %s' > /sys/module/" FAKE_XID "/parameters/fire",
		  code, pci);
}

/* last_events - the snapshot's last @n events into @out; 0 or -ENOENT */
static int last_events(const struct gl_snapshot *s, size_t n,
		       const struct gpulat_event **out)
{
	size_t nr = gl_snapshot_nr_events(s), i;

	if (nr < n)
		return -ENOENT;
	for (i = 0; i < n; i++)
		out[i] = gl_snapshot_event(s, nr - n + i);
	return 0;
}

TEST(xid_events_in_order)
{
	static const struct { unsigned int code; const char *pci; } xids[] = {
		{ 79, "0000:3b:00.0" }, { 48, "0000:3b:00.0" },
		{ 13, "0000:86:00.0" },
	};
	const struct gpulat_event *ev[3];
	struct gl_snapshot *s = NULL;
	uint64_t t0, t1, lost0, lost, seen0;
	char err[256];
	unsigned int i;
	int fd;

	if (access(MODDIR "/" FAKE_XID ".ko", R_OK))
		SKIP(return, "no %s.ko", FAKE_XID);
	fd = gl_open(err, sizeof(err));
	ASSERT_LE(0, fd) TH_LOG("%s", err);
	ASSERT_EQ(0, gl_snapshot_take(fd, &s));
	seen0 = gl_snapshot_nr_events(s);
	lost0 = counter(s, GPULAT_NV_XID_LOST);
	gl_snapshot_free(s);

	/* the driver loads after gpulat */
	ASSERT_EQ(0, sh("insmod " MODDIR "/" FAKE_XID ".ko"));
	t0 = now_ns();
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, fire(xids[i].code, xids[i].pci));
	t1 = now_ns();
	ASSERT_EQ(0, gl_snapshot_take(fd, &s));
	ASSERT_EQ(0, last_events(s, 3, ev));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(GPULAT_EVENT_XID, ev[i]->type);
		EXPECT_EQ(xids[i].code, ev[i]->code);
		EXPECT_STREQ(xids[i].pci, ev[i]->device);
		EXPECT_LE(t0, ev[i]->time_ns);
		EXPECT_GE(t1, ev[i]->time_ns);
		if (i)
			EXPECT_LE(ev[i - 1]->time_ns, ev[i]->time_ns);
	}
	EXPECT_EQ(seen0 + 3, gl_snapshot_nr_events(s));
	gl_snapshot_free(s);

	/* overflow the ring: it keeps the last XID_RING and counts the rest */
	for (i = 0; i < XID_RING; i++)
		fire(1000 + i, "0000:3b:00.0");
	ASSERT_EQ(0, gl_snapshot_take(fd, &s));
	lost = counter(s, GPULAT_NV_XID_LOST) - lost0;
	EXPECT_EQ(XID_RING, gl_snapshot_nr_events(s));
	EXPECT_EQ(seen0 + 3, lost);
	ASSERT_EQ(0, last_events(s, 1, ev));
	EXPECT_EQ(1000 + XID_RING - 1, ev[0]->code);
	gl_snapshot_free(s);

	/* the driver goes and comes back: detached, then attached again */
	EXPECT_EQ(0, sh("rmmod " FAKE_XID));
	ASSERT_EQ(0, sh("insmod " MODDIR "/" FAKE_XID ".ko"));
	EXPECT_EQ(0, fire(31, "0000:86:00.0"));
	ASSERT_EQ(0, gl_snapshot_take(fd, &s));
	ASSERT_EQ(0, last_events(s, 1, ev));
	EXPECT_EQ(31, ev[0]->code);
	EXPECT_STREQ("0000:86:00.0", ev[0]->device);
	gl_snapshot_free(s);
	EXPECT_EQ(0, sh("rmmod " FAKE_XID));
	close(fd);
}

VMTEST_HARNESS_MAIN
