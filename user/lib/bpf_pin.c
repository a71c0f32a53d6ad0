// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: the BPF source pinned in bpffs (gpulat attach, detach).
 * Several gpulat users share one pin folder, so no reader may ever see
 * it half made: attach pins everything in a folder of its own
 * (GL_BPF_PIN_DIR "_tmp_PID_START", START the process's start time) and
 * renames it into place; detach renames it away (GL_BPF_PIN_DIR
 * "_old_PID_START") before it removes the pins.  Each holds an exclusive
 * flock on its folder until it is done, which the kernel drops when it
 * dies: what a killed attach or detach left (its lock free, its process
 * gone) is swept by the next command, and gpulat attach, detach and
 * status say what they removed.  A folder at GL_BPF_PIN_DIR that is not a
 * whole source of this build (an older gpulat's killed attach, pins
 * removed by hand) is named for what it is and never read; detach
 * removes it and attach replaces it.  GPULAT_ATTACH_PAUSE=N stops an
 * attach or detach at its step N until it is killed (tests).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/bpf_fam.h"
#include "lib/bpf_int.h"
#include "lib/bpf_pin.h"
#include "lib/bpf_source.h"
#include "lib/gpulat_user.h"
#include "lib/libinternal.h"
#include "lib/procname.h"
#include "lib/source.h"
/* the skeleton last: it uses the types of the headers above */
#include "gpulat.skel.h"

#define BS_BPFFS		"/sys/fs/bpf"
#define BS_BPF_FS_MAGIC		0xcafe4a11
/* temporaries beside the pin folder (bpffs refuses dots in names) */
#define BS_TMP			GL_BPF_PIN_DIR "_tmp_"
#define BS_OLD			GL_BPF_PIN_DIR "_old_"

/*
 * bs_map_fits - whether pinned map @fd has @map's type, flags, key and
 * value sizes (the entries may differ: the loader sizes some maps by CPU)
 */
static bool bs_map_fits(int fd, const struct bpf_map *map)
{
	struct bpf_map_info info = { };
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	return info.type == bpf_map__type(map) &&
	       info.map_flags == bpf_map__map_flags(map) &&
	       info.key_size == bpf_map__key_size(map) &&
	       info.value_size == bpf_map__value_size(map);
}

/* bs_open_maps - the pinned maps: -ENOENT one missing, -EPROTO another build's */
static int bs_open_maps(struct gl_bpf *b, char *err, size_t errlen)
{
	struct gpulat_bpf *skel;
	struct bpf_map *map;
	char path[256];
	int fd, ret = 0;

	/* the names, from the skeleton, without loading it */
	skel = gl_bpf_skel_open();
	if (!skel)
		return -errno;
	bpf_object__for_each_map(map, skel->obj) {
		gl_bpf_pin_path(b, path, sizeof(path), "maps",
				bpf_map__name(map));
		fd = bpf_obj_get(path);
		if (fd < 0 || b->nr_maps >= GL_BPF_MAX_MAPS) {
			gl_set_err(err, errlen,
				   "%s is half made, not a BPF source: maps/%s: %s (left by a gpulat attach killed before it finished, or pins removed by hand); never read: gpulat detach removes it, gpulat attach replaces it",
				   b->pin_dir, bpf_map__name(map),
				   strerror(errno));
			ret = -ENOENT;
			break;
		}
		if (!bs_map_fits(fd, map)) {
			/* another build's layout: reading it would overrun */
			gl_set_err(err, errlen,
				   "%s is another build's: maps/%s has another layout (run gpulat detach with the gpulat that attached it, or gpulat detach, then gpulat attach)",
				   b->pin_dir, bpf_map__name(map));
			close(fd);
			ret = -EPROTO;
			break;
		}
		if (map == skel->maps.data)
			b->data_fd = fd;
		snprintf(b->maps[b->nr_maps].name, GL_BPF_NAME, "%s",
			 bpf_map__name(map));
		b->maps[b->nr_maps++].fd = fd;
	}
	gpulat_bpf__destroy(skel);
	return ret;
}

/* bs_open_progs - the pinned programs and links, family by family */
static void bs_open_progs(struct gl_bpf *b)
{
	const struct gl_bpf_family *bf;
	char path[256], name[GL_BPF_NAME];
	uint32_t f;
	unsigned int i;
	int fd;

	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		bf = gl_bpf_family(f);
		for (i = 0; bf && i < bf->nr_tps; i++) {
			struct gl_bpf_tpst *t = &b->tp[f][i];
			int raw;

			t->state = GPULAT_PROBE_MISSING;
			for (raw = 0; raw < 2; raw++) {
				gl_bpf_pin_path(b, path, sizeof(path), "progs",
						gl_bpf_prog_name(name,
								 sizeof(name),
								 f, i, raw));
				fd = bpf_obj_get(path);
				if (fd < 0)
					continue;
				t->prog_fd = fd;
				t->raw = raw;
				t->state = GPULAT_PROBE_DISABLED;
				gl_bpf_pin_path(b, path, sizeof(path), "links",
						name);
				t->link_fd = bpf_obj_get(path);
				if (t->link_fd >= 0)
					t->state = GPULAT_PROBE_ATTACHED;
				else
					t->link_fd = -1;
				break;
			}
		}
		if (bf && bf->iter_prog) {
			gl_bpf_pin_path(b, path, sizeof(path), "progs",
					bf->iter_prog);
			fd = bpf_obj_get(path);
			b->iter_fd[f] = fd >= 0 ? fd : -1;
		}
		/* the uprobes' programs; their links stay the pins' (bpf_cuda.c) */
		for (i = 0; bf && i < 2; i++) {
			if (!bf->up_prog[i])
				continue;
			gl_bpf_pin_path(b, path, sizeof(path), "progs",
					bf->up_prog[i]);
			fd = bpf_obj_get(path);
			b->up_prog[i] = fd >= 0 ? fd : -1;
		}
	}
}

