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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "lib/bpf_fam.h"
#include "lib/bpf_int.h"
#include "lib/bpf_percpu.h"
#include "lib/bpf_source.h"
#include "lib/gpulat_user.h"
#include "lib/libinternal.h"
#include "lib/source.h"
/* the skeleton last: it uses the types of the headers above */
#include "gpulat.skel.h"

/* The families' default thresholds and histories, from the module's list. */
#define GPULAT_KEEPS_SWITCHES	GL_KEEPS_SWITCHES
#define GPULAT_KEEPS_IRQ	GL_KEEPS_IRQ
#define GPULAT_KEEPS_SOFTIRQ	GL_KEEPS_SOFTIRQ
static const struct {
	uint64_t threshold_ns;
	uint32_t keeps;
} fam_defaults[GPULAT_FAM_MAX] = {
#define GPULAT_FAMILY(name, id, threshold_us, keeps, tool)		\
	[id] = { (threshold_us) * 1000ULL, (keeps) },
#include "families.h"
#undef GPULAT_FAMILY
};

/*
 * tests/bpf/test_pin.sh reads the settings with bpftool, there: the
 * gates, a u64 per family id, then keep_history and nr_readers.
 */
_Static_assert(offsetof(struct gpulat_bpf__data, gl_conf) == 0 &&
	       offsetof(struct gl_bpf_conf, nr_readers) ==
	       8 * GPULAT_FAM_MAX + 4,
	       "the settings lead .data, nr_readers after the gates");

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

int gl_bpf_conf_init(struct gl_bpf *b)
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

struct gl_bpf *gl_bpf_alloc(void)
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
	b->up_prog[0] = b->up_prog[1] = -1;
	for (i = 0; i < GPULAT_CUDA_FN_MAX; i++)
		b->up_link[i][0] = b->up_link[i][1] = -1;
	b->data_fd = -1;
	b->lock_fd = -1;
	b->slot = -1;
	b->ring_fd = -1;
	n = libbpf_num_possible_cpus();
	b->ncpus = n > 0 ? n : 1;
	b->conf_off = offsetof(struct gpulat_bpf__data, gl_conf);
	b->data_size = sizeof(struct gpulat_bpf__data);
	snprintf(b->pin_dir, sizeof(b->pin_dir), "%s", GL_BPF_PIN_DIR);
	return b;
}

void gl_bpf_lock(struct gl_bpf *b)
{
	if (b->lock_fd >= 0 && !b->lock_depth++)
		while (flock(b->lock_fd, LOCK_EX) && errno == EINTR)
			;
}

void gl_bpf_unlock(struct gl_bpf *b)
{
	if (b->lock_fd >= 0 && b->lock_depth && !--b->lock_depth)
		flock(b->lock_fd, LOCK_UN);
}

/*
 * bs_stale_readers - readers of the pinned trace that died without
 * giving their slot back (SIGKILL) left the probes writing records
 * nobody fetches: free their slots
 */
static void bs_stale_readers(struct gl_bpf *b)
{
	struct gl_bpf_conf c;

	gl_bpf_lock(b);
	if (!gl_bpf_conf_get(b, &c) && c.nr_readers) {
		gl_bpf_readers_fix(b, &c);
		gl_bpf_conf_put(b, &c);
	}
	gl_bpf_unlock(b);
}

struct gl_bpf *gl_bpf_open(enum gl_bpf_mode mode, uint64_t families,
			   int *ret, char *err, size_t errlen)
{
	struct gl_bpf *b;

	gl_bpf_log_init();
	*ret = gl_bpf_precheck(err, errlen);
	if (*ret)
		return NULL;
	b = gl_bpf_alloc();
	if (!b) {
		*ret = -ENOMEM;
		gl_set_err(err, errlen, "out of memory");
		return NULL;
	}
	if (mode == GL_BPF_PINNED) {
		gl_bpf_pin_sweep();
		*ret = gl_bpf_open_pinned(b, err, errlen);
		if (*ret == -ENOENT && err && !err[0])
			gl_set_err(err, errlen, "no BPF source is pinned in %s",
				   GL_BPF_PIN_DIR);
		if (!*ret) {
			bs_stale_readers(b);
			gl_bpf_refresh(b);
		}
	} else {
		b->want = families;
		*ret = gl_bpf_load(b, err, errlen);
		if (!*ret)
			*ret = gl_bpf_collect(b);
		if (!*ret)
			*ret = gl_bpf_conf_init(b);
		if (!*ret)
			*ret = gl_bpf_attach_all(b);
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
	unsigned int i, k;
	uint32_t f;

	if (!b)
		return;
	gl_bpf_trace_close(b);
	/* the uprobes this process holds first, entries before returns */
	for (k = 0; k < 2; k++)
		for (i = 0; i < GPULAT_CUDA_FN_MAX; i++)
			if (b->up_link[i][k] >= 0)
				close(b->up_link[i][k]);
	for (k = 0; b->pinned && k < 2; k++)
		if (b->up_prog[k] >= 0)
			close(b->up_prog[k]);
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
	if (b->lock_fd >= 0)
		close(b->lock_fd);
	gl_bpf_snap_free(b);
	gpulat_bpf__destroy(b->skel);
	free(b);
}

bool gl_bpf_is_pinned(const struct gl_bpf *b)
{
	return b->pinned;
}

bool gl_bpf_fresh(const struct gl_bpf *b)
{
	return !b->pinned;
}

const char *gl_bpf_describe(const struct gl_bpf *b, char *buf, size_t len)
{
	char by[128];

	if (b->pinned)
		snprintf(buf, len, "BPF, pinned in %s by %s", b->pin_dir,
			 gl_bpf_attached_by(b, by, sizeof(by)));
	else
		snprintf(buf, len, "BPF, loaded for this command");
	return buf;
}

/*
 * gl_bpf_threshold - this process's outlier threshold of @family: its
 * own, set here, or the source's default; never one other users of a
 * pinned source share (each reader has its own gates)
 */
int gl_bpf_threshold(struct gl_bpf *b, uint32_t family, bool set,
		     uint64_t *ns)
{
	struct gl_bpf_conf c;
	int ret;

	if (!family || family >= GPULAT_FAM_MAX)
		return -ENOENT;
	if (set) {
		b->thr[family] = *ns;
		b->thr_set |= 1ULL << family;
		return gl_bpf_reader_gates(b);
	}
	if (b->thr_set & (1ULL << family)) {
		*ns = b->thr[family];
		return 0;
	}
	ret = gl_bpf_conf_get(b, &c);
	if (ret)
		return ret;
	*ns = c.threshold[family];
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
