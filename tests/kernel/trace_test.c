// SPDX-License-Identifier: GPL-2.0
/*
 * The outlier trace, in the VM, against workloads with a known answer.
 *
 * A hog named "gl_hog" spins on CPU 1 and a nice-19 sleeper "gl_victim"
 * wakes there every 2 ms: each wakeup waits for the hog's slice, so the
 * victim's run-queue waits pass a 1 ms threshold, and the trace must name
 * the hog (comm and pid) as the task that held the CPU.  Other tests: the
 * thresholds' ioctl and parameters, poll() waking a reader in time, hard
 * IRQ time on the victim's CPU when the NIC's interrupts go there, ring
 * overflow counted, Xids on the same timeline, and the CLI.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "gpulat_hold.h"
#include "lib/gpulat_user.h"
#include "shell.h"
#include "vmtest.h"

#define VICTIM_CPU	1
#define SLEEP_US	2000
#define MODDIR		"/gpulat/modules"
#define FAKE_XID	"gpulat_fake_xid"
#define NIC		"eth0"
#define HOST		"10.0.2.2"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int set_threshold(int fd, uint32_t family, uint64_t ns)
{
	return gl_threshold(fd, family, true, &ns);
}

/* open_reader - a device file made a trace reader (its first poll) */
static int open_reader(void)
{
	char err[256];
	struct pollfd p;
	int fd = gl_open(err, sizeof(err));

	if (fd < 0)
		return fd;
	p.fd = fd;
	p.events = POLLIN;
	poll(&p, 1, 0);
	return fd;
}

struct recs {
	struct gl_trace_rec r[4096];
	size_t n;
	uint64_t lost;
	uint64_t delay_max;	/* poll return - record time, largest */
};

/*
 * collect - read records for @ms milliseconds as poll() hands them over;
 * the delay from a record's end event to its arrival is measured
 */
static void collect(int fd, int ms, struct recs *out)
{
	static unsigned char buf[GL_TRACE_BUF];
	uint64_t end = now_ns() + ms * 1000000ULL, t;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct gl_trace_rec r;
	size_t off;
	ssize_t n;

	while ((t = now_ns()) < end) {
		if (poll(&p, 1, (end - t) / 1000000 + 1) != 1)
			continue;
		t = now_ns();
		n = gl_trace_read(fd, buf, sizeof(buf));
		if (n <= 0)
			continue;
		for (off = 0; gl_trace_parse(buf, n, &off, &r) > 0;) {
			if (r.type == GPULAT_REC_LOST)
				out->lost += r.u.lost.lost;
			if (r.type == GPULAT_REC_SAMPLE &&
			    t - r.time_ns > out->delay_max && t > r.time_ns)
				out->delay_max = t - r.time_ns;
			if (out->n < sizeof(out->r) / sizeof(out->r[0]))
				out->r[out->n++] = r;
		}
	}
}

static struct recs recs;

/* victim_records - how many sample records of @out are @pid's */
static size_t victim_records(const struct recs *out, pid_t pid)
{
	size_t i, n = 0;

	for (i = 0; i < out->n; i++)
		n += out->r[i].type == GPULAT_REC_SAMPLE &&
		     out->r[i].u.sample.pid == pid;
	return n;
}

/*
 * collect_for - collect() for @ms, then on in steps of 500 ms until @pid
 * has @want records or @max_ms have passed: a guest slowed by a busy host
 * wakes its sleeper less often in the same time, not differently.
 */
static void collect_for(int fd, int ms, int max_ms, pid_t pid, size_t want,
			struct recs *out)
{
	collect(fd, ms, out);
	for (; ms < max_ms && victim_records(out, pid) < want; ms += 500)
		collect(fd, 500, out);
}