/*
 * gl_bpf_open_pinned - the source GL_BPF_PIN_DIR holds: 0; -ENOENT
 * nothing pinned (@err empty) or a stale folder, -EPROTO another build's
 */
/* bs_moved - whether the folder opened is no longer at its path (detached) */
static bool bs_moved(const struct gl_bpf *b)
{
	struct stat a, p;

	return fstat(b->lock_fd, &a) || stat(b->pin_dir, &p) ||
	       a.st_ino != p.st_ino || a.st_dev != p.st_dev;
}

int gl_bpf_open_pinned(struct gl_bpf *b, char *err, size_t errlen)
{
	struct gl_bpf_conf c;
	int ret = 0;

	if (err && errlen)
		err[0] = '\0';
	b->lock_fd = open(b->pin_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->lock_fd < 0)
		return -ENOENT;
	b->pinned = true;
	/* a detach removes the pins under LOCK_EX: none goes while we open */
	while (flock(b->lock_fd, LOCK_SH) && errno == EINTR)
		;
	ret = bs_open_maps(b, err, errlen);
	if (!ret && (gl_bpf_conf_get(b, &c) || !c.ready)) {
		gl_set_err(err, errlen,
			   "%s is half made, not a BPF source: its settings were never made (left by a gpulat attach killed before it finished); never read: gpulat detach removes it, gpulat attach replaces it",
			   b->pin_dir);
		ret = -ENOENT;
	}
	if (!ret)
		bs_open_progs(b);
	/* emptied by a detach before we got it: nothing is pinned */
	if (ret && bs_moved(b)) {
		if (err && errlen)
			err[0] = '\0';
		ret = -ENOENT;
	}
	flock(b->lock_fd, LOCK_UN);
	return ret;
}

/* gl_bpf_pinned - whether anything is at GL_BPF_PIN_DIR */
bool gl_bpf_pinned(void)
{
	struct stat st;

	return !stat(GL_BPF_PIN_DIR, &st);
}

/* gl_bpf_attached_by - "pid P (alive|gone), uid U, at TIME" of a pinned @b */
const char *gl_bpf_attached_by(const struct gl_bpf *b, char *buf,
			       size_t len)
{
	struct gl_bpf_conf c;
	char when[64] = "?";
	time_t t;
	struct tm tm;

	if (gl_bpf_conf_get(b, &c) || !c.attach_pid) {
		snprintf(buf, len, "an older gpulat attach");
		return buf;
	}
	t = (time_t)c.attach_time;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	snprintf(buf, len, "gpulat attach (pid %u, uid %u, at %s)",
		 c.attach_pid, c.attach_uid, when);
	return buf;
}

