// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: the BPF source's load.  Why it cannot run here (root, BTF,
 * lockdown), which program of each tracepoint the kernel takes (tp_btf
 * where its BTF describes the tracepoint, else raw_tp; neither: missing),
 * and the load itself: a family whose program the verifier refuses is
 * left out, with the verifier's reason, and the rest loaded again.
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

#include "lib/bpf_fam.h"
#include "lib/bpf_int.h"
#include "lib/bpf_percpu.h"
#include "lib/bpf_source.h"
#include "lib/gpulat_user.h"
#include "lib/libinternal.h"
#include "lib/source.h"
/* the skeleton last: it uses the types of the headers above */
#include "gpulat.skel.h"

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

/*
 * gl_bpf_skel_open - the skeleton, opened: the one caller of its open, so
 * that the tool holds one copy of the object it embeds
 */
struct gpulat_bpf *gl_bpf_skel_open(void)
{
	return gpulat_bpf__open();
}

/* gl_bpf_log_init - libbpf's messages to bs_print() */
void gl_bpf_log_init(void)
{
	libbpf_set_print(bs_print);
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

/* gl_bpf_precheck - a clear reason for what would fail later, or 0 */
int gl_bpf_precheck(char *err, size_t errlen)
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
			for (i = 0; bf && i < 2; i++)
				if (bf->up_prog[i] &&
				    !strcmp(bf->up_prog[i], prog))
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
		if (!gl_bpf_family_loads(b, f))
			n = 1;
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
 * bs_size_keyed - the keyed maps of a family this source does not load
 * get one entry: they are read, never written
 */
static int bs_size_keyed(struct gl_bpf *b)
{
	static const char *const sfx[] = { "_keys", "_kmax" };
	const struct gl_bpf_family *bf;
	struct bpf_map *map;
	char name[GL_BPF_NAME];
	unsigned int k;
	uint32_t f;

	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		bf = gl_bpf_family(f);
		if (!bf || !bf->keyed || gl_bpf_family_loads(b, f))
			continue;
		for (k = 0; k < ARRAY_SIZE(sfx); k++) {
			snprintf(name, sizeof(name), "%s%s", bf->keyed, sfx[k]);
			map = bpf_object__find_map_by_name(b->skel->obj, name);
			if (!map)
				return -ENOENT;
			if (bpf_map__set_max_entries(map, 1))
				return -errno;
		}
	}
	return 0;
}

/*
 * bs_size_stamps - each pid-indexed stamp table as large as the module's:
 * so many entries per possible CPU, at least 2^10, a power of two, never
 * by pid_max; a family this source does not attach gets the smallest
 */
static int bs_size_stamps(struct gl_bpf *b)
{
	const struct gl_bpf_family *bf;
	struct bpf_map *map;
	uint32_t f, bits;
	uint64_t n;

	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		bf = gl_bpf_family(f);
		if (!bf || !bf->stamps)
			continue;
		map = bpf_object__find_map_by_name(b->skel->obj, bf->stamps);
		if (!map)
			return -ENOENT;
		n = (uint64_t)bf->stamps_per_cpu * b->ncpus;
		if (!gl_bpf_family_loads(b, f) || n < 1U << GL_BPF_PST_MIN_BITS)
			n = 1U << GL_BPF_PST_MIN_BITS;
		if (n > 1U << GL_BPF_PID_BITS)
			n = 1U << GL_BPF_PID_BITS;
		for (bits = 0; (1ULL << bits) < n; bits++)
			;
		b->skel->rodata->gl_pst_bits[f] = bits;
		if (bpf_map__set_max_entries(map, bf->stamp_kinds << bits))
			return -errno;
	}
	return 0;
}

/*
 * gl_bpf_load - open and load the skeleton with the programs of every family
 * whose tracepoints are there; a family the verifier rejects is marked
 * failed and the rest loaded again without it.
 */
int gl_bpf_load(struct gl_bpf *b, char *err, size_t errlen)
{
	bool failed[GPULAT_FAM_MAX] = { false };
	const struct gl_bpf_family *bf;
	struct bpf_program *prog;
	struct btf *vmlinux;
	uint32_t f, bad;
	unsigned int i;
	int tries, ret = 0, kind;
	uint64_t init_net = 0;
	int64_t sirq_off = 0;
	bool ktimers = false;
	char tail[512];

	vmlinux = btf__load_vmlinux_btf();
	if (gl_bpf_family_loads(b, GPULAT_FAM_SOFTIRQ)) {
		gl_bpf_sirq_pending_off(vmlinux, &sirq_off);
		ktimers = gl_bpf_has_ktimers(vmlinux);
	}
	if (gl_bpf_family_loads(b, GPULAT_FAM_NET))
		gl_bpf_init_net(vmlinux, &init_net);
	for (tries = 0; tries < BS_LOAD_TRIES; tries++) {
		b->skel = gl_bpf_skel_open();
		if (!b->skel) {
			ret = -errno;
			gl_set_err(err, errlen, "cannot open the BPF programs: %s",
				   strerror(-ret));
			break;
		}
		b->skel->rodata->gl_sirq_pending_rq_off = sirq_off;
		b->skel->rodata->gl_sirq_ktimers = ktimers;
		b->skel->rodata->gl_init_net = init_net;
		ret = bs_size_inflight(b);
		if (!ret)
			ret = bs_size_stamps(b);
		if (!ret)
			ret = bs_size_keyed(b);
		if (!ret &&
		    (bpf_map__set_max_entries(b->skel->maps.gl_pcpu,
					      GL_BPF_PCPU_NR * b->ncpus) ||
		     bpf_map__set_max_entries(b->skel->maps.gl_events,
					      b->ncpus)))
			ret = -errno;
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
				/* not asked for: not loaded (no verifier time) */
				if (!gl_bpf_family_loads(b, f)) {
					t->state = GPULAT_PROBE_DISABLED;
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
			prog = bf && bf->iter_prog && !failed[f] &&
			       gl_bpf_family_loads(b, f) ?
			       bpf_object__find_program_by_name(b->skel->obj,
								bf->iter_prog) :
			       NULL;
			if (prog)
				bpf_program__set_autoload(prog, true);
			for (i = 0; bf && i < 2; i++) {
				prog = bf->up_prog[i] && !failed[f] &&
				       gl_bpf_family_loads(b, f) ?
				       bpf_object__find_program_by_name(b->skel->obj,
									bf->up_prog[i]) :
				       NULL;
				if (prog)
					bpf_program__set_autoload(prog, true);
			}
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

/* gl_bpf_collect - map and program fds of the loaded skeleton */
int gl_bpf_collect(struct gl_bpf *b)
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
			t->prog_fd = prog && bpf_program__autoload(prog) ?
				     bpf_program__fd(prog) : -1;
		}
		prog = bf && bf->iter_prog ?
		       bpf_object__find_program_by_name(b->skel->obj,
							bf->iter_prog) : NULL;
		if (prog && bpf_program__autoload(prog))
			b->iter_fd[f] = bpf_program__fd(prog);
		for (i = 0; bf && i < 2; i++) {
			prog = bf->up_prog[i] ?
			       bpf_object__find_program_by_name(b->skel->obj,
								bf->up_prog[i]) :
			       NULL;
			if (prog && bpf_program__autoload(prog))
				b->up_prog[i] = bpf_program__fd(prog);
		}
	}
	b->data_fd = bpf_map__fd(b->skel->maps.data);
	return 0;
}
