// SPDX-License-Identifier: GPL-2.0
/*
 * Who may do what with /dev/gpulat, and what it tells.
 *
 * The device is 0600, but a descriptor root opened can be handed on (a
 * daemon that drops its privileges, a file passed over a socket).  The
 * control ioctls then need CAP_SYS_ADMIN of the caller: GPULAT_IOC_RESET,
 * GPULAT_IOC_FAMILY and GPULAT_IOC_THRESHOLD with GPULAT_THRESHOLD_SET
 * fail with EPERM without it, and change nothing, while the ones that only
 * read (GPULAT_IOC_VERSION, GPULAT_IOC_SNAPSHOT, a threshold get) and the
 * trace (read(), poll()) stay open to whoever holds the descriptor.  A
 * child of the test drops to nobody (uid and gid 65534, which clears its
 * capabilities) keeping root's descriptor, and tries each.
 *
 * The group model (scripts/fleet/60-gpulat.rules): udev makes the node
 * root:gpulat 0640.  A member of the group without capabilities opens it
 * itself, read-only only, and has the same reads and no control; the
 * module parameters stay root's to write; a user outside the group
 * cannot open the node at all.
 *
 * And no kernel address leaks to root either (it would defeat KASLR for
 * any reader of a bug report): not in the debugfs files, not in the
 * snapshot's strings, not in any 8-byte field of a trace record.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib/gpulat_user.h"
#include "vmtest.h"

#define NOBODY		65534
#define DEBUGFS_DIR	"/sys/kernel/debug/gpulat"
#define PARAMS_DIR	"/sys/module/gpulat/parameters"
/* The group udev gives the node (gpulat), by number: the guest has no /etc/group. */
#define GROUP_GID	4242
/* Where the kernel's addresses are, on x86-64 and arm64 alike. */
#define KERNEL_ADDR_MIN	0xffff800000000000ULL
/* A threshold no default has, to see whether anything changed it. */
#define MARK_NS		4321000ULL

static int ioctl_err(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* --- Without CAP_SYS_ADMIN --------------------------------------------- */

/* What the child without privileges saw; 0 or an errno per request. */
struct unpriv {
	int setup;		/* errno of the step that failed, else 0 */
	char setup_step[32];
	unsigned long long cap_eff;	/* CapEff of /proc/self/status */
	uid_t euid;
	gid_t egid;
	int nr_groups;		/* getgroups() */
	gid_t groups[4];
	int open_rdwr;		/* the child's own open(): 0 or errno */
	int open_rdonly;
	int version;
	uint32_t version_major;
	int snapshot_size;	/* GPULAT_IOC_SNAPSHOT, buf_size 0 */
	int snapshot;		/* a whole snapshot */
	size_t nr_series;
	int threshold_get;
	uint64_t threshold_seen;
	int threshold_set;
	int reset;
	int family_off;
	int family_on;
	int cgroup_get;		/* GPULAT_IOC_CGROUP read, then SET (none) */
	int cgroup_set;
	int read_err;		/* 0: data came, else the errno of read() */
	ssize_t read_bytes;
	int poll_err;		/* 0, or errno of poll() */
	short poll_revents;
	/* the files of PARAMS_DIR */
	int params_dir;		/* 0, or errno of opendir() */
	size_t nr_params;
	size_t nr_params_write_denied;	/* open(O_WRONLY): EACCES or EPERM */
	size_t nr_params_to_read;	/* but the fault_ ones */
	size_t nr_params_read;		/* read() gave text */
	char param_bad[64];		/* the first that did not */
	int param_bad_err;
};

/* cap_eff - the effective capabilities of this task, ~0 if unknown */
static unsigned long long cap_eff(void)
{
	unsigned long long v = ~0ULL;
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* try_requests - each request on @fd, the outcomes in @u; false on a setup error */
static bool try_requests(int fd, struct unpriv *u)
{
	static unsigned char buf[GL_TRACE_BUF];
	struct gpulat_version v = { .size = sizeof(v) };
	struct gpulat_snapshot_req sr = { .size = sizeof(sr) };
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct gl_snapshot *s = NULL;
	uint64_t ns;
	ssize_t n;
	int fl;

	u->version = ioctl_err(fd, GPULAT_IOC_VERSION, &v);
	u->version_major = v.major;
	u->snapshot_size = ioctl_err(fd, GPULAT_IOC_SNAPSHOT, &sr);
	u->snapshot = -gl_snapshot_take(fd, &s);
	if (s)
		u->nr_series = gl_snapshot_nr_series(s);
	gl_snapshot_free(s);
	ns = 0;
	u->threshold_get = -gl_threshold(fd, GPULAT_FAM_SCHED, false, &ns);
	u->threshold_seen = ns;
	ns = 1;
	u->threshold_set = -gl_threshold(fd, GPULAT_FAM_SCHED, true, &ns);
	u->reset = -gl_reset(fd);
	/* on (it is on already), then off: last, so that it would show */
	u->family_on = -gl_family_switch(fd, GPULAT_FAM_SCHED, true);
	u->family_off = -gl_family_switch(fd, GPULAT_FAM_SCHED, false);
	{
		uint64_t ids[GPULAT_CG_WATCH_MAX];
		unsigned int nr;

		u->cgroup_get = -gl_cgroup_get(fd, ids, &nr);
		u->cgroup_set = -gl_cgroup_set(fd, NULL, 0);
	}

	/* the trace: poll() and a read() that does not wait */
	if (poll(&p, 1, 0) < 0)
		u->poll_err = errno;
	u->poll_revents = p.revents;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK)) {
		u->setup = errno;
		snprintf(u->setup_step, sizeof(u->setup_step), "O_NONBLOCK");
		return false;
	}
	n = read(fd, buf, sizeof(buf));
	u->read_err = n < 0 ? errno : 0;
	u->read_bytes = n;
	return true;
}

