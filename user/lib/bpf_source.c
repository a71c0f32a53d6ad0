// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: the BPF source, load and attach.  The programs of bpf/ are
 * loaded with libbpf from the skeleton built into the tool, each family's
 * tracepoints attached as the module registers its probes: a tracepoint
 * the kernel lacks is "missing", a program the verifier rejects makes
 * its family "failed" and the others load without it.  `gpulat attach`
 * pins maps, programs and links in GL_BPF_PIN_DIR, so that they stay
 * attached between commands; without pins every command loads its own.
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
	       offsetof(struct gl_bpf_conf, reader_tgid) == 160,
	       "the settings lead .data, reader_tgid at byte 160");

/* Verifier rejections retried without the family that failed. */
#define BS_LOAD_TRIES	GPULAT_FAM_MAX

/* libbpf's messages, kept for the reason of a failed load. */
static char bs_log[16384];
static size_t bs_log_len;

static int bs_print(enum libbpf_print_level level, const char *fmt,
		    va_list ap)
{
	va_list copy;
	int n;

	if (getenv("GPULAT_BPF_DEBUG")) {
		/* a va_list is used up once printed: the log below needs one */
		va_copy(copy, ap);
		vfprintf(stderr, fmt, copy);
		va_end(copy);
	}
	if (level == LIBBPF_DEBUG)
		return 0;
	if (bs_log_len > sizeof(bs_log) - 512)
		bs_log_len = 0;		/* keep the latest */
	n = vsnprintf(bs_log + bs_log_len, sizeof(bs_log) - bs_log_len, fmt,
		      ap);
	if (n > 0)
		bs_log_len += (size_t)n < sizeof(bs_log) - bs_log_len ?
			      (size_t)n : sizeof(bs_log) - bs_log_len - 1;
	return 0;
}

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

/* --- Why the BPF source cannot run here --------------------------------- */

static bool bs_has_cap(int cap)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return false;
	return d[cap / 32].effective & (1U << (cap % 32));
}

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

/* bs_sys - @path below $GPULAT_SYSROOT when set (the tests' fake /sys) */
static const char *bs_sys(char *buf, size_t len, const char *path)
{
	const char *root = getenv("GPULAT_SYSROOT");

	snprintf(buf, len, "%s%s", root ? root : "", path);
	return buf;
}

/* bs_precheck - a clear reason for what would fail later, or 0 */
static int bs_precheck(char *err, size_t errlen)
{
	char buf[256] = "", path[512];
	FILE *f;

	if (!bs_has_cap(CAP_SYS_ADMIN) &&
	    !(bs_has_cap(CAP_BPF) && bs_has_cap(CAP_PERFMON))) {
		gl_set_err(err, errlen,
			   "the BPF source needs root (or CAP_BPF and CAP_PERFMON): run gpulat as root");
		return -EPERM;
	}
	if (access(bs_sys(path, sizeof(path), "/sys/kernel/btf/vmlinux"),
		   R_OK)) {
		gl_set_err(err, errlen,
			   "this kernel has no BTF (/sys/kernel/btf/vmlinux: %s; it needs CONFIG_DEBUG_INFO_BTF=y): the BPF source cannot run here; load the gpulat module instead (README.md: On a real host)",
			   strerror(errno));
		return -ENOTSUP;
	}
	f = fopen(bs_sys(path, sizeof(path), "/sys/kernel/security/lockdown"),
		  "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		if (strstr(buf, "[confidentiality]")) {
			gl_set_err(err, errlen,
				   "the kernel is locked down (lockdown=confidentiality), which forbids BPF programs to read kernel memory: the BPF source cannot run; use the gpulat module signed with a key the machine trusts (Documentation/install.rst)");
			return -EPERM;
		}
	}
	return 0;
}

/* --- Load --------------------------------------------------------------- */

