// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report: the processes the diagnosis names, as /proc has them at
 * the end of the watch (status, command line, cgroups), and the layout
 * and limits of their cgroups: what a kernel engineer asks first about a
 * culprit.  Bounded: REPORT_MAX_PIDS processes, each file read whole up
 * to the host facts' limit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/report/hostfacts_int.h"
#include "engine/report/report.h"
#include "lib/cgroup.h"

#define REPORT_MAX_PIDS	32
#define REPORT_MAX_DIRS	(4 * REPORT_MAX_PIDS)

/* the limit files looked for in each cgroup directory, v2 and v1 */
static const char *const report_cg_files[] = {
	"cgroup.type", "cpu.max", "cpu.weight", "cpuset.cpus",
	"cpuset.cpus.effective", "cpuset.mems", "io.max", "memory.high",
	"memory.max", "memory.current", "memory.events", "pids.max",
	"pids.current", "cpu.pressure", "memory.pressure", "io.pressure",
	"cpu.cfs_quota_us", "cpu.cfs_period_us", "cpu.shares",
	"memory.limit_in_bytes", "memory.usage_in_bytes", "memory.failcnt",
	"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device",
};

/* report_put - @src under a "== TITLE ==" line into @f, or why not */
static int report_put(FILE *f, const char *root, const char *src,
		      const char *title, bool nul_spaces)
{
	size_t len, i;
	char *buf;
	int ret;

	ret = hf_read(root, src, &buf, &len);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		fprintf(f, "%s: absent: %s\n", title, hf_why(ret));
		return 0;
	}
	if (nul_spaces)
		for (i = 0; i < len; i++)
			if (!buf[i])
				buf[i] = ' ';
	fprintf(f, "%s:%s", title, len && !nul_spaces ? "\n" : " ");
	fwrite(buf, 1, len, f);
	if (!len || buf[len - 1] != '\n')
		fputc('\n', f);
	free(buf);
	return 0;
}

/* report_mounts - the cgroup lines of /proc/self/mountinfo: the layout */
static int report_mounts(FILE *f, const char *root)
{
	char *buf, *line, *save = NULL;
	size_t len;
	int ret;

	ret = hf_read(root, "/proc/self/mountinfo", &buf, &len);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		fprintf(f, "cgroup mounts: absent: %s\n", hf_why(ret));
		return 0;
	}
	fprintf(f, "== cgroup mounts (/proc/self/mountinfo) ==\n");
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strstr(line, " - cgroup2 ") || strstr(line, " - cgroup "))
			fprintf(f, "%s\n", line);
	free(buf);
	return 0;
}

/* report_cg_dir - the limit files directory @dir has (absolute path) */
static int report_cg_dir(FILE *f, const char *root, const char *dir)
{
	char p[PATH_MAX + 64];
	size_t i;
	int ret = 0;

	fprintf(f, "== %s ==\n", dir);
	for (i = 0; i < ARRAY_SIZE(report_cg_files) && !ret; i++) {
		char *buf;
		size_t len;

		snprintf(p, sizeof(p), "%s/%s", dir, report_cg_files[i]);
		ret = hf_read(root, p, &buf, &len);
		if (ret) {
			ret = ret == -ENOMEM ? ret : 0;
			continue;	/* this controller's files are elsewhere */
		}
		fprintf(f, "%s: %.*s%s", report_cg_files[i], (int)len, buf,
			len && buf[len - 1] == '\n' ? "" : "\n");
		free(buf);
	}
	return ret;
}

/*
 * report_cg_dirs - the directories of @pid's cgroups (/proc/PID/cgroup):
 * v2's below the cgroup2 mount, v1's below /sys/fs/cgroup/CONTROLLERS;
 * each new one into @dirs
 */
static int report_cg_dirs(const char *root, int32_t pid, char **dirs,
			  size_t *n)
{
	const char *v2 = gl_cg_root();
	char src[64], *buf, *line, *save = NULL, d[PATH_MAX];
	size_t len, i;
	int ret;

	snprintf(src, sizeof(src), "/proc/%d/cgroup", (int)pid);
	ret = hf_read(root, src, &buf, &len);
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	for (line = strtok_r(buf, "\n", &save); line && *n < REPORT_MAX_DIRS;
	     line = strtok_r(NULL, "\n", &save)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;

		if (!b)
			continue;
		*b = '\0';
		if (b == a + 1) {
			if (!v2)
				continue;
			/* the mount as read (tests: under their root) */
			snprintf(d, sizeof(d), "%s%s", v2,
				 strcmp(b + 1, "/") ? b + 1 : "");
		} else {
			/* "name=systemd" is mounted as .../systemd */
			const char *c = strncmp(a + 1, "name=", 5) ? a + 1 :
					a + 6;

			snprintf(d, sizeof(d), "%s/sys/fs/cgroup/%s%s", root,
				 c, strcmp(b + 1, "/") ? b + 1 : "");
		}
		for (i = 0; i < *n && strcmp(dirs[i], d); i++)
			;
		if (i < *n)
			continue;
		dirs[*n] = strdup(d);
		if (!dirs[*n]) {
			free(buf);
			return -ENOMEM;
		}
		(*n)++;
	}
	free(buf);
	return 0;
}

/* report_processes - see report.h */
int report_processes(struct report *r, const struct diag_result *d)
{
	static const char procs[] = "host/processes.txt";
	static const char cgs[] = "host/cgroups.txt";
	char *dirs[REPORT_MAX_DIRS], src[64];
	int32_t pids[REPORT_MAX_PIDS];
	size_t n = diag_named_pids(d, pids, REPORT_MAX_PIDS), i, nd = 0;
	FILE *f;
	int ret = 0;

	f = bundle_create(&r->b, procs,
			  "the processes the diagnosis names: /proc/PID/status, cmdline and cgroup at the end of the watch");
	if (!f)
		return r->b.err;
	if (!n)
		hf_absent(&r->b, f, procs, "the diagnosis names no process");
	for (i = 0; i < n && !ret; i++) {
		fprintf(f, "%s== pid %d ==\n", i ? "\n" : "", (int)pids[i]);
		snprintf(src, sizeof(src), "/proc/%d/status", (int)pids[i]);
		ret = report_put(f, r->root, src, "status", false);
		snprintf(src, sizeof(src), "/proc/%d/cmdline", (int)pids[i]);
		if (!ret)
			ret = report_put(f, r->root, src, "cmdline", true);
		snprintf(src, sizeof(src), "/proc/%d/cgroup", (int)pids[i]);
		if (!ret)
			ret = report_put(f, r->root, src, "cgroup", false);
		if (!ret)
			ret = report_cg_dirs(r->root, pids[i], dirs, &nd);
	}
	if (ret) {
		fclose(f);
		goto oom;
	}
	if (bundle_close(&r->b, f, procs))
		goto out;
	f = bundle_create(&r->b, cgs,
			  "the cgroup mounts, and the limits of the named processes' cgroups, v2 and v1");
	if (!f)
		goto out;
	ret = report_mounts(f, r->root);
	for (i = 0; i < nd && !ret; i++)
		ret = report_cg_dir(f, "", dirs[i]);
	if (ret) {
		fclose(f);
		goto oom;
	}
	bundle_close(&r->b, f, cgs);
out:
	for (i = 0; i < nd; i++)
		free(dirs[i]);
	return r->b.err;
oom:
	bundle_fail(&r->b, -ENOMEM, "out of memory");
	goto out;
}