/*
 * drop_to_nobody - uid and gid 65534 with @nr_groups supplementary
 * groups from @groups; false, with the failed step in @u, on an error
 */
static bool drop_to_nobody(struct unpriv *u, size_t nr_groups,
			   const gid_t *groups)
{
#define STEP(name, call)						\
	do {								\
		if (call) {						\
			u->setup = errno;				\
			snprintf(u->setup_step, sizeof(u->setup_step),	\
				 "%s", name);				\
			return false;					\
		}							\
	} while (0)
	STEP("setgroups", setgroups(nr_groups, groups));
	STEP("setresgid", setresgid(NOBODY, NOBODY, NOBODY));
	/* all three uids nonzero: the kernel clears every capability */
	STEP("setresuid", setresuid(NOBODY, NOBODY, NOBODY));
#undef STEP
	u->cap_eff = cap_eff();
	u->euid = geteuid();
	u->egid = getegid();
	u->nr_groups = getgroups(ARRAY_SIZE(u->groups), u->groups);
	return true;
}

/* as_nobody - the child: drop to nobody, then try each request on @fd */
static void as_nobody(int fd, struct unpriv *u)
{
	if (!drop_to_nobody(u, 0, NULL) || !try_requests(fd, u))
		_exit(1);
	_exit(0);
}

/* open_err - 0 when @path opens with @flags (then closed), else errno */
static int open_err(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* param_bad - note the first parameter file that did not behave */
static void param_bad(struct unpriv *u, const char *name, const char *what,
		      int err)
{
	if (u->param_bad[0])
		return;
	snprintf(u->param_bad, sizeof(u->param_bad), "%.40s (%s)", name, what);
	u->param_bad_err = err;
}

/*
 * try_params - each file of PARAMS_DIR: open for writing (which must
 * fail) and, but for the fault_ ones of a test build, read
 */
static void try_params(struct unpriv *u)
{
	char path[512], text[4096];
	struct dirent *e;
	ssize_t n;
	int fd, err;
	DIR *d;

	d = opendir(PARAMS_DIR);
	if (!d) {
		u->params_dir = errno;
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", PARAMS_DIR, e->d_name);
		u->nr_params++;
		/* nothing is written: the open alone must fail */
		err = open_err(path, O_WRONLY);
		if (err == EACCES || err == EPERM)
			u->nr_params_write_denied++;
		else
			param_bad(u, e->d_name, "open for writing", err);
		if (!strncmp(e->d_name, "fault_", 6))
			continue;
		u->nr_params_to_read++;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, text, sizeof(text));
		err = n < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		if (n > 0)
			u->nr_params_read++;
		else
			param_bad(u, e->d_name, "read", err);
	}
	closedir(d);
}

/*
 * as_member - the child: nobody in group GROUP_GID, which opens the node
 * itself and tries each request, then the module's parameters
 */
static void as_member(struct unpriv *u)
{
	static const gid_t group[] = { GROUP_GID };
	int fd;

	if (!drop_to_nobody(u, ARRAY_SIZE(group), group))
		_exit(1);
	u->open_rdwr = open_err(GPULAT_DEVICE_PATH, O_RDWR);
	fd = open(GPULAT_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	u->open_rdonly = fd < 0 ? errno : 0;
	if (fd < 0)
		_exit(0);
	if (!try_requests(fd, u))
		_exit(1);
	close(fd);
	try_params(u);
	_exit(0);
}

/* as_outsider - the child: nobody in no group, which tries to open the node */
static void as_outsider(struct unpriv *u)
{
	if (!drop_to_nobody(u, 0, NULL))
		_exit(1);
	u->open_rdonly = open_err(GPULAT_DEVICE_PATH, O_RDONLY);
	u->open_rdwr = open_err(GPULAT_DEVICE_PATH, O_RDWR);
	_exit(0);
}

/*
 * family_attached - 1 when every probe of @fam (but those missing on this
 * kernel) is attached, else 0; -1 without a snapshot.  The snapshot's
 * generation in *@generation.
 */
static int family_attached(int fd, uint32_t fam, uint32_t *generation)
{
	const struct gpulat_probe *p;
	struct gl_snapshot *s = NULL;
	int attached = 1;
	size_t i, nr = 0;

	if (gl_snapshot_take(fd, &s))
		return -1;
	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		p = gl_snapshot_probe(s, i);
		if (p->family != fam || p->state == GPULAT_PROBE_MISSING)
			continue;
		nr++;
		attached &= p->state == GPULAT_PROBE_ATTACHED;
	}
	if (generation)
		*generation = gl_snapshot_header(s)->generation;
	gl_snapshot_free(s);
	return nr ? attached : 0;
}

