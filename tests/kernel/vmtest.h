/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers the in-VM tests share (static: each test is one program). */
#ifndef _GPULAT_VMTEST_H
#define _GPULAT_VMTEST_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/gpulat_user.h"

/* pin_self - run on @cpu only; a child that cannot exits with 90 */
static inline void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(90);
}

/* write_str - write @val to the file @path (sysfs, configfs); 0 or -errno */
static inline int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n != (ssize_t)strlen(val))
		ret = n < 0 ? -errno : -EIO;
	close(fd);
	return ret;
}

/*
 * needs_family - skip the whole test program, with the reason gpulat
 * status gives, when family @fam cannot run on this kernel: the module
 * has no probes for it, or its tracepoints are missing.  A family that
 * failed to attach is a bug, not a skip: the test then fails on its own.
 */
static inline void needs_family(uint32_t fam)
{
	char err[128], why[384] = "";
	const struct gpulat_probe *p;
	struct gl_snapshot *s;
	size_t i, nr = 0, off = 0;
	bool attached = false;
	int fd;

	fd = gl_open(err, sizeof(err));
	if (fd < 0)
		return;
	if (gl_snapshot_take(fd, &s)) {
		close(fd);
		return;
	}
	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		p = gl_snapshot_probe(s, i);
		if (p->family != fam)
			continue;
		nr++;
		attached |= p->state == GPULAT_PROBE_ATTACHED;
		if (p->state == GPULAT_PROBE_MISSING && off < sizeof(why))
			off += snprintf(why + off, sizeof(why) - off, "%s%.*s",
					off ? ", " : "",
					(int)sizeof(p->tracepoint), p->tracepoint);
	}
	gl_snapshot_free(s);
	close(fd);
	if (nr && (attached || !off))
		return;
	/* KTAP's plan for a program that skips as a whole */
	printf("1..0 # SKIP family %s: %s%s\n", gl_family_name(fam),
	       nr ? "tracepoints missing on this kernel: " :
		    "no probes for it in this module", why);
	exit(4);		/* KSFT_SKIP */
}

/* NEEDS_FAMILY - needs_family() before any test of the program runs */
#define NEEDS_FAMILY(fam)						\
	static void __attribute__((constructor)) needs_##fam(void)	\
	{ needs_family(fam); }


/*
 * vm_spawn - a child on @cpu named @comm at @nice that sleeps @sleep_us in a
 * loop (0: spins); vm_stop() kills and reaps it
 */
static inline pid_t vm_spawn(int cpu, const char *comm, int nice, long sleep_us)
{
	pid_t pid = fork();

	if (!pid) {
		struct timespec ts = { 0, sleep_us * 1000L };

		pin_self(cpu);
		prctl(PR_SET_NAME, comm);
		if (nice && setpriority(PRIO_PROCESS, 0, nice))
			_exit(91);
		for (;;)
			if (sleep_us)
				nanosleep(&ts, NULL);
	}
	return pid;
}

static inline void vm_stop(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/*
 * VMTEST_HARNESS_MAIN - TEST_HARNESS_MAIN whose per-test limits (the
 * harness's alarm, 30 s unless TEST_F_TIMEOUT) are scaled like run.sh's by
 * GPULAT_TIMEOUT_SCALE, so that a slower kernel (KASAN, lockdep) times a
 * test out only where run.sh would.
 */
static inline void vmtest_scale_timeouts(void)
{
	const char *env = getenv("GPULAT_TIMEOUT_SCALE");
	struct __fixture_metadata *f;
	struct __test_metadata *t;
	double k = env ? strtod(env, NULL) : 1;

	if (!(k > 1) || k > 100)
		return;
	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next)
			t->timeout = (int)(t->timeout * k + 0.5);
}

#define VMTEST_HARNESS_MAIN \
	static void __attribute__((constructor)) \
	__constructor_order_last(void) \
	{ \
		if (!__constructor_order) \
			__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD; \
	} \
	int main(int argc, char **argv) \
	{ \
		vmtest_scale_timeouts(); \
		return test_harness_run(argc, argv); \
	}

#endif /* _GPULAT_VMTEST_H */