/* bs_tp_present - 1 for tp_btf, 2 for raw_tp only, 0 when missing */
static int bs_tp_present(const struct btf *vmlinux, const char *tp)
{
	const char *sep = strchr(tp, ':');
	char name[160], ev[96];
	glob_t g;
	int found;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	if (vmlinux && btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) > 0)
		return 1;
	/* no BTF for it (a module's tracepoint, "system:name"): raw_tp */
	if (sep)
		snprintf(ev, sizeof(ev), "%.*s/%s", (int)(sep - tp), tp,
			 sep + 1);
	else
		snprintf(ev, sizeof(ev), "*/%s", tp);
	snprintf(name, sizeof(name), "/sys/kernel/tracing/events/%s", ev);
	found = !glob(name, GLOB_NOSORT, NULL, &g) && g.gl_pathc;
	globfree(&g);
	if (!found) {
		snprintf(name, sizeof(name),
			 "/sys/kernel/debug/tracing/events/%s", ev);
		found = !glob(name, GLOB_NOSORT, NULL, &g) && g.gl_pathc;
		globfree(&g);
	}
	return found ? 2 : 0;
}

static struct bpf_program *bs_prog(struct gpulat_bpf *skel, const char *name,
				   bool raw)
{
	char n[GL_BPF_NAME];

	snprintf(n, sizeof(n), "%s%s", name, raw ? "_raw" : "");
	return bpf_object__find_program_by_name(skel->obj, n);
}

/* bs_failed_family - the family of the program libbpf could not load */
static uint32_t bs_failed_family(void)
{
	const struct gl_bpf_family *bf;
	const char *p = bs_log, *q;
	char prog[GL_BPF_NAME];
	uint32_t f, last = 0;
	unsigned int i;
	size_t n;

	/* libbpf: "libbpf: prog 'NAME': failed to load: -13" */
	while ((p = strstr(p, "prog '"))) {
		p += 6;
		q = strchr(p, '\'');
		if (!q)
			break;
		n = q - p < (long)sizeof(prog) - 1 ? (size_t)(q - p) :
						     sizeof(prog) - 1;
		memcpy(prog, p, n);
		prog[n] = '\0';
		if (n > 4 && !strcmp(prog + n - 4, "_raw"))
			prog[n - 4] = '\0';
		for (f = 1; f < GPULAT_FAM_MAX; f++) {
			bf = gl_bpf_family(f);
			for (i = 0; bf && i < bf->nr_tps; i++)
				if (!strcmp(bf->tps[i].prog, prog))
					last = f;
			if (bf && bf->iter_prog && !strcmp(bf->iter_prog, prog))
				last = f;
		}
	}
	return last;
}

/*
 * bs_log_reason - the verifier's reason, the line before its
 * "processed N insns" at the end of the program's log, with the program;
 * else the last line libbpf printed
 */
static const char *bs_log_reason(char *buf, size_t len)
{
	const char *end = NULL, *p, *q, *line, *prog;
	size_t n;

	for (p = bs_log; (p = strstr(p, "-- END PROG LOAD LOG --")); p++)
		end = p;
	prog = strstr(bs_log, "prog '");
	if (end) {
		/* back over "processed ...\n" to the line before it */
		for (q = end; q > bs_log && strncmp(q, "\nprocessed ", 11); q--)
			;
		for (line = q; line > bs_log && line[-1] != '\n'; line--)
			;
		n = q - line;
		if (n) {
			snprintf(buf, len, "%.*s: %.*s",
				 prog ? (int)(strchr(prog + 6, '\'') ?
					      strchr(prog + 6, '\'') - prog + 1 : 0) : 0,
				 prog ? prog : "", (int)n, line);
			return buf;
		}
	}
	p = bs_log + bs_log_len;
	while (p > bs_log && (p[-1] == '\n'))
		p--;
	for (line = p; line > bs_log && line[-1] != '\n'; line--)
		;
	snprintf(buf, len, "%.*s", (int)(p - line), line);
	return buf;
}

/*
 * bs_test_reject - GPULAT_BPF_TEST_REJECT=FAMILY (tests only): that
 * family's programs read above the stack (gl_hit(), common.bpf.h), which
 * every verifier refuses, so that the tests see a real rejection and
 * the others loaded without it
 */