TEST(threshold_ioctl_and_parameter)
{
	char err[256], buf[64];
	uint64_t ns = 0, was;
	FILE *f;
	int fd;

	fd = gl_open(err, sizeof(err));
	ASSERT_LE(0, fd) TH_LOG("%s", err);
	ASSERT_EQ(0, gl_threshold(fd, GPULAT_FAM_SCHED, false, &was));
	EXPECT_EQ(5000000ULL, was);	/* the default */
	ns = 2500000;
	ASSERT_EQ(0, gl_threshold(fd, GPULAT_FAM_SCHED, true, &ns));
	EXPECT_EQ(2500000ULL, ns);
	/* the parameter shows what the ioctl set, in microseconds */
	f = fopen("/sys/module/gpulat/parameters/sched_threshold_us", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	EXPECT_EQ(2500, atoi(buf));
	/* and the other way round */
	ASSERT_EQ(0, sh("echo 7000 > /sys/module/gpulat/parameters/sched_threshold_us"));
	ASSERT_EQ(0, gl_threshold(fd, GPULAT_FAM_SCHED, false, &ns));
	EXPECT_EQ(7000000ULL, ns);
	EXPECT_EQ(-ENOENT, gl_threshold(fd, 0, false, &ns));
	EXPECT_EQ(-ENOENT, gl_threshold(fd, GPULAT_FAM_MAX, false, &ns));
	{
		struct gpulat_threshold_req r = {
			.size = sizeof(r), .flags = 2, .family = 1,
		};

		EXPECT_EQ(-1, ioctl(fd, GPULAT_IOC_THRESHOLD, &r));
		EXPECT_EQ(EINVAL, errno);
		r.flags = 0;
		r.pad = 1;
		EXPECT_EQ(-1, ioctl(fd, GPULAT_IOC_THRESHOLD, &r));
		EXPECT_EQ(EINVAL, errno);
	}
	ASSERT_EQ(0, set_threshold(fd, GPULAT_FAM_SCHED, was));
	close(fd);
}

TEST(read_errors)
{
	unsigned char small[8];
	char err[256];
	int fd, fl;

	fd = open_reader();
	ASSERT_LE(0, fd) TH_LOG("%s", err);
	fl = fcntl(fd, F_GETFL);
	ASSERT_EQ(0, fcntl(fd, F_SETFL, fl | O_NONBLOCK));
	/* nothing over the thresholds on an idle VM within a moment */
	ASSERT_EQ(0, set_threshold(fd, GPULAT_FAM_SCHED, 1000000000ULL));
	while (gl_trace_read(fd, recs.r, sizeof(recs.r)) > 0)
		;
	EXPECT_EQ(-EAGAIN, (int)gl_trace_read(fd, recs.r, sizeof(recs.r)));
	/* a buffer too small for the next record */
	ASSERT_EQ(0, set_threshold(fd, GPULAT_FAM_SCHED, 1));
	usleep(50000);
	EXPECT_EQ(-EINVAL, (int)gl_trace_read(fd, small, sizeof(small)));
	ASSERT_EQ(0, set_threshold(fd, GPULAT_FAM_SCHED, 5000000));
	close(fd);
}

TEST(hog_named_as_culprit)
{
	size_t i, mine = 0, named = 0, irq_flag = 0, softirq_flag = 0;
	uint64_t lat_sum = 0, hog_sum = 0;
	pid_t hog, victim;
	int fd;

	if (sysconf(_SC_NPROCESSORS_ONLN) <= VICTIM_CPU)
		SKIP(return, "needs %d CPUs", VICTIM_CPU + 1);
	pin_self(0);
	fd = open_reader();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_threshold(fd, GPULAT_FAM_SCHED, 1000000));
	hog = vm_spawn(VICTIM_CPU, "gl_hog", 0, 0);
	victim = vm_spawn(VICTIM_CPU, "gl_victim", 19, SLEEP_US);
	memset(&recs, 0, sizeof(recs));
	collect_for(fd, 2000, 8000, victim, 40, &recs);
	vm_stop(victim);
	vm_stop(hog);
	ASSERT_EQ(0, set_threshold(fd, GPULAT_FAM_SCHED, 5000000));

	for (i = 0; i < recs.n; i++) {
		const struct gpulat_rec_sample *s = &recs.r[i].u.sample;

		/* from its name on: pinned and niced by then */
		if (recs.r[i].type != GPULAT_REC_SAMPLE || s->pid != victim ||
		    strcmp(s->comm, "gl_victim"))
			continue;
		mine++;
		EXPECT_EQ(GPULAT_FAM_SCHED, s->family);
		EXPECT_EQ(VICTIM_CPU, (int)recs.r[i].cpu);
		EXPECT_LE(1000000ULL, s->latency_ns);
		EXPECT_TRUE(s->flags & GPULAT_REC_F_CULPRITS);
		irq_flag += !!(s->flags & GPULAT_REC_F_IRQ_TIME);
		softirq_flag += !!(s->flags & GPULAT_REC_F_SOFTIRQ_TIME);
		if (s->nr_culprits && s->culprits[0].pid == hog &&
		    !strcmp(s->culprits[0].comm, "gl_hog")) {
			named++;
			lat_sum += s->latency_ns;
			hog_sum += s->culprits[0].ns;
		}
		/* the parts never add up to more than the wait */
		EXPECT_GE(s->latency_ns, s->culprits[0].ns +
			  s->culprits[1].ns + s->culprits[2].ns);
	}
	TH_LOG("%zu records, %zu of the victim, %zu name gl_hog/%d; hog share %.0f%%; arrival within %.1f ms; lost %llu",
	       recs.n, mine, named, hog, lat_sum ? 100.0 * hog_sum / lat_sum : 0,
	       recs.delay_max / 1e6, (unsigned long long)recs.lost);
	/* 2 s of 2 ms sleeps behind a hog (slices of 10-30 ms here) */
	EXPECT_LE(20, mine);
	/* the hog is the culprit of (nearly) every one */
	EXPECT_LE(mine * 9 / 10, named);
	/* and held the CPU for most of the waits */
	EXPECT_LE(lat_sum / 2, hog_sum);
	/* the irq and softirq families are on by default */
	EXPECT_EQ(mine, irq_flag);
	EXPECT_EQ(mine, softirq_flag);
	/* poll() woke us: each record arrived within 100 ms */
	EXPECT_GT(100000000ULL, recs.delay_max);
	EXPECT_EQ(0, recs.lost);
	close(fd);
}

