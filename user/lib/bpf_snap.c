// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: the BPF source's snapshot.  The maps of gpulat_bpf.h are
 * read into the module's blob layout (uapi/gpulat.h), which then goes
 * through the same parser as a module's: every command decodes either
 * source alike.  Per-CPU series are listed for the online CPUs and any
 * other that holds data, as the module lists them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "lib/bpf_fam.h"
#include "lib/bpf_int.h"
#include "lib/bpf_source.h"
#include "lib/cpuset.h"
#include "lib/gpulat_user.h"
#include "lib/libinternal.h"

/* A keyed family's map value: header, then nr_keyed histograms. */
static size_t bs_keyed_size(const struct gl_bpf_family *bf)
{
	return sizeof(struct gl_bpf_key_hdr) +
	       bf->nr_keyed * sizeof(struct gl_bpf_hist);
}

static void bs_online(struct cpuset *on)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");

	cpuset_clear(on);
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			cpuset_parse(on, buf);
		fclose(f);
	}
}

/* bs_copy - @src into @dst of @n bytes, cut, NUL padded */
static void bs_copy(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);

	memset(dst, 0, n);
	memcpy(dst, src, l);
}

/*
 * One series found by the walk, copied into the blob once, in the blob's
 * order: a per-CPU one straight from gl_pcpu, a keyed one from its key's
 * value as looked up (in bs_build.vals).
 */
struct bs_item {
	uint32_t family, id, cpu;
	bool keyed;
	uint64_t key;
	uint64_t max;		/* keyed: the largest of the CPUs' maxima */
	size_t at;		/* keyed: offset in vals; per-CPU: gl_pcpu idx */
	const char *key_name;	/* per-CPU: the vector's, or "" */
};

struct bs_build {
	struct gl_bpf *b;
	struct gl_snapshot *s;		/* counters, probes, events */
	size_t cap_counters, cap_probes;	/* what s has room for */
	size_t nr_counters, nr_probes;
	struct bs_item *items;
	size_t nr_items, cap_items;
	unsigned char *vals;		/* keyed values, back to back */
	size_t vals_len, vals_cap;
	uint64_t generation;	/* the settings' (bs_kc_get) */
	uint64_t *pcounts;	/* gl_pcpu's counts (bs_pcpu_counts) */
	bool rides_on;		/* the settings' cg_on */
};

/* bs_item_add - room for one more series; NULL: out of memory */
static struct bs_item *bs_item_add(struct bs_build *bb)
{
	struct bs_item *p;
	size_t cap;

	if (bb->nr_items == bb->cap_items) {
		cap = bb->cap_items ? 2 * bb->cap_items : 256;
		p = realloc(bb->items, cap * sizeof(*p));
		if (!p)
			return NULL;
		bb->items = p;
		bb->cap_items = cap;
	}
	p = &bb->items[bb->nr_items++];
	memset(p, 0, sizeof(*p));
	return p;
}

/*
 * bs_map_array - map array @name of values of @size, at least @nr of
 * them, read-only, once (*@mem): read in place, with no copy through
 * the kernel
 */
static int bs_map_array(struct gl_bpf *b, const char *name, size_t size,
			uint64_t nr, const unsigned char **mem, size_t *len)
{
	int fd = gl_bpf_map_fd(b, name);
	struct bpf_map_info info = { 0 };
	uint32_t ilen = sizeof(info);
	long page = sysconf(_SC_PAGESIZE);
	size_t need;
	void *m;

	if (*mem)
		return 0;
	if (fd < 0)
		return -ENOENT;
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen))
		return -errno;
	/* the pins' layout was checked; the CPU count can still differ */
	if (info.value_size != size || info.max_entries < nr)
		return -EPROTO;
	need = (size_t)info.max_entries * info.value_size;
	if (page > 0)
		need = (need + page - 1) / page * page;
	m = mmap(NULL, need, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	*mem = m;
	*len = need;
	return 0;
}

static int bs_pcpu_map(struct gl_bpf *b)
{
	return bs_map_array(b, "gl_pcpu", sizeof(struct gl_bpf_hist),
			    (uint64_t)GL_BPF_PCPU_NR * b->ncpus, &b->pcpu_mem,
			    &b->pcpu_len);
}

