// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat drill cpu: a victim that sleeps 1 ms in a loop at nice 19 and a
 * busy hog at nice 0, both pinned on one CPU, for the duration.  The
 * victim's wakeups wait behind the hog: sched outliers naming the hog.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "engine/drill/drill.h"
#include "lib/cpuset.h"

struct drill_cpu {
	unsigned int cpu;
};

static struct drill_cpu drill_cpu_state;

/* drill_cpu_usable - the CPUs this process may run on */
static int drill_cpu_usable(struct cpuset *out)
{
	cpu_set_t set;
	unsigned int c;

	cpuset_clear(out);
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpuset_add(out, c);
	return 0;
}

static int drill_cpu_check(struct drill *d)
{
	struct drill_cpu *dc = &drill_cpu_state;
	char who[96] = "", *end;
	struct cpuset ok;
	unsigned long v;
	int c;

	d->priv = dc;
	if (drill_cpu_usable(&ok) || !cpuset_weight(&ok))
		return drill_set(d, DRILL_SKIP, "cannot read this process's CPUs");
	if (d->target) {
		errno = 0;
		v = strtoul(d->target, &end, 10);
		if (errno || *end || end == d->target || v >= CPUSET_MAX_CPUS ||
		    !cpuset_has(&ok, v))
			return drill_set(d, DRILL_SKIP,
					 "--target %s is not a CPU this process may use",
					 d->target);
		dc->cpu = v;
	} else {
		/* the last CPU that no NVIDIA IRQ thread or kthread uses */
		for (c = CPUSET_MAX_CPUS - 1; c >= 0; c--)
			if (cpuset_has(&ok, c) &&
			    !drill_nvidia_cpu(c, who, sizeof(who)))
				break;
		if (c < 0)
			return drill_set(d, DRILL_SKIP,
					 "refused: every CPU runs a task of the NVIDIA driver (%s); name one with --target and --force",
					 who);
		dc->cpu = c;
	}
	if (!d->force && drill_nvidia_cpu(dc->cpu, who, sizeof(who)))
		return drill_set(d, DRILL_SKIP,
				 "refused: CPU %u runs %s of the NVIDIA driver; pick another --target or add --force",
				 dc->cpu, who);
	snprintf(d->where, sizeof(d->where), "CPU %u", dc->cpu);
	return 0;
}

/* drill_cpu_child - a pinned child at @nice: a 1 ms sleeper or a hog */
static pid_t drill_cpu_child(struct drill *d, bool hog, int nice)
{
	const struct timespec ms = { 0, 1000000 };
	struct drill_cpu *dc = d->priv;
	volatile unsigned long spin = 0;
	pid_t pid;

	pid = drill_fork(d->duration_s, hog ? "gldrill-hog" : "gldrill-victim");
	if (pid)
		return pid;
	if (drill_pin(dc->cpu) || setpriority(PRIO_PROCESS, 0, nice))
		_exit(1);
	for (;;) {
		if (hog)
			spin++;
		else
			nanosleep(&ms, NULL);
	}
}

static int drill_cpu_inject(struct drill *d)
{
	struct drill_cpu *dc = d->priv;
	pid_t victim, hog;

	victim = drill_cpu_child(d, false, 19);
	if (victim < 0)
		return drill_set(d, DRILL_FAIL, "fork: %s", strerror(errno));
	if (!drill_push_child(&d->undo, victim, true,
			      "victim process %d (nice 19, 1 ms sleeps) on CPU %u",
			      victim, dc->cpu))
		return drill_set(d, DRILL_FAIL, "too many things to undo");
	if (drill_journal_child(d, victim, "gldrill-victim"))
		return -1;
	d->inject_ns = drill_now_ns();
	hog = drill_cpu_child(d, true, 0);
	if (hog < 0)
		return drill_set(d, DRILL_FAIL, "fork: %s", strerror(errno));
	if (!drill_push_child(&d->undo, hog, true,
			      "CPU hog process %d (nice 0) on CPU %u", hog,
			      dc->cpu))
		return drill_set(d, DRILL_FAIL, "too many things to undo");
	if (drill_journal_child(d, hog, "gldrill-hog"))
		return -1;
	d->expect.victim_pid = victim;
	d->expect.culprit_pid = hog;
	snprintf(d->fault, sizeof(d->fault),
		 "CPU hog (pid %d, nice 0) pinned on CPU %u with a victim (pid %d, nice 19) sleeping 1 ms in a loop",
		 hog, dc->cpu, victim);
	return 0;
}

const struct drill_ops drill_cpu_ops = {
	.family = GPULAT_FAM_SCHED,
	.layer = DIAG_SCHED,
	.threshold_ns = 1000000,
	.check = drill_cpu_check,
	.inject = drill_cpu_inject,
};
