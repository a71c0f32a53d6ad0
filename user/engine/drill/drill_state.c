// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat drill: the record of what a drill makes, kept on disk so that a
 * drill killed before it cleaned up (SIGKILL, a crash, the host's OOM
 * killer) leaves nothing nobody knows of.
 *
 * Each drill appends one line per thing to a file of its own,
 * DRILL_STATE_DIR/PID-START, and fsyncs it BEFORE it makes the thing (a
 * child, whose pid comes from fork, right after: it dies with the drill
 * anyway).  The drill holds an exclusive flock on its file while it runs:
 * the kernel drops it when the process dies, so a file whose lock can be
 * taken is a dead drill's, whatever became of its pid.  The next drill
 * (drill_sweep) removes what such a file names, each removal checking
 * that the name is the dead drill's own (named after its pid) and doing
 * nothing to what is gone already; gpulat status lists it.  A drill that
 * ends with everything removed deletes its file; one that could not
 * remove something keeps it for the next.
 *
 * Lines: "threshold FAMILY OLD_NS OURS_NS kmod|pinned", "child PID START
 * COMM", "module null_blk", "nullb CONFIGFS_PATH", "netns-mount
 * /run/netns", "netns NAME", "link NAME", "qdisc DEV".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/drill/drill.h"
#include "lib/array_size.h"
#include "lib/procname.h"

#define NULLB_CONFIGFS	"/sys/kernel/config/nullb"

/* this process's record: one drill per process */
static struct {
	int fd;			/* -1: none yet */
	char path[320];
	unsigned int step;	/* lines written, for the pause hook */
} dj = { .fd = -1 };

const char *drill_state_dir(void)
{
	const char *e = getenv(DRILL_STATE_ENV);

	return e && *e ? e : DRILL_STATE_DIR;
}

/* dj_mkdirs - the record folder and its parents */
static int dj_mkdirs(const char *dir)
{
	char path[256], *p;

	snprintf(path, sizeof(path), "%s", dir);
	for (p = path + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			return 0;
	}
}

static int dj_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

/* dj_write - the whole of @s at the file's end, then fsync */
static int dj_write(int fd, const char *s)
{
	size_t len = strlen(s), off = 0;
	ssize_t n;

	while (off < len) {
		n = write(fd, s + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += n;
	}
	return fsync(fd) ? -errno : 0;
}

/*
 * dj_begin - this drill's record: made and locked under a temporary
 * name, its first line written, then renamed into place, so that no
 * sweep ever finds one without its owner's lock or its first line
 */
static int dj_begin(const struct drill *d)
{
	const char *dir = drill_state_dir();
	char tmp[340], line[128];
	int fd, ret;

	ret = dj_mkdirs(dir);
	if (ret)
		return ret;
	snprintf(dj.path, sizeof(dj.path), "%s/%d-%llu", dir, (int)getpid(),
		 (unsigned long long)procname_start(getpid()));
	snprintf(tmp, sizeof(tmp), "%s.new", dj.path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
		  0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX)) {
		ret = -errno;
		goto fail;
	}
	snprintf(line, sizeof(line), "gpulat-drill %d %s %lld\n",
		 (int)getpid(), drill_kind_name(d->kind),
		 (long long)time(NULL));
	ret = dj_write(fd, line);
	if (!ret && rename(tmp, dj.path))
		ret = -errno;
	if (!ret)
		ret = dj_fsync_dir(dir);
	if (ret)
		goto fail;
	dj.fd = fd;
	return 0;
fail:
	unlink(tmp);
	close(fd);
	return ret;
}

/* drill_pause_point - GPULAT_DRILL_PAUSE=N: stop at step N until killed */
void drill_pause_point(void)
{
	const char *e = getenv(DRILL_PAUSE_ENV);

	dj.step++;
	if (!e || strtoul(e, NULL, 10) != dj.step)
		return;
	fprintf(stderr, "gpulat: drill paused at step %u (%s)\n", dj.step,
		DRILL_PAUSE_ENV);
	for (;;)
		pause();
}

