// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report: what a kernel engineer opens first in a vendor bug: the
 * kernel log (the NVRM and Xid lines, and all of it, bounded), the
 * kernel's config and modules, the CPUs and NUMA nodes, memory and
 * pressure.  Each file says why it is absent when its source is.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "engine/report/hostfacts_int.h"

/* The last @keep lines /dev/kmsg holds (all, or the wanted ones), a ring. */
struct hf_kmsg {
	char **line;
	size_t keep, next, total;
	bool all;
};

static int hf_kmsg_add(struct hf_kmsg *k, const char *rec, size_t len)
{
	const char *msg;
	size_t mlen;
	uint64_t us;
	char *s;

	if (!len || rec[0] == ' ')	/* continuation " KEY=value" */
		return 0;
	if (hf_kmsg_parse(rec, len, &us, &msg, &mlen) ||
	    (!k->all && !hf_kmsg_wanted(msg, mlen)))
		return 0;
	if (asprintf(&s, "[%5llu.%06llu] %.*s", (unsigned long long)(us / 1000000),
		     (unsigned long long)(us % 1000000), (int)mlen, msg) < 0)
		return -ENOMEM;
	free(k->line[k->next]);
	k->line[k->next] = s;
	k->next = (k->next + 1) % k->keep;
	k->total++;
	return 0;
}
/* hf_kmsg_read - every record /dev/kmsg holds now, without blocking */
static int hf_kmsg_read(const char *root, struct hf_kmsg *k)
{
	char path[PATH_MAX], buf[8192 + 1];
	size_t have = 0;
	ssize_t n;
	char *p, *nl;
	int fd, ret = 0;

	ret = hf_path(path, sizeof(path), root, "/dev/kmsg");
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0) {
			/* EPIPE: records were overwritten under us; go on. */
			if (errno == EINTR || errno == EPIPE)
				continue;
			if (errno != EAGAIN)
				ret = -errno;
			break;
		}
		if (!n)
			break;
		have += n;
		buf[have] = '\0';
		/* /dev/kmsg gives one record per read; a file gives many. */
		for (p = buf; (nl = memchr(p, '\n', buf + have - p)); p = nl + 1)
			if (hf_kmsg_add(k, p, nl - p)) {
				ret = -ENOMEM;
				goto out;
			}
		have -= p - buf;
		memmove(buf, p, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* a line longer than the buffer */
	}
	if (!ret && have && hf_kmsg_add(k, buf, have))
		ret = -ENOMEM;
out:
	close(fd);
	return ret;
}

/*
 * hf_kmsg_file - @path: the last @keep lines of the kernel log, all of
 * them or those that mention NVRM or Xid (@all false)
 */
