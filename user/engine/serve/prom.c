// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus text exposition (format 0.0.4) of a snapshot.  Series of
 * one metric are summed over CPUs (unless per_cpu) and over keys past
 * the bound, so every label set is written once; the buckets' `le` are
 * gpulat's upper bounds less 1 ns, exact in decimal.  Of a histogram's
 * buckets only those from one empty bucket below the lowest non-empty
 * one to the highest non-empty one are written (prom_bucket_range), the
 * range of each label set never shrinking (struct prom_span), and above
 * it the bounds of every octave: a label set's series of those exist
 * from its first samples on, so a window in which its range grows still
 * has every octave's count whole (its quantiles within an octave, not a
 * bucket: the new buckets' series begin in it).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/serve/prom.h"
#include "gpulat_hist.h"
#include "lib/cgroup.h"
#include "lib/units.h"

#define PROM_LABELS	320
/*
 * Buckets written beyond what an instant's quantiles need (one empty
 * bucket below the lowest non-empty one): one more empty one below and
 * one above the highest, so that a new minimum or maximum one bucket
 * out lands in a bucket whose series, and whose lower bound's series,
 * were there before it (rate() over a window then loses nothing).
 */
#define PROM_MARGIN_BELOW	1
#define PROM_MARGIN_ABOVE	1

struct prom_entry {
	enum gl_metric metric;
	char labels[PROM_LABELS];
	struct gl_hist h;
};

void prom_init(struct prom_state *p)
{
	const char *e;

	memset(p, 0, sizeof(*p));
	p->per_octave = GPULAT_HIST_SUBS;
	p->max_keys = PROM_MAX_KEYS_DEFAULT;
	p->version = "unknown";
	p->source = "none";
	p->kernel = "unknown";
	e = getenv("GPULAT_SERVE_ALL_BUCKETS");
	p->all_buckets = e && !strcmp(e, "1");
}

void prom_free(struct prom_state *p)
{
	size_t i;

	for (i = 0; i < GL_NR_METRICS; i++) {
		free(p->keys[i].names);
		p->keys[i].names = NULL;
		p->keys[i].n = 0;
	}
	free(p->spans);
	p->spans = NULL;
	p->nr_spans = p->nr_sorted = p->spans_cap = 0;
}

bool prom_valid_per_octave(unsigned long n)
{
	return n == 1 || n == 2 || n == 4 || n == GPULAT_HIST_SUBS;
}

bool prom_bucket_kept(uint32_t slot, unsigned int per_octave)
{
	unsigned int step = GPULAT_HIST_SUBS / per_octave;

	if (slot == 0)
		return true;		/* the underflow, below 512 ns */
	if (slot >= GPULAT_HIST_OVERFLOW)
		return false;		/* +Inf stands for it */
	return ((slot - 1) % GPULAT_HIST_SUBS + 1) % step == 0;
}

bool prom_bucket_range(const struct gl_hist *h, unsigned int per_octave,
		       uint32_t *lo, uint32_t *hi)
{
	uint32_t i, prev = UINT32_MAX, guard = UINT32_MAX, first = UINT32_MAX;
	uint32_t last = UINT32_MAX;
	uint64_t in = 0;	/* samples in the bucket being summed */

	for (i = 0; i < GPULAT_HIST_OVERFLOW; i++) {
		in += h->slots[i];
		if (!prom_bucket_kept(i, per_octave))
			continue;
		if (in) {
			if (first == UINT32_MAX) {
				first = i;
				guard = prev;
			}
			last = i;
		}
		prev = i;
		in = 0;
	}
	/* over the last bound: only +Inf has them, whose lower bound is it */
	if (h->slots[GPULAT_HIST_OVERFLOW]) {
		if (first == UINT32_MAX) {
			first = prev;
			guard = prev;
		}
		last = prev;
	}
	if (first == UINT32_MAX)
		return false;
	*lo = guard != UINT32_MAX ? guard : first;
	*hi = last;
	return true;
}