int drill_journal(struct drill *d, const char *fmt, ...)
{
	char line[320];
	va_list ap;
	int ret = 0;

	if (dj.fd < 0)
		ret = dj_begin(d);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	if (!ret)
		ret = dj_write(dj.fd, line);
	if (ret)
		return drill_set(d, DRILL_FAIL,
				 "cannot keep the record of what it makes in %s: %s",
				 drill_state_dir(), strerror(-ret));
	drill_pause_point();
	return 0;
}

void drill_journal_end(const struct drill *d)
{
	if (dj.fd < 0)
		return;
	/* kept when something could not be removed: the next drill tries */
	if (drill_restored(&d->undo)) {
		unlink(dj.path);
		dj_fsync_dir(drill_state_dir());
	}
	close(dj.fd);
	dj.fd = -1;
}

void drill_journal_forget(void)
{
	if (dj.fd >= 0)
		close(dj.fd);
	dj.fd = -1;
}

/* --- Removal, by the drill itself and by the sweep ---------------------- */

/* drill_run_netns_mounted - whether /run/netns is a mount point now */
bool drill_run_netns_mounted(void)
{
	char line[1024], *p;
	bool hit = false;
	FILE *f;
	int i;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (!hit && fgets(line, sizeof(line), f)) {
		/* the fifth field is the mount point */
		for (p = line, i = 0; i < 4 && p; i++)
			p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
		hit = p && !strncmp(p, "/run/netns ", 11);
	}
	fclose(f);
	return hit;
}