/* bs_pcpu_hist - per-CPU series @idx of @cpu, in place (mapped) */
static const struct gl_bpf_hist *bs_pcpu_hist(const struct gl_bpf *b,
					      unsigned int cpu, uint32_t idx)
{
	return (const void *)(b->pcpu_mem + (size_t)gl_pcpu_index(cpu, idx) *
			      sizeof(struct gl_bpf_hist));
}

/*
 * bs_pcpu_counts - every per-CPU series' count, a CPU's together, in one
 * tight pass before anything is copied: the series of one CPU are then
 * read within nanoseconds of each other, in every snapshot alike (a run
 * and its wait, read microseconds apart while 300,000 a second come,
 * differ by the events between; two snapshots differing in that gap
 * would differ in count by more than their edges)
 */
static int bs_pcpu_counts(struct gl_bpf *b, struct bs_build *bb)
{
	const struct gl_bpf_hist *h;
	uint32_t cpu, idx;
	int ret = bs_pcpu_map(b);

	if (ret)
		return ret;
	bb->pcounts = malloc((size_t)b->ncpus * GL_BPF_PCPU_NR *
			     sizeof(*bb->pcounts));
	if (!bb->pcounts)
		return -ENOMEM;
	h = (const void *)b->pcpu_mem;
	for (cpu = 0; cpu < b->ncpus; cpu++)
		for (idx = 0; idx < GL_BPF_PCPU_NR; idx++, h++)
			bb->pcounts[gl_pcpu_index(cpu, idx)] =
				__atomic_load_n(&h->count, __ATOMIC_ACQUIRE);
	return 0;
}

/* bs_pcpu - the per-CPU series of @bf that are listed */
static int bs_pcpu(struct gl_bpf *b, const struct gl_bpf_family *bf,
		   const struct cpuset *online, struct bs_build *bb)
{
	const struct gl_vector_info *vi;
	struct bs_item *it;
	uint32_t id, cpu;
	uint64_t key;
	int ret = 0;

	for (id = 0; !ret && id < bf->nr_pcpu; id++) {
		/* softirq: key and key_name are the vector's, as the module's */
		key = bf->pcpu_vector ? id / 2 : 0;
		vi = bf->pcpu_vector ? gl_vector_info(key) : NULL;
		for (cpu = 0; cpu < b->ncpus; cpu++) {
			if (!cpuset_has(online, cpu) &&
			    !bb->pcounts[gl_pcpu_index(cpu, bf->pcpu_base + id)])
				continue;
			it = bs_item_add(bb);
			if (!it)
				return -ENOMEM;
			it->family = bf->id;
			it->id = id;
			it->cpu = cpu;
			it->key = key;
			it->at = bf->pcpu_base + id;
			it->key_name = vi ? vi->name : "";
		}
	}
	return ret;
}

/*
 * bs_walk_max - steps a walk of map @fd may take: a key deleted under
 * the walk sends get_next_key back to the first, so a map that changes
 * as it is walked (in-flight stamps) could be walked without end; and
 * its room in *@entries (256 when unknown), where wanted
 */
static uint64_t bs_walk_max(int fd, uint64_t *entries)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		if (entries)
			*entries = 256;
		return 65536;
	}
	if (entries)
		*entries = info.max_entries;
	return 2ULL * info.max_entries + 16;
}

/* bs_val_room - room in bb->vals for one value of @len; NULL: no memory */
static unsigned char *bs_val_room(struct bs_build *bb, size_t len)
{
	unsigned char *p;
	size_t cap;

	if (bb->vals_len + len > bb->vals_cap) {
		cap = bb->vals_cap ? 2 * bb->vals_cap : 64 * len;
		while (cap < bb->vals_len + len)
			cap *= 2;
		p = realloc(bb->vals, cap);
		if (!p)
			return NULL;
		bb->vals = p;
		bb->vals_cap = cap;
	}
	return bb->vals + bb->vals_len;
}

/*
 * A family's keys' maxima as the last snapshot read them, with the count
 * of the key's series then: a per-CPU read of every key (nr_keyed x 8
 * bytes per possible CPU) is most of a snapshot at scale, and a key's
 * maxima change only with a sample, which its count shows (the programs
 * store the maximum before their atomic add of the count).  A reset
 * empties it.
 */
