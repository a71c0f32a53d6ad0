// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: the BPF source, set up and pinned.  The programs of bpf/
 * are loaded with libbpf from the skeleton built into the tool
 * (bpf_load.c) and each family attached as the module registers its
 * probes (bpf_attach.c).  `gpulat attach` pins maps, programs and links
 * in GL_BPF_PIN_DIR, so that they stay attached between commands;
 * without pins every command loads its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf_fam.h"
#include "bpf_int.h"
#include "bpf_percpu.h"
#include "bpf_source.h"
#include "gpulat_user.h"
#include "libinternal.h"
#include "source.h"
#include "gpulat.skel.h"

/* The families' default thresholds and histories, from the module's list. */
#define GPULAT_KEEPS_SWITCHES	GL_KEEPS_SWITCHES
#define GPULAT_KEEPS_IRQ	GL_KEEPS_IRQ
#define GPULAT_KEEPS_SOFTIRQ	GL_KEEPS_SOFTIRQ
static const struct {
	uint64_t threshold_ns;
	uint32_t keeps;
} fam_defaults[GPULAT_FAM_MAX] = {
#define GPULAT_FAMILY(name, id, threshold_us, keeps) \
	[id] = { (threshold_us) * 1000ULL, (keeps) },
#include "families.h"
#undef GPULAT_FAMILY
};

/* tests/bpf/test_pin.sh reads the settings with bpftool, there. */
_Static_assert(offsetof(struct gpulat_bpf__data, gl_conf) == 0 &&
	       offsetof(struct gl_bpf_conf, reader_tgid) == 176,
	       "the settings lead .data, reader_tgid at byte 176");

uint64_t gl_bpf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int gl_bpf_map_fd(const struct gl_bpf *b, const char *name)
{
	unsigned int i;

	for (i = 0; i < b->nr_maps; i++)
		if (!strcmp(b->maps[i].name, name))
			return b->maps[i].fd;
	return -1;
}

int gl_bpf_conf_get(const struct gl_bpf *b, struct gl_bpf_conf *c)
{
	unsigned char *v = calloc(1, b->data_size);
	uint32_t zero = 0;
	int ret = 0;

	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(b->data_fd, &zero, v))
		ret = -errno;
	else
		memcpy(c, v + b->conf_off, sizeof(*c));
	free(v);
	return ret;
}

int gl_bpf_conf_put(struct gl_bpf *b, const struct gl_bpf_conf *c)
{
	unsigned char *v = calloc(1, b->data_size);
	uint32_t zero = 0;
	int ret = 0;

	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(b->data_fd, &zero, v)) {
		ret = -errno;
	} else {
		memcpy(v + b->conf_off, c, sizeof(*c));
		if (bpf_map_update_elem(b->data_fd, &zero, v, BPF_ANY))
			ret = -errno;
	}
	free(v);
	return ret;
}

/* --- Set up, pinned or for this process ---------------------------------- */

/*
 * bs_map_fits - whether pinned map @fd has @map's key and value sizes
 * (the entries may differ: the loader sizes some maps by CPU)
 */
static bool bs_map_fits(int fd, const struct bpf_map *map)
{
	struct bpf_map_info info = { };
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	return info.key_size == bpf_map__key_size(map) &&
	       info.value_size == bpf_map__value_size(map);
}

static int bs_conf_init(struct gl_bpf *b)
{
	struct gl_bpf_conf c;
	uint32_t f;
	int ret;

	ret = gl_bpf_conf_get(b, &c);
	if (ret || c.ready)
		return ret;
	for (f = 0; f < GPULAT_FAM_MAX; f++) {
		c.gate[f] = ~0ULL;
		c.threshold[f] = fam_defaults[f].threshold_ns;
	}
	c.reset_ns = gl_bpf_now_ns();
	c.cg_on = 1;	/* idle until a cgroup is watched */
	c.ready = 1;
	return gl_bpf_conf_put(b, &c);
}