/* --- Temporaries -------------------------------------------------------- */

static void bs_rm_sub(const char *dir, const char *sub)
{
	char pattern[256];
	glob_t g;
	size_t i;

	snprintf(pattern, sizeof(pattern), "%s/%s/*", dir, sub);
	if (!glob(pattern, GLOB_NOSORT, NULL, &g))
		for (i = 0; i < g.gl_pathc; i++)
			unlink(g.gl_pathv[i]);
	globfree(&g);
	snprintf(pattern, sizeof(pattern), "%s/%s", dir, sub);
	rmdir(pattern);
}

/* bs_rm - remove pin folder @dir: maps first, so it is no source at once */
static int bs_rm(const char *dir)
{
	bs_rm_sub(dir, "maps");
	bs_rm_sub(dir, "links");
	bs_rm_sub(dir, "progs");
	return rmdir(dir) ? -errno : 0;
}

/*
 * bs_maker_gone - whether the attach or detach that made temporary @dir
 * (its name ending PID or PID_START) is provably gone: its process is
 * not there (or is another with its pid) and nobody holds its lock
 */
static bool bs_maker_gone(const char *dir, const char *name, long *pid)
{
	unsigned long long start = 0;
	char *end;
	bool gone;
	int fd;

	*pid = strtol(name, &end, 10);
	if (*end == '_')
		start = strtoull(end + 1, NULL, 10);
	gone = start ? procname_start(*pid) != start : !procname_start(*pid);
	if (!gone)
		return false;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* a maker in another pid namespace still holds it */
	gone = !flock(fd, LOCK_EX | LOCK_NB);
	close(fd);
	return gone;
}

size_t gl_bpf_pin_sweep_said(char *said, size_t len)
{
	static const char *const pre[] = { BS_TMP, BS_OLD };
	char pattern[256];
	size_t i, n = 0, at = 0;
	unsigned int k;
	glob_t g;
	long pid;

	if (said && len)
		said[0] = '\0';
	for (k = 0; k < ARRAY_SIZE(pre); k++) {
		snprintf(pattern, sizeof(pattern), "%s*", pre[k]);
		if (glob(pattern, GLOB_NOSORT | GLOB_ONLYDIR, NULL, &g))
			continue;
		for (i = 0; i < g.gl_pathc; i++) {
			if (!bs_maker_gone(g.gl_pathv[i],
					   g.gl_pathv[i] + strlen(pre[k]), &pid))
				continue;
			bs_rm(g.gl_pathv[i]);
			n++;
			if (said && at < len)
				at += snprintf(said + at, len - at,
					       "%s%s, the half-%s pin folder of gpulat %s (pid %ld), killed before it finished",
					       at ? "; " : "", g.gl_pathv[i],
					       k ? "removed" : "made",
					       k ? "detach" : "attach", pid);
		}
		globfree(&g);
	}
	return n;
}

/*
 * gl_bpf_pin_sweep - remove the temporaries of attaches and detaches
 * whose process is gone (killed); those of live ones are theirs
 */
void gl_bpf_pin_sweep(void)
{
	gl_bpf_pin_sweep_said(NULL, 0);
}

/* bs_pause - GPULAT_ATTACH_PAUSE=N: stop at step @step until killed */
static void bs_pause(const char *what, unsigned int step)
{
	const char *e = getenv(GL_BPF_PAUSE_ENV);

	if (!e || strtoul(e, NULL, 10) != step)
		return;
	fprintf(stderr, "gpulat: %s paused at step %u (%s)\n", what, step,
		GL_BPF_PAUSE_ENV);
	for (;;)
		pause();
}

/* bs_lock - hold an exclusive lock on folder @dir (the sweep's sign of life) */
static int bs_lock(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -EBUSY;
	}
	return fd;
}

/* bs_tmp_name - GL_BPF_PIN_DIR @pre PID_START for this process */
static void bs_tmp_name(char *buf, size_t len, const char *pre)
{
	snprintf(buf, len, "%s%d_%llu", pre, (int)getpid(),
		 (unsigned long long)procname_start(getpid()));
}