struct bs_kmax_cache {
	uint64_t generation;
	size_t cap;			/* entries, a power of two */
	unsigned int nr_keyed;
	uint64_t slots[];		/* cap x bs_kc_words() */
};

/* an entry: used, key, count, then nr_keyed maxima */
static size_t bs_kc_words(const struct bs_kmax_cache *kc)
{
	return 3 + kc->nr_keyed;
}

/* bs_kc_get - the entry of @key, made if there is room; NULL: none */
static uint64_t *bs_kc_get(struct gl_bpf *b, const struct gl_bpf_family *bf,
			   uint64_t generation, uint64_t key, uint64_t nr_keys)
{
	struct bs_kmax_cache *kc = b->kmax[bf->id];
	uint64_t *e;
	size_t cap = 64, i, n;

	if (!kc) {
		while (cap < 2 * nr_keys)
			cap *= 2;
		kc = calloc(1, sizeof(*kc) +
			    cap * (3 + bf->nr_keyed) * sizeof(uint64_t));
		if (!kc)
			return NULL;
		kc->cap = cap;
		kc->nr_keyed = bf->nr_keyed;
		kc->generation = generation;
		b->kmax[bf->id] = kc;
	}
	if (kc->generation != generation) {
		memset(kc->slots, 0,
		       kc->cap * bs_kc_words(kc) * sizeof(uint64_t));
		kc->generation = generation;
	}
	i = (key * 0x9e3779b97f4a7c15ULL) >> 40;
	for (n = 0; n < kc->cap; n++, i++) {
		e = &kc->slots[(i & (kc->cap - 1)) * bs_kc_words(kc)];
		if (!e[0]) {
			e[0] = 1;
			e[1] = key;
			e[2] = UINT64_MAX;	/* no count read yet */
			return e;
		}
		if (e[1] == key)
			return e;
	}
	return NULL;
}

/* gl_bpf_snap_free - see bpf_int.h */
void gl_bpf_snap_free(struct gl_bpf *b)
{
	uint32_t f;

	for (f = 0; f < GPULAT_FAM_MAX; f++) {
		free(b->kmax[f]);
		b->kmax[f] = NULL;
	}
	if (b->pcpu_mem)
		munmap((void *)b->pcpu_mem, b->pcpu_len);
	if (b->ev_mem)
		munmap((void *)b->ev_mem, b->ev_len);
	b->pcpu_mem = b->ev_mem = NULL;
}

/* bs_keyed - the keyed series of @bf, a key's series all or sparse */
static int bs_keyed(struct gl_bpf *b, const struct gl_bpf_family *bf,
		    struct bs_build *bb)
{
	size_t vlen = bs_keyed_size(bf);
	char mname[GL_BPF_NAME];
	const struct gl_bpf_hist *h;
	uint64_t key, next, *maxv = NULL, *kmx, *ce, max, steps, total, nkeys;
	unsigned char *val;
	struct bs_item *it;
	int kfd, mfd, ret = 0;
	bool first = true;
	unsigned int cpu;
	uint32_t id;