static struct gl_bpf *bs_alloc(void)
{
	struct gl_bpf *b = calloc(1, sizeof(*b));
	uint32_t f;
	unsigned int i;
	int n;

	if (!b)
		return NULL;
	for (f = 0; f < GPULAT_FAM_MAX; f++) {
		for (i = 0; i < GL_BPF_NR_TPS; i++)
			b->tp[f][i].prog_fd = b->tp[f][i].link_fd = -1;
		b->iter_fd[f] = -1;
	}
	b->data_fd = -1;
	n = libbpf_num_possible_cpus();
	b->ncpus = n > 0 ? n : 1;
	b->conf_off = offsetof(struct gpulat_bpf__data, gl_conf);
	b->data_size = sizeof(struct gpulat_bpf__data);
	return b;
}

/* bs_open_pinned - the maps and programs GL_BPF_PIN_DIR holds */
static int bs_open_pinned(struct gl_bpf *b, char *err, size_t errlen)
{
	const struct gl_bpf_family *bf;
	struct gpulat_bpf *skel;
	struct bpf_map *map;
	char path[256], name[GL_BPF_NAME];
	uint32_t f;
	unsigned int i;
	int fd;

	/* the names, from the skeleton, without loading it */
	skel = gl_bpf_skel_open();
	if (!skel)
		return -errno;
	b->pinned = true;
	bpf_object__for_each_map(map, skel->obj) {
		gl_bpf_pin_path(path, sizeof(path), "maps", bpf_map__name(map));
		fd = bpf_obj_get(path);
		if (fd < 0 || b->nr_maps >= GL_BPF_MAX_MAPS) {
			gl_set_err(err, errlen,
				   "%s: %s: the pinned BPF source is not this gpulat's (run gpulat detach, then gpulat attach)",
				   path, strerror(errno));
			gpulat_bpf__destroy(skel);
			return -ENOENT;
		}
		if (!bs_map_fits(fd, map)) {
			/* another build's layout: reading it would overrun */
			gl_set_err(err, errlen,
				   "%s: the pinned BPF source comes from another build of gpulat (its layout differs; run gpulat detach, then gpulat attach)",
				   path);
			close(fd);
			gpulat_bpf__destroy(skel);
			return -ENOENT;
		}
		if (map == skel->maps.data)
			b->data_fd = fd;
		snprintf(b->maps[b->nr_maps].name, GL_BPF_NAME, "%s",
			 bpf_map__name(map));
		b->maps[b->nr_maps++].fd = fd;
	}
	gpulat_bpf__destroy(skel);
	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		bf = gl_bpf_family(f);
		for (i = 0; bf && i < bf->nr_tps; i++) {
			struct gl_bpf_tpst *t = &b->tp[f][i];
			int raw;

			t->state = GPULAT_PROBE_MISSING;
			for (raw = 0; raw < 2; raw++) {
				gl_bpf_pin_path(path, sizeof(path), "progs",
					    gl_bpf_prog_name(name, sizeof(name), f,
							 i, raw));
				fd = bpf_obj_get(path);
				if (fd < 0)
					continue;
				t->prog_fd = fd;
				t->raw = raw;
				t->state = GPULAT_PROBE_DISABLED;
				gl_bpf_pin_path(path, sizeof(path), "links", name);
				t->link_fd = bpf_obj_get(path);
				if (t->link_fd >= 0)
					t->state = GPULAT_PROBE_ATTACHED;
				else
					t->link_fd = -1;
				break;
			}
		}
		if (bf && bf->iter_prog) {
			gl_bpf_pin_path(path, sizeof(path), "progs", bf->iter_prog);
			fd = bpf_obj_get(path);
			b->iter_fd[f] = fd >= 0 ? fd : -1;
		}
	}
	return 0;
}

/*
 * bs_stale_reader - a reader of the pinned trace that died without
 * closing the gates (SIGKILL) left the probes writing records nobody
 * fetches: close them
 */
