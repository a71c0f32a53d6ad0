// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report on the host: the host facts read from a fake /proc and
 * /sys tree (GPULAT_SYSROOT), the report folder and its packing, and the
 * built tool writing a whole archive (NVML through the test double).  The
 * parsers of kernel text are test_kernel_text.c, NVML alone
 * test_nvml.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "engine/nvml/nvml.h"
#include "engine/report/hostfacts.h"
#include "nvml_double.h"
#include "shell.h"

/* put - write @fmt to @root/@path, making its folders (only those if @path ends in /) */
static void put(const char *root, const char *path, const char *fmt, ...)
{
	char full[PATH_MAX], *p;
	va_list ap;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (p = full + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(full, 0755);
		*p = '/';
	}
	if (full[strlen(full) - 1] == '/')
		return;
	f = fopen(full, "w");
	if (!f)
		abort();
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* slurp - a file of the report as a string (caller frees); NULL if none */
static char *slurp(const char *dir, const char *path)
{
	char full[PATH_MAX], *buf;
	size_t len;

	snprintf(full, sizeof(full), "%s/%s", dir, path);
	if (hf_read("", full, &buf, &len))
		return NULL;
	return buf;
}

/* --- A fake host -------------------------------------------------------- */

#define GPU	"sys/bus/pci/devices/0000:3b:00.0/"
#define AUDIO	"sys/bus/pci/devices/0000:3b:00.1/"
#define OTHER	"sys/bus/pci/devices/0000:00:1f.0/"
#define CPU	"sys/devices/system/cpu/"

FIXTURE(host) {
	char root[64];
	char out[128];
};

FIXTURE_SETUP(host)
{
	const char *r;
	int c;

	snprintf(self->root, sizeof(self->root), "/tmp/gpulat-test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	r = self->root;
	snprintf(self->out, sizeof(self->out), "%s/out", r);
	ASSERT_EQ(0, mkdir(self->out, 0700));

	put(r, GPU "vendor", "0x10de\n");
	put(r, GPU "device", "0x2330\n");
	put(r, GPU "class", "0x030200\n");
	put(r, GPU "current_link_speed", "8.0 GT/s PCIe\n");
	put(r, GPU "max_link_speed", "16.0 GT/s PCIe\n");
	put(r, GPU "current_link_width", "8\n");
	put(r, GPU "max_link_width", "16\n");
	put(r, GPU "numa_node", "0\n");
	put(r, GPU "local_cpulist", "0-1\n");
	put(r, GPU "irq", "0\n");
	put(r, GPU "aer_dev_correctable",
	    "RxErr 3\nBadTLP 2\nBadDLLP 0\nTOTAL_ERR_COR 5\n");
	put(r, GPU "aer_dev_nonfatal", "Undefined 0\nTOTAL_ERR_NONFATAL 0\n");
	put(r, GPU "aer_dev_fatal", "Undefined 0\nTOTAL_ERR_FATAL 0\n");
	put(r, GPU "msi_irqs/134", "msix\n");
	put(r, GPU "msi_irqs/135", "msix\n");
	put(r, AUDIO "vendor", "0x10de\n");
	put(r, AUDIO "class", "0x040300\n");
	put(r, AUDIO "irq", "17\n");
	put(r, OTHER "vendor", "0x8086\n");
	put(r, OTHER "current_link_speed", "2.5 GT/s PCIe\n");

	put(r, "proc/interrupts",
	    "           CPU0       CPU1       CPU2       CPU3\n"
	    "  0:         35          0          0          0   IO-APIC   2-edge      timer\n"
	    "134:          0          5        100          0  IR-PCI-MSI-0000:3b:00.0    0-edge      nvidia\n");
	put(r, "proc/softirqs", "          CPU0 CPU1\nNET_RX: 1 2\n");
	put(r, "proc/vmstat", "compact_stall 10\nthp_fault_alloc 7\npgscan_direct 0\n");
	put(r, "proc/irq/default_smp_affinity", "f\n");
	put(r, "proc/irq/134/smp_affinity_list", "0-3\n");
	put(r, "proc/irq/134/effective_affinity_list", "2\n");
	put(r, "proc/irq/134/node", "0\n");
	put(r, "proc/812/comm", "irqbalance\n");
	put(r, "proc/812/cmdline", "/usr/sbin/irqbalance%c--foreground%c", 0, 0);
	put(r, "proc/1/comm", "init\n");
	put(r, "proc/sys/kernel/osrelease", "6.1.0-57-amd64\n");
	put(r, "proc/cmdline", "BOOT_IMAGE=/vmlinuz quiet threadirqs\n");
	put(r, "proc/sys/vm/swappiness", "60\n");
	put(r, "sys/kernel/mm/transparent_hugepage/enabled",
	    "always [madvise] never\n");
	put(r, "sys/kernel/mm/transparent_hugepage/defrag",
	    "[always] defer defer+madvise madvise never\n");
	put(r, "proc/modules", "gpulat 65536 0 - Live 0x0000000000000000 (O)\n");
	put(r, "proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU\n");
	put(r, "proc/meminfo", "MemTotal:       24576000 kB\n");
	put(r, "proc/pressure/memory",
	    "some avg10=1.50 avg60=0.20 avg300=0.00 total=1234\n");
	put(r, "boot/config-6.1.0-57-amd64", "CONFIG_BPF=y\n");
	put(r, "sys/devices/system/node/node0/cpulist", "0-3\n");
	put(r, "sys/devices/system/node/node0/distance", "10\n");
	put(r, "sys/devices/system/node/node0/meminfo",
	    "Node 0 MemTotal:       24576000 kB\n");
	put(r, "sys/devices/system/node/possible", "0\n");
	put(r, "sys/module/gpulat/parameters/sched", "Y\n");
	put(r, "sys/module/gpulat/parameters/sched_slots", "1024\n");
	put(r, "dev/kmsg",
	    "6,1,1000,-;Linux version 6.1\n"
	    "4,2,5678901,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x\n"
	    " SUBSYSTEM=pci\n"
	    "6,3,6000000,-;eth0: link up\n"
	    "3,4,7000001,-;NVRM: GPU at PCI:0000:3b:00: GPU has fallen off the bus.\n");
	put(r, CPU "online", "0-3\n");
	put(r, CPU "isolated", "\n");
	for (c = 0; c < 4; c++) {
		char d[64];

		snprintf(d, sizeof(d), CPU "cpu%d/", c);
		put(r, d, "");
	}
	for (c = 0; c < 4; c++) {
		char p[128];

		snprintf(p, sizeof(p), CPU "cpu%d/cpufreq/scaling_governor", c);
		put(r, p, c < 2 ? "performance\n" : "powersave\n");
		snprintf(p, sizeof(p), CPU "cpu%d/cpufreq/scaling_cur_freq", c);
		put(r, p, "%d\n", 2000000 + c);
		snprintf(p, sizeof(p), CPU "cpu%d/cpuidle/state0/name", c);
		put(r, p, "POLL\n");
		snprintf(p, sizeof(p), CPU "cpu%d/cpuidle/state0/latency", c);
		put(r, p, "0\n");
		snprintf(p, sizeof(p), CPU "cpu%d/cpuidle/state0/usage", c);
		put(r, p, "10\n");
		snprintf(p, sizeof(p), CPU "cpu%d/cpuidle/state1/name", c);
		put(r, p, "C6\n");
		snprintf(p, sizeof(p), CPU "cpu%d/cpuidle/state1/latency", c);
		put(r, p, "170\n");
		snprintf(p, sizeof(p), CPU "cpu%d/cpuidle/state1/disable", c);
		put(r, p, c == 3 ? "1\n" : "0\n");
		snprintf(p, sizeof(p), CPU "cpu%d/cpuidle/state1/usage", c);
		put(r, p, "100\n");
	}
	put(r, CPU "cpufreq/", "");
}

FIXTURE_TEARDOWN(host)
{
	if (self->root[0])
		bundle_remove(self->root);
}

TEST_F(host, pci_scan)
{
	struct hf_pci_fn *fn;
	size_t n;

	ASSERT_EQ(0, hf_pci_scan(self->root, &fn, &n));
	ASSERT_EQ(2, n);
	EXPECT_STREQ("0000:3b:00.0", fn[0].addr);
	EXPECT_EQ(0x2330, fn[0].device);
	EXPECT_EQ(0x030200, fn[0].class);
	EXPECT_STREQ("8.0 GT/s PCIe", fn[0].cur_speed);
	EXPECT_STREQ("16.0 GT/s PCIe", fn[0].max_speed);
	EXPECT_EQ(8, fn[0].cur_width);
	EXPECT_EQ(16, fn[0].max_width);
	EXPECT_EQ(0, fn[0].numa_node);
	EXPECT_STREQ("0-1", fn[0].local_cpus);
	EXPECT_TRUE(fn[0].has_aer);
	EXPECT_EQ(5, fn[0].aer_cor);
	EXPECT_EQ(0, fn[0].aer_fatal);
	ASSERT_EQ(2, fn[0].nr_msi);
	EXPECT_EQ(134, fn[0].msi[0]);
	EXPECT_EQ(135, fn[0].msi[1]);
	EXPECT_TRUE(hf_pci_downtrained(&fn[0]));
	EXPECT_STREQ("0000:3b:00.1", fn[1].addr);
	EXPECT_FALSE(fn[1].has_aer);
	EXPECT_EQ(-1, fn[1].cur_width);
	EXPECT_EQ(17, fn[1].irq);
	EXPECT_FALSE(hf_pci_downtrained(&fn[1]));
	EXPECT_EQ(&fn[0], hf_pci_of_irq(fn, n, 135));
	EXPECT_EQ(&fn[1], hf_pci_of_irq(fn, n, 17));
	EXPECT_EQ(NULL, hf_pci_of_irq(fn, n, 0));
	hf_pci_free(fn, n);
}

TEST_F(host, irqbalance)
{
	int pids[4];

	ASSERT_EQ(1, hf_irqbalance_pids(self->root, pids, 4));
	EXPECT_EQ(812, pids[0]);
}

/* expect_in - @needle is in report file @path */
#define expect_in(dir, path, needle) do {				\
	char *_s = slurp(dir, path);					\
									\
	EXPECT_NE(NULL, _s) TH_LOG("%s missing", path);		\
	if (_s) {							\
		EXPECT_NE(NULL, strstr(_s, needle))			\
			TH_LOG("%s lacks '%s':\n%s", path, needle, _s);	\
		free(_s);						\
	}								\
} while (0)

TEST_F(host, files)
{
	char dir[PATH_MAX], *s;
	struct hostfacts h;
	struct bundle b;

	snprintf(dir, sizeof(dir), "%s/top", self->out);
	ASSERT_EQ(0, bundle_init(&b, dir));
	ASSERT_EQ(0, hostfacts_start(&h, self->root, &b));
	/* During the window: 1000 nvidia interrupts on CPU 2, C6 entries. */
	put(self->root, "proc/interrupts",
	    "           CPU0       CPU1       CPU2       CPU3\n"
	    "  0:         35          0          0          0   IO-APIC   2-edge      timer\n"
	    "134:          0          5       1100          0  IR-PCI-MSI-0000:3b:00.0    0-edge      nvidia\n");
	put(self->root, CPU "cpu1/cpuidle/state1/usage", "130\n");
	put(self->root, "proc/vmstat", "compact_stall 14\nthp_fault_alloc 7\n");
	ASSERT_EQ(0, hostfacts_end(&h, &b));
	hostfacts_free(&h);
	ASSERT_EQ(0, bundle_write_manifest(&b, "header line\n"));
	ASSERT_EQ(0, b.err);

	expect_in(dir, "host/irq.txt", "irq 134  IR-PCI-MSI-0000:3b:00.0    0-edge      nvidia\n");
	expect_in(dir, "host/irq.txt", "default_smp_affinity: f\n");
	expect_in(dir, "host/irq.txt", "device:              0000:3b:00.0 (NUMA node 0, local CPUs 0-1)\n");
	expect_in(dir, "host/irq.txt", "smp_affinity_list:   0-3\n");
	expect_in(dir, "host/irq.txt", "effective_affinity:  2\n");
	expect_in(dir, "host/irq.txt", "local to the GPU:    no: handled on a CPU of another NUMA node\n");
	expect_in(dir, "host/irq.txt", "in the window:       1000 (CPU 2: 1000)\n");
	expect_in(dir, "host/irq.txt", "since boot:          1105\n");
	expect_in(dir, "host/pcie.txt", "0000:3b:00.0  class 0x030200  device 0x2330\n");
	expect_in(dir, "host/pcie.txt", "link:   8.0 GT/s PCIe x8, max 16.0 GT/s PCIe x16  BELOW MAXIMUM\n");
	expect_in(dir, "host/pcie.txt", "node:   0, local CPUs 0-1\n");
	expect_in(dir, "host/pcie.txt", "irqs:   MSI 134,135\n");
	expect_in(dir, "host/pcie.txt", "aer:    correctable 5, nonfatal 0, fatal 0\n");
	expect_in(dir, "host/pcie.txt", "aer_dev_correctable: RxErr 3\n");
	expect_in(dir, "host/pcie.txt", "0000:3b:00.1  class 0x040300");
	expect_in(dir, "host/pcie.txt", "irqs:   INTx 17\n");
	s = slurp(dir, "host/pcie.txt");
	ASSERT_NE(NULL, s);
	EXPECT_EQ(NULL, strstr(s, "0000:00:1f.0"));	/* not NVIDIA */
	EXPECT_EQ(NULL, strstr(s, "BadDLLP"));		/* zero counters left out */
	free(s);
	expect_in(dir, "host/irqbalance.txt", "irqbalance: running, pid 812: /usr/sbin/irqbalance --foreground\n");
	expect_in(dir, "host/cpu.txt", "online     0-3\n");
	expect_in(dir, "host/cpu.txt", "isolated   none\n");
	expect_in(dir, "host/cpu.txt", "nohz_full  absent\n");
	expect_in(dir, "host/cpu.txt", "governor performance: CPUs 0-1\n");
	expect_in(dir, "host/cpu.txt", "governor powersave: CPUs 2-3\n");
	expect_in(dir, "host/cpu.txt", "\n2     powersave         2000002          -");
	expect_in(dir, "host/cpu.txt", "1      C6");
	expect_in(dir, "host/cpu.txt", "170              -  3                30\n");
	expect_in(dir, "host/thp.txt", "enabled                madvise  (always [madvise] never)\n");
	expect_in(dir, "host/thp.txt", "defrag                 always  (");
	expect_in(dir, "host/thp.txt", "compact_stall                       4             14\n");
	expect_in(dir, "host/thp.txt", "vm/swappiness                60\n");
	expect_in(dir, "host/kernel-log.txt", "2 kernel log lines mention NVRM or Xid\n"
		  "[    5.678901] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x\n"
		  "[    7.000001] NVRM: GPU at PCI:0000:3b:00: GPU has fallen off the bus.\n");
	/* the whole log, every line; the kernel's config, modules, NUMA */
	expect_in(dir, "host/kernel-log-all.txt", "kernel log lines\n");
	expect_in(dir, "host/kernel-log-all.txt",
		  "[    7.000001] NVRM: GPU at PCI:0000:3b:00: GPU has fallen off the bus.\n");
	expect_in(dir, "host/config.txt", "CONFIG_BPF=y\n");
	expect_in(dir, "host/modules.txt", "gpulat 65536 0 - Live");
	expect_in(dir, "host/cpuinfo.txt", "model name\t: Test CPU\n");
	expect_in(dir, "host/meminfo.txt", "MemTotal:       24576000 kB\n");
	expect_in(dir, "host/pressure.txt", "== /proc/pressure/memory ==\nsome avg10=1.50");
	expect_in(dir, "host/numa.txt",
		  "== /sys/devices/system/node/node0/cpulist ==\n0-3\n"
		  "== /sys/devices/system/node/node0/distance ==\n10\n"
		  "== /sys/devices/system/node/node0/meminfo ==\nNode 0 MemTotal:");
	expect_in(dir, "host/kernel.txt", "release  6.1.0-57-amd64\n");
	expect_in(dir, "host/kernel.txt", "cmdline  BOOT_IMAGE=/vmlinuz quiet threadirqs\n");
	expect_in(dir, "host/gpulat-params.txt", "sched = Y\nsched_slots = 1024\n");
	expect_in(dir, "host/interrupts-start.txt", "        100          0  IR-PCI");
	expect_in(dir, "host/interrupts-end.txt", "       1100          0  IR-PCI");
	expect_in(dir, "host/softirqs-end.txt", "NET_RX: 1 2\n");
	expect_in(dir, "host/driver.txt", "absent: /proc/driver/nvidia/version: no such file (the NVIDIA driver is not loaded)\n");
	/* The MANIFEST: itself first, every file, then what is absent. */
	expect_in(dir, "MANIFEST", "header line\n\nfiles:\n  MANIFEST  ");
	expect_in(dir, "MANIFEST", "\n  host/irq.txt ");
	expect_in(dir, "MANIFEST", "\n  host/pcie.txt ");
	expect_in(dir, "MANIFEST", "absent: host/driver.txt: /proc/driver/nvidia/version: no such file (the NVIDIA driver is not loaded)\n");
	s = slurp(dir, "MANIFEST");
	ASSERT_NE(NULL, s);
	EXPECT_EQ(NULL, strstr(s, "absent: host/irq.txt"));
	EXPECT_EQ(NULL, strstr(s, "absent: host/pcie.txt"));
	free(s);
	bundle_free(&b);
}

/*
 * Counters that went down in the window restarted (the NVIDIA driver frees
 * its IRQs when the last client closes and requests them again from 0):
 * the current value is shown, marked, never an underflowed difference.
 */
TEST_F(host, counters_reset)
{
	char dir[PATH_MAX], *s;
	struct hostfacts h;
	struct bundle b;

	snprintf(dir, sizeof(dir), "%s/top", self->out);
	ASSERT_EQ(0, bundle_init(&b, dir));
	ASSERT_EQ(0, hostfacts_start(&h, self->root, &b));
	/* The IRQ restarted: 40 on CPU 2 since; CPU 1 went on from 5. */
	put(self->root, "proc/interrupts",
	    "           CPU0       CPU1       CPU2       CPU3\n"
	    "  0:         35          0          0          0   IO-APIC   2-edge      timer\n"
	    "134:          0          7         40          0  IR-PCI-MSI-0000:3b:00.0    0-edge      nvidia\n");
	/* CPU 1's C6 counter restarted: 30 entries since; the rest none. */
	put(self->root, CPU "cpu1/cpuidle/state1/usage", "30\n");
	ASSERT_EQ(0, hostfacts_end(&h, &b));
	hostfacts_free(&h);
	ASSERT_EQ(0, b.err);

	expect_in(dir, "host/irq.txt",
		  "in the window:       42 (counter reset) (CPU 1: 2, CPU 2: 40 since reset)\n");
	expect_in(dir, "host/irq.txt", "  counter reset:       a count went down");
	expect_in(dir, "host/cpu.txt",
		  "170              -  3                30 (counter reset)\n");
	expect_in(dir, "host/cpu.txt", "0              -  -                0\n");
	s = slurp(dir, "host/irq.txt");
	ASSERT_NE(NULL, s);
	EXPECT_EQ(NULL, strstr(s, "18446744"));	/* no underflow */
	free(s);
	s = slurp(dir, "host/cpu.txt");
	ASSERT_NE(NULL, s);
	EXPECT_EQ(NULL, strstr(s, "18446744"));
	free(s);
	bundle_free(&b);
}

/* Nothing of an NVIDIA host: every source is stated as absent. */
TEST_F(host, all_absent)
{
	char dir[PATH_MAX], empty[PATH_MAX];
	struct hostfacts h;
	struct bundle b;
	size_t i;
	static const char *const files[] = {
		"host/irq.txt", "host/pcie.txt", "host/driver.txt",
		"host/kernel-log.txt", "host/gpulat-params.txt",
		"host/interrupts-start.txt", "host/cpu.txt", "host/thp.txt",
		"host/irqbalance.txt", "host/kernel.txt",
		"host/kernel-log-all.txt", "host/config.txt", "host/modules.txt",
		"host/cpuinfo.txt", "host/meminfo.txt", "host/pressure.txt",
		"host/numa.txt",
	};

	snprintf(empty, sizeof(empty), "%s/empty", self->root);
	ASSERT_EQ(0, mkdir(empty, 0700));
	snprintf(dir, sizeof(dir), "%s/top", self->out);
	ASSERT_EQ(0, bundle_init(&b, dir));
	ASSERT_EQ(0, hostfacts_start(&h, empty, &b));
	ASSERT_EQ(0, hostfacts_end(&h, &b));
	hostfacts_free(&h);
	ASSERT_EQ(0, bundle_write_manifest(&b, "h\n"));
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char want[128];

		expect_in(dir, files[i], "absent: ");
		snprintf(want, sizeof(want), "absent: %s: ", files[i]);
		expect_in(dir, "MANIFEST", want);
	}
	expect_in(dir, "MANIFEST", "absent: host/kernel-log.txt: /dev/kmsg: no such file\n");
	expect_in(dir, "host/pressure.txt", "(no PSI: CONFIG_PSI off, or psi=0 on the command line)");
	expect_in(dir, "host/config.txt", "(nor /proc/config.gz: CONFIG_IKCONFIG_PROC off)");
	bundle_free(&b);
}

