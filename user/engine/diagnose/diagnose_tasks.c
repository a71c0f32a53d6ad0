// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose: the collector of CPU time and storage I/O.  Every
 * thread of /proc (under $GPULAT_SYSROOT when set) with the CPU time it
 * used so far and the bytes it read from and wrote to storage, and the
 * difference between two such scans.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/diagnose/diagnose_int.h"

/* diag_root - the folder read in place of / ($GPULAT_SYSROOT), or "" */
const char *diag_root(void)
{
	const char *root = getenv("GPULAT_SYSROOT");

	return root ? root : "";
}

/* diag_read_file - see diagnose_int.h */
int diag_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* diag_task_parse - see diagnose.h */
int diag_task_parse(const char *buf, struct diag_task *t, long hz)
{
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	unsigned long long utime = 0, stime = 0, v;
	const char *p;
	size_t n;
	int field;

	if (!open || !close || close < open || close[1] != ' ')
		return -EINVAL;
	n = close - open - 1;
	if (n >= sizeof(t->comm))
		n = sizeof(t->comm) - 1;
	memcpy(t->comm, open + 1, n);
	t->comm[n] = '\0';
	/* field 3 (state) follows ") "; utime 14, stime 15, processor 39 */
	p = close + 2;
	for (field = 3; *p && field <= 39; field++) {
		char *end;

		if (field > 3) {
			v = strtoull(p, &end, 10);
			if (end == p)
				return -EINVAL;
			if (field == 14)
				utime = v;
			else if (field == 15)
				stime = v;
			else if (field == 39)
				t->cpu = (uint32_t)v;
			p = end;
		} else {
			p += strcspn(p, " ");
		}
		while (*p == ' ')
			p++;
	}
	if (field <= 39)
		return -EINVAL;
	t->cpu_ns = (utime + stime) * (1000000000ULL / (unsigned long long)hz);
	return 0;
}

/* diag_io_parse - see diagnose.h */
uint64_t diag_io_parse(const char *buf)
{
	unsigned long long v;
	uint64_t sum = 0;
	const char *p;

	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if ((!strncmp(p, "read_bytes: ", 12) ||
		     !strncmp(p, "write_bytes: ", 13)) &&
		    sscanf(strchr(p, ' '), "%llu", &v) == 1)
			sum = sum > UINT64_MAX - v ? UINT64_MAX : sum + v;
	return sum;
}

/*
 * diag_task_io - the bytes thread @tid of @pid read from and wrote to
 * storage so far (0 when unreadable: another user's, without root)
 */
static uint64_t diag_task_io(const char *root, long pid, long tid)
{
	char path[PATH_MAX], buf[512];

	snprintf(path, sizeof(path), "%s/proc/%ld/task/%ld/io", root, pid, tid);
	return diag_read_file(path, buf, sizeof(buf)) ? 0 : diag_io_parse(buf);
}

/* diag_tasks_push - room for one more task; NULL on ENOMEM */
static struct diag_task *diag_tasks_push(struct diag_tasks *t, size_t *cap)
{
	if (t->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 256;
		struct diag_task *v = realloc(t->v, ncap * sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		*cap = ncap;
	}
	return &t->v[t->n++];
}

static uint64_t diag_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* diag_tasks_read - see diagnose.h */
int diag_tasks_read(struct diag_tasks *t)
{
	long hz = sysconf(_SC_CLK_TCK);
	const char *root = diag_root();
	struct dirent *pe, *te;
	uint64_t t0 = diag_now_ns();
	char path[PATH_MAX];
	size_t cap = 0;
	DIR *proc;

	memset(t, 0, sizeof(*t));
	if (hz <= 0)
		hz = 100;
	snprintf(path, sizeof(path), "%s/proc", root);
	proc = opendir(path);
	if (!proc)
		return -errno;
	while ((pe = readdir(proc))) {
		DIR *task;
		long pid = strtol(pe->d_name, NULL, 10);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/proc/%ld/task", root, pid);
		task = opendir(path);
		if (!task)
			continue;	/* it exited */
		while ((te = readdir(task))) {
			long tid = strtol(te->d_name, NULL, 10);
			char sp[PATH_MAX], buf[1024];
			struct diag_task *e;
			ssize_t n;
			int fd;

			if (tid <= 0)
				continue;
			snprintf(sp, sizeof(sp), "%s/proc/%ld/task/%ld/stat",
				 root, pid, tid);
			fd = open(sp, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n <= 0)
				continue;
			buf[n] = '\0';
			e = diag_tasks_push(t, &cap);
			if (!e) {
				closedir(task);
				closedir(proc);
				diag_tasks_free(t);
				return -ENOMEM;
			}
			memset(e, 0, sizeof(*e));
			e->pid = (int32_t)tid;
			e->tgid = (int32_t)pid;
			if (diag_task_parse(buf, e, hz))
				t->n--;
			else
				e->io_bytes = diag_task_io(root, pid, tid);
		}
		closedir(task);
	}
	closedir(proc);
	/* the scan takes a while on a big host: its middle stands for it */
	t->time_ns = t0 + (diag_now_ns() - t0) / 2;
	return 0;
}

static int diag_task_pid_cmp(const void *a, const void *b)
{
	const struct diag_task *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* diag_tasks_delta - see diagnose.h: @before sorted by thread, searched */
int diag_tasks_delta(const struct diag_tasks *before,
		     const struct diag_tasks *after, struct diag_tasks *out)
{
	struct diag_task *sorted;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->v = calloc(after->n ? after->n : 1, sizeof(*out->v));
	sorted = malloc((before->n ? before->n : 1) * sizeof(*sorted));
	if (!out->v || !sorted) {
		free(out->v);
		free(sorted);
		out->v = NULL;
		return -ENOMEM;
	}
	if (before->n)
		memcpy(sorted, before->v, before->n * sizeof(*sorted));
	qsort(sorted, before->n, sizeof(*sorted), diag_task_pid_cmp);
	for (i = 0; i < after->n; i++) {
		const struct diag_task *a = &after->v[i], *b;
		struct diag_task *d = &out->v[out->n++];
		uint64_t prev = 0, prev_io = 0;

		*d = *a;
		b = before->n ? bsearch(a, sorted, before->n, sizeof(*sorted),
					diag_task_pid_cmp) : NULL;
		/* the same thread: a reused id has another process */
		if (b && b->tgid == a->tgid && b->cpu_ns <= a->cpu_ns)
			prev = b->cpu_ns;
		if (b && b->tgid == a->tgid && b->io_bytes <= a->io_bytes)
			prev_io = b->io_bytes;
		d->cpu_ns = a->cpu_ns - prev;
		d->io_bytes = a->io_bytes - prev_io;
	}
	free(sorted);
	if (before->time_ns && after->time_ns > before->time_ns)
		out->span_s = (after->time_ns - before->time_ns) / 1e9;
	return 0;
}

void diag_tasks_free(struct diag_tasks *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
