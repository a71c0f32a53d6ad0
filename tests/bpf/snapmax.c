// SPDX-License-Identifier: GPL-2.0
/*
 * snapmax - a long-lived reader's keyed maxima against a fresh reader's,
 * on the pinned BPF source: the snapshot keeps a key's maxima while its
 * count stands (bpf_snap.c), so a reader that lives through new samples
 * and resets must still give what one that reads them all now gives.
 *
 *   snapmax ROUNDS STOPFILE
 *
 * Each round: a snapshot from the long-lived source, one from a source
 * opened for it; every keyed series (cpu GPULAT_CPU_NONE) in both with
 * the same count must have the same max.  Round ROUNDS/2 resets first.
 * Prints "compared N changed M differ D" (M: series whose max moved
 * between rounds in the long-lived reader) and exits 1 on a difference.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/gpulat_user.h"
#include "lib/source.h"

static const struct gpulat_series *find(const struct gl_snapshot *s,
					const struct gpulat_series *a)
{
	size_t i, n = gl_snapshot_nr_series(s);

	for (i = 0; i < n; i++) {
		const struct gpulat_series *b = gl_snapshot_series(s, i);

		if (b->family == a->family && b->id == a->id &&
		    b->key == a->key && b->cpu == a->cpu)
			return b;
	}
	return NULL;
}

static struct gl_snapshot *snap(struct gl_source *src)
{
	struct gl_snapshot *s = NULL;
	char err[256];

	if (gl_source_snapshot(src, &s, err, sizeof(err))) {
		fprintf(stderr, "snapmax: %s\n", err);
		exit(2);
	}
	return s;
}

int main(int argc, char **argv)
{
	struct gl_snapshot *prev = NULL, *a, *b;
	unsigned long compared = 0, changed = 0, differ = 0;
	struct gl_source *live, *fresh;
	const struct gpulat_series *sa, *sb, *sp;
	int rounds, r, ret;
	char err[256];
	size_t i;

	if (argc != 3 || (rounds = atoi(argv[1])) < 2) {
		fprintf(stderr, "usage: snapmax ROUNDS STOPFILE\n");
		return 2;
	}
	live = gl_source_open(GL_SOURCE_PINNED, &ret, err, sizeof(err));
	if (!live) {
		fprintf(stderr, "snapmax: %s\n", err);
		return 2;
	}
	for (r = 0; r < rounds; r++) {
		if (r == rounds / 2 && gl_source_reset(live)) {
			fprintf(stderr, "snapmax: reset failed\n");
			return 2;
		}
		a = snap(live);
		fresh = gl_source_open(GL_SOURCE_PINNED, &ret, err,
				       sizeof(err));
		if (!fresh) {
			fprintf(stderr, "snapmax: %s\n", err);
			return 2;
		}
		b = snap(fresh);
		gl_source_close(fresh);
		for (i = 0; i < gl_snapshot_nr_series(a); i++) {
			sa = gl_snapshot_series(a, i);
			if (sa->cpu != GPULAT_CPU_NONE || !sa->count)
				continue;
			sb = find(b, sa);
			if (!sb || sb->count != sa->count)
				continue;
			compared++;
			if (sb->max_ns != sa->max_ns) {
				differ++;
				printf("# %s %s: count %" PRIu64 " max %" PRIu64
				       ", a fresh reader's %" PRIu64 "\n",
				       sa->name, sa->key_name, sa->count,
				       sa->max_ns, sb->max_ns);
			}
			sp = prev ? find(prev, sa) : NULL;
			if (sp && sp->max_ns != sa->max_ns)
				changed++;
		}
		gl_snapshot_free(b);
		gl_snapshot_free(prev);
		prev = a;
		if (!access(argv[2], F_OK))
			break;
		usleep(200000);
	}
	gl_snapshot_free(prev);
	gl_source_close(live);
	printf("compared %lu changed %lu differ %lu\n", compared, changed,
	       differ);
	return differ ? 1 : 0;
}