/*
 * spawn_pingpong - two children on @cpu, "gl_ping" and "gl_pong", that
 * bounce a byte through two pipes: a switch per hop, thousands a second
 */
static void spawn_pingpong(int cpu, pid_t pid[2])
{
	int a[2], b[2], i;
	char c = 0;

	if (pipe(a) || pipe(b)) {
		pid[0] = pid[1] = -1;
		return;
	}
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i])
			continue;
		pin_self(cpu);
		prctl(PR_SET_NAME, i ? "gl_pong" : "gl_ping");
		if (!i && write(a[1], &c, 1) != 1)
			_exit(92);
		for (;;)
			if (read(i ? a[0] : b[0], &c, 1) != 1 ||
			    write(i ? b[1] : a[1], &c, 1) != 1)
				_exit(93);
	}
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}

/*
 * The whole wait: behind a hog and a ping-pong pair (hundreds of switches
 * in one wait, far more than the switch history holds), a nice-19
 * sleeper's waits are credited to the three for at least 90% of their
 * time, and each record reaches back to its wait's start: every wait as
 * far back as the holders' checkpoints surely reach (kmod/gpulat_hold.h:
 * 31 epochs of the coarsest level, 130 ms at this threshold).  A longer
 * one may still be whole (up to 33 epochs, as the switches fell), or be
 * named for what they hold.
 */