/* expect_reads_only - what @u saw: every read worked, no control did */
static void expect_reads_only(struct __test_metadata *_metadata,
			      const struct unpriv *u)
{
	EXPECT_EQ(0, u->version) TH_LOG("VERSION: %s", strerror(u->version));
	EXPECT_EQ(0, u->snapshot_size)
		TH_LOG("SNAPSHOT size query: %s", strerror(u->snapshot_size));
	EXPECT_EQ(0, u->snapshot) TH_LOG("SNAPSHOT: %s", strerror(u->snapshot));
	EXPECT_EQ(0, u->threshold_get)
		TH_LOG("THRESHOLD get: %s", strerror(u->threshold_get));
	EXPECT_EQ(MARK_NS, u->threshold_seen);
	EXPECT_EQ(0, u->poll_err) TH_LOG("poll: %s", strerror(u->poll_err));
	EXPECT_EQ(0, u->poll_revents & (POLLERR | POLLNVAL | POLLHUP));
	EXPECT_TRUE(u->read_err == 0 || u->read_err == EAGAIN)
		TH_LOG("read: %s", strerror(u->read_err));
	if (!u->read_err)
		EXPECT_LT(0, u->read_bytes);

	EXPECT_EQ(EPERM, u->threshold_set)
		TH_LOG("THRESHOLD set: %s", strerror(u->threshold_set));
	EXPECT_EQ(EPERM, u->reset) TH_LOG("RESET: %s", strerror(u->reset));
	EXPECT_EQ(EPERM, u->family_off)
		TH_LOG("FAMILY off: %s", strerror(u->family_off));
	EXPECT_EQ(EPERM, u->family_on)
		TH_LOG("FAMILY on: %s", strerror(u->family_on));
	EXPECT_EQ(0, u->cgroup_get)
		TH_LOG("CGROUP get: %s", strerror(u->cgroup_get));
	EXPECT_EQ(EPERM, u->cgroup_set)
		TH_LOG("CGROUP set: %s", strerror(u->cgroup_set));
}

/* run_child - @fn(@u) in a child; its wait status */
static int run_child(void (*fn)(struct unpriv *u), struct unpriv *u)
{
	int status = -1;
	pid_t pid;

	pid = fork();
	if (!pid)
		fn(u);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

TEST(control_needs_cap_sys_admin)
{
	uint64_t was = 0, ns = MARK_NS, after = 0;
	uint32_t gen0 = 0, gen1 = 0;
	struct unpriv *u;
	char err[256];
	int fd, status, on0, on1;
	pid_t pid;

	fd = gl_open(err, sizeof(err));
	ASSERT_LE(0, fd) TH_LOG("%s", err);
	ASSERT_EQ(0, gl_threshold(fd, GPULAT_FAM_SCHED, false, &was));
	/* root may set it through this descriptor */
	ASSERT_EQ(0, gl_threshold(fd, GPULAT_FAM_SCHED, true, &ns));
	ASSERT_EQ(MARK_NS, ns);
	on0 = family_attached(fd, GPULAT_FAM_SCHED, &gen0);
	ASSERT_EQ(1, on0) TH_LOG("the sched family is not attached");

	u = mmap(NULL, sizeof(*u), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, u);
	memset(u, 0, sizeof(*u));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		as_nobody(fd, u);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	/* what root sees now, before asserting anything */
	after = 0;
	EXPECT_EQ(0, gl_threshold(fd, GPULAT_FAM_SCHED, false, &after));
	on1 = family_attached(fd, GPULAT_FAM_SCHED, &gen1);
	/* put back what the test changed, whatever the outcome */
	if (on1 != 1)
		gl_family_switch(fd, GPULAT_FAM_SCHED, true);
	ns = was;
	gl_threshold(fd, GPULAT_FAM_SCHED, true, &ns);

	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child: %s failed: %s (status 0x%x)", u->setup_step,
		       strerror(u->setup), status);
	ASSERT_EQ(NOBODY, (int)u->euid);
	ASSERT_EQ(NOBODY, (int)u->egid);
	ASSERT_EQ(0, u->cap_eff & (1ULL << CAP_SYS_ADMIN))
		TH_LOG("CapEff %llx after setresuid", u->cap_eff);
	ASSERT_EQ(0ULL, u->cap_eff);

	/* reading stays open to the holder of the descriptor, control not */
	expect_reads_only(_metadata, u);

	/* and the module is as root left it */
	EXPECT_EQ(MARK_NS, after) TH_LOG("the threshold was changed");
	EXPECT_EQ(1, on1) TH_LOG("the sched family was switched off");
	EXPECT_EQ(gen0, gen1) TH_LOG("the module was reset");

	munmap(u, sizeof(*u));
	close(fd);
}

