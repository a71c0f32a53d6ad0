// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: the next steps of every layer (the advice text of the
 * operators' runbook, Documentation/runbook.rst), the notes on what
 * limits the verdict, and why a measured layer is normal.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/diagnose/diagnose_int.h"
#include "lib/units.h"

/* diag_cpus_text - see diagnose_int.h */
const char *diag_cpus_text(char *buf, size_t len, const struct cpuset *cpus)
{
	size_t n = cpuset_weight(cpus), shown = 0, pos;
	uint32_t c;

	if (!n) {
		snprintf(buf, len, "unknown CPUs");
		return buf;
	}
	pos = snprintf(buf, len, n == 1 ? "CPU " : "CPUs ");
	for (c = cpuset_next(cpus, 0); c < CPUSET_MAX_CPUS && pos < len;
	     c = cpuset_next(cpus, c + 1)) {
		if (shown == 4) {
			snprintf(buf + pos, len - pos, " and %zu more",
				 n - shown);
			return buf;
		}
		pos += snprintf(buf + pos, len - pos, "%s%u", shown ? "," : "",
				c);
		shown++;
	}
	return buf;
}

static void diag_note(struct diag_layer_res *L, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void diag_note(struct diag_layer_res *L, const char *fmt, ...)
{
	va_list ap;

	if (L->nr_notes == DIAG_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(L->notes[L->nr_notes++], DIAG_TEXT_LEN, fmt, ap);
	va_end(ap);
}

/* diag_advise - see diagnose_int.h */
void diag_advise(struct diag_layer_res *L, const char *fmt, ...)
{
	va_list ap;

	if (L->nr_advice == DIAG_MAX_ADVICE)
		return;
	va_start(ap, fmt);
	vsnprintf(L->advice[L->nr_advice++], DIAG_TEXT_LEN, fmt, ap);
	va_end(ap);
}

/* diag_culprit_doing - "held CPU 1 in 95% of the outlier waits" */
const char *diag_culprit_doing(char *buf, size_t len,
			       const struct diag_culprit *c)
{
	char cpus[64];

	diag_cpus_text(cpus, sizeof(cpus), &c->cpus);
	if (c->from_trace && c->cpu_share > 0)
		snprintf(buf, len,
			 "held %s in %.0f%% of the outlier waits, used %.0f%% of a CPU",
			 cpus, 100 * c->share, 100 * c->cpu_share);
	else if (c->from_trace)
		snprintf(buf, len, "held %s in %.0f%% of the outlier waits",
			 cpus, 100 * c->share);
	else
		snprintf(buf, len, "used %.0f%% of a CPU on %s",
			 100 * c->share, cpus);
	return buf;
}

/*
 * diag_still_there - whether thread @c->pid of process @pid still runs
 * under the name the culprit had: /proc/PID/task/TID/comm.  A pid that
 * exited may be reused by an unrelated task by now.
 */
static bool diag_still_there(const struct diag_culprit *c, int32_t pid)
{
	char path[PATH_MAX], comm[GPULAT_COMM_LEN + 2], want[GPULAT_COMM_LEN];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/proc/%d/task/%d/comm", diag_root(),
		 (int)pid, (int)c->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return false;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	comm[GPULAT_COMM_LEN - 1] = '\0';
	memcpy(want, c->comm, sizeof(want));
	want[GPULAT_COMM_LEN - 1] = '\0';
	return !strcmp(comm, want);
}

/*
 * diag_is_kthread - whether @pid is a kernel thread (PF_KTHREAD in the
 * flags of /proc/PID/stat): no signal ends one, nothing moves a bound one
 */
bool diag_is_kthread(int32_t pid)
{
	char path[PATH_MAX], buf[1024], *p;
	unsigned long flags;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "%s/proc/%d/stat", diag_root(),
		 (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "pid (comm) state ppid pgrp session tty tpgid flags": comm may
	 * hold spaces and parentheses, so from its last ')' */
	p = strrchr(buf, ')');
	for (i = 0; p && i < 7; i++)
		p = strchr(p + 1, ' ');
	return p && sscanf(p, " %lu", &flags) == 1 &&
	       (flags & 0x00200000);	/* PF_KTHREAD */
}

/* diag_unkillable - a kernel thread, or the pid namespace's init */
static bool diag_unkillable(int32_t pid)
{
	return pid == 1 || diag_is_kthread(pid);
}

/* diag_list_sep - ", " between the items of a list of @n, " and " last */
static const char *diag_list_sep(size_t k, size_t n)
{
	return !k ? "" : k + 1 < n ? ", " : " and ";
}

/*
 * diag_advise_alike - one advice for the top culprits when they are alike
 * (same name, same CPUs, all still there, none a miner): copies of one
 * job, every pid of them in one line.  True when it advised.
 */
static bool diag_advise_alike(struct diag_layer_res *L)
{
	const struct diag_culprit *a = &L->culprits[0];
	char cpus[64], cpus_k[64], comm[GPULAT_COMM_LEN], doing[200];
	char pids[80] = "", shares[64] = "", kill_[80] = "";
	size_t k, j, n, np = 0, ns = 0, nk = 0;

	diag_cpus_text(cpus, sizeof(cpus), &a->cpus);
	for (n = 0; n < L->nr_culprits; n++) {
		const struct diag_culprit *c = &L->culprits[n];

		for (j = 0; j < n; j++)
			if (L->culprits[j].tgid == c->tgid)
				break;
		diag_cpus_text(cpus_k, sizeof(cpus_k), &c->cpus);
		if (j < n || c->tgid <= 0 || c->miner ||
		    c->from_trace != a->from_trace || !diag_cause(c) ||
		    strcmp(c->comm, a->comm) || strcmp(cpus, cpus_k) ||
		    !diag_still_there(c, c->tgid) || diag_unkillable(c->tgid))
			break;
	}
	if (n < 2)
		return false;
	for (k = 0; k < n; k++) {
		const struct diag_culprit *c = &L->culprits[k];

		np += snprintf(pids + np, sizeof(pids) - np, "%s%d",
			       diag_list_sep(k, n), c->tgid);
		ns += snprintf(shares + ns, sizeof(shares) - ns, "%s%.0f%%",
			       diag_list_sep(k, n), 100 * c->share);
		nk += snprintf(kill_ + nk, sizeof(kill_) - nk, " %d", c->tgid);
	}
	if (a->from_trace)
		snprintf(doing, sizeof(doing),
			 "held %s in %s of the outlier waits", cpus, shares);
	else
		snprintf(doing, sizeof(doing), "used %s of a CPU on %s",
			 shares, cpus);
	units_printable(comm, sizeof(comm), a->comm);
	diag_advise(L,
		    "%s (pids %s) %s: if they are runaway, forgotten or unknown jobs, release them (kill%s); if they belong here, move them off the CPUs of the GPU feeder threads (taskset -a -pc LIST PID, or a cpuset), or the feeders away from them.",
		    comm, pids, doing, kill_);
	return true;
}

/* diag_is_culprit - whether @c's process is one of @L's culprits */
static bool diag_is_culprit(const struct diag_layer_res *L,
			    const struct diag_culprit *c)
{
	size_t k;

	for (k = 0; k < L->nr_culprits; k++)
		if (L->culprits[k].pid == c->pid &&
		    L->culprits[k].tgid == c->tgid)
			return true;
	return false;
}

/*
 * diag_advise_miners - first, every process with a cryptominer's name
 * that held a CPU (the trace) or used one (/proc), at any share: all
 * its pids, those still there to release, those gone said so
 */
static void diag_advise_miners(struct diag_layer_res *L)
{
	char live[256] = "", kill_[256] = "", gone[256] = "";
	char comm[GPULAT_COMM_LEN];
	size_t k, nl = 0, nk = 0, ng = 0, nlive = 0;

	for (k = 0; k < L->nr_miners; k++) {
		const struct diag_culprit *c = &L->miners[k];
		int32_t pid = c->tgid > 0 ? c->tgid : c->pid;

		units_printable(comm, sizeof(comm), c->comm);
		if (c->tgid > 0 && diag_still_there(c, pid)) {
			nlive++;
			if (nl < sizeof(live))
				nl += snprintf(live + nl, sizeof(live) - nl,
					       "%s%s (pid %d)", nl ? ", " : "",
					       comm, pid);
			if (nk < sizeof(kill_))
				nk += snprintf(kill_ + nk, sizeof(kill_) - nk,
					       " %d", pid);
		} else if (!diag_is_culprit(L, c) && ng < sizeof(gone)) {
			/* a culprit gone has an advice of its own (below) */
			ng += snprintf(gone + ng, sizeof(gone) - ng,
				       "%s%s (%s %d)", ng ? ", " : "", comm,
				       c->tgid > 0 ? "pid" : "thread", pid);
		}
	}
	if (nlive)
		diag_advise(L,
			    "%s %s the name of a cryptominer and %s CPU time here: release %s now (kill%s; kill -9 if ignored), then treat the host as compromised: find how %s came, block outbound connections, follow the security procedure.%s%s%s",
			    live, nlive == 1 ? "has" : "have",
			    L->miners[0].from_trace ? "took" : "used",
			    nlive == 1 ? "it" : "them", kill_,
			    nlive == 1 ? "it" : "they",
			    ng ? " Gone already: " : "", gone,
			    ng ? "." : "");
	else if (ng)
		diag_advise(L,
			    "%s had the name of a cryptominer and took CPU time here, but exited since: treat the host as compromised and follow the security procedure; do not kill what holds that pid now.",
			    gone);
}

/*
 * diag_advise_culprits - release or move the processes named as culprits;
 * none for one that exited, or whose pid another task holds now; miners
 * are diag_advise_miners()'
 */
static void diag_advise_culprits(struct diag_layer_res *L)
{
	char doing[128], comm[GPULAT_COMM_LEN];
	size_t k;

	diag_advise_miners(L);
	diag_advise_groups(L);
	if (diag_advise_alike(L))
		return;
	for (k = 0; k < L->nr_culprits && k < 2; k++) {
		const struct diag_culprit *c = &L->culprits[k];
		int32_t pid = c->tgid > 0 ? c->tgid : c->pid;

		if (c->nr_procs)
			continue;	/* diag_advise_groups()' */

		/* a live miner is in diag_advise_miners()' advice */
		if (c->miner && c->tgid > 0 && diag_still_there(c, pid))
			continue;

		/* a task with a small part of the waits is not the cause */
		if (!diag_cause(c))
			continue;

		diag_culprit_doing(doing, sizeof(doing), c);
		units_printable(comm, sizeof(comm), c->comm);
		if (c->tgid < 0) {
			diag_advise(L,
				    "%s (thread %d) %s but had exited when the trace named it: nothing to release.%s If it comes back, find it with ps -eLo tid,psr,pcpu,comm --sort=-pcpu | head -30.",
				    comm, c->pid, doing, c->miner ?
				    " It has the name of a cryptominer: treat the host as compromised and follow the security procedure." :
				    "");
			continue;
		}
		if (!diag_still_there(c, pid)) {
			diag_advise(L,
				    "%s (pid %d) %s but has exited or been replaced since (/proc/%d is no longer %s): nothing to release; do not kill that pid.%s",
				    comm, pid, doing, pid, comm, c->miner ?
				    " It had the name of a cryptominer: treat the host as compromised and follow the security procedure." :
				    "");
			continue;
		}
		if (diag_is_kthread(pid))
			diag_advise(L,
				    "%s (pid %d) %s; it is a kernel thread, which no signal ends: find what keeps it busy (cat /proc/%d/stack a few times; perf top -p %d) and act on that, or keep the latency-sensitive threads off its CPUs.",
				    comm, pid, doing, pid, pid);
		else if (pid == 1)
			diag_advise(L,
				    "%s (pid 1) %s; it is the init of this pid namespace, which takes the host or the container down with it: never kill it; find what keeps it busy (perf top -p 1; its logs) and act on that, or keep the latency-sensitive threads off its CPUs.",
				    comm, doing);
		else if (c->miner)
			diag_advise(L,
				    "%s (pid %d) %s and has the name of a cryptominer: release it now (kill %d; kill -9 %d if it ignores that), then treat the host as compromised: find how it came, block its outbound connections, follow the security procedure.",
				    comm, pid, doing, pid, pid);
		else
			diag_advise(L,
				    "%s (pid %d) %s: if it is a runaway, forgotten or unknown job, release it (kill %d); if it belongs here, move it off the CPUs of the GPU feeder threads (taskset -a -pc LIST %d, or a cpuset), or the feeders away from it.",
				    comm, pid, doing, pid, pid);
	}
}

/*
 * diag_advise_contention - when the waits are not alike on every CPU,
 * where they are and who holds those CPUs: "The contention is on CPU 1,
 * not on every CPU: sh (pid 105) and sh (pid 106) hold it."
 */
static void diag_advise_contention(struct diag_result *r)
{
	struct diag_layer_res *L = &r->layer[DIAG_SCHED];
	char cpus[64], who[3 * (GPULAT_COMM_LEN + 32)], comm[GPULAT_COMM_LEN];
	size_t k, n = 0, done = 0, pos = 0;
	bool group = false;

	if (!L->abnormal || r->alike || !r->nr_hot || r->nr_seen < 2)
		return;
	diag_cpus_text(cpus, sizeof(cpus), &r->hot);
	who[0] = '\0';
	for (k = 0; k < L->nr_culprits; k++) {
		const struct diag_culprit *c = &L->culprits[k];

		if (diag_cause(c) && cpuset_meets(&c->cpus, &r->hot))
			n++;
	}
	for (k = 0; k < L->nr_culprits && pos < sizeof(who); k++) {
		const struct diag_culprit *c = &L->culprits[k];

		if (!diag_cause(c) || !cpuset_meets(&c->cpus, &r->hot))
			continue;
		done++;
		group |= c->nr_procs > 0;
		units_printable(comm, sizeof(comm), c->comm);
		if (c->nr_procs)
			pos += snprintf(who + pos, sizeof(who) - pos,
					"%s%u short-lived processes%s%s",
					done == 1 ? "" : done == n ? " and " : ", ",
					c->nr_procs, comm[0] ? " named " : "",
					comm);
		else
			pos += snprintf(who + pos, sizeof(who) - pos,
					"%s%s (%s %d)",
					done == 1 ? "" : done == n ? " and " : ", ",
					comm, c->tgid > 0 ? "pid" : "thread",
					c->tgid > 0 ? c->tgid : c->pid);
	}
	if (n)
		diag_advise(L,
			    "The contention is on %s, not on every CPU: %s %s it. Move %s, or the tasks that wait there, to other CPUs (below).",
			    cpus, who, n == 1 && !group ? "holds" : "hold",
			    n == 1 && !group ? "it" : "them");
	else
		diag_advise(L,
			    "The contention is on %s, not on every CPU: find who holds %s (below) and move it, or the tasks that wait there, to other CPUs.",
			    cpus, r->nr_hot == 1 ? "it" : "them");
}

static void diag_advise_sched(struct diag_result *r)
{
	struct diag_layer_res *L = &r->layer[DIAG_SCHED];
	bool irq = false, preempt = false, wakeup = false;
	char cpus[64];
	size_t k;

	for (k = 0; k < L->nr_top; k++) {
		const struct diag_item *it = diag_top_item(r, DIAG_SCHED, k);

		irq |= it->family != GPULAT_FAM_SCHED;
		preempt |= it->family == GPULAT_FAM_SCHED &&
			   it->id == GPULAT_SCHED_PREEMPT;
		wakeup |= it->family == GPULAT_FAM_SCHED &&
			  it->id == GPULAT_SCHED_WAKEUP;
	}
	/* a miner leads the layer's advice */
	diag_advise_culprits(L);
	diag_advise_contention(r);
	diag_cpus_text(cpus, sizeof(cpus), &r->slow);
	if (r->alike)
		diag_advise(L,
			    "Tasks wait on every CPU alike: more runnable threads than CPUs. Confirm with vmstat 1 (column r against the CPU count) and reduce the parallelism: data-loader num_workers per job times jobs per host, builds or preprocessing on the same host, monitoring agents.");
	if (!L->nr_culprits && r->nr_slow)
		diag_advise(L,
			    "Find who holds %s: ps -eLo tid,psr,pcpu,comm --sort=-pcpu | head -30 (psr is the CPU a thread last ran on), or top -H.",
			    cpus);
	if (irq)
		diag_advise(L,
			    "Interrupt handlers and softirqs take the CPU: look at /proc/interrupts and /proc/softirqs, and move busy IRQs off the CPUs of the GPU feeder threads (echo LIST > /proc/irq/N/smp_affinity_list).");
	if (preempt && !wakeup)
		diag_advise(L,
			    "CPU-bound threads take turns (sched.preempt): separate them; raise the priority (chrt, nice) only of short, known threads, never of a CPU-bound one under a real-time policy.");
	diag_advise(L,
		    "Keep the job's feeder threads and the irq/N-nvidia threads on CPUs of the GPU's NUMA node (/sys/bus/pci/devices/BDF/numa_node) with nothing else there (cpuset, taskset); for hard cases boot with isolcpus= and nohz_full= for those CPUs.");
}

static void diag_advise_driver(struct diag_result *r)
{
	struct diag_layer_res *L = &r->layer[DIAG_DRIVER];
	bool cls_done[DIAG_XID_NR_CLASSES] = { false };
	bool wake = false, hard = false, kwake = false;
	size_t k;

	for (k = 0; k < L->nr_xids; k++) {
		const struct diag_xid_seen *x = &L->xids[k];
		enum diag_xid_class cls;
		char dev[32];

		if (!x->in_window)
			continue;
		diag_xid_meaning(x->code, &cls);
		if (cls_done[cls])
			continue;
		cls_done[cls] = true;
		units_printable(dev, sizeof(dev), x->device);
		switch (cls) {
		case DIAG_XID_STALL:
			diag_advise(L,
				    "Xid %u on %s: the GPU or its link stalls. Check the driver and its Xids (dmesg | grep -i NVRM; nvidia-smi -q), the PCIe link (lspci -vv -s %s: LnkSta against LnkCap, AER errors); if the GPU stays wedged, reload the driver (modprobe -r nvidia; modprobe nvidia) and check the driver against the CUDA version (nvcc --version).",
				    x->code, dev, dev);
			break;
		case DIAG_XID_RESET:
			diag_advise(L,
				    "Xid %u on %s: the GPU needs a reset. Drain its jobs, reset it (nvidia-smi -r -i %s) or reboot, and send the vendor a bundle (gpulat report).",
				    x->code, dev, dev);
			break;
		case DIAG_XID_PROCESS:
			diag_advise(L,
				    "Xid %u on %s: an application faulted on the GPU and the driver's recovery stalls it. Find the process in the NVRM Xid line (dmesg | grep -i xid), and release or restart it (nvidia-smi | grep python; kill PID).",
				    x->code, dev);
			break;
		default:
			diag_advise(L,
				    "Xid %u on %s: look it up in NVIDIA's Xid catalog; dmesg | grep -i NVRM has the driver's message.",
				    x->code, dev);
		}
	}
	for (k = 0; k < L->nr_top; k++) {
		const struct diag_item *it = diag_top_item(r, DIAG_DRIVER, k);

		if (!it->over)
			continue;
		wake |= it->family == GPULAT_FAM_NVIDIA &&
			it->id == GPULAT_NV_THREAD_WAKE;
		kwake |= it->family == GPULAT_FAM_NVIDIA &&
			 it->id == GPULAT_NV_KTHREAD_WAKE;
		hard |= it->family == GPULAT_FAM_IRQ ||
			(it->family == GPULAT_FAM_NVIDIA &&
			 (it->id == GPULAT_NV_HARDIRQ ||
			  it->id == GPULAT_NV_THREAD_RUN));
	}
	diag_advise_culprits(L);
	if (wake)
		diag_advise(L,
			    "The irq/N-nvidia threads wait for a CPU: move the NVIDIA IRQs to quiet CPUs of the GPU's NUMA node (grep nvidia /proc/interrupts; echo LIST > /proc/irq/N/smp_affinity_list), stop irqbalance from moving them back, and enable persistence mode first (nvidia-smi -pm 1) so that the IRQ numbers stay.");
	if (kwake)
		diag_advise(L,
			    "The driver's kthreads (nvidia, nv_queue, UVM GPU BH) wait for a CPU: keep other work off the CPUs of the GPU's NUMA node (cpuset; isolcpus= for hard cases).");
	if (hard)
		diag_advise(L,
			    "The driver's interrupt handling itself is slow: look for monitoring that polls the GPU (nvidia-smi or DCGM in a loop; gpulat's own NVML sampling too: run again with --gpu-interval 0 to tell), GSP timeouts (dmesg | grep -i NVRM), and check the driver version against the CUDA version.");
	if (L->abnormal)
		diag_advise(L,
			    "Check the driver and its Xids: dmesg | grep -i NVRM; nvidia-smi -q -d UTILIZATION,MEMORY.");
}

static void diag_advise_network(struct diag_result *r)
{
	struct diag_layer_res *L = &r->layer[DIAG_NETWORK];
	const char *dev = NULL;
	bool softirq = false, tx = false;
	size_t k;

	for (k = 0; k < L->nr_top; k++) {
		const struct diag_item *it = diag_top_item(r, DIAG_NETWORK, k);

		if (it->family == GPULAT_FAM_NET && !dev && it->key_name[0])
			dev = it->key_name;
		tx |= it->family == GPULAT_FAM_NET && it->id == GPULAT_NET_TX;
		softirq |= it->family == GPULAT_FAM_SOFTIRQ;
	}
	if (!dev)
		dev = "eth0";
	diag_advise(L,
		    "Check the link and the NIC: ethtool %s (speed, duplex), ethtool -S %s (drops, errors), the switch port; ping -c 10 the peer.",
		    dev, dev);
	if (tx)
		diag_advise(L,
			    "Packets wait to reach the driver: the device's queue is full or shaped (tc -s qdisc show dev %s); give the training traffic priority over bulk transfers.",
			    dev);
	if (softirq)
		diag_advise(L,
			    "The network softirqs wait or run long: spread the NIC's queue IRQs over CPUs away from the GPU feeder threads (/proc/irq/N/smp_affinity_list), and keep those CPUs free of CPU hogs so that ksoftirqd gets to run.");
	diag_advise(L,
		    "For multi-GPU training, check NCCL's transport and its errors (NCCL_DEBUG=INFO) and the fabric (InfiniBand or RoCE port counters).");
}

/*
 * diag_advise_io_users - who moved most of the I/O, with the pids still
 * there under their name (a kernel thread's is not to be killed)
 */
static void diag_advise_io_users(struct diag_layer_res *L)
{
	char who[3 * (GPULAT_COMM_LEN + 40)], pids[64], comm[GPULAT_COMM_LEN];
	struct diag_culprit c;
	size_t k, nw = 0, np = 0;
	double share = 0;

	who[0] = pids[0] = '\0';
	for (k = 0; k < L->nr_io; k++) {
		const struct diag_io_user *u = &L->io[k];

		memset(&c, 0, sizeof(c));
		c.pid = c.tgid = u->pid;
		memcpy(c.comm, u->comm, sizeof(c.comm));
		units_printable(comm, sizeof(comm), u->comm);
		share += u->share;
		nw += snprintf(who + nw, sizeof(who) - nw, "%s%s (pid %d, %.0f%%)",
			       diag_list_sep(k, L->nr_io), comm, u->pid,
			       100 * u->share);
		if (nw >= sizeof(who))
			nw = sizeof(who) - 1;
		if (diag_still_there(&c, u->pid) && !diag_unkillable(u->pid)) {
			np += snprintf(pids + np, sizeof(pids) - np, " %d",
				       u->pid);
			if (np >= sizeof(pids))
				np = sizeof(pids) - 1;
		}
	}
	if (!L->nr_io)
		return;
	if (np)
		diag_advise(L,
			    "%s moved %.0f%% of the storage I/O in the watch: if that is not the job's own loading (a backup, a copy, a scan), stop %s (kill%s) or move %s to another disk.",
			    who, 100 * share, L->nr_io > 1 ? "them" : "it", pids,
			    L->nr_io > 1 ? "them" : "it");
	else
		diag_advise(L,
			    "%s moved %.0f%% of the storage I/O in the watch, and %s gone since: look for what started %s (a backup, a copy, a scan) before it returns.",
			    who, 100 * share, L->nr_io > 1 ? "are" : "is",
			    L->nr_io > 1 ? "them" : "it");
}

static void diag_advise_storage(struct diag_result *r)
{
	struct diag_layer_res *L = &r->layer[DIAG_STORAGE];
	const struct diag_item *it = diag_top_item(r, DIAG_STORAGE, 0);
	double queued = 0, device = 0;
	char p99[UNITS_LEN];
	bool queue;
	size_t k;

	/* queue advice only where the time in the queue is most of it */
	for (k = 0; k < L->nr_top; k++) {
		const struct diag_item *t = diag_top_item(r, DIAG_STORAGE, k);

		if (t->family != GPULAT_FAM_BLOCK)
			continue;
		if (t->id % 2 == GPULAT_BLOCK_QUEUE)
			queued += t->excess;
		else
			device += t->excess;
	}
	queue = queued > device;
	if (it && it->key_name[0])
		diag_advise(L,
			    "Disk %s: %s p99 %s. Check it: iostat -x 1 10 (r_await, w_await, %%util), its health (smartctl -a /dev/%s, or nvme smart-log for NVMe).",
			    it->key_name, it->name,
			    units_ns(p99, sizeof(p99), it->p99), it->key_name);
	else
		diag_advise(L,
			    "Check the disks: iostat -x 1 10 (r_await, w_await, %%util) and their health (smartctl -a, nvme smart-log).");
	diag_advise_io_users(L);
	if (queue)
		diag_advise(L,
			    "Requests wait in the I/O scheduler longer than the disk takes to serve them (block.*.queue): the disk's queue is full. Spread the load over more disks, or move the data.");
	diag_advise(L,
		    "Feed the GPUs from faster storage: cache the training data on a local SSD or a RAM disk (mount -t tmpfs -o size=64G tmpfs /mnt/ramdisk), and load with several workers and prefetching (DataLoader num_workers, prefetch_factor, pin_memory).");
}

/* diag_meminfo_kb - @key's value in /proc/meminfo (kB), or 0 */
static uint64_t diag_meminfo_kb(const char *key)
{
	char path[PATH_MAX], line[256];
	unsigned long long v = 0;
	size_t n = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/meminfo", diag_root());
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			if (sscanf(line + n + 1, "%llu", &v) != 1)
				v = 0;
			break;
		}
	fclose(f);
	return v;
}

/* diag_kb_text - "21.4 GiB", "512 MiB" */
static const char *diag_kb_text(char *buf, size_t len, uint64_t kb)
{
	if (kb >= 1024 * 1024)
		snprintf(buf, len, "%.1f GiB", kb / 1048576.0);
	else
		snprintf(buf, len, "%llu MiB", (unsigned long long)kb / 1024);
	return buf;
}

/*
 * diag_advise_memory - host shortage only where tasks reclaimed for the
 * host (mm.direct_reclaim), said with what is available now; reclaim at
 * a memory cgroup's limit (mm.memcg_reclaim) is that cgroup's (its
 * files: diagnose_cgroups.c)
 */
static void diag_advise_memory(struct diag_result *r)
{
	struct diag_layer_res *L = &r->layer[DIAG_MEMORY];
	bool reclaim = false, memcg = false, compact = false;
	uint64_t avail = diag_meminfo_kb("MemAvailable");
	uint64_t total = diag_meminfo_kb("MemTotal");
	char now[96] = "", a[32], t[32];
	size_t k;

	for (k = 0; k < L->nr_top; k++) {
		const struct diag_item *it = diag_top_item(r, DIAG_MEMORY, k);

		if (it->family != GPULAT_FAM_MM)
			continue;
		reclaim |= it->id == GPULAT_MM_DIRECT_RECLAIM;
		memcg |= it->id == GPULAT_MM_MEMCG_RECLAIM;
		compact |= it->id == GPULAT_MM_COMPACTION;
	}
	if (total)
		snprintf(now, sizeof(now), " (MemAvailable now %s of %s)",
			 diag_kb_text(a, sizeof(a), avail),
			 diag_kb_text(t, sizeof(t), total));
	if (reclaim && total && avail * 5 > total)
		diag_advise(L,
			    "Tasks reclaim memory themselves (mm.direct_reclaim), yet a fifth or more of the memory is available%s: the shortage was brief, or on one NUMA node or zone (numastat -m; grep -A3 'zone' /proc/zoneinfo). Find what allocates in bursts, and keep more memory free (vm.min_free_kbytes, vm.watermark_scale_factor).",
			    now);
	else if (reclaim)
		diag_advise(L,
			    "Tasks reclaim memory themselves (mm.direct_reclaim): the host runs short of free memory%s. Find the largest users (ps -eo pid,rss,comm --sort=-rss | head), release unneeded tasks, and keep more memory free (vm.min_free_kbytes, vm.watermark_scale_factor).",
			    now);
	if (memcg)
		diag_advise(L,
			    "Tasks reclaim at their memory cgroup's limit (mm.memcg_reclaim), not for want of host memory%s: raise that cgroup's limit or shrink its working set; the cgroup is named here when the trace names its tasks.",
			    now);
	if (compact)
		diag_advise(L,
			    "Tasks wait for memory compaction, usually for transparent huge pages: cat /sys/kernel/mm/transparent_hugepage/defrag; 'defer' or 'madvise' keeps allocations from compacting inline.");
}

/* diag_notes - what limits the verdict: drops, lost records, off families */
static void diag_notes(struct diag_result *r, const struct watch *w)
{
	size_t i, n = w->window ? gl_snapshot_nr_counters(w->window) : 0;
	char which[DIAG_NR_LAYERS][DIAG_TEXT_LEN / 2] = { "" };
	size_t pos[DIAG_NR_LAYERS] = { 0 };
	uint64_t expired[DIAG_NR_LAYERS] = { 0 };
	char name[GPULAT_NAME_LEN];
	int l;

	for (i = 0; i < n; i++) {
		const struct gpulat_counter *c =
			gl_snapshot_counter(w->window, i);

		for (l = 0; l < DIAG_NR_LAYERS; l++) {
			if (diag_layer_family(l) != c->family || !c->value)
				continue;
			r->layer[l].drops += c->value;
			if (c->family == GPULAT_FAM_NET &&
			    c->id == GPULAT_NET_EXPIRED)
				expired[l] += c->value;
			/* each counter by its name, as gpulat status lists it */
			units_printable(name, sizeof(name), c->name);
			if (pos[l] < sizeof(which[l]))
				pos[l] += snprintf(which[l] + pos[l],
						   sizeof(which[l]) - pos[l],
						   "%s%s %llu",
						   pos[l] ? ", " : "", name,
						   (unsigned long long)c->value);
		}
	}
	for (l = 0; l < DIAG_NR_LAYERS; l++) {
		struct diag_layer_res *L = &r->layer[l];

		if (!L->measured || !L->drops || L->drops * 100 <= L->samples)
			continue;
		if (expired[l] * 2 >= L->drops)
			/* a queue that drops is itself a network signal */
			diag_note(L,
				  "%llu packets were not timed (%s): most were queued and never sent or received, which is what a full or shaping queue that drops them does (tc -s qdisc show: dropped, overlimits); the numbers cover the packets that went through.",
				  (unsigned long long)L->drops, which[l]);
		else
			diag_note(L,
				  "%llu samples were lost (%s; gpulat status): the numbers are incomplete.",
				  (unsigned long long)L->drops, which[l]);
	}
	if (r->layer[DIAG_DRIVER].measured &&
	    !r->layer[DIAG_DRIVER].samples && !r->layer[DIAG_DRIVER].nr_xids)
		diag_note(&r->layer[DIAG_DRIVER],
			  "No NVIDIA interrupt or driver thread was seen: the driver is not loaded, or no client holds the GPU open (persistence mode off).");
}

/* diag_score_text - "812ms" (per second watched) */
const char *diag_score_text(char *buf, size_t len, double score)
{
	double ms = score / 1e6;

	if (ms >= 100)
		snprintf(buf, len, "%.0fms", ms);
	else if (ms >= 10)
		snprintf(buf, len, "%.1fms", ms);
	else
		snprintf(buf, len, "%.2fms", ms);
	return buf;
}

/* What no sample in a layer means. */
static const char *const diag_no_samples[DIAG_NR_LAYERS] = {
	[DIAG_DRIVER]	= "no samples during the watch",
	[DIAG_NETWORK]	= "no samples during the watch: no packet queued or received",
	[DIAG_STORAGE]	= "no samples during the watch: no disk request",
	[DIAG_SCHED]	= "no samples during the watch",
	[DIAG_MEMORY]	= "no samples during the watch: no task stalled in reclaim or compaction",
};

/*
 * diag_why_normal - why a measured layer is normal, in one line: no
 * samples; its tail within the bound ("block.read.device nullb0 p99
 * 2.10ms, within its bound 20.0ms (expected p99)"); under the bar; or
 * too few samples over the bound
 */
static void diag_why_normal(struct diag_result *r, enum diag_layer l)
{
	struct diag_layer_res *L = &r->layer[l];
	const struct diag_item *it = diag_top_item(r, l, 0);
	static const char *const from[] = {
		[DIAG_REF_EXPECTED]	= "expected p99",
		[DIAG_REF_BASELINE]	= "4x the p99 before",
		[DIAG_REF_FLOOR]	= "floor",
	};
	char where[sizeof(it->where) + 2], a[UNITS_LEN], b[UNITS_LEN];
	char score[32], bar[32], *p;

	if (!L->measured || L->abnormal)
		return;
	if (!L->samples || !it) {
		snprintf(L->why_normal, sizeof(L->why_normal), "%s",
			 diag_no_samples[l]);
		return;
	}
	snprintf(where, sizeof(where), "%s%s", it->where[0] ? " " : "",
		 it->where);
	for (p = where; *p; p++)
		if (*p == ' ')
			*p = DIAG_NBSP;
	if (L->over < 0.5)
		snprintf(L->why_normal, sizeof(L->why_normal),
			 "%s%s p99 %s, within its bound %s (%s)", it->name,
			 where, units_ns(a, sizeof(a), it->p99),
			 units_ns(b, sizeof(b), it->ref), from[it->ref_from]);
	else if (L->score < DIAG_BAR_NS_PER_S)
		snprintf(L->why_normal, sizeof(L->why_normal),
			 "%s/s beyond normal, under the bar of %s/s; most from %s%s (%.0f over %s, %s)",
			 diag_score_text(score, sizeof(score), L->score),
			 diag_score_text(bar, sizeof(bar), DIAG_BAR_NS_PER_S),
			 it->name, where, it->over,
			 units_ns(b, sizeof(b), it->ref), from[it->ref_from]);
	else
		snprintf(L->why_normal, sizeof(L->why_normal),
			 "%.0f over their bound, under %d, none %dx over; most from %s%s (max %s, bound %s, %s)",
			 L->over, DIAG_MIN_OVER, DIAG_BIG_RATIO, it->name,
			 where, units_ns(a, sizeof(a), it->max),
			 units_ns(b, sizeof(b), it->ref), from[it->ref_from]);
}

/* diag_advise_all - see diagnose_int.h */
void diag_advise_all(struct diag_result *r, const struct watch *w)
{
	int l;

	diag_advise_driver(r);
	diag_advise_network(r);
	diag_advise_storage(r);
	diag_advise_sched(r);
	diag_advise_memory(r);
	diag_notes(r, w);
	for (l = 0; l < DIAG_NR_LAYERS; l++)
		diag_why_normal(r, l);
}