TEST(whole_wait_named)
{
	const uint64_t threshold = 1000000,
		       reach = (uint64_t)(GPULAT_HOLD_RING - 1) <<
			       (gpulat_hold_shift(threshold) +
				GPULAT_HOLD_LEVELS - 1);
	uint64_t lat_sum = 0, known = 0, named = 0;
	size_t i, k, mine = 0, partial = 0, beyond = 0;
	pid_t hog, pp[2], victim;
	int fd;

	if (sysconf(_SC_NPROCESSORS_ONLN) <= VICTIM_CPU)
		SKIP(return, "needs %d CPUs", VICTIM_CPU + 1);
	pin_self(0);
	fd = open_reader();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_threshold(fd, GPULAT_FAM_SCHED, threshold));
	hog = vm_spawn(VICTIM_CPU, "gl_hog", 0, 0);
	spawn_pingpong(VICTIM_CPU, pp);
	victim = vm_spawn(VICTIM_CPU, "gl_victim", 19, SLEEP_US);
	memset(&recs, 0, sizeof(recs));
	collect_for(fd, 3000, 10000, victim, 20, &recs);
	vm_stop(victim);
	vm_stop(pp[0]);
	vm_stop(pp[1]);
	vm_stop(hog);
	ASSERT_EQ(0, set_threshold(fd, GPULAT_FAM_SCHED, 5000000));

	for (i = 0; i < recs.n; i++) {
		const struct gpulat_rec_sample *s = &recs.r[i].u.sample;

		if (recs.r[i].type != GPULAT_REC_SAMPLE || s->pid != victim ||
		    strcmp(s->comm, "gl_victim"))
			continue;
		EXPECT_GE(s->latency_ns, s->culprits[0].ns +
			  s->culprits[1].ns + s->culprits[2].ns);
		EXPECT_EQ(s->latency_ns - s->culprits[0].ns -
			  s->culprits[1].ns - s->culprits[2].ns, s->other_ns);
		if (s->latency_ns > reach) {
			beyond++;
			continue;
		}
		mine++;
		lat_sum += s->latency_ns;
		partial += !!(s->flags & GPULAT_REC_F_PARTIAL);
		for (k = 0; k < s->nr_culprits; k++) {
			named += s->culprits[k].ns;
			if (s->culprits[k].pid == hog ||
			    s->culprits[k].pid == pp[0] ||
			    s->culprits[k].pid == pp[1])
				known += s->culprits[k].ns;
		}
	}
	TH_LOG("%zu of the victim's records within reach, %zu partial (%zu beyond); named %.1f%% of %.1f ms, the three %.1f%%",
	       mine, partial, beyond, lat_sum ? 100.0 * named / lat_sum : 0,
	       lat_sum / 1e6, lat_sum ? 100.0 * known / lat_sum : 0);
	EXPECT_LE(10, mine);
	/* the first wait may have begun before the reader opened */
	EXPECT_GE(1, partial);
	/* the hog and the pair held the CPU: named for >= 90% of the waits */
	EXPECT_LE(lat_sum / 10 * 9, known);
	close(fd);
}

/* read_irq - the IRQ number of @name in /proc/interrupts, or -1 */
static int read_irq(const char *name)
{
	char line[512];
	FILE *f = fopen("/proc/interrupts", "r");
	int irq = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, name) && sscanf(line, " %d:", &irq) == 1)
			break;
	fclose(f);
	return irq;
}