static void bs_test_reject(struct gpulat_bpf *skel)
{
	const char *name = getenv("GPULAT_BPF_TEST_REJECT");
	int f = name ? gl_family_lookup(name) : -ENOENT;

	skel->rodata->gl_test_reject = f > 0 ? f : 0;
}

/*
 * bs_size_inflight - each in-flight map as large as the module's table:
 * so many entries per possible CPU, a minimum, a power of two
 */
static int bs_size_inflight(struct gl_bpf *b)
{
	const struct gl_bpf_family *bf;
	struct bpf_map *map;
	uint64_t n;
	uint32_t f;

	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		bf = gl_bpf_family(f);
		if (!bf || !bf->inflight)
			continue;
		map = bpf_object__find_map_by_name(b->skel->obj, bf->inflight);
		if (!map)
			return -ENOENT;
		n = (uint64_t)bf->inflight_per_cpu * b->ncpus;
		if (n < bf->inflight_min)
			n = bf->inflight_min;
		if (n > GL_BPF_INFLIGHT_MAX)
			n = GL_BPF_INFLIGHT_MAX;
		while (n & (n - 1))
			n += n & -n;
		if (bpf_map__set_max_entries(map, n))
			return -errno;
	}
	return 0;
}

/*
 * bs_load - open and load the skeleton with the programs of every family
 * whose tracepoints are there; a family the verifier rejects is marked
 * failed and the rest loaded again without it.
 */
static int bs_load(struct gl_bpf *b, char *err, size_t errlen)
{
	bool failed[GPULAT_FAM_MAX] = { false };
	const struct gl_bpf_family *bf;
	struct bpf_program *prog;
	struct btf *vmlinux;
	uint32_t f, bad;
	unsigned int i;
	int tries, ret = 0, kind;
	int64_t sirq_off;
	char tail[512];

	vmlinux = btf__load_vmlinux_btf();
	gl_bpf_sirq_pending_off(vmlinux, &sirq_off);
	for (tries = 0; tries < BS_LOAD_TRIES; tries++) {
		b->skel = gpulat_bpf__open();
		if (!b->skel) {
			ret = -errno;
			gl_set_err(err, errlen, "cannot open the BPF programs: %s",
				   strerror(-ret));
			break;
		}
		b->skel->rodata->gl_sirq_pending_rq_off = sirq_off;
		ret = bs_size_inflight(b);
		if (ret) {
			gl_set_err(err, errlen,
				   "cannot size the BPF in-flight maps: %s",
				   strerror(-ret));
			break;
		}
		bpf_object__for_each_program(prog, b->skel->obj)
			bpf_program__set_autoload(prog, false);
		for (f = 1; f < GPULAT_FAM_MAX; f++) {
			bf = gl_bpf_family(f);
			for (i = 0; bf && i < bf->nr_tps; i++) {
				struct gl_bpf_tpst *t = &b->tp[f][i];

				t->prog_fd = t->link_fd = -1;
				if (failed[f]) {
					t->state = GPULAT_PROBE_FAILED;
					continue;
				}
				kind = bs_tp_present(vmlinux, bf->tps[i].tracepoint);
				t->raw = kind == 2;
				t->state = kind ? GPULAT_PROBE_DISABLED :
						  GPULAT_PROBE_MISSING;
				prog = kind ? bs_prog(b->skel, bf->tps[i].prog,
						      t->raw) : NULL;
				if (prog)
					bpf_program__set_autoload(prog, true);
				else if (kind)
					t->state = GPULAT_PROBE_MISSING;
			}
			prog = bf && bf->iter_prog && !failed[f] ?
			       bpf_object__find_program_by_name(b->skel->obj,
								bf->iter_prog) :
			       NULL;
			if (prog)
				bpf_program__set_autoload(prog, true);
		}
		bs_test_reject(b->skel);
		bs_log_len = 0;
		bs_log[0] = '\0';
		ret = gpulat_bpf__load(b->skel);
		if (!ret)
			break;
		bad = bs_failed_family();
		gpulat_bpf__destroy(b->skel);
		b->skel = NULL;
		if (!bad || failed[bad]) {
			gl_set_err(err, errlen,
				   "the kernel refused the BPF programs (%s): %s",
				   strerror(-ret), bs_log_reason(tail, sizeof(tail)));
			break;
		}
		fprintf(stderr,
			"gpulat: the kernel's verifier refused the %s family's BPF programs (%s), so it is left out: %s (GPULAT_BPF_DEBUG=1 prints the whole log)\n",
			gl_family_name(bad), strerror(-ret),
			bs_log_reason(tail, sizeof(tail)));
		failed[bad] = true;
		for (i = 0; i < GL_BPF_NR_TPS; i++)
			b->tp[bad][i].error = -ret;
	}
	btf__free(vmlinux);
	return b->skel ? 0 : (ret ? ret : -EINVAL);
}