/* --- A member of the device's group ------------------------------------- */

/*
 * The node as udev's rule leaves it (root:GROUP_GID 0640) for the test's
 * length; the teardown puts back the module's 0600 root:root, the
 * threshold and the family, whatever failed.
 */
FIXTURE(group) {
	int fd;			/* root's, to set and compare */
	uint64_t was;		/* the sched threshold before */
	bool threshold_set;	/* the test changed it */
	bool node_changed;	/* the test changed the node */
	struct unpriv *member, *outsider;
};

FIXTURE_SETUP(group)
{
	struct stat st;
	char err[256];

	self->fd = -1;
	self->member = MAP_FAILED;
	/* the node as the module makes it: root's alone */
	ASSERT_EQ(0, stat(GPULAT_DEVICE_PATH, &st))
		TH_LOG("%s: %s", GPULAT_DEVICE_PATH, strerror(errno));
	ASSERT_TRUE(S_ISCHR(st.st_mode));
	ASSERT_EQ(0600, st.st_mode & 07777);
	ASSERT_EQ(0, (int)st.st_uid);
	ASSERT_EQ(0, (int)st.st_gid);
	self->fd = gl_open(err, sizeof(err));
	ASSERT_LE(0, self->fd) TH_LOG("%s", err);
	self->member = mmap(NULL, 2 * sizeof(struct unpriv),
			    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			    -1, 0);
	ASSERT_NE(MAP_FAILED, self->member);
	memset(self->member, 0, 2 * sizeof(struct unpriv));
	self->outsider = self->member + 1;
}

FIXTURE_TEARDOWN(group)
{
	uint64_t ns = self->was;
	struct stat st;

	if (self->node_changed) {
		EXPECT_EQ(0, chmod(GPULAT_DEVICE_PATH, 0600));
		EXPECT_EQ(0, chown(GPULAT_DEVICE_PATH, 0, 0));
		EXPECT_EQ(0, stat(GPULAT_DEVICE_PATH, &st));
		EXPECT_EQ(0600, st.st_mode & 07777);
		EXPECT_EQ(0, (int)st.st_gid);
	}
	if (self->fd >= 0) {
		if (family_attached(self->fd, GPULAT_FAM_SCHED, NULL) != 1)
			gl_family_switch(self->fd, GPULAT_FAM_SCHED, true);
		if (self->threshold_set)
			gl_threshold(self->fd, GPULAT_FAM_SCHED, true, &ns);
		close(self->fd);
	}
	if (self->member != MAP_FAILED)
		munmap(self->member, 2 * sizeof(struct unpriv));
}

