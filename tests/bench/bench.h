/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the benchmark workloads (the .c files of tests/bench): static
 * programs that scripts/bench runs in the guest.  Every workload prints one
 * line
 *
 *   units N ns T [hits H] [NAME VALUE]...
 *
 * N units of work (round trips, messages, reads, packets) took T ns of
 * CLOCK_MONOTONIC time; under QEMU -icount shift=0 one guest nanosecond is
 * one guest instruction.  With -H PATH (a gpulat debugfs family file, or
 * the folder of them) H is the growth of the sum of every "hits N" field
 * across the timed part only: gpulat's probe hits for exactly that work
 * (plus whatever else ran meanwhile).  PATH may also be the BPF source's
 * pinned counter map (/sys/fs/bpf/gpulat/maps/gl_cnt): then H is the growth
 * of its hit counters, every family and CPU, read with bpf(2) alone (the
 * workloads are static and link no libbpf).
 */
#ifndef _GPULAT_BENCH_H
#define _GPULAT_BENCH_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "uapi/gpulat.h"
#include "gpulat_bpf.h"

static const char *bench_name = "bench";

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", bench_name, what, strerror(errno));
	exit(1);
}

static inline void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static inline unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* file_hits - sum of the numbers that follow " hits " in the file @path */
static inline unsigned long long file_hits(const char *path)
{
	static char buf[1 << 20];
	unsigned long long sum = 0;
	ssize_t len = 0, n;
	char *p;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	if (n < 0)
		die(path);
	close(fd);
	buf[len] = 0;
	for (p = buf; (p = strstr(p, " hits ")); p += 6)
		sum += strtoull(p + 6, NULL, 10);
	return sum;
}

static inline int bench_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* possible_cpus - entries of a per-CPU map value: highest possible CPU + 1 */
static inline unsigned int possible_cpus(void)
{
	char buf[256], *p;
	ssize_t n;
	int fd;

	fd = open("/sys/devices/system/cpu/possible", O_RDONLY);
	if (fd < 0)
		die("/sys/devices/system/cpu/possible");
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		die("/sys/devices/system/cpu/possible");
	buf[n] = 0;
	/* "0", "0-7" or "0-3,8-11": the last number is the highest */
	for (p = buf + n; p > buf && (p[-1] < '0' || p[-1] > '9'); p--)
		;
	while (p > buf && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return strtoul(p, NULL, 10) + 1;
}

/*
 * bpf_hits - sum of the hit counters (GL_BPF_HIT(0..GL_BPF_NR_TPS-1)) of
 * every entry and CPU of the pinned per-CPU map gl_cnt at @path
 */
static inline unsigned long long bpf_hits(const char *path)
{
	static unsigned long long buf[4096];
	struct bpf_map_info info = { 0 };
	unsigned long long sum = 0;
	union bpf_attr a;
	unsigned int ncpu, stride, cpu, i;
	__u32 key;
	int fd;

	memset(&a, 0, sizeof(a));
	a.pathname = (unsigned long)path;
	fd = bench_bpf(BPF_OBJ_GET, &a);
	if (fd < 0)
		die(path);
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(info);
	a.info.info = (unsigned long)&info;
	if (bench_bpf(BPF_OBJ_GET_INFO_BY_FD, &a))
		die(path);
	ncpu = possible_cpus();
	stride = (info.value_size + 7) / 8;
	if (info.type != BPF_MAP_TYPE_PERCPU_ARRAY ||
	    info.value_size != sizeof(struct gl_bpf_cnt) ||
	    (unsigned long long)ncpu * stride > sizeof(buf) / sizeof(buf[0])) {
		errno = EINVAL;
		die(path);
	}
	for (key = 0; key < info.max_entries; key++) {
		memset(&a, 0, sizeof(a));
		a.map_fd = fd;
		a.key = (unsigned long)&key;
		a.value = (unsigned long)buf;
		if (bench_bpf(BPF_MAP_LOOKUP_ELEM, &a))
			die(path);
		for (cpu = 0; cpu < ncpu; cpu++)
			for (i = 0; i < GL_BPF_NR_TPS; i++)
				sum += buf[cpu * stride + GL_BPF_HIT(i)];
	}
	close(fd);
	return sum;
}

/*
 * sum_hits - file_hits() of @path, or of every file in it if a folder;
 * bpf_hits() if @path is on bpffs
 */
static inline unsigned long long sum_hits(const char *path)
{
	unsigned long long sum = 0;
	struct dirent *de;
	struct statfs fs;
	char sub[512];
	DIR *d;

	if (!path)
		return 0;
	/* BPF_FS_MAGIC (linux/magic.h) */
	if (!statfs(path, &fs) && fs.f_type == 0xcafe4a11)
		return bpf_hits(path);
	d = opendir(path);
	if (!d)
		return file_hits(path);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		sum += file_hits(sub);
	}
	closedir(d);
	return sum;
}

/* bench_report - the result line, without its end (callers may add) */
static inline void bench_report(unsigned long long units,
				unsigned long long ns, const char *hits,
				unsigned long long h)
{
	printf("units %llu ns %llu", units, ns);
	if (hits)
		printf(" hits %llu", h);
}

#endif /* _GPULAT_BENCH_H */
