/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroups (v2) as people name them: the cgroup2 mount, a path opened for
 * the cgroup family's watch set, an id (the directory's inode number)
 * back to its path by a bounded walk, and the container, pod or systemd
 * unit a path shows.
 */
#ifndef _GPULAT_USER_CGROUP_H
#define _GPULAT_USER_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct gl_cgroup_watch;

/* Bounds of one id -> path walk of the mount. */
#define GL_CG_MAX_ENTRIES	4096	/* cgroups the cache holds */
#define GL_CG_MAX_DEPTH		16	/* levels below the mount walked */
#define GL_CG_MAX_V1_LINES	64	/* lines of /proc/PID/cgroup read */

/*
 * gl_cg_mount_parse - the cgroup2 mount point in mountinfo @text (@len
 * bytes, need not end in NUL): the pure mount at /sys/fs/cgroup first, the
 * hybrid one at /sys/fs/cgroup/unified next, else the first of type
 * cgroup2.  0, or -ENOENT; -ENAMETOOLONG if @buf is too small.
 */
int gl_cg_mount_parse(const char *text, size_t len, char *buf, size_t blen);

/*
 * gl_cg_root - the cgroup2 mount this process reads (from
 * /proc/self/mountinfo, once), or the one gl_cg_set_root() set; NULL if
 * there is none
 */
const char *gl_cg_root(void);
/*
 * gl_cg_set_root - read cgroups under @root instead (tests: a temporary
 * tree, any file system); NULL goes back to the mount.  Empties the cache.
 */
void gl_cg_set_root(const char *root);

/*
 * gl_cg_open - open cgroup @path for gl_source_cgroup_set(): a path under
 * the mount ("/sys/fs/cgroup/x") or relative to it ("/x", "x").  Fills
 * @w (fd, id, level) and @rel (the path from the mount, "/x"); 0, or
 * -errno with @err saying why (not a cgroup2 directory, no mount, ...).
 */
int gl_cg_open(const char *path, struct gl_cgroup_watch *w, char *rel,
	       size_t rlen, char *err, size_t elen);

/* What the id -> path walks hit: each bound, counted. */
struct gl_cg_stats {
	uint64_t walks;		/* walks of the mount */
	uint64_t entries_full;	/* directories not entered: cache full */
	uint64_t too_deep;	/* directories below GL_CG_MAX_DEPTH skipped */
	uint64_t v1_lines;	/* /proc/PID/cgroup reads cut at the bound */
};

/*
 * gl_cg_path - cgroup @id's path from the mount ("/", "/system.slice/x")
 * into @buf, from the cache, else after one walk (at most one a second
 * for ids not found); NULL for 0 or an id not found
 */
const char *gl_cg_path(uint64_t id, char *buf, size_t len);
/* gl_cg_stats - the counters of the walks so far */
void gl_cg_stats(struct gl_cg_stats *st);
/* gl_cg_set_bounds - other walk bounds (tests); 0 keeps the default */
void gl_cg_set_bounds(unsigned int entries, unsigned int depth);

enum gl_cg_kind {
	GL_CG_NONE,		/* the path names nothing known */
	GL_CG_DOCKER,		/* docker-ID.scope, /docker/ID */
	GL_CG_CONTAINERD,	/* cri-containerd-ID.scope */
	GL_CG_CRIO,		/* crio-ID.scope */
	GL_CG_PODMAN,		/* libpod-ID.scope */
	GL_CG_KUBE,		/* /kubepods/.../podUID/ID: runtime unknown */
	GL_CG_UNIT,		/* a systemd unit: NAME.service, NAME.scope */
	GL_CG_USER,		/* user-UID.slice (and a unit below, if any) */
};

#define GL_CG_ID_LEN	64	/* a container id: 64 hex digits */
#define GL_CG_SHORT_LEN	12	/* as docker prints it */

/* What a path shows. */
struct gl_cg_name {
	enum gl_cg_kind kind;
	char id[GL_CG_ID_LEN + 1];	/* container id; "" for units */
	char pod[40];			/* Kubernetes pod uid, "" if none */
	char unit[128];			/* the leaf-most systemd unit, or "" */
	long uid;			/* of user-UID.slice; -1 if none */
};

/* gl_cg_name_path - what @path shows; the kind, GL_CG_NONE if nothing */
enum gl_cg_kind gl_cg_name_path(const char *path, struct gl_cg_name *n);
/* gl_cg_kind_name - "docker", "containerd", ..., "unit", "user", "" */
const char *gl_cg_kind_name(enum gl_cg_kind k);
/*
 * gl_cg_name_text - "docker 0123456789ab", "containerd 0123456789ab pod
 * UID", "unit sshd.service", "user 1000"; "" for GL_CG_NONE
 */
const char *gl_cg_name_text(char *buf, size_t len, const struct gl_cg_name *n);

/*
 * gl_cg_name_v1 - on a hybrid host: the container that the v1 lines of
 * /proc/@pid/cgroup show (the first that names one), read from @root_proc
 * ("/proc"; tests: a temporary tree); GL_CG_NONE if none, if the task is
 * gone, or if its v2 line is not @v2 (NULL: not checked): it moved
 */
enum gl_cg_kind gl_cg_name_v1(const char *root_proc, pid_t pid,
			      const char *v2, struct gl_cg_name *n);
/* gl_cg_name_v1_text - the same over /proc/PID/cgroup's text (fuzzed) */
enum gl_cg_kind gl_cg_name_v1_text(const char *text, size_t len,
				   const char *v2, struct gl_cg_name *n);
/* gl_cg_hybrid - whether cgroup2 is the unified mount beside v1 ones */
bool gl_cg_hybrid(void);
/*
 * gl_cg_v1_dir - on a hybrid host: the directory of @pid's cgroup in the
 * v1 hierarchy of controller @ctrl ("cpu", "cpuset", "memory"), under
 * @root_v1 ("/sys/fs/cgroup", where systemd mounts each hierarchy under
 * its controller list), from @root_proc/PID/cgroup; false if none
 */
bool gl_cg_v1_dir(const char *root_proc, const char *root_v1, pid_t pid,
		  const char *ctrl, char *dir, size_t len);
/* gl_cg_is_container - whether @k names a container (not a unit or user) */
bool gl_cg_is_container(enum gl_cg_kind k);

#endif /* _GPULAT_USER_CGROUP_H */
