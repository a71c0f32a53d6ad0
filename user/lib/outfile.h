/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files gpulat writes for people (snapshots, report and flight bundles,
 * the textfile collector's page), written so that nothing is clobbered
 * or left behind:
 *  - a path that exists and is not a regular file (a device node, a
 *    FIFO, a folder) is refused, never replaced; "-" (and /dev/stdout)
 *    is standard output, written through;
 *  - the bytes go to a temporary beside the target, of an unpredictable
 *    name that carries the writer's pid, renamed over the target only
 *    when whole and synced, removed on every failure;
 *  - gl_out_sweep() removes the temporaries of writers that died
 *    (kill -9) before renaming, and nothing of a living one.
 */
#ifndef _GPULAT_USER_OUTFILE_H
#define _GPULAT_USER_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The middle of every temporary's name: ".NAME" GL_OUT_TAG "PID.XXXXXX" */
#define GL_OUT_TAG	".gpulat-tmp."
/*
 * What gpulat's files hold (every user's task names, pids, cgroups, the
 * kernel log) is for their owner: 0600, or 0640 with the group "gpulat"
 * where that group exists (GL_OUT_GROUP).
 */
#define GL_OUT_PRIVATE	((mode_t)0600)
#define GL_OUT_GROUP	"gpulat"

struct gl_out {
	int fd;				/* the temporary's, or 1 */
	bool to_stdout;
	mode_t mode;
	char path[PATH_MAX];		/* the target, symlinks resolved */
	char tmp[PATH_MAX];		/* "" when none is open */
};

/*
 * gl_out_is_stdout - whether @path means standard output ("-",
 * /dev/stdout, /dev/fd/1)
 */
bool gl_out_is_stdout(const char *path);
/*
 * gl_out_check - whether @path may be written: standard output, absent
 * in a folder this process may write, or a regular file it may replace;
 * 0, or -errno with the reason in @msg
 */
int gl_out_check(const char *path, char *msg, size_t len);
/*
 * gl_out_open - begin writing @path (its temporary, of @mode; for
 * GL_OUT_PRIVATE the group's 0640 where GL_OUT_GROUP exists); 0, or
 * -errno with the reason in @msg
 */
int gl_out_open(struct gl_out *o, const char *path, mode_t mode, char *msg,
		size_t len);
/*
 * gl_out_commit - sync, close and rename the temporary over the target
 * (re-checked: still not a device); on failure the temporary is gone and
 * the target as it was; 0, or -errno with the reason in @msg
 */
int gl_out_commit(struct gl_out *o, char *msg, size_t len);
/* gl_out_abort - close and remove the temporary; the target as it was */
void gl_out_abort(struct gl_out *o);
/* gl_out_write - all of @buf to o->fd; 0 or -errno */
int gl_out_write(struct gl_out *o, const void *buf, size_t len);

/*
 * gl_dead_writer - whether the pid in @name, after @tag, is a process that
 * is gone (so what it named is left over)
 */
bool gl_dead_writer(const char *name, const char *tag);
/*
 * gl_out_sweep - remove the temporaries in @dir (of the file @name only,
 * or all: NULL) whose writer is gone and that this user owns (root: any);
 * the number removed, or -errno.  gl_out_open() sweeps its file's.
 */
int gl_out_sweep(const char *dir, const char *name);

#endif /* _GPULAT_USER_OUTFILE_H */