static void bs_stale_reader(struct gl_bpf *b)
{
	struct gl_bpf_conf c;
	char path[64];
	uint32_t f;

	if (gl_bpf_conf_get(b, &c) || !c.reader_tgid)
		return;
	snprintf(path, sizeof(path), "/proc/%u", c.reader_tgid);
	if (!access(path, F_OK))
		return;
	for (f = 0; f < GPULAT_FAM_MAX; f++)
		c.gate[f] = ~0ULL;
	c.keep_history = 0;
	c.reader_tgid = 0;
	gl_bpf_conf_put(b, &c);
}

bool gl_bpf_pinned(void)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/maps", GL_BPF_PIN_DIR);
	return !stat(path, &st);
}

struct gl_bpf *gl_bpf_open(bool pinned_only, int *ret, char *err,
			   size_t errlen)
{
	struct gl_bpf *b;
	uint32_t f;

	gl_bpf_log_init();
	*ret = gl_bpf_precheck(err, errlen);
	if (*ret)
		return NULL;
	b = bs_alloc();
	if (!b) {
		*ret = -ENOMEM;
		gl_set_err(err, errlen, "out of memory");
		return NULL;
	}
	if (gl_bpf_pinned()) {
		*ret = bs_open_pinned(b, err, errlen);
		if (!*ret)
			bs_stale_reader(b);
	} else if (pinned_only) {
		*ret = -ENOENT;
		gl_set_err(err, errlen, "no BPF source is pinned in %s",
			   GL_BPF_PIN_DIR);
	} else {
		*ret = gl_bpf_load(b, err, errlen);
		if (!*ret)
			*ret = gl_bpf_collect(b);
		if (!*ret)
			*ret = bs_conf_init(b);
		for (f = 1; !*ret && f < GPULAT_FAM_MAX; f++)
			if (gl_bpf_family(f))
				gl_bpf_family_on(b, f);
	}
	if (*ret) {
		if (err && !err[0])
			gl_set_err(err, errlen, "BPF source: %s",
				   strerror(-*ret));
		gl_bpf_close(b);
		return NULL;
	}
	return b;
}

void gl_bpf_close(struct gl_bpf *b)
{
	uint32_t f;
	unsigned int i;

	if (!b)
		return;
	gl_bpf_trace_close(b);
	for (f = 0; f < GPULAT_FAM_MAX; f++) {
		for (i = 0; i < GL_BPF_NR_TPS; i++) {
			if (b->tp[f][i].link_fd >= 0)
				close(b->tp[f][i].link_fd);
			if (b->pinned && b->tp[f][i].prog_fd >= 0)
				close(b->tp[f][i].prog_fd);
		}
		if (b->pinned && b->iter_fd[f] >= 0)
			close(b->iter_fd[f]);
	}
	if (b->pinned)
		for (i = 0; i < b->nr_maps; i++)
			close(b->maps[i].fd);
	gpulat_bpf__destroy(b->skel);
	free(b);
}

bool gl_bpf_fresh(const struct gl_bpf *b)
{
	return !b->pinned;
}

const char *gl_bpf_describe(const struct gl_bpf *b, char *buf, size_t len)
{
	if (b->pinned)
		snprintf(buf, len, "BPF, pinned in %s (gpulat attach)",
			 GL_BPF_PIN_DIR);
	else
		snprintf(buf, len, "BPF, loaded for this command");
	return buf;
}

int gl_bpf_threshold(struct gl_bpf *b, uint32_t family, bool set,
		     uint64_t *ns)
{
	struct gl_bpf_conf c;
	int ret;

	if (!family || family >= GPULAT_FAM_MAX)
		return -ENOENT;
	ret = gl_bpf_conf_get(b, &c);
	if (ret)
		return ret;
	if (set) {
		c.threshold[family] = *ns;
		if (b->reader)
			c.gate[family] = *ns ? *ns : ~0ULL;
		ret = gl_bpf_conf_put(b, &c);
		if (ret)
			return ret;
	}
	*ns = c.threshold[family];
	return 0;
}

