// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: the BPF source's attach.  Each family's tracepoints in the
 * module's order, undone on a failure; its state cleared before (as the
 * module's clear) and its task iterator run after; its links pinned too
 * when the source is (gpulat attach).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/bpf_fam.h"
#include "lib/bpf_int.h"
#include "lib/bpf_source.h"
#include "lib/gpulat_user.h"
#include "lib/libinternal.h"
#include "lib/source.h"

/* --- Attach ------------------------------------------------------------- */

static int bs_attach_tp(struct gl_bpf *b, uint32_t f, unsigned int i)
{
	const struct gl_bpf_family *bf = gl_bpf_family(f);
	struct gl_bpf_tpst *t = &b->tp[f][i];
	const char *tp;

	if (t->link_fd >= 0 || t->prog_fd < 0)
		return 0;
	tp = strchr(bf->tps[i].tracepoint, ':');
	tp = tp ? tp + 1 : bf->tps[i].tracepoint;
	t->link_fd = bpf_raw_tracepoint_open(t->raw ? tp : NULL, t->prog_fd);
	if (t->link_fd < 0) {
		t->link_fd = -1;
		t->state = GPULAT_PROBE_FAILED;
		t->error = errno;
		return -errno;
	}
	t->state = GPULAT_PROBE_ATTACHED;
	t->error = 0;
	return 0;
}

static void bs_detach_tp(struct gl_bpf_tpst *t)
{
	if (t->link_fd < 0)
		return;
	close(t->link_fd);
	t->link_fd = -1;
	t->state = GPULAT_PROBE_DISABLED;
}

/* gl_bpf_pin_path - where @name is pinned; bpffs refuses dots in names */
void gl_bpf_pin_path(const struct gl_bpf *b, char *buf, size_t len,
		     const char *kind, const char *name)
{
	char *p;
	int n;

	/*
	 * through the folder opened (lock_fd): a detach that renames it away
	 * meanwhile cannot make a path resolve elsewhere
	 */
	if (b->lock_fd >= 0)
		n = snprintf(buf, len, "/proc/self/fd/%d/%s/", b->lock_fd, kind);
	else
		n = snprintf(buf, len, "%s/%s/", b->pin_dir, kind);
	snprintf(buf + n, len - n, "%s", name);
	for (p = buf + n; *p; p++)
		if (*p == '.')
			*p = '_';
}

const char *gl_bpf_prog_name(char *buf, size_t len, uint32_t f,
				unsigned int i, bool raw)
{
	snprintf(buf, len, "%s%s", gl_bpf_family(f)->tps[i].prog,
		 raw ? "_raw" : "");
	return buf;
}

/* bs_run_iter - run task iterator @prog_fd once over every task */
static int bs_run_iter(int prog_fd)
{
	char buf[64];
	int link, fd, ret = 0;
	ssize_t n;

	link = bpf_link_create(prog_fd, 0, BPF_TRACE_ITER, NULL);
	if (link < 0)
		return -errno;
	fd = bpf_iter_create(link);
	if (fd < 0) {
		ret = -errno;
	} else {
		/* it writes nothing: one read walks them all */
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		if (n < 0)
			ret = -errno;
		close(fd);
	}
	close(link);
	return ret;
}

/*
 * bs_family_ops - the family's clear before its programs attach, when
 * some are loaded and none is attached (@before), its task iterator
 * after
 */
static void bs_family_ops(struct gl_bpf *b, uint32_t f, bool before)
{
	const struct gl_bpf_family *bf = gl_bpf_family(f);
	bool loaded = false;
	unsigned int i;
	int ret = 0;

	if (before) {
		for (i = 0; i < bf->nr_tps; i++) {
			if (b->tp[f][i].link_fd >= 0)
				return;
			loaded |= b->tp[f][i].prog_fd >= 0;
		}
		if (loaded && bf->clear)
			ret = bf->clear(b);
	} else if (bf->iter_prog) {
		ret = b->iter_fd[f] >= 0 ? bs_run_iter(b->iter_fd[f]) : -ENOENT;
	}
	if (ret)
		fprintf(stderr, "gpulat: the %s family's BPF %s failed: %s\n",
			gl_family_name(f),
			before ? "clear" : "task iterator", strerror(-ret));
}

