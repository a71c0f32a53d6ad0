// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: how to load the module, said from where the user stands:
 * modprobe when it is installed for the running kernel, insmod of the one
 * built in the tree this tool was built in, else how to build and install
 * it.  Files are read below $GPULAT_SYSROOT when set (as gpulat report and
 * diagnose do), so that tests can fake /proc and /lib/modules.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/libinternal.h"

/* Largest module file searched for its vermagic (debug info included). */
#define HINT_KO_MAX	(256u << 20)

/* The names make install, kbuild and dkms give the module (compressed). */
static const char *const hint_names[] = {
	"gpulat.ko", "gpulat.ko.xz", "gpulat.ko.zst", "gpulat.ko.gz",
};

/* hint_release - release of the running kernel, as modprobe sees it */
static void hint_release(const char *root, char *rel, size_t len)
{
	char path[PATH_MAX];
	struct utsname u;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/sys/kernel/osrelease", root);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(rel, len, f))
			rel[0] = '\0';
		fclose(f);
		rel[strcspn(rel, "\n")] = '\0';
		if (rel[0])
			return;
	}
	snprintf(rel, len, "%s", uname(&u) ? "?" : u.release);
}

/* hint_is_module - whether the last component of @path[0..@n) is ours */
static bool hint_is_module(const char *path, size_t n)
{
	const char *base = memrchr(path, '/', n);
	size_t i, blen;

	base = base ? base + 1 : path;
	blen = path + n - base;
	for (i = 0; i < ARRAY_SIZE(hint_names); i++)
		if (blen == strlen(hint_names[i]) &&
		    !memcmp(base, hint_names[i], blen))
			return true;
	return false;
}

/* hint_indexed - whether depmod listed gpulat for @rel: modprobe finds it */
static bool hint_indexed(const char *root, const char *rel)
{
	char path[PATH_MAX], *line = NULL, *colon;
	bool found = false;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/lib/modules/%s/modules.dep", root,
		 rel);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && (n = getline(&line, &cap, f)) > 0) {
		colon = memchr(line, ':', n);
		found = colon && hint_is_module(line, colon - line);
	}
	free(line);
	fclose(f);
	return found;
}

/*
 * hint_unindexed - whether a gpulat.ko* lies where make install and dkms
 * put it but depmod has not run since (modprobe would not find it)
 */
static bool hint_unindexed(const char *root, const char *rel)
{
	static const char *const dirs[] = { "updates", "updates/dkms", "extra" };
	char path[PATH_MAX];
	size_t d, i;

	for (d = 0; d < ARRAY_SIZE(dirs); d++)
		for (i = 0; i < ARRAY_SIZE(hint_names); i++) {
			snprintf(path, sizeof(path), "%s/lib/modules/%s/%s/%s",
				 root, rel, dirs[d], hint_names[i]);
			if (!access(path, F_OK))
				return true;
		}
	return false;
}

/*
 * hint_built - kmod/gpulat.ko of the tree this tool was built in
 * (build/user/gpulat sits three levels below its top) into @ko, the top
 * into @top; false when there is none
 */
static bool hint_built(const char *root, char *top, size_t toplen, char *ko,
		       size_t kolen)
{
	char path[PATH_MAX], exe[PATH_MAX], *slash;
	ssize_t n;
	int i;

	snprintf(path, sizeof(path), "%s/proc/self/exe", root);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	for (i = 0; i < 3; i++) {
		slash = strrchr(exe, '/');
		if (!slash)
			return false;
		*slash = '\0';
	}
	snprintf(top, toplen, "%s", exe[0] ? exe : "/");
	if (snprintf(ko, kolen, "%s/kmod/gpulat.ko", exe) >= (int)kolen ||
	    snprintf(path, sizeof(path), "%s%s", root, ko) >= (int)sizeof(path))
		return false;
	return !access(path, F_OK);
}

/* hint_vermagic - the kernel release @path was built for, "" if unknown */
static void hint_vermagic(const char *path, char *out, size_t len)
{
	static const char key[] = "vermagic=";
	char *buf = NULL, *p;
	struct stat st;
	size_t got = 0;
	ssize_t n;
	int fd;

	out[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || st.st_size <= 0 || st.st_size > HINT_KO_MAX)
		goto out;
	buf = malloc(st.st_size + 1);
	if (!buf)
		goto out;
	while (got < (size_t)st.st_size &&
	       (n = read(fd, buf + got, st.st_size - got)) > 0)
		got += n;
	buf[got] = '\0';
	/* .modinfo: "vermagic=RELEASE SMP preempt ..." */
	p = memmem(buf, got, key, sizeof(key) - 1);
	if (p) {
		p += sizeof(key) - 1;
		snprintf(out, len, "%.*s", (int)strcspn(p, " "), p);
	}
out:
	free(buf);
	close(fd);
}

/*
 * gl_load_hint - how to load the module from here, for the "not loaded"
 * message: "load it with 'modprobe gpulat'" and the like
 */
void gl_load_hint(char *buf, size_t len)
{
	char rel[256], built[256], top[PATH_MAX], ko[PATH_MAX + 16];
	char path[2 * PATH_MAX];
	const char *root = getenv("GPULAT_SYSROOT");

	if (!root)
		root = "";
	hint_release(root, rel, sizeof(rel));
	if (hint_indexed(root, rel)) {
		snprintf(buf, len, "load it with 'modprobe gpulat'");
		return;
	}
	if (hint_unindexed(root, rel)) {
		snprintf(buf, len, "load it with 'depmod -a && modprobe gpulat'");
		return;
	}
	if (hint_built(root, top, sizeof(top), ko, sizeof(ko))) {
		snprintf(path, sizeof(path), "%s%s", root, ko);
		hint_vermagic(path, built, sizeof(built));
		if (!built[0] || !strcmp(built, rel))
			snprintf(buf, len, "load it with 'insmod %s'", ko);
		else
			snprintf(buf, len,
				 "%s is built for kernel %s, this one is %s: rebuild it with 'make -C %s', then 'insmod %s'",
				 ko, built, rel, top, ko);
		return;
	}
	snprintf(buf, len,
		 "it is not installed for this kernel (%s): run 'make && make install' in the gpulat source tree, then 'modprobe gpulat'",
		 rel);
}