TEST_F(host, pack)
{
	char dir[PATH_MAX], tgz[PATH_MAX], err[512], *s;
	const char *path = getenv("PATH");
	struct bundle b;
	int saved, fd, full;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/top", self->out);
	ASSERT_EQ(0, bundle_init(&b, dir));
	f = bundle_create(&b, "a/b/c.txt", "deep file");
	ASSERT_NE(NULL, f);
	fputs("hello\n", f);
	ASSERT_EQ(0, bundle_close(&b, f, "a/b/c.txt"));
	ASSERT_EQ(0, bundle_write_manifest(&b, "h\n"));
	snprintf(tgz, sizeof(tgz), "%s/r.tar.gz", self->root);
	fd = open(tgz, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, bundle_pack(self->out, "top", fd, err, sizeof(err)))
		TH_LOG("%s", err);
	close(fd);
	ASSERT_EQ(0, sh("mkdir %s/x && tar -xzf %s -C %s/x", self->root, tgz,
			self->root));
	snprintf(dir, sizeof(dir), "%s/x/top", self->root);
	s = slurp(dir, "a/b/c.txt");
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("hello\n", s);
	free(s);
	expect_in(dir, "MANIFEST", "  a/b/c.txt  deep file\n");

	/* tar fails: its status (its own message silenced); tar missing: said so. */
	fflush(stderr);
	saved = dup(2);
	dup2(open("/dev/null", O_WRONLY | O_CLOEXEC), 2);
	fd = open(tgz, O_WRONLY | O_TRUNC | O_CLOEXEC);
	EXPECT_EQ(-EIO, bundle_pack(self->out, "nosuch", fd, err, sizeof(err)));
	dup2(saved, 2);
	close(saved);
	EXPECT_NE(NULL, strstr(err, "failed with status 2")) TH_LOG("%s", err);
	/* a full disk is the archive's own error, not tar's status */
	full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (full >= 0) {
		EXPECT_EQ(-ENOSPC, bundle_pack(self->out, "top", full, err,
					       sizeof(err)));
		EXPECT_STREQ("cannot write the archive: No space left on device",
			     err);
		close(full);
	}
	ASSERT_EQ(0, setenv("PATH", self->out, 1));
	EXPECT_FALSE(bundle_find_prog("tar"));
	EXPECT_EQ(-ENOENT, bundle_pack(self->out, "top", fd, err, sizeof(err)));
	close(fd);
	EXPECT_STREQ("cannot run tar: No such file or directory (tar is not installed or not in PATH)",
		     err);
	setenv("PATH", path, 1);
	EXPECT_TRUE(bundle_find_prog("tar"));
	/* A file where a folder is: the failure and its reason are kept. */
	EXPECT_EQ(NULL, bundle_create(&b, "a", "a folder already")) ;
	EXPECT_NE(0, b.err);
	EXPECT_NE(NULL, strstr(b.errmsg, "cannot create")) TH_LOG("%s", b.errmsg);
	bundle_free(&b);
}

