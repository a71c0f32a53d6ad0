/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers the stress programs share (static: each program is one file).
 * Results are TAP lines without numbers, "ok - what" / "not ok - what",
 * with the figures asserted on "# " lines before them: the part script
 * that runs a program numbers them into its own TAP (lib.sh results).
 */
#ifndef _GPULAT_STRESS_H
#define _GPULAT_STRESS_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "uapi/gpulat.h"

#define ST_DEBUGFS_TRACE	"/sys/kernel/debug/gpulat/trace"

static int st_n, st_failed;

/* st_ok - one TAP result line; @cond false fails the program */
static inline bool st_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	st_n++;
	printf("%sok - ", cond ? "" : "not ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		st_failed = 1;
	return cond;
}

/* st_diag - a "# " line (TAP diagnostics) */
static inline void st_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static inline uint64_t st_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void st_sleep_us(uint64_t us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* xorshift64*: fast, per thread, good enough for picking arguments */
static inline uint64_t st_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/*
 * st_trace_debugfs - "records written" and "records lost by readers" of
 * the module's debugfs trace file, and its reader count; 0 or -errno
 */
static inline int st_trace_debugfs(uint64_t *written, uint64_t *lost,
				   int *readers)
{
	char line[256];
	int found = 0;
	FILE *f = fopen(ST_DEBUGFS_TRACE, "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		int r;

		if (sscanf(line, "records written %llu", &v) == 1) {
			*written = v;
			found |= 1;
		} else if (sscanf(line, "records lost by readers %llu", &v) == 1) {
			*lost = v;
			found |= 2;
		} else if (sscanf(line, "readers %d", &r) == 1) {
			if (readers)
				*readers = r;
			found |= 4;
		}
	}
	fclose(f);
	return found == 7 ? 0 : -EPROTO;
}

/* st_threshold - set family @fam's outlier threshold through the ioctl */
static inline int st_threshold(int fd, uint32_t fam, uint64_t ns)
{
	struct gpulat_threshold_req r = {
		.size = sizeof(r), .flags = GPULAT_THRESHOLD_SET,
		.family = fam, .threshold_ns = ns,
	};

	return ioctl(fd, GPULAT_IOC_THRESHOLD, &r) ? -errno : 0;
}

/* st_get_threshold - family @fam's outlier threshold, or -errno */
static inline int st_get_threshold(int fd, uint32_t fam, uint64_t *ns)
{
	struct gpulat_threshold_req r = {
		.size = sizeof(r), .family = fam,
	};

	if (ioctl(fd, GPULAT_IOC_THRESHOLD, &r))
		return -errno;
	*ns = r.threshold_ns;
	return 0;
}

#endif /* _GPULAT_STRESS_H */