const char *prom_le(char *buf, size_t len, uint32_t slot)
{
	uint64_t ns = gpulat_hist_upper(slot) - 1;
	size_t n;

	snprintf(buf, len, "%" PRIu64 ".%09" PRIu64,
		 (uint64_t)(ns / 1000000000ULL), (uint64_t)(ns % 1000000000ULL));
	/* shortest exact form: no trailing zeros, no lone dot */
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n && buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

/*
 * prom_escape - a label value from at most @max bytes of @s (names from
 * the source are not trusted to end): \ and " escaped, printable only
 */
static const char *prom_escape(char *buf, size_t len, const char *s,
			       size_t max)
{
	char clean[2 * GPULAT_NAME_LEN], raw[64];
	size_t o = 0;
	const char *c;

	if (max >= sizeof(raw))
		max = sizeof(raw) - 1;
	memcpy(raw, s, strnlen(s, max));
	raw[strnlen(s, max)] = '\0';
	units_printable(clean, sizeof(clean), raw);
	for (c = clean; *c && o + 3 < len; c++) {
		if (*c == '\\' || *c == '"')
			buf[o++] = '\\';
		buf[o++] = *c;
	}
	buf[o] = '\0';
	return buf;
}

/*
 * prom_gpu_of_irq - the PCI device that IRQ @irq is an interrupt of
 * (its msi_irqs/ or its legacy irq file), or "irqN" when none is
 */
static void prom_gpu_of_irq(const struct prom_state *p, uint32_t irq,
			    char *buf, size_t len)
{
	char dir[512], path[1024], line[32];
	struct dirent *de;
	FILE *f;
	DIR *d;

	snprintf(buf, len, "irq%u", irq);
	snprintf(dir, sizeof(dir), "%s/sys/bus/pci/devices",
		 p->root ? p->root : "");
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/msi_irqs/%u", dir,
			 de->d_name, irq);
		if (!access(path, F_OK))
			goto found;
		snprintf(path, sizeof(path), "%s/%s/irq", dir, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) &&
		    strtoul(line, NULL, 10) == irq) {
			fclose(f);
			goto found;
		}
		fclose(f);
	}
	closedir(d);
	return;
found:
	snprintf(buf, len, "%.63s", de->d_name);
	closedir(d);
}

/*
 * prom_cgroup_label - a cgroup's path as its label value (escaped), or
 * "cgroup N" when this host has no such cgroup or the path is too long
 */
static void prom_cgroup_label(char *buf, size_t len, uint64_t id)
{
	char path[PATH_MAX], clean[PATH_MAX];
	size_t o = 0;
	const char *c;

	if (!gl_cg_path(id, path, sizeof(path)) || strlen(path) > 200) {
		snprintf(buf, len, "cgroup %llu", (unsigned long long)id);
		return;
	}
	units_printable(clean, sizeof(clean), path);
	for (c = clean; *c && o + 3 < len; c++) {
		if (*c == '\\' || *c == '"')
			buf[o++] = '\\';
		buf[o++] = *c;
	}
	buf[o] = '\0';
}

/* prom_key_labels - the labels of @sr's key; @other: PROM_OTHER for each */
static void prom_key_labels(const struct prom_state *p,
			    const struct gl_metric_info *mi,
			    const struct gpulat_series *sr, bool other,
			    char *buf, size_t len)
{
	char name[2 * GPULAT_NAME_LEN + 8], key[64];
	uint32_t irq = (uint32_t)(sr->key & 0xffffffffu);

	prom_escape(name, sizeof(name), sr->key_name, sizeof(sr->key_name));
	switch (gl_key_kind(sr->family, sr->id)) {
	case GL_KEY_DISK:
		if (!name[0])
			snprintf(name, sizeof(name), "%llu:%llu",
				 (unsigned long long)(sr->key >> 20),
				 (unsigned long long)(sr->key & 0xfffff));
		snprintf(buf, len, "device=\"%s\"", other ? PROM_OTHER : name);
		return;
	case GL_KEY_NETDEV:
		if (!name[0])
			snprintf(name, sizeof(name), "ifindex%llu",
				 (unsigned long long)(sr->key & 0xffffffffu));
		snprintf(buf, len, "device=\"%s\"", other ? PROM_OTHER : name);
		return;
	case GL_KEY_IRQ:
		snprintf(key, sizeof(key), "%u", irq);
		if (mi->key_is_gpu) {
			char gpu[64];

			prom_gpu_of_irq(p, irq, gpu, sizeof(gpu));
			snprintf(buf, len, "gpu=\"%s\",irq=\"%s\"",
				 other ? PROM_OTHER : gpu,
				 other ? PROM_OTHER : key);
		} else {
			snprintf(buf, len, "irq=\"%s\",handler=\"%s\"",
				 other ? PROM_OTHER : key,
				 other ? PROM_OTHER : name);
		}
		return;
	case GL_KEY_PID:
		if (!name[0])
			snprintf(name, sizeof(name), "pid%llu",
				 (unsigned long long)sr->key);
		snprintf(buf, len, "thread=\"%s\"", other ? PROM_OTHER : name);
		return;
	case GL_KEY_PROCESS:
		/* two jobs may share a name: the pid tells them apart */
		snprintf(key, sizeof(key), "%llu", (unsigned long long)sr->key);
		snprintf(buf, len, "process=\"%s\",pid=\"%s\"",
			 other ? PROM_OTHER : name, other ? PROM_OTHER : key);
		return;
	case GL_KEY_CGROUP: {
		char cg[256];

		prom_cgroup_label(cg, sizeof(cg), sr->key);
		snprintf(buf, len, "cgroup=\"%s\"", other ? PROM_OTHER : cg);
		return;
	}
	case GL_KEY_VECTOR: {
		const struct gl_vector_info *vi = gl_vector_info(sr->key);

		snprintf(buf, len, "vector=\"%s\"",
			 vi ? vi->name : (name[0] ? name : "unknown"));
		return;
	}
	case GL_KEY_NONE:
	default:
		buf[0] = '\0';
		return;
	}
}