	snprintf(mname, sizeof(mname), "%s_keys", bf->keyed);
	kfd = gl_bpf_map_fd(b, mname);
	snprintf(mname, sizeof(mname), "%s_kmax", bf->keyed);
	mfd = gl_bpf_map_fd(b, mname);
	if (kfd < 0 || mfd < 0)
		return -ENOENT;
	maxv = calloc((size_t)b->ncpus * bf->nr_keyed + bf->nr_keyed,
		      sizeof(*maxv));
	if (!maxv)
		return -ENOMEM;
	kmx = maxv + (size_t)b->ncpus * bf->nr_keyed;
	steps = bs_walk_max(kfd, &nkeys);
	while (steps-- &&
	       !bpf_map_get_next_key(kfd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		val = bs_val_room(bb, vlen);
		if (!val) {
			ret = -ENOMEM;
			break;
		}
		if (bpf_map_lookup_elem(kfd, &key, val))
			continue;	/* not there any more: keys stay, but */
		h = (const void *)(val + sizeof(struct gl_bpf_key_hdr));
		for (total = 0, id = 0; id < bf->nr_keyed; id++)
			total += h[id].count;
		ce = bs_kc_get(b, bf, bb->generation, key, nkeys);
		if (ce && ce[2] == total) {
			memcpy(kmx, ce + 3, bf->nr_keyed * sizeof(*kmx));
		} else {
			if (bpf_map_lookup_elem(mfd, &key, maxv))
				memset(maxv, 0,
				       (size_t)b->ncpus * bf->nr_keyed * 8);
			for (id = 0; id < bf->nr_keyed; id++) {
				for (max = 0, cpu = 0; cpu < b->ncpus; cpu++)
					if (maxv[cpu * bf->nr_keyed + id] > max)
						max = maxv[cpu * bf->nr_keyed + id];
				kmx[id] = max;
			}
			if (ce) {
				ce[2] = total;
				memcpy(ce + 3, kmx, bf->nr_keyed * sizeof(*kmx));
			}
		}
		for (id = 0; id < bf->nr_keyed; id++) {
			if (bf->keyed_sparse && !h[id].count)
				continue;
			max = kmx[id];
			it = bs_item_add(bb);
			if (!it) {
				ret = -ENOMEM;
				goto out;
			}
			it->family = bf->id;
			it->id = id;
			it->cpu = GPULAT_CPU_NONE;
			it->keyed = true;
			it->key = key;
			it->max = max;
			it->at = bb->vals_len;
		}
		bb->vals_len += vlen;
	}
out:
	free(maxv);
	return ret;
}

/* bs_swept - the stale in-flight entries the tool removed for @family */
static uint64_t bs_swept(struct gl_bpf *b, uint32_t family)
{
	int fd = gl_bpf_map_fd(b, "gl_swept");
	uint64_t n = 0;

	if (fd < 0 || bpf_map_lookup_elem(fd, &family, &n))
		return 0;
	return n;
}

/* bs_stale - whether @v is due to be swept at @now (ts 0: released) */
static bool bs_stale(const struct gl_bpf_flight *v, uint64_t now,
		     uint64_t expire_ns)
{
	return !v->ts || (v->ts < now && now - v->ts > expire_ns);
}

/*
 * bs_sweep - remove the in-flight entries of @bf older than the module's
 * timeout (their end never came: a request or packet lost on the way)
 * and count them as expired, where the module counts the stale entries
 * it takes over; a released entry (ts 0) whose delete failed goes
 * silently.  Keys first, deletes after: a walk goes back to the start
 * when its key is deleted.
 */
static int bs_sweep(struct gl_bpf *b, const struct gl_bpf_family *bf)
{
	int fd = gl_bpf_map_fd(b, bf->inflight);
	int sfd = gl_bpf_map_fd(b, "gl_swept");
	uint64_t key, next, *stale = NULL, *p, n = 0, now, steps;
	size_t nr = 0, cap = 0, i;
	struct gl_bpf_flight v;
	uint32_t f = bf->id;
	bool first = true;

	if (fd < 0 || sfd < 0)
		return -ENOENT;
	now = gl_bpf_now_ns();
	steps = bs_walk_max(fd, NULL);
	while (steps-- &&
	       !bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &v) ||
		    !bs_stale(&v, now, bf->expire_ns))
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 64;
			p = realloc(stale, cap * sizeof(*stale));
			if (!p)
				break;
			stale = p;
		}
		stale[nr++] = key;
	}
	for (i = 0; i < nr; i++) {
		/* taken again since (a new request at that address): kept */
		if (bpf_map_lookup_elem(fd, &stale[i], &v) ||
		    !bs_stale(&v, now, bf->expire_ns))
			continue;
		if (!bpf_map_delete_elem(fd, &stale[i]) && v.ts)
			n++;
	}
	free(stale);
	if (!n)
		return 0;
	n += bs_swept(b, f);
	return bpf_map_update_elem(sfd, &f, &n, BPF_ANY) ? -errno : 0;
}

/*
 * bs_rides - the probes of a family without programs: the tracepoints
 * whose programs file its samples, in their state while it is on
 * (disabled while off), with their hits
 */
static int bs_rides(struct gl_bpf *b, const struct gl_bpf_family *bf,
		    struct bs_build *bb)
{
	int fd = gl_bpf_map_fd(b, "gl_cnt");
	const struct gl_bpf_family *host;
	struct gl_bpf_cnt *v;
	unsigned int i, cpu;
	uint32_t f, tp;
	uint64_t sum;

