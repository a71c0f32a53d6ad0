/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the view tests (test_hist_view.c, test_status.c) share: rendering
 * a view of a snapshot, checks on its text and JSON, and the fixtures of
 * one sched-only and one every-family snapshot.  Include it after
 * kselftest_harness.h.
 */
#ifndef _GPULAT_TEST_VIEWS_H
#define _GPULAT_TEST_VIEWS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blob.h"
#include "cmd/cmd.h"
#include "text.h"

/* has_line - whether @text holds the exact line @line */
static inline bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
		p++;
	}
	return false;
}

/* count_lines - lines of @text that start with @prefix */
static inline int count_lines(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = text;
	int c = 0;

	while (p && *p) {
		if (!strncmp(p, prefix, n))
			c++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return c;
}

enum { VIEW_HIST_TEXT, VIEW_HIST_JSON, VIEW_STATUS_TEXT, VIEW_STATUS_JSON };

/* render - a view of @s into a malloc'd string */
static inline char *render(const struct gl_snapshot *s,
			   const struct view *v, int which)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	switch (which) {
	case VIEW_HIST_TEXT:
		hist_print_text(f, s, v);
		break;
	case VIEW_HIST_JSON:
		hist_print_json(f, s, v);
		break;
	case VIEW_STATUS_TEXT:
		status_print_text(f, s, v);
		break;
	default:
		status_print_json(f, s, v);
	}
	fclose(f);
	return text;
}

/* check_json - run check_json.py on @text; its exit status */
static inline int check_json(const char *text, const char *kind,
			     int want)
{
	char path[] = "/tmp/gpulat-json-XXXXXX", cmd[512], *py;
	int fd, ret;

	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -1;
	close(fd);
	py = getenv("GPULAT_PYTHON");
	snprintf(cmd, sizeof(cmd), "%s tests/unit/check_json.py %s %s %d",
		 py ? py : "python3", kind, path, want);
	ret = system(cmd);
	unlink(path);
	return WIFEXITED(ret) ? WEXITSTATUS(ret) : 128;
}

/* count_str - occurrences of @needle in @hay */
static inline int count_str(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay++;
	}
	return n;
}

/* view: blob_sched() on 4 CPUs, kernel "6.1.0-test" */
FIXTURE(view) {
	struct blob b;
	struct gl_snapshot *s;
	struct view v;
};

FIXTURE_SETUP(view)
{
	blob_sched(&self->b, 4);
	self->s = blob_parse(&self->b);
	memset(&self->v, 0, sizeof(self->v));
	self->v.kernel = "6.1.0-test";
	ASSERT_NE(NULL, self->s);
}

FIXTURE_TEARDOWN(view)
{
	gl_snapshot_free(self->s);
	blob_release(&self->b);
}

/* fam: blob_families(), every family */
FIXTURE(fam) {
	struct blob b;
	struct gl_snapshot *s;
	struct view v;
};

FIXTURE_SETUP(fam)
{
	blob_families(&self->b);
	self->s = blob_parse(&self->b);
	memset(&self->v, 0, sizeof(self->v));
	ASSERT_NE(NULL, self->s);
}

FIXTURE_TEARDOWN(fam)
{
	gl_snapshot_free(self->s);
	blob_release(&self->b);
}

#endif /* _GPULAT_TEST_VIEWS_H */
