// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report: reading /proc and /sys below a root ("" for the running
 * system, a fake tree in the tests).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/report/hostfacts_int.h"

int hf_path(char *buf, size_t len, const char *root,
	    const char *fmt, ...)
{
	size_t n = snprintf(buf, len, "%s", root);
	va_list ap;
	int m;

	if (n >= len)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	return m < 0 || (size_t)m >= len - n ? -ENAMETOOLONG : 0;
}

int hf_read(const char *root, const char *path, char **buf, size_t *len)
{
	size_t alloc = 4096, n = 0;
	char full[PATH_MAX];
	char *b = NULL, *nb;
	ssize_t r;
	int fd, ret;

	*buf = NULL;
	*len = 0;
	ret = hf_path(full, sizeof(full), root, "%s", path);
	if (ret)
		return ret;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (!b || alloc - n < 2) {
			if (b)
				alloc *= 2;
			if (alloc > HF_READ_MAX) {
				ret = -EFBIG;
				break;
			}
			nb = realloc(b, alloc);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			b = nb;
		}
		r = read(fd, b + n, alloc - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			break;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	if (ret) {
		free(b);
		return ret;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* hf_read_line - first line of a small file, without its newline */
int hf_read_line(const char *root, char *out, size_t len,
		 const char *fmt, ...)
{
	char path[PATH_MAX], *b;
	size_t n;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (ret < 0 || (size_t)ret >= sizeof(path))
		return -ENAMETOOLONG;
	ret = hf_read(root, path, &b, &n);
	if (ret)
		return ret;
	b[strcspn(b, "\n")] = '\0';
	snprintf(out, len, "%s", b);
	free(b);
	return 0;
}

int hf_read_int(const char *root, long long *v, const char *fmt,
		const char *arg)
{
	char buf[64], *end;
	int ret;

	ret = hf_read_line(root, buf, sizeof(buf), fmt, arg);
	if (ret)
		return ret;
	errno = 0;
	*v = strtoll(buf, &end, 0);
	return end == buf || errno ? -EINVAL : 0;
}

/* hf_why - strerror, with what the common errors mean here */
const char *hf_why(int err)
{
	switch (-err) {
	case ENOENT:
		return "no such file";
	case EACCES:
	case EPERM:
		return "permission denied (run as root)";
	default:
		return strerror(-err);
	}
}

static int hf_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* hf_list - names in folder @root@path (no dot entries), sorted */
int hf_list(const char *root, const char *path, char ***out,
	    size_t *nr)
{
	char full[PATH_MAX], **v = NULL, **nv;
	size_t n = 0, alloc = 0;
	struct dirent *d;
	DIR *dir;
	int ret;

	*out = NULL;
	*nr = 0;
	ret = hf_path(full, sizeof(full), root, "%s", path);
	if (ret)
		return ret;
	dir = opendir(full);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 32;
			nv = realloc(v, alloc * sizeof(*v));
			if (!nv)
				goto oom;
			v = nv;
		}
		v[n] = strdup(d->d_name);
		if (!v[n])
			goto oom;
		n++;
	}
	closedir(dir);
	if (n)
		qsort(v, n, sizeof(*v), hf_cmp_str);
	*out = v;
	*nr = n;
	return 0;
oom:
	closedir(dir);
	while (n)
		free(v[--n]);
	free(v);
	return -ENOMEM;
}

void hf_list_free(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

int hf_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int hf_irqbalance_pids(const char *root, int *pids, size_t max)
{
	char **names, comm[64];
	size_t i, n;
	int ret, cnt = 0;

	ret = hf_list(root, "/proc", &names, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (!hf_is_digits(names[i]) || strlen(names[i]) > 9)
			continue;
		if (hf_read_line(root, comm, sizeof(comm), "/proc/%s/comm",
				 names[i]) || strcmp(comm, "irqbalance"))
			continue;
		if ((size_t)cnt < max)
			pids[cnt] = atoi(names[i]);
		cnt++;
	}
	hf_list_free(names, n);
	return cnt;
}