TEST_F(group, member_reads_and_controls_nothing)
{
	struct unpriv *m = self->member, *o = self->outsider;
	uint64_t ns = MARK_NS, after = 0;
	uint32_t gen0 = 0, gen1 = 0;
	int ms, os, on0, on1;

	ASSERT_EQ(0, gl_threshold(self->fd, GPULAT_FAM_SCHED, false,
				  &self->was));
	self->threshold_set = true;
	ASSERT_EQ(0, gl_threshold(self->fd, GPULAT_FAM_SCHED, true, &ns));
	on0 = family_attached(self->fd, GPULAT_FAM_SCHED, &gen0);
	ASSERT_EQ(1, on0) TH_LOG("the sched family is not attached");

	/* what the udev rule does */
	self->node_changed = true;
	ASSERT_EQ(0, chown(GPULAT_DEVICE_PATH, 0, GROUP_GID))
		TH_LOG("chown: %s", strerror(errno));
	ASSERT_EQ(0, chmod(GPULAT_DEVICE_PATH, 0640))
		TH_LOG("chmod: %s", strerror(errno));

	ms = run_child(as_member, m);
	os = run_child(as_outsider, o);

	/* what root sees now */
	EXPECT_EQ(0, gl_threshold(self->fd, GPULAT_FAM_SCHED, false, &after));
	on1 = family_attached(self->fd, GPULAT_FAM_SCHED, &gen1);

	/* the member: nobody, no capability, in the group alone */
	ASSERT_TRUE(ms != -1 && WIFEXITED(ms) && !WEXITSTATUS(ms))
		TH_LOG("member: %s failed: %s (status 0x%x)", m->setup_step,
		       strerror(m->setup), ms);
	ASSERT_EQ(NOBODY, (int)m->euid);
	ASSERT_EQ(NOBODY, (int)m->egid);
	ASSERT_EQ(0ULL, m->cap_eff) TH_LOG("CapEff %llx", m->cap_eff);
	ASSERT_EQ(1, m->nr_groups);
	ASSERT_EQ(GROUP_GID, (int)m->groups[0]);

	/* it opens the node itself, for reading only */
	EXPECT_EQ(EACCES, m->open_rdwr)
		TH_LOG("open O_RDWR: %s", strerror(m->open_rdwr));
	ASSERT_EQ(0, m->open_rdonly)
		TH_LOG("open O_RDONLY: %s", strerror(m->open_rdonly));
	expect_reads_only(_metadata, m);
	EXPECT_EQ(GPULAT_ABI_MAJOR, m->version_major);
	EXPECT_LT(0, m->nr_series);

	/* every parameter refuses it writing; each reads */
	EXPECT_EQ(0, m->params_dir)
		TH_LOG("%s: %s", PARAMS_DIR, strerror(m->params_dir));
	EXPECT_LT(0, m->nr_params);
	EXPECT_EQ(m->nr_params, m->nr_params_write_denied)
		TH_LOG("%s: %s", m->param_bad, strerror(m->param_bad_err));
	EXPECT_LT(0, m->nr_params_to_read);
	EXPECT_EQ(m->nr_params_to_read, m->nr_params_read)
		TH_LOG("%s: %s", m->param_bad, strerror(m->param_bad_err));
	TH_LOG("%zu parameters, %zu refused writing, %zu of %zu read",
	       m->nr_params, m->nr_params_write_denied, m->nr_params_read,
	       m->nr_params_to_read);

	/* the module is as root left it */
	EXPECT_EQ(MARK_NS, after) TH_LOG("the threshold was changed");
	EXPECT_EQ(1, on1) TH_LOG("the sched family was switched off");
	EXPECT_EQ(gen0, gen1) TH_LOG("the module was reset");

	/* a user outside the group does not open the node at all */
	ASSERT_TRUE(os != -1 && WIFEXITED(os) && !WEXITSTATUS(os))
		TH_LOG("outsider: %s failed: %s (status 0x%x)", o->setup_step,
		       strerror(o->setup), os);
	ASSERT_EQ(NOBODY, (int)o->euid);
	ASSERT_EQ(0, o->nr_groups);
	EXPECT_EQ(EACCES, o->open_rdonly)
		TH_LOG("open O_RDONLY: %s", strerror(o->open_rdonly));
	EXPECT_EQ(EACCES, o->open_rdwr)
		TH_LOG("open O_RDWR: %s", strerror(o->open_rdwr));
}

/* --- No kernel addresses ------------------------------------------------ */

/*
 * A kernel address as text: 0xffff and 12 more hex digits, or a word of
 * exactly 16 hex digits starting with ffff (%px, %lx of a pointer); case
 * does not matter.
 */
static regex_t addr_re;

static void __attribute__((constructor)) addr_re_init(void)
{
	if (regcomp(&addr_re,
		    "0xffff[0-9a-f]{12}|(^|[^0-9a-z])ffff[0-9a-f]{12}([^0-9a-z]|$)",
		    REG_EXTENDED | REG_ICASE | REG_NEWLINE)) {
		fprintf(stderr, "regcomp failed\n");
		exit(1);
	}
}

/* find_addr - the first address-like token of @text in @tok, or false */
static bool find_addr(const char *text, char *tok, size_t toklen)
{
	regmatch_t m;
	int len;

	if (regexec(&addr_re, text, 1, &m, 0))
		return false;
	len = (int)(m.rm_eo - m.rm_so);
	snprintf(tok, toklen, "%.*s", len, text + m.rm_so);
	return true;
}

/* The checker itself, on tokens that are and are not addresses. */
TEST(address_pattern)
{
	static const char *const yes[] = {
		"0xffff888003a4c000", "at 0xFFFFFFFF81000000+0x10",
		"ffff888003a4c000", "p=ffffffffc0a01234\n", "(FFFF9ABCDEF01234)",
		"0xffff888003a4c0001",
	};
	static const char *const no[] = {
		"18446744073709551615", "ffff88800", "0xffff8880",
		"ffff888003a4c0001", "xffff888003a4c000", "key 0x800010",
		"gffff888003a4c000", "Gffff888003a4c000",
		"count 4  p50 1.00ms",
	};
	char tok[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(yes); i++)
		EXPECT_TRUE(find_addr(yes[i], tok, sizeof(tok)))
			TH_LOG("not found in case %zu", i);
	for (i = 0; i < ARRAY_SIZE(no); i++)
		EXPECT_FALSE(find_addr(no[i], tok, sizeof(tok)))
			TH_LOG("found '%s' in case %zu", tok, i);
}

