// SPDX-License-Identifier: GPL-2.0
/*
 * The NVML test double's script: a timeline of GPU states, Xids and
 * misbehaving calls, read from $FAKE_NVML_SCRIPT by the first
 * nvmlInit_v2 of the process.  T is seconds (up to 9 decimals) since that
 * call on CLOCK_MONOTONIC; an answer at time t is the state after every
 * "at T" line with T <= t.  Lines may come in any order (kept stably
 * sorted by T); '#' starts a comment.
 *
 *   gpus N                       1..8 GPUs (default 2)
 *   events off                   nvmlDeviceRegisterEvents: not supported
 *   at T gpu I util G M          utilisation, percent
 *   at T gpu I mem USED TOTAL    MiB, USED <= TOTAL
 *   at T gpu I reasons 0xHEX     clock event reasons
 *   at T gpu I link CG CW MG MW  current and maximum PCIe gen and width
 *   at T gpu I replay N|-        PCIe replays; '-': not supported
 *   at T gpu I persist 0|1
 *   at T gpu I procs LIST|-      PID:MIB:SM ..., at most 64, MIB or SM
 *                                '-' for unknown / no utilisation sample
 *   at T xid I CODE              an Xid the event wait gives once T passed
 *   at T hang FUNCTION           calls from T on never return
 *   at T fail FUNCTION RET       calls from T on return RET (0: again as
 *                                before)
 *
 * A bad line is an error naming its line; nothing of it is applied.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "fake_script.h"

const char *const fake_fns[] = {
	"nvmlInit_v2",
	"nvmlShutdown",
	"nvmlSystemGetDriverVersion",
	"nvmlDeviceGetCount_v2",
	"nvmlDeviceGetHandleByIndex_v2",
	"nvmlDeviceGetName",
	"nvmlDeviceGetPciInfo_v3",
#ifdef FAKE_NVML_OLD
	"nvmlDeviceGetCurrentClocksThrottleReasons",
#else
	"nvmlDeviceGetCurrentClocksEventReasons",
	"nvmlDeviceGetPcieReplayCounter",
#endif
	"nvmlDeviceGetCurrPcieLinkGeneration",
	"nvmlDeviceGetCurrPcieLinkWidth",
	"nvmlDeviceGetMaxPcieLinkGeneration",
	"nvmlDeviceGetMaxPcieLinkWidth",
	"nvmlDeviceGetPersistenceMode",
	"nvmlDeviceGetUtilizationRates",
	"nvmlDeviceGetMemoryInfo",
#ifdef FAKE_NVML_OLD
	"nvmlDeviceGetComputeRunningProcesses",
	"nvmlEventSetWait",
#else
	"nvmlDeviceGetComputeRunningProcesses_v3",
	"nvmlDeviceGetComputeRunningProcesses_v2",
	"nvmlEventSetWait_v2",
#endif
	"nvmlDeviceGetProcessUtilization",
	"nvmlEventSetCreate",
	"nvmlDeviceGetSupportedEventTypes",
	"nvmlDeviceRegisterEvents",
	"nvmlEventSetFree",
};
const unsigned int fake_nr_fns = sizeof(fake_fns) / sizeof(fake_fns[0]);
_Static_assert(sizeof(fake_fns) / sizeof(fake_fns[0]) <= FAKE_MAX_FNS,
	       "FAKE_MAX_FNS too small");

struct fake_state fake_st;

/* The two GPUs of the double without a script; more are like the second. */
static const struct fake_gpu fake_fixed[2] = {
	{ .name = "NVIDIA H100 80GB HBM3", .bus_id = "00000000:3B:00.0",
	  .reasons = 0x8, .cur_gen = 3, .cur_width = 8, .max_gen = 5,
	  .max_width = 16, .persistence = 0, .util = { 97, 41 },
	  .replays = 12, .mem_used = 1024, .mem_total = 81559 },
	{ .name = "NVIDIA H100 80GB HBM3", .bus_id = "00000000:86:00.0",
	  .reasons = 0x41, .cur_gen = 5, .cur_width = 16, .max_gen = 5,
	  .max_width = 16, .persistence = 1, .util = { 0, 0 },
	  .replays = -1, .mem_used = 1024, .mem_total = 81559 },
};

int fake_fn_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < fake_nr_fns; i++)
		if (!strcmp(fake_fns[i], name))
			return i;
	return -1;
}

static const char *fake_path;
static unsigned int fake_line;