/* bs_collect - map and program fds of the loaded skeleton */
static int bs_collect(struct gl_bpf *b)
{
	const struct gl_bpf_family *bf;
	struct bpf_program *prog;
	struct bpf_map *map;
	uint32_t f;
	unsigned int i;

	bpf_object__for_each_map(map, b->skel->obj) {
		if (b->nr_maps >= GL_BPF_MAX_MAPS)
			return -E2BIG;
		snprintf(b->maps[b->nr_maps].name, GL_BPF_NAME, "%s",
			 bpf_map__name(map));
		b->maps[b->nr_maps++].fd = bpf_map__fd(map);
	}
	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		bf = gl_bpf_family(f);
		for (i = 0; bf && i < bf->nr_tps; i++) {
			struct gl_bpf_tpst *t = &b->tp[f][i];

			if (t->state != GPULAT_PROBE_DISABLED)
				continue;
			prog = bs_prog(b->skel, bf->tps[i].prog, t->raw);
			t->prog_fd = prog ? bpf_program__fd(prog) : -1;
		}
		prog = bf && bf->iter_prog ?
		       bpf_object__find_program_by_name(b->skel->obj,
							bf->iter_prog) : NULL;
		if (prog && bpf_program__autoload(prog))
			b->iter_fd[f] = bpf_program__fd(prog);
	}
	b->data_fd = bpf_map__fd(b->skel->maps.data);
	return 0;
}

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

/* bs_pin_path - where @name is pinned; bpffs refuses dots in names */
static void bs_pin_path(char *buf, size_t len, const char *kind,
			const char *name)
{
	char *p;
	int n;

	n = snprintf(buf, len, "%s/%s/", GL_BPF_PIN_DIR, kind);
	snprintf(buf + n, len - n, "%s", name);
	for (p = buf + n; *p; p++)
		if (*p == '.')
			*p = '_';
}

static const char *bs_prog_name(char *buf, size_t len, uint32_t f,
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

/*
 * bs_family_on - attach a family's programs, in its order; on a failure
 * the ones attached are detached again (the family is off, failed)
 */
static int bs_family_on(struct gl_bpf *b, uint32_t f)
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
			bs_pin_path(path, sizeof(path), "links",
				    bs_prog_name(name, sizeof(name), f, i,
						 t->raw));
			if (bpf_obj_pin(t->link_fd, path))
				ret = -errno;
		}
		/* an optional one (a driver's) fails alone: the rest stay */
		if (ret && bf->tps[i].optional && t->link_fd < 0)
			continue;
		if (ret) {
			while (i--) {
				bs_detach_tp(&b->tp[f][i]);
				if (b->pinned) {
					bs_pin_path(path, sizeof(path), "links",
						    bs_prog_name(name, sizeof(name),
								 f, i,
								 b->tp[f][i].raw));
					unlink(path);
				}
			}
			return ret;
		}
		any++;
	}
	if (any)
		bs_family_ops(b, f, false);
	return any ? 0 : -ENODEV;
}