TEST(irq_time_on_the_waiting_cpu)
{
	uint64_t irq_ns = 0, max_irq = 0;
	size_t i, with = 0, mine = 0;
	pid_t hog, victim;
	int fd, irq;

	irq = read_irq(NIC);
	if (irq < 0 || sysconf(_SC_NPROCESSORS_ONLN) <= VICTIM_CPU)
		SKIP(return, "needs %s (VM with --net) and %d CPUs", NIC,
		     VICTIM_CPU + 1);
	if (sh("udhcpc -i " NIC " -q -n -t 8 -T 1 >/dev/null 2>&1"))
		SKIP(return, "no DHCP answer on %s", NIC);
	/* the NIC's interrupts land on the victim's CPU */
	ASSERT_EQ(0, sh("echo %d > /proc/irq/%d/smp_affinity_list",
			VICTIM_CPU, irq));
	pin_self(0);
	fd = open_reader();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_threshold(fd, GPULAT_FAM_SCHED, 1000000));
	hog = vm_spawn(VICTIM_CPU, "gl_hog", 0, 0);
	victim = vm_spawn(VICTIM_CPU, "gl_victim", 19, SLEEP_US);
	sh("ping -q -c 3000 -i 0.002 -W 1 " HOST " >/dev/null 2>&1 &");
	memset(&recs, 0, sizeof(recs));
	collect_for(fd, 1500, 6000, victim, 20, &recs);
	vm_stop(victim);
	vm_stop(hog);
	sh("killall ping >/dev/null 2>&1");
	ASSERT_EQ(0, set_threshold(fd, GPULAT_FAM_SCHED, 5000000));
	sh("echo 0-%ld > /proc/irq/%d/smp_affinity_list",
	   sysconf(_SC_NPROCESSORS_ONLN) - 1, irq);

	for (i = 0; i < recs.n; i++) {
		const struct gpulat_rec_sample *s = &recs.r[i].u.sample;

		if (recs.r[i].type != GPULAT_REC_SAMPLE || s->pid != victim)
			continue;
		mine++;
		if (!(s->flags & GPULAT_REC_F_IRQ_TIME))
			continue;
		irq_ns += s->irq_ns;
		with += s->irq_ns > 0;
		if (s->irq_ns > max_irq)
			max_irq = s->irq_ns;
		EXPECT_GT(s->latency_ns, s->irq_ns);
	}
	TH_LOG("%zu victim records, %zu with IRQ time (%.1f us in all, largest %.1f us)",
	       mine, with, irq_ns / 1e3, max_irq / 1e3);
	EXPECT_LE(20, mine);
	/* pings every 2 ms, waits of several ms: most waits saw the NIC */
	EXPECT_LE(mine / 4, with);
	close(fd);
}

static uint64_t sched_samples(int fd)
{
	struct gl_snapshot *s = NULL;
	struct gl_hist h;
	uint64_t n = 0;

	if (gl_snapshot_take(fd, &s))
		return 0;
	if (gl_hist_merge(s, GPULAT_FAM_SCHED, GPULAT_SCHED_WAKEUP,
			  GPULAT_CPU_NONE, &h) > 0)
		n += h.count;
	if (gl_hist_merge(s, GPULAT_FAM_SCHED, GPULAT_SCHED_PREEMPT,
			  GPULAT_CPU_NONE, &h) > 0)
		n += h.count;
	gl_snapshot_free(s);
	return n;
}