/* --- The built tool ----------------------------------------------------- */

/*
 * gpulat report end to end against the fake host, with NVML found by its
 * soname through LD_LIBRARY_PATH (the path a real host takes).  Without
 * the module here, the archive holds the host facts and says the rest is
 * absent; with it, the watch runs too.
 */
TEST_F(host, tool_report)
{
	const char *bin = getenv("GPULAT_BIN");
	char lib[PATH_MAX], top[PATH_MAX], *s, *slash;
	int rc;

	if (!bin)
		bin = "build/unit/gpulat";
	ASSERT_NE(NULL, nvml_double_path(lib, sizeof(lib), "nvml"));
	slash = strrchr(lib, '/');
	*slash = '\0';
	rc = sh("mkdir %s/tmp && cd %s && TMPDIR=%s/tmp GPULAT_SYSROOT=%s LD_LIBRARY_PATH=%s %s report -d 0.3 --interval 0.1 -o r.tar.gz >%s/stdout 2>%s/stderr",
		self->root, self->out, self->root, self->root, lib,
		bin[0] == '/' ? bin : realpath(bin, top), self->root,
		self->root);
	s = slurp(self->root, "stderr");
	ASSERT_EQ(0, rc) TH_LOG("%s", s ? s : "");
	free(s);
	expect_in(self->root, "stdout", "wrote ");
	expect_in(self->root, "stdout", "/out/r.tar.gz (");
	ASSERT_EQ(0, sh("cd %s && tar -xzf r.tar.gz && ls -d gpulat-report-*-*-* >%s/top",
			self->out, self->root));
	s = slurp(self->root, "top");
	ASSERT_NE(NULL, s);
	s[strcspn(s, "\n")] = '\0';
	snprintf(top, sizeof(top), "%s/%s", self->out, s);
	free(s);
	expect_in(top, "MANIFEST", "gpulat report gpulat-report-");
	expect_in(top, "MANIFEST", "\n  host/nvml.txt ");
	expect_in(top, "host/nvml.txt", "library:      libnvidia-ml.so.1\n");
	expect_in(top, "host/nvml.txt", "  clock events: 0x8 (hw slowdown)\n");
	expect_in(top, "host/nvml.txt", "  pcie link:    gen 3 x8 of max gen 5 x16");
	expect_in(top, "host/pcie.txt", "x8, max 16.0 GT/s PCIe x16  BELOW MAXIMUM\n");
	expect_in(top, "host/irq.txt", "effective_affinity:  2\n");
	expect_in(top, "host/kernel.txt", "release  6.1.0-57-amd64\n");
	if (access("/dev/gpulat", F_OK)) {
		expect_in(top, "MANIFEST", "module:    absent: ");
		expect_in(top, "snapshots/window.txt", "absent: ");
		expect_in(top, "MANIFEST", "absent: diagnosis.txt: ");
	} else {
		expect_in(top, "MANIFEST", "module:    ABI ");
	}
	/* The temporary folder is gone. */
	EXPECT_EQ(0, sh("rmdir %s/tmp", self->root));
}