/*
 * prom_admit - whether the key labelled @kl may be exported by name:
 * the first max_keys keys of a metric are, for the daemon's life, so
 * that a label set never moves between a name and PROM_OTHER
 */
static bool prom_admit(struct prom_state *p, enum gl_metric m, const char *kl)
{
	struct prom_keyset *ks = &p->keys[m];
	size_t i;

	if (!kl[0])
		return true;
	for (i = 0; i < ks->n; i++)
		if (!strcmp(ks->names[i], kl))
			return true;
	if (ks->n >= p->max_keys)
		return false;
	if (!ks->names) {
		ks->names = calloc(p->max_keys, sizeof(*ks->names));
		if (!ks->names)
			return false;
	}
	if (strlen(kl) >= sizeof(*ks->names))
		return false;
	memcpy(ks->names[ks->n++], kl, strlen(kl) + 1);
	return true;
}

static int prom_entry_cmp(const void *a, const void *b)
{
	const struct prom_entry *x = a, *y = b;

	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return strcmp(x->labels, y->labels);
}

/* prom_entries - one entry per label set, sorted; count or -ENOMEM */
static ssize_t prom_entries(struct prom_state *p, const struct gl_snapshot *s,
			    struct prom_entry **out)
{
	size_t n = gl_snapshot_nr_series(s), i, k = 0, j, cap = 64;
	struct prom_entry *e = calloc(cap, sizeof(*e)), *ne;
	char kl[288], other[288], labels[PROM_LABELS];
	const struct gl_series_info *si;
	const struct gl_metric_info *mi;
	const struct gpulat_series *sr;
	bool admitted;
	int len;

