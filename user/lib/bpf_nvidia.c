// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: the BPF source's nvidia family, what the tool does for it
 * (bpf/nvidia*.bpf.h): before its programs attach, forget the threads it
 * followed, their stamps and the hard IRQ stamps (the module's
 * nv_clear(): no exit program ran while it was off, so a followed pid
 * may be another task's now), move the handler verdicts' generation, and
 * set the handler name prefix; after they attached, bpf_source.c runs
 * its task iterator, which follows the driver's kthreads already there.
 * Neither keys nor Xids are forgotten, as in the module.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "lib/bpf_fam.h"
#include "lib/bpf_int.h"

/* The module's nvidia_pattern default; the BPF source takes a prefix. */
#define BS_NV_PATTERN		"nvidia"
#define BS_NV_PATTERN_ENV	"GPULAT_BPF_NVIDIA_PATTERN"
/* Tests on a host without the driver: user tasks count as kthreads. */
#define BS_NV_USER_TASKS_ENV	"GPULAT_BPF_NVIDIA_TEST_USER_TASKS"

/* Deletes at most while emptying the thread set (it holds 1,024). */
#define BS_NV_DELETES		65536

/* bs_nv_zero_pcpu - zero entry 0 of per-CPU array @fd on every CPU */
static int bs_nv_zero_pcpu(struct gl_bpf *b, int fd)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info), zero = 0;
	void *v;
	int ret = 0;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	/* a per-CPU value is rounded up to 8 bytes per CPU */
	v = calloc(b->ncpus, (info.value_size + 7) & ~7U);
	if (!v)
		return -ENOMEM;
	if (bpf_map_update_elem(fd, &zero, v, BPF_ANY))
		ret = -errno;
	free(v);
	return ret;
}

int gl_bpf_nv_clear(struct gl_bpf *b)
{
	int sfd = gl_bpf_map_fd(b, "gl_nv_state");
	int tfd = gl_bpf_map_fd(b, "gl_nv_set");
	int cfd = gl_bpf_map_fd(b, "gl_nv_cpu");
	const char *pat = getenv(BS_NV_PATTERN_ENV);
	struct gl_bpf_nv_state *st;
	uint32_t zero = 0, gen = 0, pid;
	unsigned int n;
	int ret = 0;

	if (sfd < 0 || tfd < 0 || cfd < 0)
		return -ENOENT;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	/* the generation moves on: every handler is decided again */
	if (!bpf_map_lookup_elem(sfd, &zero, st))
		gen = st->gen + 1;
	memset(st, 0, sizeof(*st));
	st->gen = gen;
	st->user_tasks = !!getenv(BS_NV_USER_TASKS_ENV);
	if (!pat)
		pat = BS_NV_PATTERN;
	st->pattern_len = strnlen(pat, sizeof(st->pattern) - 1);
	memcpy(st->pattern, pat, st->pattern_len);
	if (bpf_map_update_elem(sfd, &zero, st, BPF_ANY))
		ret = -errno;
	free(st);
	/* the first key each time: a walk of a map that changes restarts */
	for (n = 0; n < BS_NV_DELETES; n++)
		if (bpf_map_get_next_key(tfd, NULL, &pid) ||
		    bpf_map_delete_elem(tfd, &pid))
			break;
	if (!ret)
		ret = bs_nv_zero_pcpu(b, cfd);
	return ret;
}
