// SPDX-License-Identifier: GPL-2.0
/*
 * Finding libcuda.so.1 as the dynamic linker would for a job on this host
 * (not in the tool's own process: loading the driver library would run
 * its constructors), and its functions' offsets (elfsym.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpulat_cuda.h"
#include "lib/array_size.h"
#include "lib/cudalib.h"
#include "lib/elfsym.h"

#define NAME(fn)	fn,
static const char *const fn_names[] = { GPULAT_CUDA_FNS(NAME) };
#undef NAME

_Static_assert(ARRAY_SIZE(fn_names) <= GPULAT_CUDA_FN_MAX,
	       "more functions than struct gpulat_cuda_req holds");

const char *gl_cuda_fn_name(unsigned int i)
{
	return i < ARRAY_SIZE(fn_names) ? fn_names[i] : NULL;
}

/* where distributions and the driver's installer put it */
static const char *const std_dirs[] = {
	"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib",
	"/lib/x86_64-linux-gnu", "/lib64", "/lib",
	"/usr/lib/aarch64-linux-gnu", "/usr/local/nvidia/lib64",
	"/usr/local/nvidia/lib", "/usr/lib/wsl/lib",
};

/* GPULAT_SYSROOT: the folder read in place of / (the tests' fake roots) */
static const char *sysroot(void)
{
	const char *root = getenv("GPULAT_SYSROOT");

	return root ? root : "";
}

static int try_dir(const char *dir, char *path, size_t size)
{
	struct stat st;
	int n = snprintf(path, size, "%s%s/%s", sysroot(), dir,
			 GPULAT_CUDA_LIB);

	return n > 0 && (size_t)n < size && !stat(path, &st) &&
	       S_ISREG(st.st_mode);
}

int gl_ldconf_next(const char **text, char *dir, size_t len)
{
	const char *p = *text;

	while (*p) {
		const char *line = p, *end = p + strcspn(p, "\n");
		size_t n = strcspn(line, " \t\r\n#");

		p = *end ? end + 1 : end;
		/* an absolute folder; include lines and the rest skipped */
		if (line[0] == '/' && n < len) {
			memcpy(dir, line, n);
			dir[n] = '\0';
			*text = p;
			return 1;
		}
	}
	*text = p;
	return 0;
}

/* the folders one ld.so.conf file lists, in order */
static int try_conf(const char *file, char *path, size_t size)
{
	char text[8192], dir[PATH_MAX];
	const char *t = text;
	FILE *f = fopen(file, "re");
	size_t n;

	if (!f)
		return 0;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	while (gl_ldconf_next(&t, dir, sizeof(dir)))
		if (try_dir(dir, path, size))
			return 1;
	return 0;
}

static int conf_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int try_conf_dir(char *path, size_t size)
{
	char dirname[PATH_MAX], file[PATH_MAX];
	struct dirent **ents;
	int n, i, found = 0;

	snprintf(dirname, sizeof(dirname), "%s/etc/ld.so.conf.d", sysroot());
	n = scandir(dirname, &ents, NULL, conf_cmp);
	for (i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);

		if (!found && l > 5 && !strcmp(ents[i]->d_name + l - 5, ".conf") &&
		    snprintf(file, sizeof(file), "%s/%s", dirname,
			     ents[i]->d_name) < (int)sizeof(file))
			found = try_conf(file, path, size);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	return found;
}

int gl_cudalib_find(char *path, size_t size, char *why, size_t len)
{
	const char *env = getenv("GPULAT_LIBCUDA");
	unsigned int i;

	if (env && *env) {
		if ((size_t)snprintf(path, size, "%s", env) >= size) {
			snprintf(why, len, "GPULAT_LIBCUDA: path too long");
			return -ENAMETOOLONG;
		}
		if (access(path, R_OK)) {
			int err = errno;

			snprintf(why, len, "GPULAT_LIBCUDA=%s: %s", env,
				 strerror(err));
			return -err;
		}
		return 0;
	}
	if (try_conf_dir(path, size))
		return 0;
	for (i = 0; i < ARRAY_SIZE(std_dirs); i++)
		if (try_dir(std_dirs[i], path, size))
			return 0;
	snprintf(why, len, "no %s on this host (no NVIDIA driver library)",
		 GPULAT_CUDA_LIB);
	return -ENOENT;
}

int gl_cudalib_resolve(struct gl_cudalib *lib, const char *path, char *why,
		       size_t len)
{
	char found[PATH_MAX];
	unsigned int i;
	int ret;

	memset(lib, 0, sizeof(*lib));
	if (!path) {
		ret = gl_cudalib_find(found, sizeof(found), why, len);
		if (ret)
			return ret;
		path = found;
	}
	if (!realpath(path, lib->path)) {
		ret = -errno;
		snprintf(why, len, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = gl_elf_sym_offsets(lib->path, fn_names, ARRAY_SIZE(fn_names),
				 lib->offset, why, len);
	if (ret < 0)
		return ret;
	for (i = 0; i < ARRAY_SIZE(fn_names); i++)
		lib->nr += !!lib->offset[i];
	if (!lib->nr) {
		snprintf(why, len, "%s: none of the synchronising calls",
			 lib->path);
		return -ENOEXEC;
	}
	return 0;
}
