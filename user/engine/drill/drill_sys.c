// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat drill: what the drills need of the system.  Commands run with a
 * fixed argv through posix_spawn (no shell); /proc is read under
 * $GPULAT_SYSROOT when set, so that tests can fake a host.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/diagnose/diagnose.h"
#include "engine/drill/drill.h"
#include "lib/array_size.h"
#include "lib/cpuset.h"
#include "lib/procname.h"

extern char **environ;

uint64_t drill_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int drill_write(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

int drill_read(const char *path, char *buf, size_t len)
{
	int ret = diag_read_file(path, buf, len);

	if (!ret)
		buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

bool drill_exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

int drill_which(const char *name, char *buf, size_t len)
{
	static const char *const dirs[] = {
		"/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin",
		"/usr/local/bin",
	};
	size_t i;

	/* fixed folders, not $PATH: a drill runs as root */
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(buf, len, "%s/%s", dirs[i], name);
		if (!access(buf, X_OK))
			return 0;
	}
	buf[0] = '\0';
	return -ENOENT;
}

int drill_cmd(char *const argv[], char *why, size_t len)
{
	posix_spawn_file_actions_t fa;
	int p[2], status, ret;
	ssize_t n = 0, r;
	pid_t pid;

	why[0] = '\0';
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	ret = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (ret) {
		close(p[0]);
		snprintf(why, len, "%s: %s", argv[0], strerror(ret));
		return -ret;
	}
	while ((size_t)n < len - 1 &&
	       ((r = read(p[0], why + n, len - 1 - n)) > 0 ||
		(r < 0 && errno == EINTR)))
		n += r > 0 ? r : 0;
	why[n] = '\0';
	why[strcspn(why, "\n")] = '\0';
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (!why[0])
		snprintf(why, len, "%s exited with %d", argv[0],
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	return 1;
}

/* drill_driver_task - a task of the NVIDIA driver, by its name */
static bool drill_driver_task(const char *comm)
{
	if (!strncmp(comm, "irq/", 4))
		return strstr(comm, "-nvidia") != NULL;
	return !strncmp(comm, "nv_", 3) || !strncmp(comm, "nvidia", 6);
}

/* drill_allowed - the Cpus_allowed_list of /proc/@pid */
static int drill_allowed(const char *pid, struct cpuset *set)
{
	char path[512], line[512];
	FILE *f;
	int ret = -ENOENT;

	snprintf(path, sizeof(path), "%s/proc/%s/status", diag_root(), pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cpus_allowed_list:", 18)) {
			line[strcspn(line, "\n")] = '\0';
			ret = cpuset_parse(set, line + 18 + strspn(line + 18,
								   " \t"));
			break;
		}
	fclose(f);
	return ret;
}

bool drill_nvidia_cpu(unsigned int cpu, char *who, size_t len)
{
	char path[512], comm[64], online_s[256];
	struct cpuset allowed, online;
	struct dirent *e;
	bool hit = false;
	DIR *dir;

	cpuset_clear(&online);
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online",
		 diag_root());
	if (!drill_read(path, online_s, sizeof(online_s)))
		cpuset_parse(&online, online_s);
	snprintf(path, sizeof(path), "%s/proc", diag_root());
	dir = opendir(path);
	if (!dir)
		return false;
	while (!hit && (e = readdir(dir))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/proc/%s/comm", diag_root(),
			 e->d_name);
		if (drill_read(path, comm, sizeof(comm)) ||
		    !drill_driver_task(comm))
			continue;
		cpuset_clear(&allowed);
		if (drill_allowed(e->d_name, &allowed) ||
		    !cpuset_has(&allowed, cpu))
			continue;
		/* allowed everywhere: the scheduler moves it off a busy CPU */
		if (cpuset_weight(&online) &&
		    cpuset_subset(&online, &allowed))
			continue;
		snprintf(who, len, "%s (pid %s)", comm, e->d_name);
		hit = true;
	}
	closedir(dir);
	return hit;
}

pid_t drill_fork(double bound_s, const char *comm)
{
	pid_t parent = getpid(), pid;

	pid = fork();
	if (pid)
		return pid;
	/* bounded whatever the parent does: killed with it, or by alarm() */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	drill_journal_forget();	/* the drill's lock dies with the drill */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	alarm((unsigned int)bound_s + 5);
	prctl(PR_SET_NAME, comm);
	return 0;
}

int drill_journal_child(struct drill *d, pid_t pid, const char *comm)
{
	return drill_journal(d, "child %d %llu %s", (int)pid,
			     (unsigned long long)procname_start(pid), comm);
}

int drill_pin(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}
