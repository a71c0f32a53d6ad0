// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat drill: the cleanup stack.  Everything a drill makes (a device, a
 * namespace, a link, a child) is pushed here the moment it exists, and
 * undone in reverse order whatever happens after: a failed step, a
 * signal (the handler only sets a flag), the end of the run.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>

#include "engine/drill/drill.h"

static struct drill_undo *drill_slot(struct drill_stack *s)
{
	struct drill_undo *u;

	if (s->n >= DRILL_MAX_UNDO)
		return NULL;
	u = &s->v[s->n++];
	memset(u, 0, sizeof(*u));
	return u;
}

struct drill_undo *drill_push(struct drill_stack *s, int (*fn)(struct drill_undo *),
			      const char *arg, const char *fmt, ...)
{
	struct drill_undo *u = drill_slot(s);
	va_list ap;

	if (!u)
		return NULL;
	u->fn = fn;
	snprintf(u->arg, sizeof(u->arg), "%s", arg ? arg : "");
	va_start(ap, fmt);
	vsnprintf(u->what, sizeof(u->what), fmt, ap);
	va_end(ap);
	return u;
}

int drill_undo_child(struct drill_undo *u)
{
	int status;
	pid_t r;

	if (u->pid <= 0)
		return 0;
	if (kill(u->pid, SIGKILL) && errno != ESRCH)
		return -errno;
	do
		r = waitpid(u->pid, &status, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno != ECHILD)
		return -errno;
	u->pid = 0;
	return 0;
}

struct drill_undo *drill_push_child(struct drill_stack *s, pid_t pid,
				    bool workload, const char *fmt, ...)
{
	struct drill_undo *u = drill_slot(s);
	va_list ap;

	if (!u)
		return NULL;
	u->fn = drill_undo_child;
	u->pid = pid;
	u->workload = workload;
	va_start(ap, fmt);
	vsnprintf(u->what, sizeof(u->what), fmt, ap);
	va_end(ap);
	return u;
}

void drill_unwind(struct drill_stack *s, bool workload_only)
{
	struct drill_undo *u;
	size_t i;

	for (i = s->n; i-- > 0;) {
		u = &s->v[i];
		if (u->done || (workload_only && !u->workload))
			continue;
		u->ret = u->fn ? u->fn(u) : 0;
		u->done = true;
	}
}

bool drill_restored(const struct drill_stack *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!s->v[i].done || s->v[i].ret)
			return false;
	return true;
}
