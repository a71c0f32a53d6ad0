/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module and the BPF source side by side, for the known-answer tests
 * that hold both sources to one answer (the kernel's own count): each
 * takes its snapshots at the same points of the workload, the module's
 * first.  tests/kernel/cross_cases.h lists which test crosses each family.
 */
#ifndef _GPULAT_BOTH_H
#define _GPULAT_BOTH_H

#include <stdio.h>
#include <string.h>

#include "lib/gpulat_user.h"

enum { BOTH_KMOD, BOTH_BPF, BOTH_MAX };

static const char *const both_name[BOTH_MAX] = { "kmod", "bpf" };

struct both {
	struct gl_source *src[BOTH_MAX];
	/* sources open: 2, or 1 when the BPF source cannot serve the family */
	unsigned int nr;
	char why[384];		/* why not, when nr is 1 */
};

/*
 * both_serves - whether @src has probes of @fam and all of them attached
 * or missing on this kernel (a failed one is a bug: the test says so)
 */
static inline bool both_serves(struct gl_source *src, uint32_t fam,
			       char *why, size_t len)
{
	struct gl_snapshot *s = NULL;
	unsigned int nr = 0, attached = 0, failed = 0;
	char err[128];
	size_t i;

	if (gl_source_snapshot(src, &s, err, sizeof(err))) {
		snprintf(why, len, "BPF snapshot: %s", err);
		return false;
	}
	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		const struct gpulat_probe *p = gl_snapshot_probe(s, i);

		if (p->family != fam)
			continue;
		nr++;
		attached += p->state == GPULAT_PROBE_ATTACHED;
		failed += p->state == GPULAT_PROBE_FAILED;
	}
	gl_snapshot_free(s);
	if (!attached || failed)
		snprintf(why, len, "BPF family %s: %u probes, %u attached, %u failed",
			 gl_family_name(fam), nr, attached, failed);
	return attached && !failed;
}

/*
 * both_open - the module, and the BPF source loaded beside it, each with
 * @fam switched on; 0, or -errno with the reason in @why when either
 * could not be opened.  A BPF source that opens but does not serve @fam
 * leaves nr at 1 and says why: the caller decides whether that fails.
 */
static inline int both_open(struct both *b, uint32_t fam)
{
	int i, ret = 0;

	memset(b, 0, sizeof(*b));
	for (i = 0; i < BOTH_MAX; i++) {
		b->src[i] = gl_source_open(i == BOTH_KMOD ? GL_SOURCE_KMOD :
					   GL_SOURCE_BPF, &ret, b->why,
					   sizeof(b->why));
		if (!b->src[i])
			return ret ? ret : -ENOENT;
		ret = gl_source_family_switch(b->src[i], fam, true);
		if (ret) {
			snprintf(b->why, sizeof(b->why), "%s: switching %s on: %s",
				 both_name[i], gl_family_name(fam),
				 strerror(-ret));
			return ret;
		}
	}
	b->nr = both_serves(b->src[BOTH_BPF], fam, b->why, sizeof(b->why)) ?
		BOTH_MAX : 1;
	return 0;
}

/* both_snapshot - a snapshot of each source open, the module's first */
static inline int both_snapshot(struct both *b,
				struct gl_snapshot *s[BOTH_MAX])
{
	char err[256];
	unsigned int i;
	int ret;

	for (i = 0; i < b->nr; i++) {
		ret = gl_source_snapshot(b->src[i], &s[i], err, sizeof(err));
		if (ret) {
			fprintf(stderr, "# %s snapshot: %s\n", both_name[i], err);
			return ret;
		}
	}
	return 0;
}

static inline void both_free(struct gl_snapshot *s[BOTH_MAX])
{
	int i;

	for (i = 0; i < BOTH_MAX; i++) {
		gl_snapshot_free(s[i]);
		s[i] = NULL;
	}
}

static inline void both_close(struct both *b)
{
	int i;

	for (i = 0; i < BOTH_MAX; i++)
		gl_source_close(b->src[i]);
	memset(b, 0, sizeof(*b));
}

#endif /* _GPULAT_BOTH_H */
