// SPDX-License-Identifier: GPL-2.0
/*
 * On a hybrid host (v1 controllers beside the unified hierarchy) the
 * limits of a task live in its v1 controllers' directories, not in its
 * cgroup2 one: /proc/PID/cgroup says where.  Read there, bounded.
 */
#include <stdio.h>
#include <string.h>

#include "lib/cgroup.h"

/* whether the comma list @list holds @ctrl */
static bool has_ctrl(const char *list, size_t n, const char *ctrl)
{
	size_t c = strlen(ctrl);
	const char *p = list, *end = list + n;

	while (p < end) {
		const char *comma = memchr(p, ',', end - p);
		size_t l = comma ? (size_t)(comma - p) : (size_t)(end - p);

		if (l == c && !memcmp(p, ctrl, c))
			return true;
		p += l + 1;
	}
	return false;
}

/* gl_cg_v1_dir - see cgroup.h */
bool gl_cg_v1_dir(const char *root_proc, const char *root_v1, pid_t pid,
		  const char *ctrl, char *dir, size_t len)
{
	char path[256], line[4096];
	unsigned int lines = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/cgroup", root_proc, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && lines++ < GL_CG_MAX_V1_LINES &&
	       fgets(line, sizeof(line), f)) {
		/* "N:controllers:path" */
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;

		if (!b || b == a + 1)
			continue;	/* the v2 line, or not one */
		b[strcspn(b, "\n")] = '\0';
		if (!has_ctrl(a + 1, b - a - 1, ctrl))
			continue;
		*b = '\0';
		found = snprintf(dir, len, "%s/%s%s", root_v1, a + 1,
				 strcmp(b + 1, "/") ? b + 1 : "") < (int)len;
	}
	fclose(f);
	return found;
}

/* gl_cg_hybrid - see cgroup.h */
bool gl_cg_hybrid(void)
{
	const char *root = gl_cg_root();
	size_t n = root ? strlen(root) : 0;

	return n >= 8 && !strcmp(root + n - 8, "/unified");
}