/* bs_mkdirs - the folders under @dir, on bpffs (mounted first if not, as bpftool does) */
static int bs_mkdirs(const char *dir)
{
	static const char *const sub[] = { "", "/maps", "/progs", "/links" };
	struct statfs fs;
	char path[256];
	unsigned int i;

	if (statfs(BS_BPFFS, &fs) || fs.f_type != BS_BPF_FS_MAGIC) {
		if (mount("bpf", BS_BPFFS, "bpf", 0, "mode=0700"))
			return -errno;
	}
	for (i = 0; i < ARRAY_SIZE(sub); i++) {
		snprintf(path, sizeof(path), "%s%s", dir, sub[i]);
		if (mkdir(path, 0700) && (i || errno != EEXIST))
			return -errno;
	}
	return 0;
}

/* bs_pin_all - pin @b's programs, links and maps under b->pin_dir */
static int bs_pin_all(struct gl_bpf *b, char *err, size_t errlen)
{
	char path[256], name[GL_BPF_NAME];
	struct bpf_map *map;
	uint32_t f;
	unsigned int i;
	int ret = 0;

	for (f = 1; !ret && f < GPULAT_FAM_MAX; f++)
		for (i = 0; gl_bpf_family(f) && i < gl_bpf_family(f)->nr_tps;
		     i++) {
			struct gl_bpf_tpst *t = &b->tp[f][i];

			if (t->prog_fd < 0)
				continue;
			gl_bpf_pin_path(b, path, sizeof(path), "progs",
					gl_bpf_prog_name(name, sizeof(name), f,
							 i, t->raw));
			if (bpf_obj_pin(t->prog_fd, path)) {
				ret = -errno;
				gl_set_err(err, errlen, "%s: %s", path,
					   strerror(errno));
				break;
			}
			/* with one program pinned: a half-made folder */
			bs_pause("attach", 3);
		}
	for (f = 1; !ret && f < GPULAT_FAM_MAX; f++) {
		if (b->iter_fd[f] < 0)
			continue;
		gl_bpf_pin_path(b, path, sizeof(path), "progs",
				gl_bpf_family(f)->iter_prog);
		if (bpf_obj_pin(b->iter_fd[f], path)) {
			ret = -errno;
			gl_set_err(err, errlen, "%s: %s", path,
				   strerror(errno));
		}
	}
	/* the cuda family's uprobe programs, its one family with them */
	for (i = 0; !ret && i < 2; i++) {
		if (b->up_prog[i] < 0)
			continue;
		gl_bpf_pin_path(b, path, sizeof(path), "progs",
				gl_bpf_family(GPULAT_FAM_CUDA)->up_prog[i]);
		if (bpf_obj_pin(b->up_prog[i], path)) {
			ret = -errno;
			gl_set_err(err, errlen, "%s: %s", path,
				   strerror(errno));
		}
	}
	b->pinned = true;	/* gl_bpf_family_on() pins the links */
	if (!ret)
		ret = gl_bpf_attach_all(b);
	if (ret)
		return ret;
	bs_pause("attach", 4);	/* attached, its links pinned */
	bpf_object__for_each_map(map, b->skel->obj) {
		gl_bpf_pin_path(b, path, sizeof(path), "maps",
				bpf_map__name(map));
		if (bpf_map__pin(map, path)) {
			ret = -errno;
			gl_set_err(err, errlen, "%s: %s", path,
				   strerror(errno));
			break;
		}
	}
	return ret;
}

/* bs_attach_info - who pins it, in its settings */
static int bs_attach_info(struct gl_bpf *b)
{
	struct gl_bpf_conf c;
	int ret = gl_bpf_conf_get(b, &c);

	if (ret)
		return ret;
	c.attach_pid = getpid();
	c.attach_uid = getuid();
	c.attach_time = time(NULL);
	return gl_bpf_conf_put(b, &c);
}

/* bs_publish - rename the made folder @tmp into place, never over a source */
static int bs_publish(const char *tmp)
{
	struct stat st;
	char why[256];
	struct gl_bpf *b;
	int ret;

	if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, GL_BPF_PIN_DIR,
		       RENAME_NOREPLACE))
		return 0;
	if (errno != EEXIST && errno != ENOTEMPTY)
		return -errno;
	/* what is there: a whole source stays, a stale folder gives way */
	b = gl_bpf_alloc();
	if (!b)
		return -ENOMEM;
	ret = gl_bpf_open_pinned(b, why, sizeof(why));
	gl_bpf_close(b);
	if (ret != -ENOENT || stat(GL_BPF_PIN_DIR, &st))
		return -EEXIST;
	bs_rm(GL_BPF_PIN_DIR);
	if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, GL_BPF_PIN_DIR,
		       RENAME_NOREPLACE))
		return 0;
	return errno == ENOTEMPTY ? -EEXIST : -errno;
}