	if (!e)
		return -ENOMEM;
	for (i = 0; i < GL_NR_METRICS; i++)
		p->keys[i].other = 0;
	for (i = 0; i < n; i++) {
		sr = gl_snapshot_series(s, i);
		si = gl_series_info(sr->family, sr->id);
		mi = si ? gl_metric_info(si->metric) : NULL;
		if (!mi)
			continue;
		prom_key_labels(p, mi, sr, false, kl, sizeof(kl));
		admitted = prom_admit(p, si->metric, kl);
		if (!admitted) {
			prom_key_labels(p, mi, sr, true, other, sizeof(other));
			/* per CPU: count each key once, at its first CPU */
			if (i == 0 || gl_snapshot_series(s, i - 1)->key !=
			    sr->key || gl_snapshot_series(s, i - 1)->id !=
			    sr->id)
				p->keys[si->metric].other++;
		}
		len = snprintf(labels, PROM_LABELS, "%s%s%s",
			       si->metric_labels,
			       si->metric_labels[0] && kl[0] ? "," : "",
			       admitted ? kl : other);
		if (p->per_cpu && sr->cpu != GPULAT_CPU_NONE && len >= 0 &&
		    len < PROM_LABELS)
			snprintf(labels + len, PROM_LABELS - len,
				 "%scpu=\"%u\"", len ? "," : "", sr->cpu);
		/* a key's CPUs are neighbours: summed here, one entry each */
		if (!k || e[k - 1].metric != si->metric ||
		    strcmp(e[k - 1].labels, labels)) {
			/* grown as needed: label sets, not series (CPUs) */
			if (k == cap) {
				ne = realloc(e, 2 * cap * sizeof(*e));
				if (!ne) {
					free(e);
					return -ENOMEM;
				}
				e = ne;
				memset(e + cap, 0, cap * sizeof(*e));
				cap *= 2;
			}
			e[k].metric = si->metric;
			memcpy(e[k].labels, labels, PROM_LABELS);
			k++;
		}
		gl_hist_add_series(&e[k - 1].h, sr, gl_snapshot_max_exact(s, i));
	}
	qsort(e, k, sizeof(*e), prom_entry_cmp);
	/* merge equal label sets (CPUs, keys over the bound, name clashes) */
	for (i = 0, j = 0; i < k; i++) {
		if (j && !prom_entry_cmp(&e[j - 1], &e[i])) {
			struct gl_hist *h = &e[j - 1].h;
			size_t b;

			h->count += e[i].h.count;
			h->sum_ns += e[i].h.sum_ns;
			for (b = 0; b < GPULAT_HIST_NR_BUCKETS; b++)
				h->slots[b] += e[i].h.slots[b];
			continue;
		}
		if (j != i)
			e[j] = e[i];
		j++;
	}
	*out = e;
	return j;
}

/* prom_span_id - FNV-1a of a label set (its metric, its labels) */
static uint64_t prom_span_id(const struct prom_entry *e)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const unsigned char *c = (const unsigned char *)e->labels;

	h = (h ^ (uint64_t)e->metric) * 0x100000001b3ULL;
	for (; *c; c++)
		h = (h ^ *c) * 0x100000001b3ULL;
	return h;
}