/*
 * NVML is asked in a child process with a time limit: one that hangs in
 * nvmlInit (a GPU fallen off the bus) is killed when the time is up, one
 * that crashes the process is stated; the rest of the report comes.
 */
TEST_F(host, tool_report_nvml_stuck)
{
	const char *bin = getenv("GPULAT_BIN");
	char lib[PATH_MAX], path[PATH_MAX], *s;
	static const struct {
		const char *env, *says;
	} cases[] = {
		/* the sampler saw it first: nvml.txt is not asked again */
		{ "FAKE_NVML_INIT_HANG=1",
		  "absent: NVML failed during the window: nvmlInit and the first reading had not returned after " },
		{ "FAKE_NVML_INIT_CRASH=1",
		  "absent: NVML failed during the window: NVML crashed the process sampling it: signal 6 (" },
		/* with the sampler off, the one reading's own bound */
		{ "GPULAT_NVML_INTERVAL=0 FAKE_NVML_INIT_HANG=1",
		  "absent: NVML did not answer within 0.5 s (the process asking it, pid " },
		{ "GPULAT_NVML_INTERVAL=0 FAKE_NVML_INIT_CRASH=1",
		  "absent: NVML crashed the process asking it: signal 6 (" },
	};
	size_t i;
	int rc;

	if (!bin)
		bin = "build/unit/gpulat";
	if (bin[0] != '/' && realpath(bin, path))
		bin = path;
	ASSERT_NE(NULL, nvml_double_path(lib, sizeof(lib), "nvml"));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char top[PATH_MAX + 64], want[PATH_MAX + 256];

		rc = sh("rm -rf %s/x && mkdir %s/x && cd %s/x && %s GPULAT_NVML_TIMEOUT=0.5 GPULAT_SYSROOT=%s GPULAT_NVML_LIB=%s %s report -d 0.1 --interval 0.1 -o r.tar.gz >%s/stdout 2>%s/stderr && tar -xzf r.tar.gz && ls -d gpulat-report-*-*-* >%s/top",
			self->out, self->out, self->out, cases[i].env,
			self->root, lib, bin, self->root, self->root,
			self->root);
		s = slurp(self->root, "stderr");
		ASSERT_EQ(0, rc) TH_LOG("%s: %s", cases[i].env, s ? s : "");
		free(s);
		s = slurp(self->root, "top");
		ASSERT_NE(NULL, s);
		s[strcspn(s, "\n")] = '\0';
		snprintf(top, sizeof(top), "%s/x/%s", self->out, s);
		free(s);
		snprintf(want, sizeof(want), "library:      %s\n%s", lib,
			 cases[i].says);
		expect_in(top, "host/nvml.txt", want);
		snprintf(want, sizeof(want), "absent: host/nvml.txt: %s",
			 cases[i].says + strlen("absent: "));
		expect_in(top, "MANIFEST", want);
		expect_in(top, "host/irq.txt", "effective_affinity:  2\n");
	}
}