/* read_file - the whole of @path, NUL-terminated (malloc'd); NULL on error */
static char *read_file(const char *path, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap), *nbuf;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (;;) {
		if (n + 1 >= cap) {
			nbuf = realloc(buf, cap *= 2);
			if (!nbuf)
				break;
			buf = nbuf;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	/* NULs would end the text early: read them as blanks */
	for (r = 0; (size_t)r < n; r++)
		if (!buf[r])
			buf[r] = ' ';
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* open_reader - a device file made a trace reader (its first poll) */
static int open_reader(void)
{
	char err[256];
	struct pollfd p;
	int fd = gl_open(err, sizeof(err));

	if (fd < 0)
		return fd;
	p.fd = fd;
	p.events = POLLIN;
	poll(&p, 1, 0);
	return fd;
}

/* scan_dir - check every file below @dir; files read in *@nr_files */
static void scan_dir(struct __test_metadata *_metadata, const char *dir,
		     int depth, size_t *nr_files, bool *saw_trace)
{
	char path[512], tok[64];
	struct dirent *e;
	struct stat st;
	size_t len;
	char *text;
	DIR *d;

	d = opendir(dir);
	EXPECT_NE(NULL, d) TH_LOG("%s: %s", dir, strerror(errno));
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode) && depth < 4) {
			scan_dir(_metadata, path, depth + 1, nr_files,
				 saw_trace);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		text = read_file(path, &len);
		EXPECT_NE(NULL, text) TH_LOG("%s: %s", path, strerror(errno));
		if (!text)
			continue;
		(*nr_files)++;
		*saw_trace |= !strcmp(e->d_name, "trace");
		EXPECT_FALSE(find_addr(text, tok, sizeof(tok)))
			TH_LOG("%s shows a kernel address: %s", path, tok);
		free(text);
	}
	closedir(d);
}

TEST(debugfs_shows_no_kernel_address)
{
	size_t nr_files = 0;
	bool saw_trace = false;
	uint64_t was = 0, ns = 1000000;
	struct stat st;
	int fd;

	ASSERT_EQ(0, stat(DEBUGFS_DIR, &st))
		TH_LOG("%s: %s (is debugfs mounted?)", DEBUGFS_DIR,
		       strerror(errno));
	/* a reader and a threshold: the trace file has them to show */
	fd = open_reader();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, gl_threshold(fd, GPULAT_FAM_SCHED, false, &was));
	ASSERT_EQ(0, gl_threshold(fd, GPULAT_FAM_SCHED, true, &ns));
	usleep(100000);
	scan_dir(_metadata, DEBUGFS_DIR, 0, &nr_files, &saw_trace);
	gl_threshold(fd, GPULAT_FAM_SCHED, true, &was);
	close(fd);
	TH_LOG("%zu files read", nr_files);
	/* one per family and the trace file */
	EXPECT_LE(2, nr_files);
	EXPECT_TRUE(saw_trace);
}

/* check_str - a string field of the snapshot, @n bytes at most */
#define check_str(what, idx, s, n)					\
	do {								\
		char _t[(n) + 1], _tok[64];				\
									\
		memcpy(_t, (s), (n));					\
		_t[n] = '\0';						\
		EXPECT_FALSE(find_addr(_t, _tok, sizeof(_tok)))		\
			TH_LOG("snapshot %s %zu: '%s' holds %s", what,	\
			       (size_t)(idx), _t, _tok);		\
	} while (0)

TEST(snapshot_strings_show_no_kernel_address)
{
	const struct gpulat_snap_header *h;
	const struct gpulat_series *sr;
	const struct gpulat_counter *c;
	const struct gpulat_probe *p;
	const struct gpulat_event *e;
	struct gl_snapshot *s = NULL;
	char err[256];
	size_t i;
	int fd;

	fd = gl_open(err, sizeof(err));
	ASSERT_LE(0, fd) TH_LOG("%s", err);
	ASSERT_EQ(0, gl_snapshot_take_err(fd, &s, err, sizeof(err)))
		TH_LOG("%s", err);
	close(fd);
	h = gl_snapshot_header(s);
	check_str("kernel_release", 0, h->kernel_release,
		  sizeof(h->kernel_release));
	for (i = 0; i < gl_snapshot_nr_series(s); i++) {
		sr = gl_snapshot_series(s, i);
		check_str("series name", i, sr->name, sizeof(sr->name));
		check_str("series key_name", i, sr->key_name,
			  sizeof(sr->key_name));
	}
	for (i = 0; i < gl_snapshot_nr_counters(s); i++) {
		c = gl_snapshot_counter(s, i);
		check_str("counter name", i, c->name, sizeof(c->name));
	}
	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		p = gl_snapshot_probe(s, i);
		check_str("probe family_name", i, p->family_name,
			  sizeof(p->family_name));
		check_str("probe tracepoint", i, p->tracepoint,
			  sizeof(p->tracepoint));
	}
	for (i = 0; i < gl_snapshot_nr_events(s); i++) {
		e = gl_snapshot_event(s, i);
		check_str("event device", i, e->device, sizeof(e->device));
	}
	EXPECT_LT(0, gl_snapshot_nr_series(s));
	EXPECT_LT(0, gl_snapshot_nr_probes(s));
	gl_snapshot_free(s);
}

/*
 * The 8-byte words of a record that may legitimately hold a value in the
 * kernel's range, by field.  Every other aligned word of every record, of
 * known type or not and of any size, must stay below KERNEL_ADDR_MIN.
 */