/* the tests' stand-in for a driver: its families attach without it */
#define BS_ASSUME_DRIVERS_ENV	"GPULAT_BPF_ASSUME_DRIVERS"

const char *gl_bpf_driver_absent(uint32_t f, char *why, size_t len)
{
	const struct gl_bpf_family *bf = gl_bpf_family(f);
	char path[64];

	if (!bf || !bf->driver || getenv(BS_ASSUME_DRIVERS_ENV))
		return NULL;
	snprintf(path, sizeof(path), "/sys/module/%s", bf->driver);
	if (!access(path, F_OK))
		return NULL;
	snprintf(why, len, "held back until the %s driver loads (no %s)",
		 bf->driver, path);
	return why;
}

/*
 * gl_bpf_family_loads - @f's programs are loaded: every family, or @f was
 * asked for, or a family asked for files its samples from @f's programs
 * (the cgroup family rides on others')
 */
bool gl_bpf_family_loads(const struct gl_bpf *b, uint32_t f)
{
	const struct gl_bpf_family *bf;
	uint32_t g;
	unsigned int i;

	if (!b->want || (f < 64 && (b->want & (1ULL << f))))
		return true;
	for (g = 1; g < GPULAT_FAM_MAX && g < 64; g++) {
		bf = gl_bpf_family(g);
		if (!bf || !(b->want & (1ULL << g)))
			continue;
		for (i = 0; i < bf->nr_rides; i++)
			if (bf->rides[i].family == f)
				return true;
	}
	return false;
}

/* a library a family probes counts as its driver (the tests' flag too) */
const char *gl_bpf_family_absent(const struct gl_bpf *b, uint32_t f,
				 char *why, size_t len)
{
	const struct gl_bpf_family *bf = gl_bpf_family(f);

	if (bf && bf->lib_absent && !getenv(BS_ASSUME_DRIVERS_ENV) &&
	    bf->lib_absent(b, why, len))
		return why;
	return gl_bpf_driver_absent(f, why, len);
}

/*
 * gl_bpf_family_wanted - @f is attached: its programs loaded, and its
 * driver loaded (its library there) unless it was asked for by name
 */
bool gl_bpf_family_wanted(const struct gl_bpf *b, uint32_t f)
{
	char why[512];

	if (f < 64 && (b->want & (1ULL << f)))
		return true;
	return gl_bpf_family_loads(b, f) &&
	       !gl_bpf_family_absent(b, f, why, sizeof(why));
}

void gl_bpf_attached_mark(struct gl_bpf *b, uint32_t f, bool on)
{
	struct gl_bpf_conf c;

	gl_bpf_lock(b);
	if (!gl_bpf_conf_get(b, &c) && !(c.attached & (1U << f)) != !on) {
		c.attached ^= 1U << f;
		gl_bpf_conf_put(b, &c);
	}
	gl_bpf_unlock(b);
}

/* bs_unpin_tp - tracepoint @i of family @f detached, its pin removed */
static void bs_unpin_tp(struct gl_bpf *b, uint32_t f, unsigned int i)
{
	char name[GL_BPF_NAME], path[256];

	if (b->pinned && b->tp[f][i].link_fd >= 0) {
		gl_bpf_pin_path(b, path, sizeof(path), "links",
				gl_bpf_prog_name(name, sizeof(name), f, i,
						 b->tp[f][i].raw));
		unlink(path);
	}
	bs_detach_tp(&b->tp[f][i]);
}

/* bs_family_off - its library's probes, then its tracepoints, last first */
static void bs_family_off(struct gl_bpf *b, uint32_t f)
{
	const struct gl_bpf_family *bf = gl_bpf_family(f);
	unsigned int i;

	if (bf->lib_off)
		bf->lib_off(b);
	for (i = bf->nr_tps; i--;)
		bs_unpin_tp(b, f, i);
	gl_bpf_attached_mark(b, f, false);
}