	if (!bf->nr_rides)
		return 0;
	if (!bb->s) {
		bb->nr_probes += bf->nr_rides;
		return 0;
	}
	v = calloc(b->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < bf->nr_rides && bb->nr_probes < bb->cap_probes; i++) {
		struct gpulat_probe *p = &bb->s->probes[bb->nr_probes++];
		const struct gl_bpf_tpst *t;

		f = bf->rides[i].family;
		tp = bf->rides[i].tp;
		host = gl_bpf_family(f);
		t = &b->tp[f][tp];
		if (fd < 0 || bpf_map_lookup_elem(fd, &f, v))
			memset(v, 0, b->ncpus * sizeof(*v));
		for (sum = 0, cpu = 0; cpu < b->ncpus; cpu++)
			sum += v[cpu].c[GL_BPF_HIT(tp)];
		p->family = bf->id;
		p->state = t->state;
		if (!bb->rides_on && t->state == GPULAT_PROBE_ATTACHED)
			p->state = GPULAT_PROBE_DISABLED;
		p->error = t->state == GPULAT_PROBE_FAILED ? t->error : 0;
		bs_copy(p->family_name, sizeof(p->family_name),
			gl_family_name(bf->id));
		bs_copy(p->tracepoint, sizeof(p->tracepoint),
			host->tps[tp].tracepoint);
		p->hits = sum;
	}
	free(v);
	return 0;
}

/* bs_counters - drops summed over CPUs, and the probes with their hits */
static int bs_counters(struct gl_bpf *b, const struct gl_bpf_family *bf,
		       struct bs_build *bb)
{
	int fd = gl_bpf_map_fd(b, "gl_cnt");
	struct gl_bpf_cnt *v;
	uint64_t sum;
	uint32_t f = bf->id;
	unsigned int i, cpu;

	v = calloc(b->ncpus, sizeof(*v));
	if (!v || fd < 0) {
		free(v);
		return fd < 0 ? -ENOENT : -ENOMEM;
	}
	if (bpf_map_lookup_elem(fd, &f, v))
		memset(v, 0, b->ncpus * sizeof(*v));
	for (i = 0; i < bf->nr_drops; i++) {
		if (bb->s && bb->nr_counters < bb->cap_counters) {
			struct gpulat_counter *c = &bb->s->counters[bb->nr_counters];

			for (sum = 0, cpu = 0; cpu < b->ncpus; cpu++)
				sum += v[cpu].c[i];
			if (bf->inflight && i == bf->expired_id)
				sum += bs_swept(b, f);
			c->family = f;
			c->id = i;
			bs_copy(c->name, sizeof(c->name), bf->drops[i]);
			c->value = sum;
		}
		bb->nr_counters++;
	}
	for (i = 0; i < bf->nr_tps; i++) {
		if (bb->s && bb->nr_probes < bb->cap_probes) {
			struct gpulat_probe *p = &bb->s->probes[bb->nr_probes];

			for (sum = 0, cpu = 0; cpu < b->ncpus; cpu++)
				sum += v[cpu].c[GL_BPF_HIT(i)];
			p->family = f;
			p->state = b->tp[f][i].state;
			p->error = b->tp[f][i].state == GPULAT_PROBE_FAILED ?
				   b->tp[f][i].error : 0;
			bs_copy(p->family_name, sizeof(p->family_name),
				gl_family_name(f));
			bs_copy(p->tracepoint, sizeof(p->tracepoint),
				bf->tps[i].tracepoint);
			p->hits = sum;
		}
		bb->nr_probes++;
	}
	free(v);
	return bs_rides(b, bf, bb);
}

struct bs_event {
	struct gpulat_event ev;
	uint64_t seq;
};

