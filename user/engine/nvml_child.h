/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat report: NVML asked in a child process.  nvmlInit and the queries
 * can block for a long time on a GPU that fell off the bus, or crash
 * inside the vendor library; the child's answer (a header, then the text
 * of nvml.txt, on a pipe) is awaited for a while, then the child killed.
 */
#ifndef _GPULAT_USER_NVML_CHILD_H
#define _GPULAT_USER_NVML_CHILD_H

#include <stdbool.h>
#include <stddef.h>

/* How long the child gets by default ($GPULAT_NVML_TIMEOUT overrides). */
#define NVML_CHILD_SECONDS	10.0

/* What the child answered. */
struct nvml_answer {
	bool present;		/* NVML answered nvmlInit */
	char absent[512];	/* why not, when !present */
	char *text;		/* nvml.txt as nvml_print_text() wrote it; free() */
};

/* nvml_child_timeout - $GPULAT_NVML_TIMEOUT seconds (0 < s <= 3600), else the default */
double nvml_child_timeout(void);
/*
 * nvml_child_ask - NVML's answer from a child process, within @timeout_s:
 * 0 with @a filled, or -errno (-ETIMEDOUT: no answer in time, -EIO: the
 * child ended or crashed first, -EPROTO: it sent garbage) with why not
 * in @why
 */
int nvml_child_ask(double timeout_s, struct nvml_answer *a, char *why,
		   size_t whylen);

/*
 * nvml_close_fds - in a child about to call NVML: close every descriptor
 * above 2 but @keep, so that a child stuck in the driver holds none of
 * the parent's (the device, a report's files)
 */
void nvml_close_fds(int keep);

#endif /* _GPULAT_USER_NVML_CHILD_H */