static int prom_span_cmp(const void *a, const void *b)
{
	const struct prom_span *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* prom_spans_reserve - room for @n more ranges; 0 or -ENOMEM */
static int prom_spans_reserve(struct prom_state *p, size_t n)
{
	struct prom_span *s;
	size_t cap;

	if (p->nr_spans + n <= p->spans_cap)
		return 0;
	cap = p->nr_spans + n + p->nr_spans / 2 + 64;
	s = realloc(p->spans, cap * sizeof(*s));
	if (!s)
		return -ENOMEM;
	p->spans = s;
	p->spans_cap = cap;
	return 0;
}

/*
 * prom_span - the buckets to write of @e, as slots @lo to @hi (none when
 * @lo > @hi): what its quantiles need now and the margins, widened to
 * every bucket it was written with before.  Room was reserved; a range new in this
 * render is appended, and sorted in after it (prom_write).
 */
static void prom_span(struct prom_state *p, const struct prom_entry *e,
		      uint32_t *lo, uint32_t *hi)
{
	struct prom_span key = { .id = prom_span_id(e) }, *s;
	uint32_t l, h, step = GPULAT_HIST_SUBS / p->per_octave;
	bool need = prom_bucket_range(&e->h, p->per_octave, &l, &h);

	/* the buckets kept are the slots that are multiples of step */
	if (need) {
		l = l > PROM_MARGIN_BELOW * step ? l - PROM_MARGIN_BELOW * step : 0;
		h += PROM_MARGIN_ABOVE * step;
		if (h > GPULAT_HIST_OVERFLOW - 1)
			h = GPULAT_HIST_OVERFLOW - 1;
	}

	s = p->nr_sorted ? bsearch(&key, p->spans, p->nr_sorted,
				   sizeof(*s), prom_span_cmp) : NULL;
	if (!s && !need) {
		*lo = 1;
		*hi = 0;
		return;
	}
	if (!s) {
		s = &p->spans[p->nr_spans++];
		s->id = key.id;
		s->lo = (uint16_t)l;
		s->hi = (uint16_t)h;
	} else if (need) {
		if (l < s->lo)
			s->lo = (uint16_t)l;
		if (h > s->hi)
			s->hi = (uint16_t)h;
	}
	*lo = s->lo;
	*hi = s->hi;
}

/*
 * prom_spans_sort - the ranges new in this render sorted in; two of one
 * hash (new together) become one, their union
 */
static void prom_spans_sort(struct prom_state *p)
{
	struct prom_span *s = p->spans;
	size_t i, j;

	qsort(s, p->nr_spans, sizeof(*s), prom_span_cmp);
	for (i = 0, j = 0; i < p->nr_spans; i++) {
		if (j && s[j - 1].id == s[i].id) {
			if (s[i].lo < s[j - 1].lo)
				s[j - 1].lo = s[i].lo;
			if (s[i].hi > s[j - 1].hi)
				s[j - 1].hi = s[i].hi;
			continue;
		}
		s[j++] = s[i];
	}
	p->nr_spans = p->nr_sorted = j;
}

static void prom_hist(FILE *f, struct prom_state *p,
		      const char *name, const struct prom_entry *e)
{
	const char *sep = e->labels[0] ? "," : "";
	uint64_t cum = 0, total = gl_hist_total(&e->h);
	uint32_t i, lo = 0, hi = GPULAT_HIST_OVERFLOW - 1;
	char le[32];

	if (!p->all_buckets)
		prom_span(p, e, &lo, &hi);
	for (i = 0; i < GPULAT_HIST_OVERFLOW; i++) {
		cum += e->h.slots[i];
		/* above the range, the octaves' bounds: prom_span */
		if (lo > hi || i < lo ||
		    !prom_bucket_kept(i, i > hi ? 1 : p->per_octave))
			continue;
		fprintf(f, "%s_bucket{%s%sle=\"%s\"} %" PRIu64 "\n", name,
			e->labels, sep, prom_le(le, sizeof(le), i), cum);
	}
	/* the slots, not count: a sample being recorded may be in one only */
	fprintf(f, "%s_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n", name,
		e->labels, sep, total);
	fprintf(f, "%s_sum{%s} %" PRIu64 ".%09" PRIu64 "\n", name, e->labels,
		(uint64_t)(e->h.sum_ns / 1000000000ULL),
		(uint64_t)(e->h.sum_ns % 1000000000ULL));
	fprintf(f, "%s_count{%s} %" PRIu64 "\n", name, e->labels, total);
}

static void prom_header(FILE *f, const char *name, const char *type,
			const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void prom_count_events(struct prom_state *p, const struct gl_snapshot *s)
{
	const struct gpulat_event *ev;
	uint64_t newest = p->xid_last_ns;
	size_t i, j;

	for (i = 0; s && i < gl_snapshot_nr_events(s); i++) {
		ev = gl_snapshot_event(s, i);
		if (ev->type != GPULAT_EVENT_XID ||
		    (p->xid_seen && ev->time_ns <= p->xid_last_ns) ||
		    ev->time_ns < p->xid_from_ns)
			continue;
		if (ev->time_ns > newest)
			newest = ev->time_ns;
		for (j = 0; j < p->nr_xids; j++)
			if (p->xids[j].xid == ev->code &&
			    !strncmp(p->xids[j].gpu, ev->device,
				     sizeof(ev->device)))
				break;
		if (j == p->nr_xids) {
			/* the last row gathers the pairs over the bound */
			if (p->nr_xids == PROM_MAX_XIDS - 1) {
				j = p->nr_xids++;
				snprintf(p->xids[j].gpu, sizeof(p->xids[j].gpu),
					 "%s", PROM_OTHER);
			} else if (p->nr_xids < PROM_MAX_XIDS - 1) {
				j = p->nr_xids++;
				memcpy(p->xids[j].gpu, ev->device,
				       sizeof(ev->device));
				p->xids[j].gpu[sizeof(p->xids[j].gpu) - 1] = 0;
				p->xids[j].xid = ev->code;
			} else {
				j = PROM_MAX_XIDS - 1;
			}
		}
		p->xids[j].n++;
	}
	if (s) {
		p->xid_last_ns = newest;
		p->xid_seen = true;
	}
}

static void prom_counters(FILE *f, const struct gl_snapshot *s)
{
	char fam[2 * GPULAT_NAME_LEN], reason[2 * GPULAT_NAME_LEN];
	const struct gpulat_counter *c;
	const char *dot;
	size_t i, n;

	prom_header(f, "gpulat_dropped_total", "counter",
		    "Samples or records the source could not keep, by family and reason (Documentation/robustness.rst)");
	for (i = 0; s && i < gl_snapshot_nr_counters(s); i++) {
		c = gl_snapshot_counter(s, i);
		dot = memchr(c->name, '.', sizeof(c->name));
		n = dot ? (size_t)(dot - c->name) : 0;
		if (n)
			prom_escape(fam, sizeof(fam), c->name, n);
		else
			snprintf(fam, sizeof(fam), "%s",
				 gl_family_name(c->family) ?: "unknown");
		prom_escape(reason, sizeof(reason), dot ? dot + 1 : c->name,
			    dot ? sizeof(c->name) - n - 1 : sizeof(c->name));
		fprintf(f, "gpulat_dropped_total{family=\"%s\",reason=\"%s\"} %" PRIu64 "\n",
			fam, reason, (uint64_t)c->value);
	}
}

static void prom_probes(FILE *f, const struct gl_snapshot *s)
{
	char fam[2 * GPULAT_NAME_LEN], tp[2 * 48], prev[256] = "", cur[256];
	const struct gpulat_probe *pr;
	size_t i;

	prom_header(f, "gpulat_probe_up", "gauge",
		    "1 when the probe on this tracepoint is attached, else 0");
	for (i = 0; s && i < gl_snapshot_nr_probes(s); i++) {
		pr = gl_snapshot_probe(s, i);
		prom_escape(fam, sizeof(fam), pr->family_name,
			    sizeof(pr->family_name));
		prom_escape(tp, sizeof(tp), pr->tracepoint,
			    sizeof(pr->tracepoint));
		snprintf(cur, sizeof(cur), "family=\"%s\",tracepoint=\"%s\"",
			 fam, tp);
		if (!strcmp(cur, prev))
			continue;	/* one line per label set */
		fprintf(f, "gpulat_probe_up{%s} %d\n", cur,
			pr->state == GPULAT_PROBE_ATTACHED);
		snprintf(prev, sizeof(prev), "%s", cur);
	}
}

/* prom_scalar - a metric of one unlabelled sample */
static void prom_scalar(FILE *f, const char *name, const char *type,
			const char *help, uint64_t v)
{
	prom_header(f, name, type, help);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

/* prom_counters_by - a counter of one sample per value of @label */
static void prom_counters_by(FILE *f, const char *name, const char *help,
			     const char *label, const char *const *values,
			     const uint64_t *v, size_t n)
{
	size_t i;

	prom_header(f, name, "counter", help);
	for (i = 0; i < n; i++)
		fprintf(f, "%s{%s=\"%s\"} %" PRIu64 "\n", name, label,
			values[i], v[i]);
}

static void prom_self(FILE *f, const struct prom_state *p)
{
	static const char *const cause[PROM_NR_CAUSES] = {
		[PROM_CAUSE_XID] = "xid",
		[PROM_CAUSE_OUTLIER] = "outlier",
		[PROM_CAUSE_SIGNAL] = "signal",
	};
	static const char *const fail[PROM_NR_FAILS] = {
		[PROM_FAIL_NO_SPACE] = "no_space",
		[PROM_FAIL_TOO_BIG] = "too_big",
		[PROM_FAIL_NO_WINDOW] = "no_window",
		[PROM_FAIL_WRITER_BUSY] = "writer_busy",
		[PROM_FAIL_KILLED] = "killed",
		[PROM_FAIL_IO] = "io_error",
	};
	static const char *const refuse[PROM_NR_REFUSES] = {
		[PROM_REFUSE_PER_IP] = "per_address",
		[PROM_REFUSE_FULL] = "full",
		[PROM_REFUSE_TIMEOUT] = "timeout",
		[PROM_REFUSE_ERROR] = "error",
	};
	char v[96], src[32], k[160], g[2 * GPULAT_NAME_LEN + 8];
	size_t i;

	prom_header(f, "gpulat_nvidia_xid_total", "counter",
		    "NVIDIA Xid errors seen since the daemon started, by GPU and Xid");
	for (i = 0; i < p->nr_xids; i++) {
		if (strcmp(p->xids[i].gpu, PROM_OTHER))
			snprintf(v, sizeof(v), "%u", p->xids[i].xid);
		else
			snprintf(v, sizeof(v), "%s", PROM_OTHER);
		fprintf(f, "gpulat_nvidia_xid_total{gpu=\"%s\",xid=\"%s\"} %" PRIu64 "\n",
			prom_escape(g, sizeof(g), p->xids[i].gpu,
				    sizeof(p->xids[i].gpu)), v,
			p->xids[i].n);
	}
	prom_scalar(f, "gpulat_trace_records_total", "counter",
		    "Outlier records (samples at or over a threshold) the daemon read",
		    p->trace_records);
	prom_scalar(f, "gpulat_trace_lost_total", "counter",
		    "Outlier records lost before the daemon read them",
		    p->trace_lost);
	prom_scalar(f, "gpulat_exporter_snapshot_errors_total", "counter",
		    "Snapshots the daemon failed to take", p->snapshot_errors);
	prom_scalar(f, "gpulat_flight_bundles_total", "counter",
		    "Flight recorder bundles written", p->flight_bundles);
	prom_counters_by(f, "gpulat_flight_triggers_total",
			 "Flight recorder triggers, by cause", "cause", cause,
			 p->flight_triggers, PROM_NR_CAUSES);
	prom_scalar(f, "gpulat_flight_suppressed_total", "counter",
		    "Flight recorder triggers that wrote no bundle (rate limit, one in progress)",
		    p->flight_suppressed);
	prom_counters_by(f, "gpulat_flight_bundles_failed_total",
			 "Flight recorder bundles triggered but not kept, by reason",
			 "reason", fail, p->flight_failed, PROM_NR_FAILS);
	prom_scalar(f, "gpulat_flight_folder_bytes", "gauge",
		    "Bytes of the flight recorder's bundles in its folder",
		    p->flight_bytes);
	prom_counters_by(f, "gpulat_http_refused_total",
			 "Connections closed unanswered or cut, by reason",
			 "reason", refuse, p->http_refused, PROM_NR_REFUSES);
	prom_header(f, "gpulat_exporter_other_keys", "gauge",
		    "Keys of a metric over the bound, summed under the label value _other");
	for (i = 0; i < GL_NR_METRICS; i++)
		if (gl_metric_info(i))
			fprintf(f, "gpulat_exporter_other_keys{metric=\"%s\"} %zu\n",
				gl_metric_info(i)->name, p->keys[i].other);
	prom_header(f, "gpulat_exporter_last_snapshot_timestamp_seconds",
		    "gauge", "Unix time of the newest snapshot exported");
	fprintf(f, "gpulat_exporter_last_snapshot_timestamp_seconds %.3f\n",
		p->last_snapshot_unix);
	prom_header(f, "gpulat_build_info", "gauge",
		    "Always 1: the tool's version and ABI, the source and kernel");
	fprintf(f, "gpulat_build_info{version=\"%s\",abi=\"%u.%u\",source=\"%s\",kernel=\"%s\"} 1\n",
		prom_escape(v, sizeof(v), p->version, 63), GPULAT_ABI_MAJOR,
		GPULAT_ABI_MINOR, prom_escape(src, sizeof(src), p->source, 16),
		prom_escape(k, sizeof(k), p->kernel, 63));
}

int prom_write(struct prom_state *p, const struct gl_snapshot *s, FILE *f)
{
	const struct gl_metric_info *mi;
	struct prom_entry *e = NULL;
	ssize_t n = 0, i;
	int m;

	if (s) {
		n = prom_entries(p, s, &e);
		if (n < 0)
			return (int)n;
		if (prom_spans_reserve(p, (size_t)n)) {
			free(e);
			return -ENOMEM;
		}
	}
	for (m = 0, i = 0; m < GL_NR_METRICS; m++) {
		mi = gl_metric_info(m);
		if (!mi)
			continue;
		prom_header(f, mi->name, "histogram", mi->help);
		for (; i < n && e[i].metric == (enum gl_metric)m; i++)
			prom_hist(f, p, mi->name, &e[i]);
	}
	free(e);
	if (p->nr_spans != p->nr_sorted)
		prom_spans_sort(p);
	prom_counters(f, s);
	prom_probes(f, s);
	prom_self(f, p);
	return ferror(f) ? -EIO : 0;
}
