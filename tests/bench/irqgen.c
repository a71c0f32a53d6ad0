// SPDX-License-Identifier: GPL-2.0
/*
 * irqgen - hard interrupts with a known count, for scripts/bench: drives
 * tests/kmod/gpulat_irqgen.ko, which raises one interrupt of its own IRQ
 * per unit (irq_handler_entry and irq_handler_exit once each, no device,
 * no softirq), so that under QEMU -icount every run costs the same.
 *
 *   irqgen [-w WARMUP] [-s SETTLE_MS] [-H FILE] [-P PARAMDIR] COUNT
 *
 * Writes WARMUP (default 1000) untimed, then COUNT timed, to the module's
 * parameter fire (PARAMDIR, default /sys/module/gpulat_irqgen/parameters):
 * one write each, so that the timed part is one system call and COUNT
 * interrupts.  Between the two it sleeps SETTLE_MS (default 100): what the
 * set-up of a configuration left to do (RCU callbacks, work items) runs
 * then, in idle time, rather than in the timed part.  Checks that the
 * handler ran exactly COUNT times meanwhile (parameter handled).  Prints
 * one line (see bench.h):
 *
 *   units COUNT ns T [hits H] irqs COUNT
 */
#define _GNU_SOURCE
#include "bench.h"

#define PARAMS	"/sys/module/gpulat_irqgen/parameters"

static unsigned long long read_param(const char *dir, const char *name)
{
	char path[512], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		die(path);
	close(fd);
	buf[n] = 0;
	return strtoull(buf, NULL, 10);
}

static void fire(int fd, unsigned long n)
{
	char buf[32];
	int len;

	len = snprintf(buf, sizeof(buf), "%lu\n", n);
	if (pwrite(fd, buf, len, 0) != len)
		die("write fire");
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1, h0 = 0, h1 = 0, c0, c1;
	const char *hits = NULL, *dir = PARAMS;
	unsigned long warmup = 1000, settle = 100, count;
	struct timespec ts;
	char path[512];
	int fd, opt;

	bench_name = "irqgen";
	while ((opt = getopt(argc, argv, "w:s:H:P:")) != -1) {
		switch (opt) {
		case 'w':
			warmup = strtoul(optarg, NULL, 0);
			break;
		case 's':
			settle = strtoul(optarg, NULL, 0);
			break;
		case 'H':
			hits = optarg;
			break;
		case 'P':
			dir = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	count = strtoul(argv[optind], NULL, 0);
	if (!count || count > 1000000)
		goto usage;
	snprintf(path, sizeof(path), "%s/fire", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		die(path);
	if (warmup)
		fire(fd, warmup);
	ts.tv_sec = settle / 1000;
	ts.tv_nsec = settle % 1000 * 1000000;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	c0 = read_param(dir, "handled");
	if (hits)
		h0 = sum_hits(hits);
	t0 = now_ns();
	fire(fd, count);
	t1 = now_ns();
	if (hits)
		h1 = sum_hits(hits);
	c1 = read_param(dir, "handled");
	close(fd);
	if (c1 - c0 != count) {
		fprintf(stderr, "irqgen: %lu interrupts raised, handler ran %llu times\n",
			count, c1 - c0);
		return 1;
	}
	bench_report(count, t1 - t0, hits, h1 - h0);
	printf(" irqs %llu\n", c1 - c0);
	return 0;
usage:
	fprintf(stderr, "usage: irqgen [-w WARMUP] [-s SETTLE_MS] [-H FILE] [-P PARAMDIR] COUNT (at most 1000000)\n");
	return 2;
}