static int hf_kmsg_file(struct hostfacts *h, struct bundle *b,
			const char *path, const char *what, bool all,
			size_t keep)
{
	struct hf_kmsg k = { .keep = keep, .all = all };
	size_t i, n;
	FILE *f;
	int ret;

	k.line = calloc(keep, sizeof(*k.line));
	if (!k.line) {
		bundle_fail(b, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	f = bundle_create(b, path, what);
	if (!f) {
		free(k.line);
		return b->err;
	}
	ret = hf_kmsg_read(h->root, &k);
	if (ret == -ENOMEM) {
		fclose(f);
		bundle_fail(b, -ENOMEM, "out of memory");
	} else if (ret && !k.total) {
		hf_absent(b, f, path, "/dev/kmsg: %s", hf_why(ret));
	} else {
		n = k.total < keep ? k.total : keep;
		fprintf(f, "%zu kernel log lines%s", k.total,
			all ? "" : " mention NVRM or Xid");
		if (n < k.total)
			fprintf(f, " (the last %zu shown: the cap)", n);
		fprintf(f, "%s\n", ret ? " (reading stopped early)" : "");
		for (i = 0; i < n; i++)
			fprintf(f, "%s\n", k.line[(k.next + keep - n + i) % keep]);
	}
	for (i = 0; i < keep; i++)
		free(k.line[i]);
	free(k.line);
	if (ret == -ENOMEM)
		return ret;
	return bundle_close(b, f, path);
}

/* hf_write_kmsg - see hostfacts_int.h */
int hf_write_kmsg(struct hostfacts *h, struct bundle *b)
{
	return hf_kmsg_file(h, b, "host/kernel-log.txt",
			    "the last kernel log lines that mention NVRM or Xid (/dev/kmsg)",
			    false, HF_KMSG_KEEP);
}

/* hf_write_kmsg_all - see hostfacts_int.h */
int hf_write_kmsg_all(struct hostfacts *h, struct bundle *b)
{
	return hf_kmsg_file(h, b, "host/kernel-log-all.txt",
			    "the whole kernel log (/dev/kmsg), its last HF_KMSG_ALL lines at most",
			    true, HF_KMSG_ALL);
}


/* the kernel's config: /proc/config.gz, else /boot/config-RELEASE */
static int hf_write_config(struct hostfacts *h, struct bundle *b)
{
	char rel[256], src[300], p[PATH_MAX];
	int ret;

	ret = hf_path(p, sizeof(p), h->root, "/proc/config.gz");
	if (!ret && !access(p, R_OK))
		return hf_copy(h, b, "/proc/config.gz", "host/config.gz",
			       "the running kernel's config (/proc/config.gz)",
			       NULL);
	ret = hf_read_line(h->root, rel, sizeof(rel), "%s",
			   "/proc/sys/kernel/osrelease");
	snprintf(src, sizeof(src), "/boot/config-%s", ret ? "RELEASE" : rel);
	return hf_copy(h, b, src, "host/config.txt",
		       "the running kernel's config (/boot/config-RELEASE; no /proc/config.gz)",
		       "(nor /proc/config.gz: CONFIG_IKCONFIG_PROC off)");
}

/* hf_cat - each of @srcs under a "== SRC ==" line; absent when none is */
static int hf_cat(struct hostfacts *h, struct bundle *b, const char *dst,
		  const char *what, const char *const *srcs, size_t n,
		  const char *why)
{
	size_t i, len, found = 0;
	char *buf;
	FILE *f;
	int ret, first = 0;

	f = bundle_create(b, dst, what);
	if (!f)
		return b->err;
	for (i = 0; i < n; i++) {
		ret = hf_read(h->root, srcs[i], &buf, &len);
		if (ret == -ENOMEM) {
			fclose(f);
			bundle_fail(b, ret, "out of memory");
			return ret;
		}
		if (ret) {
			first = first ? first : ret;
			continue;
		}
		fprintf(f, "== %s ==\n", srcs[i]);
		fwrite(buf, 1, len, f);
		free(buf);
		found++;
	}
	if (!found)
		hf_absent(b, f, dst, "%s: %s (%s)", srcs[0], hf_why(first),
			  why);
	return bundle_close(b, f, dst);
}

/* NUMA: each node's CPUs, distances and memory */
static int hf_write_numa(struct hostfacts *h, struct bundle *b)
{
	static const char dir[] = "/sys/devices/system/node";
	static const char *const file[] = { "cpulist", "distance", "meminfo" };
	static const char *const none[] = { "/sys/devices/system/node/node0" };
	char **names = NULL, **srcs = NULL;
	size_t i, j, n = 0, k = 0;
	int ret;

	ret = hf_list(h->root, dir, &names, &n);
	if (ret == -ENOMEM)
		goto oom;
	if (!ret) {
		srcs = calloc(3 * n + 1, sizeof(*srcs));
		if (!srcs)
			goto oom;
	}
	for (i = 0; srcs && i < n; i++) {
		if (strncmp(names[i], "node", 4) || !hf_is_digits(names[i] + 4))
			continue;
		for (j = 0; j < ARRAY_SIZE(file); j++) {
			if (asprintf(&srcs[k], "%s/%s/%s", dir, names[i],
				     file[j]) < 0)
				goto oom;
			k++;
		}
	}
	ret = hf_cat(h, b, "host/numa.txt",
		     "NUMA nodes: CPUs, distances, memory (/sys/devices/system/node)",
		     k ? (const char *const *)srcs : none, k ? k : 1,
		     "no NUMA node listed");
out:
	for (i = 0; i < k; i++)
		free(srcs[i]);
	free(srcs);
	if (names)
		hf_list_free(names, n);
	return ret;
oom:
	bundle_fail(b, -ENOMEM, "out of memory");
	ret = -ENOMEM;
	goto out;
}

/* hf_write_system - see hostfacts_int.h */
int hf_write_system(struct hostfacts *h, struct bundle *b)
{
	static const char *const psi[] = {
		"/proc/pressure/cpu", "/proc/pressure/memory",
		"/proc/pressure/io",
	};
	int ret;

	ret = hf_write_config(h, b);
	if (!ret)
		ret = hf_copy(h, b, "/proc/modules", "host/modules.txt",
			      "loaded modules (/proc/modules): name, size, users, state, address",
			      NULL);
	if (!ret)
		ret = hf_copy(h, b, "/proc/cpuinfo", "host/cpuinfo.txt",
			      "the CPUs (/proc/cpuinfo)", NULL);
	if (!ret)
		ret = hf_copy(h, b, "/proc/meminfo", "host/meminfo.txt",
			      "memory at the end of the watch (/proc/meminfo)",
			      NULL);
	if (!ret)
		ret = hf_cat(h, b, "host/pressure.txt",
			     "pressure stall information at the end of the watch (/proc/pressure)",
			     psi, ARRAY_SIZE(psi),
			     "no PSI: CONFIG_PSI off, or psi=0 on the command line");
	if (!ret)
		ret = hf_write_numa(h, b);
	return ret;
}