/* dj_netns_empty - whether /run/netns holds no namespace */
static bool dj_netns_empty(void)
{
	struct dirent *e;
	DIR *dir;
	int n = 0;

	dir = opendir("/run/netns");
	if (!dir)
		return true;
	while ((e = readdir(dir)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(dir);
	return !n;
}

int drill_rm_netns_mount(void)
{
	if (drill_run_netns_mounted() && dj_netns_empty() &&
	    umount2("/run/netns", MNT_DETACH))
		return -errno;
	return 0;
}

int drill_rm_netns(const char *name)
{
	char ip[128], path[200], why[160];
	char *argv[] = { ip, "netns", "del", (char *)name, NULL };

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	if (!drill_exists(path))
		return 0;
	if (drill_which("ip", ip, sizeof(ip)))
		return -ENOENT;
	return drill_cmd(argv, why, sizeof(why)) ? -EBUSY : 0;
}

int drill_rm_link(const char *name)
{
	char ip[128], path[200], why[160];
	char *argv[] = { ip, "link", "del", (char *)name, NULL };

	snprintf(path, sizeof(path), "/sys/class/net/%s", name);
	if (!drill_exists(path))
		return 0;	/* went with the namespace's end */
	if (drill_which("ip", ip, sizeof(ip)))
		return -ENOENT;
	if (drill_cmd(argv, why, sizeof(why)) && drill_exists(path))
		return -EBUSY;
	return 0;
}

int drill_rm_nullb(const char *cfg)
{
	char path[200];

	if (!drill_exists(cfg))
		return 0;
	snprintf(path, sizeof(path), "%s/power", cfg);
	drill_write(path, "0");
	if (rmdir(cfg) && errno != ENOENT)
		return -errno;
	return 0;
}

int drill_rm_module(const char *modprobe, unsigned int tries)
{
	const struct timespec tick = { 0, 100000000 };
	char why[160];
	char *argv[] = { (char *)modprobe, "-r", "null_blk", NULL };
	unsigned int i;

	/* the removed disk may hold the module a moment longer */
	for (i = 0; i < tries; i++) {
		if (!drill_exists("/sys/module/null_blk") ||
		    !drill_cmd(argv, why, sizeof(why)))
			return 0;
		nanosleep(&tick, NULL);
	}
	return -EBUSY;
}

/* --- The sweep ---------------------------------------------------------- */

/* dj_child_alive - whether @pid is still the child the record names */
static bool dj_child_alive(long pid, unsigned long long start)
{
	char path[64], comm[32];

	if (pid <= 0 || procname_start(pid) != start)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	return !drill_read(path, comm, sizeof(comm)) &&
	       !strncmp(comm, "gldrill-", 8);
}

/*
 * dj_child_gone - wait, up to a second, for killed @pid to have exited (a
 * zombie its new parent reaps, or gone): a process sent SIGKILL runs on
 * through its exit a while; 0, or -EBUSY while it still runs
 */
static int dj_child_gone(long pid, unsigned long long start)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	char path[64], stat[512], *p;
	int i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	for (i = 0; i < 100; i++) {
		if (!dj_child_alive(pid, start) ||
		    drill_read(path, stat, sizeof(stat)))
			return 0;
		/* the state follows the comm's closing parenthesis */
		p = strrchr(stat, ')');
		if (p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
			return 0;
		nanosleep(&tick, NULL);
	}
	return -EBUSY;
}

/* dj_nullb_used - whether null_blk has devices (another drill's, a user's) */
static bool dj_nullb_used(void)
{
	struct dirent *e;
	bool used = false;
	DIR *dir;

	dir = opendir(NULLB_CONFIGFS);
	if (!dir)
		return false;
	while (!used && (e = readdir(dir)))
		used = e->d_type == DT_DIR && strcmp(e->d_name, ".") &&
		       strcmp(e->d_name, "..") &&
		       strcmp(e->d_name, "features");
	closedir(dir);
	return used || drill_exists("/sys/block/nullb0");
}

/* dj_threshold - put a dead drill's lowered threshold back, if still its */
static int dj_threshold(uint32_t fam, uint64_t old, uint64_t ours,
			bool pinned)
{
	struct gl_source *src;
	char err[256];
	uint64_t now = 0;
	int ret = 0;

	src = gl_source_open(pinned ? GL_SOURCE_PINNED : GL_SOURCE_KMOD, &ret,
			     err, sizeof(err));
	if (!src)
		return 0;	/* gone with its source: nothing to put back */
	ret = gl_source_threshold(src, fam, false, &now);
	if (!ret && now == ours)
		ret = gl_source_threshold(src, fam, true, &old);
	gl_source_close(src);
	return ret == -ENOTTY ? 0 : ret;
}

/*
 * dj_piece - one line of dead drill @pid's record: @l->what, whether it
 * is still there, and with @rm its removal.  A name that is not the dead
 * drill's own is refused (-EPERM) and never touched.
 */
static void dj_piece(int pid, char *line, bool rm, struct drill_left *l)
{
	char t[5][100] = { "" }, want[160], tool[128];
	const char *e = t[0], *a = t[1], *b = t[2], *c = t[3];
	unsigned long long x = 0, y = 0;
	int n;

	n = sscanf(line, "%99s %99s %99s %99s %99s", t[0], t[1], t[2],
		   t[3], t[4]);
	l->present = true;
	if (!strcmp(e, "netns")) {
		snprintf(l->what, sizeof(l->what), "network namespace %s", a);
		snprintf(want, sizeof(want), DRILL_PREFIX "-%d", pid);
		if (strcmp(a, want))
			goto refuse;
		snprintf(want, sizeof(want), "/run/netns/%s", a);
		l->present = drill_exists(want);
		if (rm)
			l->ret = drill_rm_netns(a);
	} else if (!strcmp(e, "link") || !strcmp(e, "qdisc")) {
		if (!strcmp(e, "link"))
			snprintf(l->what, sizeof(l->what), "veth %s", a);
		else
			snprintf(l->what, sizeof(l->what), "qdisc on %s", a);
		snprintf(want, sizeof(want), "gldA%d", pid % 10000000);
		if (strcmp(a, want) && (want[3] = 'B', strcmp(a, want)))
			goto refuse;
		snprintf(want, sizeof(want), "/sys/class/net/%s", a);
		l->present = drill_exists(want);
		/* a qdisc goes with its link */
		if (rm)
			l->ret = drill_rm_link(a);
	} else if (!strcmp(e, "netns-mount")) {
		snprintf(l->what, sizeof(l->what),
			 "the /run/netns mount made by ip netns add");
		if (strcmp(a, "/run/netns"))
			goto refuse;
		l->present = drill_run_netns_mounted() && dj_netns_empty();
		if (rm)
			l->ret = drill_rm_netns_mount();
	} else if (!strcmp(e, "nullb")) {
		snprintf(l->what, sizeof(l->what), "null_blk device %s", a);
		snprintf(want, sizeof(want), NULLB_CONFIGFS "/" DRILL_PREFIX "-%d",
			 pid);
		if (strcmp(a, want))
			goto refuse;
		l->present = drill_exists(a);
		if (rm)
			l->ret = drill_rm_nullb(a);
	} else if (!strcmp(e, "module")) {
		snprintf(l->what, sizeof(l->what),
			 "module null_blk (loaded by the drill)");
		if (strcmp(a, "null_blk"))
			goto refuse;
		l->present = drill_exists("/sys/module/null_blk");
		/* another's devices hold it: theirs to unload */
		if (rm && l->present && !dj_nullb_used())
			l->ret = drill_which("modprobe", tool, sizeof(tool)) ?
				 -ENOENT : drill_rm_module(tool, 30);
		else if (rm && l->present)
			l->ret = -EBUSY;
	} else if (!strcmp(e, "child")) {
		snprintf(l->what, sizeof(l->what), "process %.20s (%.30s)", a, c);
		x = strtoull(a, NULL, 10);
		y = strtoull(b, NULL, 10);
		l->present = dj_child_alive(x, y);
		if (rm && l->present && kill(x, SIGKILL) && errno != ESRCH)
			l->ret = -errno;
		else if (rm && l->present)
			l->ret = dj_child_gone(x, y);
	} else if (!strcmp(e, "threshold") && n == 5) {
		x = strtoull(b, NULL, 10);
		y = strtoull(c, NULL, 10);
		snprintf(l->what, sizeof(l->what),
			 "%.32s trace threshold lowered to %.0f ms (from %.0f ms) on the %s source",
			 a, y / 1e6, x / 1e6, !strcmp(t[4], "pinned") ?
			 "pinned BPF" : "module's");
		n = gl_family_lookup(a);
		if (n <= 0)
			goto refuse;
		if (rm)
			l->ret = dj_threshold(n, x, y, !strcmp(t[4], "pinned"));
	} else {
		snprintf(l->what, sizeof(l->what), "%.*s", 150, line);
		goto refuse;
	}
	l->removed = rm && !l->ret;
	return;
refuse:
	l->ret = -EPERM;
	l->removed = false;
}

/*
 * dj_read - the record @fd into @dead: its pid and kind from the first
 * line, one piece per line after; 0, or -EINVAL when it is not one
 */
static int dj_read(int fd, bool rm, struct drill_dead *dead)
{
	char *lines[DRILL_MAX_LEFT], *buf, *p, *nl;
	struct stat st;
	size_t n = 0;
	ssize_t r;
	int i;

	if (fstat(fd, &st) || st.st_size > 65536)
		return -EINVAL;
	buf = calloc(1, st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	r = pread(fd, buf, st.st_size, 0);
	if (r < 0 || sscanf(buf, "gpulat-drill %d %15s %lld", &dead->pid,
			    dead->kind, &dead->when) != 3) {
		free(buf);
		return -EINVAL;
	}
	buf[r] = '\0';
	p = strchr(buf, '\n');
	for (p = p ? p + 1 : buf + r; *p && n < DRILL_MAX_LEFT; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;	/* cut short by the kill: never written whole */
		*nl = '\0';
		lines[n++] = p;
	}
	/* newest first, as the drill itself undoes */
	for (i = (int)n - 1; i >= 0; i--)
		dj_piece(dead->pid, lines[i], rm, &dead->v[dead->n++]);
	free(buf);
	return 0;
}

int drill_sweep(struct drill_sweep *sw, bool rm)
{
	const char *dir = drill_state_dir();
	struct drill_dead *dead, spare;
	char path[300];
	struct dirent *e;
	bool all;
	size_t i, len;
	DIR *d;
	int fd;

	memset(sw, 0, sizeof(*sw));
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%.200s/%.90s", dir, e->d_name);
		len = strlen(e->d_name);
		fd = open(path, (rm ? O_RDWR : O_RDONLY) | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* its drill holds the lock while it lives: never touched */
		if (flock(fd, (rm ? LOCK_EX : LOCK_SH) | LOCK_NB)) {
			sw->nr_live++;
			close(fd);
			continue;
		}
		/* a record not yet in place, its drill killed at once */
		if (len > 4 && !strcmp(e->d_name + len - 4, ".new")) {
			if (rm)
				unlink(path);
			close(fd);
			continue;
		}
		dead = sw->n < ARRAY_SIZE(sw->dead) ? &sw->dead[sw->n] : &spare;
		memset(dead, 0, sizeof(*dead));
		snprintf(dead->file, sizeof(dead->file), "%s", path);
		if (dj_read(fd, rm, dead)) {
			close(fd);
			continue;	/* not a record of ours */
		}
		for (all = true, i = 0; i < dead->n; i++)
			all = all && (rm ? !dead->v[i].ret : false);
		if (rm && all)
			unlink(path);
		close(fd);
		if (dead == &spare)
			sw->nr_more++;
		else
			sw->n++;
	}
	closedir(d);
	if (rm && sw->n)
		dj_fsync_dir(dir);
	return 0;
}

/* drill_sweep_print - the dead drills' leftovers, one line each thing */
void drill_sweep_print(FILE *f, const struct drill_sweep *sw, bool rm,
		       const char *indent)
{
	const struct drill_dead *dead;
	const struct drill_left *l;
	char when[64] = "?";
	struct tm tm;
	time_t t;
	size_t i, k, shown;

	for (i = 0; i < sw->n; i++) {
		dead = &sw->dead[i];
		t = (time_t)dead->when;
		if (localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(f, "%s%sdrill %s (pid %d, started %s), killed before it cleaned up, left:\n",
			indent, rm ? "swept: " : "", dead->kind, dead->pid,
			when);
		for (k = 0, shown = 0; k < dead->n; k++) {
			l = &dead->v[k];
			if (!rm && !l->present)
				continue;
			shown++;
			fprintf(f, "%s    %s", indent, l->what);
			if (l->ret == -EPERM)
				fprintf(f, ": not a name of that drill, left alone\n");
			else if (!rm)
				fprintf(f, "\n");
			else if (l->ret)
				fprintf(f, ": REMOVAL FAILED (%s)\n",
					strerror(-l->ret));
			else
				fprintf(f, ": %s\n", l->present ? "removed" :
					"gone already");
		}
		if (!shown)
			fprintf(f, "%s    nothing but its record (%s)\n", indent,
				dead->file);
	}
	if (sw->nr_more)
		fprintf(f, "%s... and %d more\n", indent, sw->nr_more);
}

/* drill_sweep_failed - whether a removal of @sw failed */
bool drill_sweep_failed(const struct drill_sweep *sw)
{
	size_t i, k;

	for (i = 0; i < sw->n; i++)
		for (k = 0; k < sw->dead[i].n; k++)
			if (sw->dead[i].v[k].ret)
				return true;
	return false;
}
