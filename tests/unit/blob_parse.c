// SPDX-License-Identifier: GPL-2.0
/* Parsing test blobs with libgpulat. */
#include <stdio.h>
#include <stdlib.h>

#include "blob.h"
#include "lib/gpulat_user.h"

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

int blob_parse_err(const void *buf, size_t len, char *err, size_t errlen)
{
	struct gl_snapshot *s = (void *)1;
	int ret;

	err[0] = '\0';
	ret = gl_snapshot_parse(buf, len, &s, err, errlen);
	if (!ret)
		gl_snapshot_free(s);
	else if (s)
		return -1000;	/* *out must be NULL on failure */
	return ret;
}

int blob_round_trip(const void *buf, size_t len, char *path,
		    struct gl_snapshot **out, char *err, size_t errlen)
{
	struct gl_snapshot *s;
	int fd, ret;
	FILE *f;

	if (gl_snapshot_parse(buf, len, &s, err, errlen))
		return -1;
	fd = mkstemp(path);
	f = fd < 0 ? NULL : fdopen(fd, "wb");
	ret = f ? gl_snapshot_write(s, f) : -1;
	if (f && fclose(f))
		ret = -1;
	gl_snapshot_free(s);
	if (ret)
		return -1;
	return gl_snapshot_read(path, out, err, errlen) ? -1 : 0;
}
