// SPDX-License-Identifier: GPL-2.0
/* A cgroup as trace and diagnose print it: path, container, pod, unit. */
#include <string.h>

#include "engine/cgview/cgview.h"
#include "lib/units.h"

/* cg_describe - see cgroup_desc.h */
void cg_describe(struct cg_desc *d, uint64_t id, pid_t pid)
{
	memset(d, 0, sizeof(*d));
	d->id = id;
	d->name.uid = -1;
	if (!id || !gl_cg_path(id, d->path, sizeof(d->path))) {
		d->path[0] = '\0';
		return;
	}
	gl_cg_name_path(d->path, &d->name);
	/* hybrid: the v2 tree may show no container where v1 does */
	if (pid > 0 && !gl_cg_is_container(d->name.kind) && gl_cg_hybrid()) {
		struct gl_cg_name v1;

		if (gl_cg_name_v1("/proc", pid, d->path, &v1) != GL_CG_NONE)
			d->name = v1;
	}
}

/* cg_text - see cgroup_desc.h */
const char *cg_text(char *buf, size_t len, const struct cg_desc *d)
{
	char p[PATH_MAX], nm[256];

	if (!d->path[0]) {
		snprintf(buf, len, "cgroup %llu", (unsigned long long)d->id);
		return buf;
	}
	units_printable(p, sizeof(p), d->path);
	if (d->name.kind == GL_CG_NONE)
		snprintf(buf, len, "%s", p);
	else
		snprintf(buf, len, "%s (%s)", p,
			 gl_cg_name_text(nm, sizeof(nm), &d->name));
	return buf;
}

/* cg_json - see cgroup_desc.h */
void cg_json(struct json *j, const char *key, const struct cg_desc *d)
{
	const struct gl_cg_name *n = &d->name;
	char s[GL_CG_SHORT_LEN + 1];

	json_object_begin(j, key);
	json_u64(j, "id", d->id);
	if (d->path[0])
		json_str(j, "path", d->path);
	else
		json_null(j, "path");
	if (n->kind == GL_CG_NONE) {
		json_null(j, "container");
	} else {
		json_object_begin(j, "container");
		json_str(j, "kind", gl_cg_kind_name(n->kind));
		if (n->id[0]) {
			json_str(j, "id", n->id);
			snprintf(s, sizeof(s), "%.*s", GL_CG_SHORT_LEN, n->id);
			json_str(j, "short_id", s);
		}
		if (n->pod[0])
			json_str(j, "pod", n->pod);
		if (n->unit[0])
			json_str(j, "unit", n->unit);
		if (n->uid >= 0)
			json_u64(j, "uid", (uint64_t)n->uid);
		json_object_end(j);
	}
	json_object_end(j);
}