int gl_bpf_pin(char *err, size_t errlen)
{
	char tmp[128], why[256];
	struct gl_bpf *b;
	int ret, lock;

	gl_bpf_pin_sweep();
	b = gl_bpf_alloc();
	if (!b)
		return -ENOMEM;
	ret = gl_bpf_open_pinned(b, why, sizeof(why));
	gl_bpf_close(b);
	if (!ret) {
		gl_set_err(err, errlen, "the BPF source is already pinned in %s",
			   GL_BPF_PIN_DIR);
		return -EEXIST;
	}
	if (ret == -EPROTO) {
		gl_set_err(err, errlen, "%s", why);
		return ret;
	}
	gl_bpf_log_init();
	ret = gl_bpf_precheck(err, errlen);
	if (ret)
		return ret;
	bs_tmp_name(tmp, sizeof(tmp), BS_TMP);
	ret = bs_mkdirs(tmp);
	lock = ret ? ret : bs_lock(tmp);
	if (lock < 0) {
		gl_set_err(err, errlen,
			   "%s: %s (is bpffs mounted on /sys/fs/bpf?)", tmp,
			   strerror(-lock));
		if (!ret)
			bs_rm(tmp);
		return lock;
	}
	bs_pause("attach", 1);	/* an empty folder */
	b = gl_bpf_alloc();
	if (!b) {
		bs_rm(tmp);
		close(lock);
		return -ENOMEM;
	}
	snprintf(b->pin_dir, sizeof(b->pin_dir), "%s", tmp);
	ret = gl_bpf_load(b, err, errlen);
	if (!ret)
		ret = gl_bpf_collect(b);
	if (!ret)
		ret = gl_bpf_conf_init(b);
	if (!ret)
		ret = bs_attach_info(b);
	if (!ret)
		bs_pause("attach", 2);	/* loaded, nothing pinned */
	if (!ret)
		ret = bs_pin_all(b, err, errlen);
	if (!ret)
		bs_pause("attach", 5);	/* all pinned, not in place */
	if (!ret) {
		ret = bs_publish(tmp);
		if (ret == -EEXIST)
			gl_set_err(err, errlen,
				   "the BPF source is already pinned in %s (another gpulat attach got there first)",
				   GL_BPF_PIN_DIR);
		else if (ret)
			gl_set_err(err, errlen, "%s -> %s: %s", tmp,
				   GL_BPF_PIN_DIR, strerror(-ret));
	}
	b->pinned = false;	/* the fds are the skeleton's */
	gl_bpf_close(b);
	if (ret)
		bs_rm(tmp);
	close(lock);	/* readers wait for it on the folder in place */
	if (!ret)
		bs_pause("attach", 6);	/* in place, the tool not done */
	return ret;
}

int gl_bpf_unpin(char *err, size_t errlen)
{
	char old[128];
	int fd, ret = 0;

	gl_bpf_pin_sweep();
	bs_tmp_name(old, sizeof(old), BS_OLD);
	fd = open(GL_BPF_PIN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			gl_set_err(err, errlen, "no BPF source is pinned in %s",
				   GL_BPF_PIN_DIR);
		else
			gl_set_err(err, errlen, "%s: %s", GL_BPF_PIN_DIR,
				   strerror(-ret));
		return ret;
	}
	/* no reader is half way through opening it, nor changing it */
	while (flock(fd, LOCK_EX) && errno == EINTR)
		;
	/* out of the way first: no reader finds it half removed */
	if (rename(GL_BPF_PIN_DIR, old)) {
		ret = -errno;
		gl_set_err(err, errlen, "%s: %s", GL_BPF_PIN_DIR,
			   strerror(-ret));
	} else {
		bs_pause("detach", 1);	/* out of the way, not removed */
		if (bs_rm(old)) {
			ret = -errno;
			gl_set_err(err, errlen, "%s: %s", old, strerror(-ret));
		}
	}
	close(fd);
	return ret;
}