/*
 * gl_bpf_family_on - attach a family's programs, in its order; on a failure
 * the ones attached are detached again (the family is off, failed)
 */
int gl_bpf_family_on(struct gl_bpf *b, uint32_t f)
{
	const struct gl_bpf_family *bf = gl_bpf_family(f);
	char name[GL_BPF_NAME], path[256];
	unsigned int i, any = 0;
	int ret;

	bs_family_ops(b, f, true);
	for (i = 0; i < bf->nr_tps; i++) {
		struct gl_bpf_tpst *t = &b->tp[f][i];

		if (t->prog_fd < 0)
			continue;
		ret = bs_attach_tp(b, f, i);
		if (!ret && b->pinned) {
			gl_bpf_pin_path(b, path, sizeof(path), "links",
				    gl_bpf_prog_name(name, sizeof(name), f, i,
						 t->raw));
			if (bpf_obj_pin(t->link_fd, path))
				ret = -errno;
		}
		/* an optional one (a driver's) fails alone: the rest stay */
		if (ret && bf->tps[i].optional && t->link_fd < 0)
			continue;
		if (ret) {
			while (i--)
				bs_unpin_tp(b, f, i);
			return ret;
		}
		any++;
	}
	if (!any)
		return -ENODEV;
	/* its library's probes once the tracepoints that time them run */
	ret = bf->lib_on ? bf->lib_on(b, false) : 0;
	if (ret) {
		bs_family_off(b, f);
		return ret;
	}
	gl_bpf_attached_mark(b, f, true);
	bs_family_ops(b, f, false);
	return 0;
}

/*
 * bs_zero_array - zero every entry of array map @fd (a family's stamp
 * table: a stamp left from before it was off would time a wait from
 * then), in batches where the kernel has them
 */
static void bs_zero_array(int fd)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info), i, n, k;
	uint32_t keys[1024];
	void *v;

	if (bpf_obj_get_info_by_fd(fd, &info, &len) || !info.max_entries)
		return;
	v = calloc(ARRAY_SIZE(keys), info.value_size);
	if (!v)
		return;
	for (i = 0; i < info.max_entries; i += n) {
		n = info.max_entries - i;
		if (n > ARRAY_SIZE(keys))
			n = ARRAY_SIZE(keys);
		for (k = 0; k < n; k++)
			keys[k] = i + k;
		k = n;
		if (!bpf_map_update_batch(fd, keys, v, &k, NULL))
			continue;
		for (k = 0; k < n; k++)
			bpf_map_update_elem(fd, &keys[k], v, BPF_ANY);
	}
	free(v);
}

/*
 * bs_family_clear - forget a family's pending stamps before it is switched
 * on again, as the module does: no program of it runs now
 */
static void bs_family_clear(struct gl_bpf *b, const struct gl_bpf_family *bf)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);
	uint64_t key, next;
	uint32_t zero = 0;
	void *v;
	int fd;

	fd = bf->inflight ? gl_bpf_map_fd(b, bf->inflight) : -1;
	/* deleting the first key each time: the walk of a changing map */
	while (fd >= 0 && !bpf_map_get_next_key(fd, NULL, &next)) {
		key = next;
		if (bpf_map_delete_elem(fd, &key))
			break;
	}
	if (bf->stamps && gl_bpf_map_fd(b, bf->stamps) >= 0)
		bs_zero_array(gl_bpf_map_fd(b, bf->stamps));
	fd = bf->pcpu_state ? gl_bpf_map_fd(b, bf->pcpu_state) : -1;
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	/* a per-CPU value is rounded up to 8 bytes per CPU */
	v = calloc(b->ncpus, (info.value_size + 7) & ~7U);
	if (v)
		bpf_map_update_elem(fd, &zero, v, BPF_ANY);
	free(v);
}

/* bs_loaded - some program of family @f is loaded (none: refused, or not asked) */
static bool bs_loaded(const struct gl_bpf *b, uint32_t f)
{
	const struct gl_bpf_family *bf = gl_bpf_family(f);
	unsigned int i;

	for (i = 0; i < bf->nr_tps; i++)
		if (b->tp[f][i].prog_fd >= 0)
			return true;
	return false;
}

