// SPDX-License-Identifier: GPL-2.0
/* blob_parse - build a test blob and parse it with libgpulat */
#include <stdio.h>
#include <stdlib.h>

#include "blob.h"
#include "gpulat_user.h"

struct gl_snapshot *blob_parse(const struct blob *b)
{
	struct gl_snapshot *s = NULL;
	char err[256];
	size_t len;
	void *buf;

	buf = blob_build(b, &len);
	if (gl_snapshot_parse(buf, len, &s, err, sizeof(err)))
		fprintf(stderr, "# parse: %s\n", err);
	free(buf);
	return s;
}