struct skip {
	uint16_t type;		/* enum gpulat_rec_type */
	uint64_t families;	/* bit per family; 0: every family */
	size_t off, len;	/* bytes of the record */
	const char *name;
};

#define SAMPLE_FIELD(f)							\
	offsetof(struct gpulat_rec_sample, f),				\
	sizeof(((struct gpulat_rec_sample *)0)->f)
/* pid and tgid of culprit @i: one 8-byte word */
#define CULPRIT_IDS(i)							\
	offsetof(struct gpulat_rec_sample, culprits[i].pid), 8

static const struct skip skips[] = {
	/* text, not numbers: a name of high bytes (UTF-8) reads as large */
	{ GPULAT_REC_SAMPLE, 0, SAMPLE_FIELD(comm), "comm" },
	{ GPULAT_REC_SAMPLE, 0, SAMPLE_FIELD(culprits[0].comm), "culprits[0].comm" },
	{ GPULAT_REC_SAMPLE, 0, SAMPLE_FIELD(culprits[1].comm), "culprits[1].comm" },
	{ GPULAT_REC_SAMPLE, 0, SAMPLE_FIELD(culprits[2].comm), "culprits[2].comm" },
	{ GPULAT_REC_EVENT, 0, offsetof(struct gpulat_rec_event, event.device),
	  sizeof(((struct gpulat_event *)0)->device), "event.device" },
	/*
	 * A culprit's tgid is -1 when the task had exited by the time it
	 * was named (uapi): 0xffffffff in the upper half of its pid/tgid
	 * word.
	 */
	{ GPULAT_REC_SAMPLE, 0, CULPRIT_IDS(0), "culprits[0].pid/tgid" },
	{ GPULAT_REC_SAMPLE, 0, CULPRIT_IDS(1), "culprits[1].pid/tgid" },
	{ GPULAT_REC_SAMPLE, 0, CULPRIT_IDS(2), "culprits[2].pid/tgid" },
	/*
	 * The key of an IRQ handler (irq and nvidia families) has in bits
	 * 32-63 a 32-bit hash of the handler's functions (gpulat_irq_key()
	 * in kmod/keyed.h): any value, 1 in 2^17 of them in this range.
	 * Other families' keys (disk, netdev and namespace inode, vector)
	 * stay checked.
	 */
	{ GPULAT_REC_SAMPLE, 1ULL << GPULAT_FAM_IRQ | 1ULL << GPULAT_FAM_NVIDIA,
	  SAMPLE_FIELD(key), "key" },
};

/* skipped - whether the word at @off of a record is one of skips[] */
static bool skipped(uint16_t type, uint32_t family, size_t off)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(skips); i++) {
		if (skips[i].type != type)
			continue;
		if (skips[i].families && (family >= 64 ||
					  !(skips[i].families & (1ULL << family))))
			continue;
		if (off >= skips[i].off && off < skips[i].off + skips[i].len)
			return true;
	}
	return false;
}

struct words {
	size_t records, samples, culprits, words;
	size_t bad;		/* words in the kernel's range, each logged */
	size_t malformed;	/* reads that did not split into records */
	bool quiet;		/* log nothing (the checker's own test) */
};

/*
 * check_records - every aligned word of the records in @buf (@len bytes),
 * counted into @w; the caller asserts (it has tasks and a threshold to
 * put back first)
 */
static void check_records(struct __test_metadata *_metadata,
			  const unsigned char *buf, size_t len,
			  struct words *w)
{
	const struct gpulat_rec_header *h;
	const struct gpulat_rec_sample *s;
	size_t off, at;
	uint32_t family;
	uint64_t v;

	for (off = 0; off < len; off += h->size) {
		h = (const void *)(buf + off);
		if (off + sizeof(*h) > len || h->size < sizeof(*h) ||
		    h->size % 8 || off + h->size > len) {
			if (!w->quiet)
				TH_LOG("malformed record at %zu of %zu bytes",
				       off, len);
			w->malformed++;
			return;
		}
		w->records++;
		family = 0;
		if (h->type == GPULAT_REC_SAMPLE &&
		    h->size >= offsetof(struct gpulat_rec_sample, series)) {
			s = (const void *)h;
			family = s->family;
			w->samples++;
			if (h->size >= GPULAT_REC_SAMPLE_SIZE_VER0)
				w->culprits += s->nr_culprits > 0;
		}
		for (at = 0; at + 8 <= h->size; at += 8) {
			if (skipped(h->type, family, at))
				continue;
			memcpy(&v, buf + off + at, 8);
			w->words++;
			if (v < KERNEL_ADDR_MIN)
				continue;
			w->bad++;
			if (!w->quiet)
				TH_LOG("record type %u (family %u, %u bytes): word at %zu holds 0x%016llx",
				       h->type, family, h->size, at,
				       (unsigned long long)v);
		}
	}
}