static int bs_event_cmp(const void *pa, const void *pb)
{
	const struct bs_event *a = pa, *b = pb;

	if (a->ev.time_ns != b->ev.time_ns)
		return a->ev.time_ns < b->ev.time_ns ? -1 : 1;
	if (a->ev.cpu != b->ev.cpu)
		return a->ev.cpu < b->ev.cpu ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * bs_events - the newest GL_BPF_NR_EVENTS timeline events of all CPUs'
 * rings (gl_events, in place), oldest first, into @out; how many.  Read
 * twice: an entry that differs between the two reads is being written,
 * and is left out, as the module leaves out one being overwritten.  A
 * CPU that never had one costs one load.
 */
static size_t bs_events(struct gl_bpf *b,
			struct gpulat_event out[GL_BPF_NR_EVENTS])
{
	const struct gl_bpf_events *live;
	struct gl_bpf_events *r1;
	struct bs_event *all = NULL;
	size_t n = 0, i, from;
	uint32_t cpu;

	if (bs_map_array(b, "gl_events", sizeof(*live), b->ncpus, &b->ev_mem,
			 &b->ev_len))
		return 0;
	r1 = malloc(sizeof(*r1));
	if (!r1)
		return 0;
	for (cpu = 0; cpu < b->ncpus; cpu++) {
		live = (const void *)(b->ev_mem + (size_t)cpu * sizeof(*live));
		if (!__atomic_load_n(&live->next, __ATOMIC_ACQUIRE))
			continue;
		if (!all) {
			all = calloc((size_t)b->ncpus * GL_BPF_NR_EVENTS,
				     sizeof(*all));
			if (!all)
				break;
		}
		memcpy(r1, live, sizeof(*r1));
		for (i = 0; i < GL_BPF_NR_EVENTS; i++) {
			const struct gl_bpf_event *e = &r1->e[i];

			if (!e->seq || (e->seq - 1) % GL_BPF_NR_EVENTS != i ||
			    memcmp(e, &live->e[i], sizeof(*e)))
				continue;
			all[n].ev = e->ev;
			all[n].ev.pad = 0;
			all[n].ev.device[sizeof(e->ev.device) - 1] = '\0';
			all[n++].seq = e->seq;
		}
	}
	if (n) {
		qsort(all, n, sizeof(*all), bs_event_cmp);
		from = n > GL_BPF_NR_EVENTS ? n - GL_BPF_NR_EVENTS : 0;
		for (i = from; i < n; i++)
			out[i - from] = all[i].ev;
		n -= from;
	}
	free(r1);
	free(all);
	return n;
}

/* bs_fixed - the counters and probes every snapshot has (bs_counters) */
static void bs_fixed(size_t *nr_counters, size_t *nr_probes)
{
	const struct gl_bpf_family *bf;
	uint32_t f;

	*nr_counters = *nr_probes = 0;
	for (f = 1; f < GPULAT_FAM_MAX; f++) {
		bf = gl_bpf_family(f);
		if (!bf)
			continue;
		*nr_counters += bf->nr_drops;
		*nr_probes += bf->nr_tps + bf->nr_rides;
	}
}

/* bs_item_cmp - gl_series_cmp's order: family, id, key, cpu */
static int bs_item_cmp(const void *pa, const void *pb)
{
	const struct bs_item *a = pa, *b = pb;

	return gl_series_order(a->family, a->id, a->key, a->cpu,
			       b->family, b->id, b->key, b->cpu);
}

/*
 * bs_fill - series @i in the blob at @dst, its histogram read where it
 * lies after its count (bs_pcpu_counts; a keyed one's as looked up), as
 * the programs write the count last: no slot is behind it
 */
static void bs_fill(void *ctx, size_t i, unsigned char *dst)
{
	const struct bs_build *bb = ctx;
	const struct bs_item *it = &bb->items[i];
	const struct gl_series_info *si = gl_series_info(it->family, it->id);
	const struct gl_bpf_key_hdr *hdr = NULL;
	struct gpulat_series *sr = (void *)dst;
	const struct gl_bpf_hist *h;

	_Static_assert(GL_SERIES_STRIDE == sizeof(struct gpulat_series) +
		       sizeof(h->slots), "a series is its header and slots");
	memset(sr, 0, sizeof(*sr));
	if (it->keyed) {
		hdr = (const void *)(bb->vals + it->at);
		h = (const void *)(bb->vals + it->at + sizeof(*hdr));
		h += it->id;
	} else {
		h = bs_pcpu_hist(bb->b, it->cpu, it->at);
	}
	sr->family = it->family;
	sr->id = it->id;
	sr->cpu = it->cpu;
	sr->key = it->key;
	if (si)
		bs_copy(sr->name, sizeof(sr->name), si->name);
	else
		gl_series_name(sr->name, sizeof(sr->name), it->family, it->id);
	/* at most GPULAT_NAME_LEN - 1 bytes read: a full name is cut */
	bs_copy(sr->key_name, sizeof(sr->key_name),
		hdr ? hdr->name : it->key_name);
	sr->count = it->keyed ? h->count :
		    bb->pcounts[gl_pcpu_index(it->cpu, it->at)];
	/* most CPUs' series are empty: written, not read (and no sample
	 * on its way shows before its count)
	 */
	if (!sr->count) {
		memset(sr->buckets, 0, sizeof(h->slots));
		return;
	}
	memcpy(sr->buckets, h->slots, sizeof(h->slots));
	sr->sum_ns = h->sum_ns;
	sr->max_ns = it->keyed ? it->max : h->max_ns;
}

/* bs_walk - one pass over every family: the series, counters, probes */
static int bs_walk(struct gl_bpf *b, const struct cpuset *online,
		   struct bs_build *bb)
{
	const struct gl_bpf_family *bf;
	uint32_t f;
	int ret = 0;

	for (f = 1; !ret && f < GPULAT_FAM_MAX; f++) {
		bf = gl_bpf_family(f);
		if (!bf)
			continue;
		ret = bs_pcpu(b, bf, online, bb);
		if (!ret && bf->keyed)
			ret = bs_keyed(b, bf, bb);
		if (!ret)
			ret = bs_counters(b, bf, bb);
	}
	return ret;
}

int gl_bpf_snapshot(struct gl_bpf *b, struct gl_snapshot **out, char *err,
		    size_t errlen)
{
	struct gpulat_event ev[GL_BPF_NR_EVENTS];
	struct bs_build bb = { .b = b };
	const struct gl_bpf_family *bf;
	struct gpulat_snap_header *h;
	struct gl_bpf_conf c;
	struct cpuset online;
	struct utsname u;
	size_t nr_ev, nc, np;
	uint32_t f;
	int ret;

	*out = NULL;
	bs_online(&online);
	ret = gl_bpf_conf_get(b, &c);
	bb.rides_on = c.cg_on;
	bb.generation = c.generation;
	for (f = 1; !ret && f < GPULAT_FAM_MAX; f++) {
		bf = gl_bpf_family(f);
		if (bf && bf->inflight)
			ret = bs_sweep(b, bf);
	}
	nr_ev = bs_events(b, ev);
	bs_fixed(&nc, &np);
	bb.s = ret ? NULL : gl_snapshot_alloc(0, nc, np, nr_ev);
	if (!ret && !bb.s)
		ret = -ENOMEM;
	/* as many items as the last snapshot had: no growing on the way */
	if (!ret && b->series_hint) {
		bb.items = malloc((b->series_hint + 64) * sizeof(*bb.items));
		bb.cap_items = bb.items ? b->series_hint + 64 : 0;
	}
	if (!ret) {
		bb.cap_counters = nc;
		bb.cap_probes = np;
		memcpy(bb.s->events, ev, nr_ev * sizeof(*ev));
		ret = bs_pcpu_counts(b, &bb);
	}
	if (!ret) {
		/*
		 * every map read once; the histograms of gl_pcpu are copied
		 * once, into the blob, where they lie: at 224 CPUs they are
		 * 11 MB
		 */
		ret = bs_walk(b, &online, &bb);
	}
	if (!ret && (bb.nr_counters != nc || bb.nr_probes != np))
		ret = -EPROTO;
	if (ret) {
		gl_set_err(err, errlen, "reading the BPF maps: %s",
			   strerror(-ret));
		goto out;
	}
	b->series_hint = bb.nr_items;
	qsort(bb.items, bb.nr_items, sizeof(*bb.items), bs_item_cmp);
	h = &bb.s->hdr;
	h->abi_major = GPULAT_ABI_MAJOR;
	h->abi_minor = GPULAT_ABI_MINOR;
	h->time_ns = gl_bpf_now_ns();
	h->reset_time_ns = c.reset_ns;
	h->generation = c.generation;
	h->nr_cpu_ids = b->ncpus;
	h->hist_sub_bits = GPULAT_HIST_SUB_BITS;
	h->hist_min_shift = GPULAT_HIST_MIN_SHIFT;
	h->hist_max_shift = GPULAT_HIST_MAX_SHIFT;
	h->hist_nr_buckets = GPULAT_HIST_NR_BUCKETS;
	if (!uname(&u))
		bs_copy(h->kernel_release, sizeof(h->kernel_release),
			u.release);
	ret = gl_snapshot_build_blob_fill(bb.s, bb.nr_items, bs_fill, &bb);
	/* through the module's parser: one decoding for both sources */
	if (!ret)
		ret = gl_snapshot_parse_owned(bb.s->blob, bb.s->blob_len, out,
					      err, errlen);
	if (!ret)
		bb.s->blob = NULL;	/* *out's now */
out:
	gl_snapshot_free(bb.s);
	free(bb.items);
	free(bb.vals);
	free(bb.pcounts);
	return ret;
}

/* bs_zero_keyed - zero the histograms of every key of @bf (names stay) */
static int bs_zero_keyed(struct gl_bpf *b, const struct gl_bpf_family *bf)
{
	char mname[GL_BPF_NAME];
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info), n = 0, i;
	unsigned char *val;
	uint64_t key, next, *maxv, *keys = NULL;
	int kfd, mfd, ret = 0;
	bool first = true;

	snprintf(mname, sizeof(mname), "%s_keys", bf->keyed);
	kfd = gl_bpf_map_fd(b, mname);
	snprintf(mname, sizeof(mname), "%s_kmax", bf->keyed);
	mfd = gl_bpf_map_fd(b, mname);
	val = calloc(1, bs_keyed_size(bf));
	maxv = calloc((size_t)b->ncpus * bf->nr_keyed, sizeof(*maxv));
	if (!val || !maxv || kfd < 0 || mfd < 0) {
		ret = !val || !maxv ? -ENOMEM : -ENOENT;
		goto out;
	}
	/*
	 * the keys first, then the updates: an update moves its entry to
	 * the head of its hash bucket, so a walk that updates as it goes
	 * can meet the same entries again, without end
	 */
	if (bpf_obj_get_info_by_fd(kfd, &info, &len)) {
		ret = -errno;
		goto out;
	}
	keys = calloc(info.max_entries + 1, sizeof(*keys));
	if (!keys) {
		ret = -ENOMEM;
		goto out;
	}
	while (n <= info.max_entries &&
	       !bpf_map_get_next_key(kfd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		keys[n++] = key;
	}
	for (i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(kfd, &keys[i], val))
			continue;
		memset(val + sizeof(struct gl_bpf_key_hdr), 0,
		       bs_keyed_size(bf) - sizeof(struct gl_bpf_key_hdr));
		if (bpf_map_update_elem(kfd, &keys[i], val, BPF_EXIST) ||
		    bpf_map_update_elem(mfd, &keys[i], maxv, BPF_ANY))
			ret = -errno;
	}
out:
	free(keys);
	free(val);
	free(maxv);
	return ret;
}

