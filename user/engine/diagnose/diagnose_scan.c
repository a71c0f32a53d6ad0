// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: /proc scanned through the watch, not only at its ends.
 * A process that starts and exits inside the watch (a copy job, a burst
 * of work) used CPU time and moved bytes that two scans around it never
 * see.  Every second the threads' counters are read again, and each
 * thread's growth since the scan before is added to what it used: a
 * thread gone keeps what it used until its last scan.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/diagnose/diagnose_int.h"

#define DIAG_SCAN_NS	1000000000ULL	/* a scan a second */

static uint64_t diag_scan_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int diag_task_cmp(const void *a, const void *b)
{
	const struct diag_task *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/*
 * diag_scan_add - @d (growth since the last scan, sorted nowhere) into
 * @s->used (sorted by thread and process): added where the thread is,
 * appended and the whole sorted again where it is new
 */
static int diag_scan_add(struct diag_scan *s, const struct diag_tasks *d)
{
	struct diag_tasks *u = &s->used;
	size_t i, n = u->n;
	struct diag_task *e, *v;

	for (i = 0; i < d->n; i++) {
		e = n ? bsearch(&d->v[i], u->v, n, sizeof(*e), diag_task_cmp) :
			NULL;
		if (e) {
			e->cpu_ns += d->v[i].cpu_ns;
			e->io_bytes += d->v[i].io_bytes;
			e->cpu = d->v[i].cpu;
			memcpy(e->comm, d->v[i].comm, sizeof(e->comm));
			continue;
		}
		if (u->n == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 256;

			v = realloc(u->v, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			u->v = v;
			s->cap = cap;
		}
		u->v[u->n++] = d->v[i];
	}
	if (u->n != n)
		qsort(u->v, u->n, sizeof(*u->v), diag_task_cmp);
	return 0;
}

/* diag_scan_begin - see diagnose_int.h */
int diag_scan_begin(struct diag_scan *s)
{
	int ret;

	memset(s, 0, sizeof(*s));
	ret = diag_tasks_read(&s->last);
	s->first_ns = s->last.time_ns;
	s->next_ns = diag_scan_now() + DIAG_SCAN_NS;
	s->ok = !ret;
	return ret;
}

/* diag_scan_step - one more scan, its growth added; -ENOMEM, -errno */
static int diag_scan_step(struct diag_scan *s)
{
	struct diag_tasks cur, d;
	int ret;

	ret = diag_tasks_read(&cur);
	if (ret)
		return ret;
	ret = diag_tasks_delta(&s->last, &cur, &d);
	if (!ret)
		ret = diag_scan_add(s, &d);
	diag_tasks_free(&d);
	diag_tasks_free(&s->last);
	s->last = cur;
	return ret;
}

/* diag_scan_tick - see diagnose_int.h */
void diag_scan_tick(void *arg)
{
	struct diag_scan *s = arg;

	if (!s->ok || diag_scan_now() < s->next_ns)
		return;
	s->next_ns = diag_scan_now() + DIAG_SCAN_NS;
	s->ok = !diag_scan_step(s);
}

/* diag_scan_end - see diagnose_int.h */
int diag_scan_end(struct diag_scan *s, struct diag_tasks *used)
{
	int ret = s->ok ? diag_scan_step(s) : -ENODATA;

	if (!ret) {
		*used = s->used;
		used->time_ns = s->last.time_ns;
		used->span_s = s->last.time_ns > s->first_ns ?
			       (s->last.time_ns - s->first_ns) / 1e9 : 0;
		memset(&s->used, 0, sizeof(s->used));
	}
	diag_tasks_free(&s->used);
	diag_tasks_free(&s->last);
	s->ok = false;
	return ret;
}