static void bs_family_off(struct gl_bpf *b, uint32_t f)
{
	const struct gl_bpf_family *bf = gl_bpf_family(f);
	char name[GL_BPF_NAME], path[256];
	unsigned int i;

	for (i = bf->nr_tps; i--;) {
		struct gl_bpf_tpst *t = &b->tp[f][i];

		if (t->link_fd < 0)
			continue;
		if (b->pinned) {
			bs_pin_path(path, sizeof(path), "links",
				    bs_prog_name(name, sizeof(name), f, i,
						 t->raw));
			unlink(path);
		}
		bs_detach_tp(t);
	}
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
	fd = bf->pcpu_state ? gl_bpf_map_fd(b, bf->pcpu_state) : -1;
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	/* a per-CPU value is rounded up to 8 bytes per CPU */
	v = calloc(b->ncpus, (info.value_size + 7) & ~7U);
	if (v)
		bpf_map_update_elem(fd, &zero, v, BPF_ANY);
	free(v);
}

int gl_bpf_family_switch(struct gl_bpf *b, uint32_t family, bool on)
{
	const struct gl_bpf_family *bf = gl_bpf_family(family);
	unsigned int i;
	bool loaded = false, attached = false;

	if (!bf)
		return -ENOENT;
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
	return bs_family_on(b, family);
}

/* --- Set up, pinned or for this process ---------------------------------- */

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
	skel = gpulat_bpf__open();
	if (!skel)
		return -errno;
	b->pinned = true;
	bpf_object__for_each_map(map, skel->obj) {
		bs_pin_path(path, sizeof(path), "maps", bpf_map__name(map));
		fd = bpf_obj_get(path);
		if (fd < 0 || b->nr_maps >= GL_BPF_MAX_MAPS) {
			gl_set_err(err, errlen,
				   "%s: %s: the pinned BPF source is not this gpulat's (run gpulat detach, then gpulat attach)",
				   path, strerror(errno));
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
				bs_pin_path(path, sizeof(path), "progs",
					    bs_prog_name(name, sizeof(name), f,
							 i, raw));
				fd = bpf_obj_get(path);
				if (fd < 0)
					continue;
				t->prog_fd = fd;
				t->raw = raw;
				t->state = GPULAT_PROBE_DISABLED;
				bs_pin_path(path, sizeof(path), "links", name);
				t->link_fd = bpf_obj_get(path);
				if (t->link_fd >= 0)
					t->state = GPULAT_PROBE_ATTACHED;
				else
					t->link_fd = -1;
				break;
			}
		}
		if (bf && bf->iter_prog) {
			bs_pin_path(path, sizeof(path), "progs", bf->iter_prog);
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

	libbpf_set_print(bs_print);
	*ret = bs_precheck(err, errlen);
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
		*ret = bs_load(b, err, errlen);
		if (!*ret)
			*ret = bs_collect(b);
		if (!*ret)
			*ret = bs_conf_init(b);
		for (f = 1; !*ret && f < GPULAT_FAM_MAX; f++)
			if (gl_bpf_family(f))
				bs_family_on(b, f);
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
	libbpf_set_print(bs_print);
	ret = bs_precheck(err, errlen);
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
	ret = bs_load(b, err, errlen);
	if (!ret)
		ret = bs_collect(b);
	if (!ret)
		ret = bs_conf_init(b);
	/* programs first, then the maps: a half-made pin has no maps/ */
	for (f = 1; !ret && f < GPULAT_FAM_MAX; f++)
		for (i = 0; gl_bpf_family(f) && i < gl_bpf_family(f)->nr_tps;
		     i++) {
			struct gl_bpf_tpst *t = &b->tp[f][i];

			if (t->prog_fd < 0)
				continue;
			bs_pin_path(path, sizeof(path), "progs",
				    bs_prog_name(name, sizeof(name), f, i,
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
		bs_pin_path(path, sizeof(path), "progs",
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
			bs_family_on(b, f);
	if (!ret) {
		bpf_object__for_each_map(map, b->skel->obj) {
			bs_pin_path(path, sizeof(path), "maps",
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
