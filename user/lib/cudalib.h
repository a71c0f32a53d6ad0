/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CUDA driver library a host's GPU jobs load, and where the cuda
 * family's functions (kmod/gpulat_cuda.h) lie in it: what both sources'
 * uprobes are placed at.
 */
#ifndef _GPULAT_USER_CUDALIB_H
#define _GPULAT_USER_CUDALIB_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi/gpulat.h"

struct gl_cudalib {
	char path[PATH_MAX];		/* the file, links resolved */
	uint64_t offset[GPULAT_CUDA_FN_MAX];	/* 0: the library lacks it */
	unsigned int nr;		/* functions found */
};

/* gl_cuda_fn_name - gpulat_cuda.h's function @i, or NULL past the end */
const char *gl_cuda_fn_name(unsigned int i);

/*
 * gl_cudalib_find - the path of libcuda.so.1: $GPULAT_LIBCUDA when set,
 * else the first found in the dynamic linker's directories
 * (/etc/ld.so.conf.d/, then the distributions' own), below
 * $GPULAT_SYSROOT when set; 0, or -ENOENT when the host has none, or
 * -errno, with the reason in @why
 */
int gl_cudalib_find(char *path, size_t size, char *why, size_t len);

/*
 * gl_cudalib_resolve - @lib for the library @path (NULL: gl_cudalib_find's):
 * its real path and each function's file offset; 0, or -errno with the
 * reason in @why (-ENOENT: none; -ENOEXEC: none of the functions)
 */
int gl_cudalib_resolve(struct gl_cudalib *lib, const char *path, char *why,
		       size_t len);

/*
 * gl_ldconf_next - the next folder an ld.so.conf file's text lists (a
 * line starting with '/', up to a blank or '#'), into @dir (@len bytes);
 * 1, with *@text past its line, or 0 at the end.  include lines, and
 * folders too long for @dir, are skipped.
 */
int gl_ldconf_next(const char **text, char *dir, size_t len);

#endif /* _GPULAT_USER_CUDALIB_H */
