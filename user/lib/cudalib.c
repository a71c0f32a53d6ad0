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

static int try_dir(const char *dir, char *path, size_t size)
{
	struct stat st;
	int n = snprintf(path, size, "%s/%s", dir, GPULAT_CUDA_LIB);

	return n > 0 && (size_t)n < size && !stat(path, &st) &&
	       S_ISREG(st.st_mode);
}

/* the absolute directories listed in one ld.so.conf file */
static int try_conf(const char *file, char *path, size_t size)
{
	char line[512];
	FILE *f = fopen(file, "re");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t\r\n#")] = '\0';
		if (line[0] == '/')
			found = try_dir(line, path, size);
	}
	fclose(f);
	return found;
}

static int conf_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int try_conf_dir(char *path, size_t size)
{
	struct dirent **ents;
	char file[PATH_MAX];
	int n, i, found = 0;

	n = scandir("/etc/ld.so.conf.d", &ents, NULL, conf_cmp);
	for (i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);

		if (!found && l > 5 && !strcmp(ents[i]->d_name + l - 5, ".conf") &&
		    snprintf(file, sizeof(file), "/etc/ld.so.conf.d/%s",
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