int gl_bpf_reset(struct gl_bpf *b)
{
	int pfd = gl_bpf_map_fd(b, "gl_pcpu"), cfd = gl_bpf_map_fd(b, "gl_cnt");
	int sfd = gl_bpf_map_fd(b, "gl_swept");
	static const struct gl_bpf_hist hzero;
	uint64_t none = 0;
	const struct gl_bpf_family *bf;
	struct gl_bpf_conf c;
	void *zero;
	uint32_t i, f;
	int ret = 0;

	if (pfd < 0 || cfd < 0)
		return -ENOENT;
	zero = calloc(b->ncpus, sizeof(struct gl_bpf_cnt));
	if (!zero)
		return -ENOMEM;
	for (i = 0; !ret && i < GL_BPF_PCPU_NR * b->ncpus; i++)
		if (bpf_map_update_elem(pfd, &i, &hzero, BPF_ANY))
			ret = -errno;
	for (f = 0; !ret && f < GPULAT_FAM_MAX; f++) {
		if (bpf_map_update_elem(cfd, &f, zero, BPF_ANY) ||
		    (sfd >= 0 && bpf_map_update_elem(sfd, &f, &none, BPF_ANY)))
			ret = -errno;
		bf = gl_bpf_family(f);
		if (!ret && bf && bf->keyed)
			ret = bs_zero_keyed(b, bf);
	}
	free(zero);
	if (!ret)
		ret = gl_bpf_conf_get(b, &c);
	if (!ret) {
		c.reset_ns = gl_bpf_now_ns();
		c.generation++;
		ret = gl_bpf_conf_put(b, &c);
	}
	return ret;
}
