// SPDX-License-Identifier: GPL-2.0
/*
 * Load generators for the stress lane: each mode runs until killed.
 *
 *   stress_load hog SPIN_US PAUSE_US   spin SPIN_US, sleep PAUSE_US, again
 *                                      (PAUSE_US 0: spin without a pause)
 *   stress_load sleepers N PERIOD_US   N threads sleeping PERIOD_US each
 *   stress_load blk DEV                O_DIRECT 4 KiB reads and writes at
 *                                      random offsets of block device DEV
 *   stress_load udp NETNS DST PORT PPS UDP datagrams to DST:PORT from the
 *                                      network namespace file NETNS ("-":
 *                                      this one), PPS per second
 *   stress_load mem MB                 MB of anonymous memory, written
 *                                      over and over
 *   stress_load oom                    allocate and touch 1 MiB at a time
 *                                      until killed; prints "MB N" every
 *                                      16 MiB
 *
 * Under TCG with one host thread for every vCPU, a vCPU that never idles
 * keeps the host thread for QEMU's whole round-robin slice (100 ms), and
 * every IPI and RCU grace period then waits for the slices of all busy
 * vCPUs: a hog with a short pause keeps each CPU busy while letting
 * cross-CPU work through (see scripts/stress).
 */
#include <arpa/inet.h>
#include <linux/fs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "stress.h"

static int usage(void)
{
	fprintf(stderr,
		"usage: stress_load hog SPIN_US PAUSE_US | sleepers N PERIOD_US |\n"
		"       blk DEV | udp NETNS DST PORT PPS | mem MB | oom\n");
	return 2;
}

static int hog(uint64_t spin_us, uint64_t pause_us)
{
	volatile uint64_t x = 0;

	for (;;) {
		uint64_t end = st_now_ns() + spin_us * 1000;

		while (st_now_ns() < end)
			for (int i = 0; i < 1000; i++)
				x++;
		if (pause_us)
			st_sleep_us(pause_us);
	}
	return 0;
}

static void *sleeper(void *arg)
{
	uint64_t period = (uintptr_t)arg;

	for (;;)
		st_sleep_us(period);
	return NULL;
}

static int sleepers(int n, uint64_t period_us)
{
	pthread_t t;

	for (int i = 1; i < n; i++)
		if (pthread_create(&t, NULL, sleeper, (void *)(uintptr_t)period_us))
			return 1;
	sleeper((void *)(uintptr_t)period_us);
	return 0;
}

static int blk(const char *dev)
{
	uint64_t size = 0, seed = getpid() * 0x9e3779b97f4a7c15ULL | 1;
	void *buf;
	int fd = open(dev, O_RDWR | O_DIRECT);

	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) || size < 1 << 20) {
		perror(dev);
		return 1;
	}
	if (posix_memalign(&buf, 4096, 4096))
		return 1;
	memset(buf, 0x5a, 4096);
	for (uint64_t i = 0;; i++) {
		off_t off = (off_t)(st_rand(&seed) % (size / 4096)) * 4096;
		ssize_t n = (i % 4 == 3) ? pwrite(fd, buf, 4096, off) :
					   pread(fd, buf, 4096, off);

		if (n != 4096) {
			perror("blk io");
			return 1;
		}
		if (i % 256 == 255)
			fdatasync(fd);
	}
	return 0;
}

static int udp(const char *netns, const char *dst, int port, int pps)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	char payload[256] = "gpulat stress";
	uint64_t next = st_now_ns();
	int s, per_tick = pps / 1000 > 0 ? pps / 1000 : 1;
	uint64_t tick_ns = pps >= 1000 ? 1000000 : 1000000000ULL / pps;

	if (strcmp(netns, "-")) {
		int nfd = open(netns, O_RDONLY | O_CLOEXEC);

		if (nfd < 0 || setns(nfd, CLONE_NEWNET)) {
			perror(netns);
			return 1;
		}
		close(nfd);
	}
	if (inet_pton(AF_INET, dst, &sa.sin_addr) != 1)
		return usage();
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0) {
		perror("socket");
		return 1;
	}
	for (;;) {
		for (int i = 0; i < per_tick; i++)
			/* ENOBUFS, ECONNREFUSED (ICMP back): keep sending */
			sendto(s, payload, sizeof(payload), MSG_DONTWAIT,
			       (struct sockaddr *)&sa, sizeof(sa));
		next += tick_ns;
		uint64_t now = st_now_ns();

		if (next > now)
			st_sleep_us((next - now) / 1000);
		else
			next = now;	/* late (emulation): no catching up */
	}
	return 0;
}

static int mem(size_t mb)
{
	size_t len = mb << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (unsigned char v = 1;; v++) {
		for (size_t off = 0; off < len; off += 4096)
			p[off] = v;
		st_sleep_us(1000);
	}
	return 0;
}

static int oom(void)
{
	size_t mb = 0;

	for (;;) {
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			st_sleep_us(1000);
			continue;
		}
		for (size_t off = 0; off < 1 << 20; off += 4096)
			p[off] = 1;
		if (++mb % 16 == 0) {
			printf("MB %zu\n", mb);
			fflush(stdout);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "hog") && argc == 4)
		return hog(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0));
	if (!strcmp(argv[1], "sleepers") && argc == 4)
		return sleepers(atoi(argv[2]), strtoull(argv[3], NULL, 0));
	if (!strcmp(argv[1], "blk") && argc == 3)
		return blk(argv[2]);
	if (!strcmp(argv[1], "udp") && argc == 6)
		return udp(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
	if (!strcmp(argv[1], "mem") && argc == 3)
		return mem(strtoul(argv[2], NULL, 0));
	if (!strcmp(argv[1], "oom") && argc == 2)
		return oom();
	return usage();
}
