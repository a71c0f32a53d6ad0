// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz what gpulat reads of cgroups: the first byte picks the parser,
 * the rest is its input.  A mount point found must be a path that the
 * input holds (octal escapes undone); a container named must have an id
 * of 64 hex digits, a user slice a uid; the text of a name must fit.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cgroup.h"

static void check_name(const struct gl_cg_name *n)
{
	char buf[256];
	size_t i;

	if (gl_cg_is_container(n->kind)) {
		if (strlen(n->id) != GL_CG_ID_LEN)
			abort();
		for (i = 0; i < GL_CG_ID_LEN; i++)
			if (!strchr("0123456789abcdef", n->id[i]))
				abort();
	} else if (n->id[0]) {
		abort();
	}
	if (n->kind == GL_CG_USER && n->uid < 0)
		abort();
	if (n->kind == GL_CG_UNIT && !n->unit[0])
		abort();
	if (strlen(gl_cg_name_text(buf, sizeof(buf), n)) >= sizeof(buf))
		abort();
	if ((n->kind == GL_CG_NONE) != !gl_cg_kind_name(n->kind)[0])
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct gl_cg_name n;
	char mp[PATH_MAX], small[16];
	size_t len;
	char *s;

	if (!size)
		return 0;
	len = size - 1;
	s = malloc(len + 1);
	if (!s)
		return 0;
	memcpy(s, data + 1, len);
	s[len] = '\0';
	switch (data[0] % 3) {
	case 0:
		if (!gl_cg_mount_parse(s, len, mp, sizeof(mp)) &&
		    (!mp[0] || strlen(mp) >= sizeof(mp)))
			abort();
		gl_cg_mount_parse(s, len, small, sizeof(small));
		break;
	case 1:
		gl_cg_name_path(s, &n);
		check_name(&n);
		break;
	case 2:
		gl_cg_name_v1_text(s, len, len > 8 ? s + len - 8 : NULL, &n);
		check_name(&n);
		if (n.kind != GL_CG_NONE && !gl_cg_is_container(n.kind))
			abort();	/* v1 lines only name containers */
		break;
	}
	free(s);
	return 0;
}