static int __attribute__((format(printf, 1, 2))) fake_err(const char *fmt,
							  ...)
{
	va_list ap;

	fprintf(stderr, "fake_nvml: %s:%u: ", fake_path, fake_line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* A decimal (or, with @hex, 0x-prefixed hexadecimal) number up to @max. */
static int fake_num(const char *what, const char *s, unsigned long long max,
		    bool hex, unsigned long long *v)
{
	const char *digits = s;
	char *end;

	if (!s)
		return fake_err("%s missing", what);
	if (hex) {
		if (strncmp(s, "0x", 2) && strncmp(s, "0X", 2))
			return fake_err("%s '%s' is not 0x<hex>", what, s);
		digits = s + 2;
	}
	if (!(hex ? strchr("0123456789abcdefABCDEF", *digits) :
		    strchr("0123456789", *digits)) || !*digits)
		return fake_err("%s '%s' is not a number", what, s);
	errno = 0;
	*v = strtoull(digits, &end, hex ? 16 : 10);
	if (*end)
		return fake_err("%s '%s' is not a number", what, s);
	if (errno || *v > max)
		return fake_err("%s '%s' above %llu", what, s, max);
	return 0;
}

/* Seconds with up to 9 decimals, at most 10^6, as nanoseconds. */
static int fake_time(const char *s, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000;
	const char *p = s;
	unsigned int n;

	if (!s)
		return fake_err("time missing after 'at'");
	for (n = 0; *p >= '0' && *p <= '9'; p++, n++)
		if (n < 8)
			sec = sec * 10 + (*p - '0');
	if (!n || n > 7)
		return fake_err("time '%s' is not seconds (0 to 1000000)", s);
	if (*p == '.') {
		for (p++, n = 0; *p >= '0' && *p <= '9'; p++, n++) {
			if (n == 9)
				return fake_err("time '%s': more than 9 decimals",
						s);
			scale /= 10;
			frac += (*p - '0') * scale;
		}
		if (!n)
			return fake_err("time '%s' is not seconds", s);
	}
	if (*p || sec > 1000000 || (sec == 1000000 && frac))
		return fake_err("time '%s' is not seconds (0 to 1000000)", s);
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

/* "-" for @none, else a number up to @max. */
static int fake_num_or(const char *what, const char *s, unsigned long long max,
		       unsigned long long none, unsigned long long *v)
{
	if (s && !strcmp(s, "-")) {
		*v = none;
		return 0;
	}
	return fake_num(what, s, max, false, v);
}

static int fake_procs(struct fake_event *e, char **tok, unsigned int nr)
{
	unsigned int i, j;

	if (nr == 1 && !strcmp(tok[0], "-"))
		return 0;
	if (!nr)
		return fake_err("procs: a list of PID:MIB:SM or '-' wanted");
	if (nr > FAKE_MAX_PROCS)
		return fake_err("procs: %u processes, at most %d", nr,
				FAKE_MAX_PROCS);
	if (fake_st.nr_pool + nr > FAKE_MAX_POOL)
		return fake_err("more than %d processes in the script",
				FAKE_MAX_POOL);
	e->proc0 = fake_st.nr_pool;
	for (i = 0; i < nr; i++) {
		struct fake_proc *p = &fake_st.pool[e->proc0 + i];
		char *f[3], *save = NULL, s[64];
		unsigned long long v;

		if (strlen(tok[i]) >= sizeof(s))
			return fake_err("procs: '%s' is not PID:MIB:SM", tok[i]);
		strcpy(s, tok[i]);
		if (strspn(s, "0123456789-:") != strlen(s) ||
		    !(f[0] = strtok_r(s, ":", &save)) ||
		    !(f[1] = strtok_r(NULL, ":", &save)) ||
		    !(f[2] = strtok_r(NULL, ":", &save)) ||
		    strtok_r(NULL, ":", &save))
			return fake_err("procs: '%s' is not PID:MIB:SM", tok[i]);
		if (fake_num("pid", f[0], INT32_MAX, false, &v))
			return -1;
		if (!v)
			return fake_err("pid 0");
		p->pid = v;
		for (j = 0; j < i; j++)
			if (fake_st.pool[e->proc0 + j].pid == p->pid)
				return fake_err("pid %u listed twice", p->pid);
		if (fake_num_or("MiB", f[1], 1ULL << 30, ~0ULL, &v))
			return -1;
		p->mem = v == ~0ULL ? NVML_VALUE_NOT_AVAILABLE : v << 20;
		if (fake_num_or("sm", f[2], 100, FAKE_NO_SM, &v))
			return -1;
		p->sm = v;
	}
	e->nr_procs = nr;
	fake_st.nr_pool += nr;
	return 0;
}

/* "at T gpu I WHAT ...": the words after I. */
static int fake_gpu_line(struct fake_event *e, char **tok, unsigned int nr)
{
	static const struct {
		const char *word;
		enum fake_kind kind;
		unsigned int nr;
		unsigned long long max[4];
	} words[] = {
		{ "util", FK_UTIL, 2, { 100, 100 } },
		{ "mem", FK_MEM, 2, { 1 << 30, 1 << 30 } },
		{ "reasons", FK_REASONS, 1, { ~0ULL } },
		{ "link", FK_LINK, 4, { 16, 64, 16, 64 } },
		{ "replay", FK_REPLAY, 1, { UINT32_MAX } },
		{ "persist", FK_PERSIST, 1, { 1 } },
	};
	unsigned int i, j;

	if (!nr)
		return fake_err("gpu %u: what of it is missing", e->gpu);
	if (!strcmp(tok[0], "procs")) {
		e->kind = FK_PROCS;
		return fake_procs(e, tok + 1, nr - 1);
	}
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(tok[0], words[i].word))
			break;
	if (i == sizeof(words) / sizeof(words[0]))
		return fake_err("unknown word '%s' after gpu %u", tok[0],
				e->gpu);
	e->kind = words[i].kind;
	if (nr - 1 != words[i].nr)
		return fake_err("%s wants %u values, not %u", tok[0],
				words[i].nr, nr - 1);
	for (j = 0; j < words[i].nr; j++) {
		int r;

		if (e->kind == FK_REPLAY)
			r = fake_num_or("replay", tok[1], UINT32_MAX, ~0ULL,
					&e->v[0]);
		else
			r = fake_num(tok[0], tok[1 + j], words[i].max[j],
				     e->kind == FK_REASONS, &e->v[j]);
		if (r)
			return r;
	}
	if (e->kind == FK_MEM && e->v[0] > e->v[1])
		return fake_err("mem: used %llu MiB above total %llu MiB",
				e->v[0], e->v[1]);
	return 0;
}

/* One line's words; @gpus is set by a "gpus" line. */
static int fake_parse_line(char **tok, unsigned int nr, unsigned int *gpus)
{
	struct fake_event *e;
	unsigned long long v;
	int fn;

	if (!strcmp(tok[0], "gpus")) {
		if (nr != 2)
			return fake_err("gpus wants one number");
		if (*gpus)
			return fake_err("gpus given twice");
		if (fake_num("gpus", tok[1], FAKE_MAX_GPUS, false, &v))
			return -1;
		if (!v)
			return fake_err("gpus 0: at least 1");
		*gpus = v;
		return 0;
	}
	if (!strcmp(tok[0], "events")) {
		if (nr != 2 || strcmp(tok[1], "off"))
			return fake_err("'events off' is the only events line");
		fake_st.events_off = true;
		return 0;
	}
	if (strcmp(tok[0], "at"))
		return fake_err("unknown word '%s'", tok[0]);
	if (fake_st.nr_ev == FAKE_MAX_LINES)
		return fake_err("more than %d events", FAKE_MAX_LINES);
	e = &fake_st.ev[fake_st.nr_ev];
	memset(e, 0, sizeof(*e));
	e->line = fake_line;
	if (fake_time(nr > 1 ? tok[1] : NULL, &e->t_ns))
		return -1;
	if (nr < 3)
		return fake_err("what happens at %s is missing", tok[1]);
	if (!strcmp(tok[2], "gpu") || !strcmp(tok[2], "xid")) {
		if (fake_num("gpu index", nr > 3 ? tok[3] : NULL,
			     FAKE_MAX_GPUS - 1, false, &v))
			return -1;
		e->gpu = v;
		if (!strcmp(tok[2], "gpu")) {
			if (fake_gpu_line(e, tok + 4, nr - 4))
				return -1;
		} else {
			e->kind = FK_XID;
			if (nr != 5)
				return fake_err("xid wants a GPU and a code");
			if (fake_num("xid code", tok[4], UINT32_MAX, false,
				     &e->v[0]))
				return -1;
		}
	} else if (!strcmp(tok[2], "hang") || !strcmp(tok[2], "fail")) {
		bool hang = !strcmp(tok[2], "hang");

		e->kind = hang ? FK_HANG : FK_FAIL;
		if (nr != (hang ? 4u : 5u))
			return fake_err(hang ? "hang wants a function" :
				       "fail wants a function and a code");
		fn = fake_fn_index(tok[3]);
		if (fn < 0)
			return fake_err("no function '%s' in this library",
					tok[3]);
		e->fn = fn;
		if (!hang && fake_num("return code", tok[4], 1000000, false,
				      &e->v[0]))
			return -1;
	} else {
		return fake_err("unknown word '%s'", tok[2]);
	}
	fake_st.nr_ev++;
	return 0;
}

static int fake_cmp(const void *a, const void *b)
{
	const struct fake_event *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int fake_read(FILE *f)
{
	unsigned int gpus = 0, i;
	char *buf = NULL;
	size_t size = 0;
	ssize_t n;
	int r = 0;

	while (!r && (n = getline(&buf, &size, f)) >= 0) {
		char *tok[FAKE_MAX_PROCS + 8], *save = NULL, *t;
		unsigned int nr = 0;

		r = -1;
		if (++fake_line > FAKE_MAX_LINES) {
			fake_err("more than %d lines", FAKE_MAX_LINES);
			break;
		}
		if (n >= FAKE_LINE_MAX) {
			fake_err("longer than %d characters", FAKE_LINE_MAX - 1);
			break;
		}
		if (memchr(buf, '\0', n)) {
			fake_err("a NUL byte");
			break;
		}
		t = strchr(buf, '#');
		if (t)
			*t = '\0';
		for (t = strtok_r(buf, " \t\r\n", &save); t;
		     t = strtok_r(NULL, " \t\r\n", &save)) {
			if (nr == sizeof(tok) / sizeof(tok[0]))
				break;
			tok[nr++] = t;
		}
		if (t) {
			fake_err("more than %zu words",
				 sizeof(tok) / sizeof(tok[0]));
			break;
		}
		r = nr ? fake_parse_line(tok, nr, &gpus) : 0;
	}
	free(buf);
	if (r)
		return r;
	if (ferror(f))
		return fake_err("read error");
	if (gpus)
		fake_st.nr_gpus = gpus;
	for (i = 0; i < fake_st.nr_ev; i++) {
		const struct fake_event *e = &fake_st.ev[i];

		if ((e->kind != FK_HANG && e->kind != FK_FAIL) &&
		    e->gpu >= fake_st.nr_gpus) {
			fake_line = e->line;
			return fake_err("gpu %u out of range (%u GPUs)",
					e->gpu, fake_st.nr_gpus);
		}
	}
	qsort(fake_st.ev, fake_st.nr_ev, sizeof(fake_st.ev[0]), fake_cmp);
	return 0;
}

int fake_script_load(const char *path)
{
	unsigned int i;
	FILE *f;
	int r;

	memset(&fake_st, 0, sizeof(fake_st));
	fake_st.nr_gpus = 2;
	for (i = 0; i < FAKE_MAX_GPUS; i++) {
		fake_st.gpu[i] = fake_fixed[i < 2 ? i : 1];
		if (i >= 2)
			snprintf(fake_st.gpu[i].bus_id,
				 sizeof(fake_st.gpu[i].bus_id),
				 "00000000:%02X:00.0", 0x10 + i);
	}
	if (!path)
		return 0;
	fake_path = path;
	fake_line = 0;
	f = fopen(path, "r");
	if (!f)
		return fake_err("cannot open: %s", strerror(errno));
	r = fake_read(f);
	fclose(f);
	if (r)
		fake_st.nr_ev = 0;	/* nothing of a bad script happens */
	return r;
}

void fake_script_advance(uint64_t now_ns)
{
	while (fake_st.applied < fake_st.nr_ev &&
	       fake_st.ev[fake_st.applied].t_ns <= now_ns) {
		const struct fake_event *e = &fake_st.ev[fake_st.applied++];
		struct fake_gpu *g = &fake_st.gpu[e->gpu];

		switch (e->kind) {
		case FK_UTIL:
			g->util.gpu = e->v[0];
			g->util.memory = e->v[1];
			break;
		case FK_MEM:
			g->mem_used = e->v[0];
			g->mem_total = e->v[1];
			break;
		case FK_REASONS:
			g->reasons = e->v[0];
			break;
		case FK_LINK:
			g->cur_gen = e->v[0];
			g->cur_width = e->v[1];
			g->max_gen = e->v[2];
			g->max_width = e->v[3];
			break;
		case FK_REPLAY:
			g->replays = e->v[0] == ~0ULL ? -1 : (long long)e->v[0];
			break;
		case FK_PERSIST:
			g->persistence = e->v[0];
			break;
		case FK_PROCS:
			g->nr_procs = e->nr_procs;
			memcpy(g->procs, &fake_st.pool[e->proc0],
			       e->nr_procs * sizeof(g->procs[0]));
			break;
		case FK_XID:		/* due now; the event wait gives it */
			break;
		case FK_HANG:
			fake_st.hang[e->fn] = true;
			break;
		case FK_FAIL:
			fake_st.fail[e->fn] = e->v[0];
			break;
		}
	}
}