TEST_F(host, tool_report_errors)
{
	const char *bin = getenv("GPULAT_BIN");
	char path[PATH_MAX], out[PATH_MAX + 16];
	char *s;

	if (!bin)
		bin = "build/unit/gpulat";
	if (bin[0] != '/' && realpath(bin, path))
		bin = path;
	/* An unwritable place fails before the watch, in one line. */
	EXPECT_EQ(1, sh("%s report -d 0.1 -o /nonexistent/r.tar.gz 2>%s/err", bin,
			self->root));
	s = slurp(self->root, "err");
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("gpulat: cannot write /nonexistent/r.tar.gz: /nonexistent: No such file or directory\n",
		     s);
	free(s);
	/* No tar: said so, nothing written. */
	EXPECT_EQ(1, sh("cd %s && PATH=/nonexistent %s report -d 0.1 -o r.tar.gz 2>%s/err",
			self->out, bin, self->root));
	s = slurp(self->root, "err");
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("gpulat: tar is not installed or not in PATH; the report is a .tar.gz made by tar\n",
		     s);
	free(s);
	snprintf(out, sizeof(out), "%s/r.tar.gz", self->out);
	EXPECT_NE(0, access(out, F_OK));

	/*
	 * tar fails after writing part of the archive: a file already at
	 * the -o name is left as it was, and the partial one is removed.
	 */
	put(self->root, "bin/tar",
	    "#!/bin/sh\n"
	    "while [ $# -gt 0 ]; do\n"
	    "  if [ \"$1\" = -czf ]; then echo partial >\"$2\"; fi; shift\n"
	    "done\n"
	    "exit 2\n");
	ASSERT_EQ(0, sh("chmod +x %s/bin/tar && echo keep me >%s/r.tar.gz",
			self->root, self->out));
	EXPECT_EQ(1, sh("cd %s && PATH=%s/bin:$PATH GPULAT_SYSROOT=%s GPULAT_NVML_LIB=/nonexistent %s report -d 0.1 --interval 0.1 -o r.tar.gz >/dev/null 2>%s/err",
			self->out, self->root, self->root, bin, self->root));
	expect_in(self->root, "err", "failed with status 2");
	s = slurp(self->out, "r.tar.gz");
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("keep me\n", s);
	free(s);
	EXPECT_EQ(0, sh("ls %s | grep -c tmp >/dev/null; test $? = 1",
			self->out));
}

TEST_HARNESS_MAIN