/* --- Pins --------------------------------------------------------------- */

#define BS_BPFFS		"/sys/fs/bpf"
#define BS_BPF_FS_MAGIC		0xcafe4a11

/* bs_mkdirs - the pin folders, on bpffs (mounted first if not, as bpftool does) */
static int bs_mkdirs(void)
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
		snprintf(path, sizeof(path), "%s%s", GL_BPF_PIN_DIR, sub[i]);
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
	}
	return 0;
}

int gl_bpf_pin(char *err, size_t errlen)
{
	char path[256], name[GL_BPF_NAME];
	struct gl_bpf *b;
	struct bpf_map *map;
	uint32_t f;
	unsigned int i;
	int ret;

	if (gl_bpf_pinned()) {
		gl_set_err(err, errlen, "the BPF source is already pinned in %s",
			   GL_BPF_PIN_DIR);
		return -EEXIST;
	}
	gl_bpf_log_init();
	ret = gl_bpf_precheck(err, errlen);
	if (ret)
		return ret;
	ret = bs_mkdirs();
	if (ret) {
		gl_set_err(err, errlen,
			   "%s: %s (is bpffs mounted on /sys/fs/bpf?)",
			   GL_BPF_PIN_DIR, strerror(-ret));
		return ret;
	}
	b = bs_alloc();
	if (!b)
		return -ENOMEM;
	ret = gl_bpf_load(b, err, errlen);
	if (!ret)
		ret = gl_bpf_collect(b);
	if (!ret)
		ret = bs_conf_init(b);
	/* programs first, then the maps: a half-made pin has no maps/ */
	for (f = 1; !ret && f < GPULAT_FAM_MAX; f++)
		for (i = 0; gl_bpf_family(f) && i < gl_bpf_family(f)->nr_tps;
		     i++) {
			struct gl_bpf_tpst *t = &b->tp[f][i];

			if (t->prog_fd < 0)
				continue;
			gl_bpf_pin_path(path, sizeof(path), "progs",
				    gl_bpf_prog_name(name, sizeof(name), f, i,
						 t->raw));
			if (bpf_obj_pin(t->prog_fd, path)) {
				ret = -errno;
				gl_set_err(err, errlen, "%s: %s", path,
					   strerror(errno));
			}
		}
	for (f = 1; !ret && f < GPULAT_FAM_MAX; f++) {
		if (b->iter_fd[f] < 0)
			continue;
		gl_bpf_pin_path(path, sizeof(path), "progs",
			    gl_bpf_family(f)->iter_prog);
		if (bpf_obj_pin(b->iter_fd[f], path)) {
			ret = -errno;
			gl_set_err(err, errlen, "%s: %s", path,
				   strerror(errno));
		}
	}
	b->pinned = true;
	for (f = 1; !ret && f < GPULAT_FAM_MAX; f++)
		if (gl_bpf_family(f))
			gl_bpf_family_on(b, f);
	if (!ret) {
		bpf_object__for_each_map(map, b->skel->obj) {
			gl_bpf_pin_path(path, sizeof(path), "maps",
				    bpf_map__name(map));
			if (bpf_map__pin(map, path)) {
				ret = -errno;
				gl_set_err(err, errlen, "%s: %s", path,
					   strerror(errno));
				break;
			}
		}
	}
	b->pinned = false;	/* the fds are the skeleton's */
	gl_bpf_close(b);
	if (ret)
		gl_bpf_unpin(NULL, 0);
	return ret;
}

static void bs_rm_dir(const char *sub)
{
	char pattern[256];
	glob_t g;
	size_t i;

	snprintf(pattern, sizeof(pattern), "%s/%s/*", GL_BPF_PIN_DIR, sub);
	if (!glob(pattern, GLOB_NOSORT, NULL, &g))
		for (i = 0; i < g.gl_pathc; i++)
			unlink(g.gl_pathv[i]);
	globfree(&g);
	snprintf(pattern, sizeof(pattern), "%s/%s", GL_BPF_PIN_DIR, sub);
	rmdir(pattern);
}