/* trace_self_left - records the trace left out as its own (debugfs) */
static uint64_t trace_self_left(void)
{
	static const char key[] = "records about the trace's own readers, left out ";
	unsigned long long v = 0;
	char line[256];
	FILE *f = fopen("/sys/kernel/debug/gpulat/trace", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, sizeof(key) - 1))
			v = strtoull(line + sizeof(key) - 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/*
 * Every sched sample is an outlier and nobody reads for half a second:
 * the rings overflow, and what was read, plus what is reported lost,
 * plus the records about the reader itself that the trace leaves out, is
 * every sample filed meanwhile.  The gate closes before the reading, so
 * that no new record comes in while the rings are drained.
 */
TEST(ring_overflow_counted)
{
	uint64_t got = 0, before, after, ns = 1, self0, self;
	char err[256];
	size_t i;
	pid_t a, b;
	int ctl, fd;

	ctl = gl_open(err, sizeof(err));
	ASSERT_LE(0, ctl) TH_LOG("%s", err);
	ASSERT_EQ(0, gl_threshold(ctl, GPULAT_FAM_SCHED, true, &ns));
	before = sched_samples(ctl);
	self0 = trace_self_left();
	fd = open_reader();	/* opens the gate: every sample from here */
	ASSERT_LE(0, fd);
	a = vm_spawn(0, "gl_sleeper", 0, 100);
	b = vm_spawn(VICTIM_CPU % sysconf(_SC_NPROCESSORS_ONLN), "gl_sleeper", 0,
		  100);
	usleep(500000);
	vm_stop(a);
	vm_stop(b);
	/* the gate closes: no record from here */
	ASSERT_EQ(0, set_threshold(ctl, GPULAT_FAM_SCHED, 5000000));
	after = sched_samples(ctl);
	self = trace_self_left() - self0;
	close(ctl);
	memset(&recs, 0, sizeof(recs));
	collect(fd, 100, &recs);
	for (i = 0; i < recs.n; i++)
		got += recs.r[i].type == GPULAT_REC_SAMPLE;
	TH_LOG("%llu samples filed; read %llu records, %llu reported lost, %llu about the reader left out",
	       (unsigned long long)(after - before), (unsigned long long)got,
	       (unsigned long long)recs.lost, (unsigned long long)self);
	/* a ring of 32 per CPU (trace_ring), thousands of switches */
	EXPECT_LT(100, recs.lost);
	EXPECT_GE(32 * sysconf(_SC_NPROCESSORS_ONLN) + 64, (long)got);
	/*
	 * read + lost + left out = filed, but for the samples between the
	 * snapshots and the reader's start or the gate's closing (a few
	 * switches each way)
	 */
	EXPECT_GE(after - before + 50, got + recs.lost + self);
	EXPECT_LE(after - before, got + recs.lost + self + 50);
	close(fd);
}

TEST(xid_on_the_timeline)
{
	size_t i, found = 0;
	uint64_t t0;
	int fd;

	if (access(MODDIR "/" FAKE_XID ".ko", R_OK))
		SKIP(return, "no %s.ko", FAKE_XID);
	fd = open_reader();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, sh("insmod " MODDIR "/" FAKE_XID ".ko"));
	t0 = now_ns();
	ASSERT_EQ(0, sh("echo '79 0000:3b:00.0' > /sys/module/" FAKE_XID
			"/parameters/fire"));
	ASSERT_EQ(0, sh("echo '119 0000:86:00.0' > /sys/module/" FAKE_XID
			"/parameters/fire"));
	memset(&recs, 0, sizeof(recs));
	collect(fd, 300, &recs);
	EXPECT_EQ(0, sh("rmmod " FAKE_XID));
	for (i = 0; i < recs.n; i++) {
		const struct gpulat_event *e = &recs.r[i].u.event.event;

		if (recs.r[i].type != GPULAT_REC_EVENT)
			continue;
		EXPECT_EQ(GPULAT_EVENT_XID, e->type);
		EXPECT_LE(t0, recs.r[i].time_ns);
		if (found == 0) {
			EXPECT_EQ(79, e->code);
			EXPECT_STREQ("0000:3b:00.0", e->device);
		} else if (found == 1) {
			EXPECT_EQ(119, e->code);
			EXPECT_STREQ("0000:86:00.0", e->device);
		}
		found++;
	}
	EXPECT_EQ(2, found);
	close(fd);
}

/* The command line tool: JSON lines that name the hog. */
TEST(cli_trace_json)
{
	char line[2048], hogpid[32];
	size_t lines = 0, named = 0;
	pid_t hog, victim;
	FILE *p;

	if (sysconf(_SC_NPROCESSORS_ONLN) <= VICTIM_CPU)
		SKIP(return, "needs %d CPUs", VICTIM_CPU + 1);
	pin_self(0);
	hog = vm_spawn(VICTIM_CPU, "gl_hog", 0, 0);
	victim = vm_spawn(VICTIM_CPU, "gl_victim", 19, SLEEP_US);
	/* 8 s: 20 named records even where a busy host slows the guest */
	p = popen("/gpulat/bin/gpulat trace -j -t sched=1ms -d 8", "r");
	ASSERT_NE(NULL, p);
	snprintf(hogpid, sizeof(hogpid), "\"pid\":%d,", hog);
	while (fgets(line, sizeof(line), p)) {
		lines++;
		EXPECT_EQ('{', line[0]);
		if (strstr(line, "\"comm\":\"gl_victim\"") &&
		    strstr(line, "\"culprits\":[{") && strstr(line, hogpid) &&
		    strstr(line, "\"comm\":\"gl_hog\""))
			named++;
	}
	EXPECT_EQ(0, pclose(p));
	vm_stop(victim);
	vm_stop(hog);
	TH_LOG("%zu lines, %zu name the hog", lines, named);
	EXPECT_LE(20, named);
}

VMTEST_HARNESS_MAIN