/*
 * gl_bpf_attach_all - attach every family @b wants; those held back for
 * a driver not loaded are marked so in the settings (a later refresh
 * attaches them)
 */
int gl_bpf_attach_all(struct gl_bpf *b)
{
	struct gl_bpf_conf c;
	uint32_t f, held = 0;
	char why[512];
	int ret;

	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		if (!gl_bpf_family(f))
			continue;
		if (gl_bpf_family_wanted(b, f))
			gl_bpf_family_on(b, f);
		else if (bs_loaded(b, f) &&
			 gl_bpf_family_absent(b, f, why, sizeof(why)))
			held |= 1U << f;
	}
	gl_bpf_lock(b);
	ret = gl_bpf_conf_get(b, &c);
	if (!ret) {
		c.held = held;
		ret = gl_bpf_conf_put(b, &c);
	}
	gl_bpf_unlock(b);
	return ret;
}

/* bs_held_clear - family @f is no longer held back (switched by hand, or attached) */
static void bs_held_clear(struct gl_bpf *b, uint32_t f)
{
	struct gl_bpf_conf c;

	gl_bpf_lock(b);
	if (!gl_bpf_conf_get(b, &c) && (c.held & (1U << f))) {
		c.held &= ~(1U << f);
		gl_bpf_conf_put(b, &c);
	}
	gl_bpf_unlock(b);
}

int gl_bpf_refresh(struct gl_bpf *b)
{
	struct gl_bpf_conf c;
	char why[512];
	uint32_t f;
	int ret;

	ret = gl_bpf_conf_get(b, &c);
	if (ret)
		return ret;
	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		/* attached by name before its library came: probed once it is */
		if (gl_bpf_family(f) && gl_bpf_family(f)->lib_on &&
		    (c.attached & (1U << f)))
			gl_bpf_family(f)->lib_on(b, true);
		if (!(c.held & (1U << f)) ||
		    gl_bpf_family_absent(b, f, why, sizeof(why)))
			continue;
		/* one user attaches it: another's refresh may have meanwhile */
		gl_bpf_lock(b);
		if (!gl_bpf_conf_get(b, &c) && (c.held & (1U << f))) {
			bs_held_clear(b, f);
			ret = gl_bpf_family_on(b, f);
			if (ret)
				fprintf(stderr,
					"gpulat: the %s family, held back until now, did not attach: %s\n",
					gl_family_name(f), strerror(-ret));
		}
		gl_bpf_unlock(b);
	}
	return 0;
}

const char *gl_bpf_family_held(struct gl_bpf *b, uint32_t f, char *why,
			       size_t len)
{
	struct gl_bpf_conf c;

	if (f >= GPULAT_FAM_MAX || gl_bpf_conf_get(b, &c) ||
	    !(c.held & (1U << f)))
		return NULL;
	return gl_bpf_family_absent(b, f, why, len);
}

static int bs_family_switch(struct gl_bpf *b, uint32_t family, bool on)
{
	const struct gl_bpf_family *bf = gl_bpf_family(family);
	bool loaded = false, attached = false;
	unsigned int i;

	bs_held_clear(b, family);	/* switched by hand: never by a refresh */
	if (bf->nr_rides)
		return gl_bpf_cgroup_switch(b, on);
	for (i = 0; i < bf->nr_tps; i++) {
		loaded |= b->tp[family][i].prog_fd >= 0;
		attached |= b->tp[family][i].link_fd >= 0;
	}
	if (!loaded)
		return -ENODEV;
	if (!on) {
		bs_family_off(b, family);
		return 0;
	}
	if (!attached)
		bs_family_clear(b, bf);
	return gl_bpf_family_on(b, family);
}

/* gl_bpf_family_switch - one user of a pinned source at a time switches */
int gl_bpf_family_switch(struct gl_bpf *b, uint32_t family, bool on)
{
	int ret;

	if (!gl_bpf_family(family))
		return -ENOENT;
	gl_bpf_lock(b);
	ret = bs_family_switch(b, family, on);
	gl_bpf_unlock(b);
	return ret;
}