int gl_bpf_unpin(char *err, size_t errlen)
{
	struct stat st;

	if (stat(GL_BPF_PIN_DIR, &st)) {
		gl_set_err(err, errlen, "no BPF source is pinned in %s",
			   GL_BPF_PIN_DIR);
		return -ENOENT;
	}
	/* maps first: a half-removed pin is not taken for a source */
	bs_rm_dir("maps");
	bs_rm_dir("links");
	bs_rm_dir("progs");
	if (rmdir(GL_BPF_PIN_DIR)) {
		gl_set_err(err, errlen, "%s: %s", GL_BPF_PIN_DIR,
			   strerror(errno));
		return -errno;
	}
	return 0;
}

/* --- The cgroup family --------------------------------------------------- */

#define BS_CGROUP2_MAGIC	0x63677270

int gl_bpf_cgroup_switch(struct gl_bpf *b, bool on)
{
	struct gl_bpf_conf c;
	int ret = gl_bpf_conf_get(b, &c);

	if (ret)
		return ret;
	c.cg_on = on;
	c.cg_nr = on ? c.cg_set : 0;
	return gl_bpf_conf_put(b, &c);
}

/*
 * the watch set, in the settings: the programs match a task's cgroup by
 * the ids and levels; the fds are only checked (cgroup2 directories, the
 * ids theirs), since BPF keeps nothing open
 */
/* whether this process is in a cgroup namespace other than init's */
static bool bs_cgroup_ns(void)
{
	struct stat self, init;

	/* unreadable (no /proc, not root): assume the initial one */
	if (stat("/proc/self/ns/cgroup", &self) ||
	    stat("/proc/1/ns/cgroup", &init))
		return false;
	return self.st_ino != init.st_ino || self.st_dev != init.st_dev;
}

int gl_bpf_cgroup_set(struct gl_bpf *b, const struct gl_cgroup_watch *w,
		      unsigned int n)
{
	struct gl_bpf_conf c;
	struct statfs fs;
	struct stat st;
	unsigned int i;
	int ret;

	if (n > GPULAT_CG_WATCH_MAX)
		return -E2BIG;
	/*
	 * the programs match a cgroup's global level; a cgroup namespace's
	 * paths (and so w->level) are relative to its root
	 */
	if (n && bs_cgroup_ns())
		return -EXDEV;
	for (i = 0; i < n; i++) {
		if (fstat(w[i].fd, &st) || fstatfs(w[i].fd, &fs))
			return -EBADF;
		if (fs.f_type != BS_CGROUP2_MAGIC || !S_ISDIR(st.st_mode) ||
		    (w[i].id && w[i].id != st.st_ino) ||
		    w[i].level >= GL_BPF_CG_LEVELS)
			return -EINVAL;
	}
	ret = gl_bpf_conf_get(b, &c);
	if (ret)
		return ret;
	/* nothing watched while the set changes */
	c.cg_nr = 0;
	ret = gl_bpf_conf_put(b, &c);
	if (ret)
		return ret;
	memset(c.cg_watch, 0, sizeof(c.cg_watch));
	for (i = 0; i < n; i++) {
		fstat(w[i].fd, &st);
		c.cg_watch[i].id = st.st_ino;
		c.cg_watch[i].level = w[i].level;
	}
	c.cg_set = n;
	c.cg_nr = c.cg_on ? n : 0;
	return gl_bpf_conf_put(b, &c);
}

int gl_bpf_cgroup_get(struct gl_bpf *b, uint64_t *ids, unsigned int *n)
{
	struct gl_bpf_conf c;
	unsigned int i;
	int ret;

	*n = 0;
	ret = gl_bpf_conf_get(b, &c);
	if (ret)
		return ret;
	for (i = 0; i < c.cg_set && i < GPULAT_CG_WATCH_MAX; i++)
		ids[i] = c.cg_watch[i].id;
	*n = i;
	return 0;
}
