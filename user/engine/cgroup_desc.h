/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cgroup as trace and diagnose print it: its path from the mount and
 * the container, pod or unit the path (or on a hybrid host the task's v1
 * lines) shows.
 */
#ifndef _GPULAT_USER_CGROUP_DESC_H
#define _GPULAT_USER_CGROUP_DESC_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cgroup.h"
#include "json.h"

struct cg_desc {
	uint64_t id;		/* 0: unknown */
	char path[PATH_MAX];	/* "" if not found on this host */
	struct gl_cg_name name;
};

/*
 * cg_describe - @id's path and name; @pid > 0: on a hybrid host, when the
 * path names no container and the task lives in it still, its v1 lines
 */
void cg_describe(struct cg_desc *d, uint64_t id, pid_t pid);
/* cg_text - "/a/b (docker 0123456789ab)", "/a/b", "cgroup 4242" */
const char *cg_text(char *buf, size_t len, const struct cg_desc *d);
/*
 * cg_json - @key: {"id":N,"path":"/a"|null,"container":{...}|null}; the
 * container object: kind, id, short_id, pod, unit, uid (those known)
 */
void cg_json(struct json *j, const char *key, const struct cg_desc *d);

#endif /* _GPULAT_USER_CGROUP_DESC_H */