/* The checker itself, on records made here: what it skips, what it finds. */
TEST(record_checker)
{
	static struct {
		struct gpulat_rec_sample s[3];
		struct gpulat_rec_event e;
		struct gpulat_rec_lost l;
	} __attribute__((aligned(8))) b;
	struct words w = { .quiet = true };
	size_t i;

	for (i = 0; i < 3; i++) {
		b.s[i].hdr.size = sizeof(b.s[i]);
		b.s[i].hdr.type = GPULAT_REC_SAMPLE;
		b.s[i].hdr.time_ns = 123456789;
		b.s[i].family = GPULAT_FAM_SCHED;
		b.s[i].latency_ns = 5000000;
		b.s[i].pid = b.s[i].tgid = 42;
		memset(b.s[i].comm, 0xff, sizeof(b.s[i].comm) - 1);
		b.s[i].nr_culprits = 1;
		b.s[i].culprits[0].pid = 43;
		b.s[i].culprits[0].tgid = -1;	/* had exited */
		memset(b.s[i].culprits[2].comm, 0xfe, 15);
	}
	/* an IRQ handler's key whose hash lies high: legitimate */
	b.s[1].family = GPULAT_FAM_IRQ;
	b.s[1].key = 0xffffabcdULL << 32 | 11;
	b.e.hdr.size = sizeof(b.e);
	b.e.hdr.type = GPULAT_REC_EVENT;
	memset(b.e.event.device, 0xff, sizeof(b.e.event.device));
	b.l.hdr.size = sizeof(b.l);
	b.l.hdr.type = GPULAT_REC_LOST;
	b.l.lost = 7;
	check_records(_metadata, (const void *)&b, sizeof(b), &w);
	EXPECT_EQ(5, w.records);
	EXPECT_EQ(3, w.samples);
	EXPECT_EQ(0, w.bad);
	EXPECT_EQ(0, w.malformed);

	/* a pointer in a number, a sched key, the lost count: all found */
	b.s[0].other_ns = 0xffff888003a4c000ULL;
	b.s[2].key = 0xffffffffc0a01234ULL;
	b.l.lost = KERNEL_ADDR_MIN;
	w = (struct words){ .quiet = true };
	check_records(_metadata, (const void *)&b, sizeof(b), &w);
	EXPECT_EQ(3, w.bad);
	/* and one past what this test knows of a record */
	w = (struct words){ .quiet = true };
	b.s[0].other_ns = 0;
	b.s[2].key = 0;
	b.l.lost = 7;
	b.s[2].hdr.size = sizeof(b.s[2]) + sizeof(b.e);	/* swallows b.e */
	memset(b.e.event.device, 0, sizeof(b.e.event.device));
	b.e.hdr.size = 0xffff;		/* now data: its first word */
	b.e.hdr.type = 0xffff;
	b.e.hdr.cpu = 0xffffffff;
	check_records(_metadata, (const void *)&b, sizeof(b), &w);
	EXPECT_EQ(4, w.records);
	EXPECT_EQ(1, w.bad);
	/* a size that is not a multiple of 8 */
	w = (struct words){ .quiet = true };
	b.s[0].hdr.size = 36;
	check_records(_metadata, (const void *)&b, sizeof(b), &w);
	EXPECT_EQ(1, w.malformed);
}

/*
 * Every sched sample an outlier for 0.3 s, with a hog and a sleeper
 * sharing a CPU so that records name culprits: no word of any record
 * holds a kernel address.
 */
TEST(trace_records_hold_no_kernel_address)
{
	static unsigned char buf[GL_TRACE_BUF] __attribute__((aligned(8)));
	struct pollfd p = { .events = POLLIN };
	uint64_t was = 0, ns = 1, end, t;
	int cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	struct words w = { 0 };
	pid_t hog, sleeper;
	ssize_t n;
	int fd;

	fd = open_reader();
	ASSERT_LE(0, fd);
	p.fd = fd;
	ASSERT_EQ(0, gl_threshold(fd, GPULAT_FAM_SCHED, false, &was));
	ASSERT_EQ(0, gl_threshold(fd, GPULAT_FAM_SCHED, true, &ns));
	hog = vm_spawn(cpu, "gl_hog", 0, 0);
	sleeper = vm_spawn(cpu, "gl_sleeper", 19, 1000);
	end = now_ns() + 300000000ULL;
	while ((t = now_ns()) < end) {
		if (poll(&p, 1, (end - t) / 1000000 + 1) != 1)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			continue;
		check_records(_metadata, buf, n, &w);
	}
	vm_stop(sleeper);
	vm_stop(hog);
	ns = was;
	gl_threshold(fd, GPULAT_FAM_SCHED, true, &ns);
	close(fd);
	TH_LOG("%zu records (%zu samples, %zu naming culprits), %zu words checked, %zu in the kernel's range",
	       w.records, w.samples, w.culprits, w.words, w.bad);
	/* hundreds of switches in 0.3 s: the check saw real records */
	EXPECT_LE(10, w.samples);
	EXPECT_EQ(0, w.malformed);
	EXPECT_EQ(0, w.bad);
}

VMTEST_HARNESS_MAIN
