// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: the BPF source's outlier trace.  The programs write the
 * module's records (struct gpulat_rec_sample) into the ring buffer of
 * each reader (GL_BPF_READERS at once); the first poll or read makes
 * this process a reader: it takes a slot, makes its ring, opens its
 * gates (its thresholds) and the histories, and gives them back when
 * done; a killed reader's slot is freed by the next one.  What
 * BPF left out is filled in here: who held the CPU of a wait, from the
 * copy of its CPU's history each record carries (the module's walk,
 * too long for the verifier), the culprits' comm and tgid (from /proc,
 * cached for a second, -1 when gone: procname.h) and cgroup (from the history: taken as they ran), and GPULAT_REC_LOST records from the per-CPU count of
 * records the ring buffer had no room for.
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
#include "lib/procname.h"

/* Records fetched at most in one go (the ring holds about 5,000). */
#define BS_STAGE_MAX	(4U << 20)

/* The histories each family keeps, from the module's list. */
#define GPULAT_KEEPS_SWITCHES	GL_KEEPS_SWITCHES
#define GPULAT_KEEPS_IRQ	GL_KEEPS_IRQ
#define GPULAT_KEEPS_SOFTIRQ	GL_KEEPS_SOFTIRQ
static const uint32_t fam_keeps[GPULAT_FAM_MAX] = {
#define GPULAT_FAMILY(name, id, threshold_us, keeps, tool) [id] = (keeps),
#include "families.h"
#undef GPULAT_FAMILY
};

static int bs_stage(struct gl_bpf *b, const void *rec, size_t len)
{
	unsigned char *n;
	size_t cap;

	if (b->stage_off == b->stage_len)
		b->stage_off = b->stage_len = 0;
	if (b->stage_len + len > b->stage_cap) {
		if (b->stage_len + len > BS_STAGE_MAX)
			return -ENOSPC;
		cap = b->stage_cap ? b->stage_cap * 2 : 65536;
		while (cap < b->stage_len + len)
			cap *= 2;
		n = realloc(b->stage, cap);
		if (!n)
			return -ENOMEM;
		b->stage = n;
		b->stage_cap = cap;
	}
	memcpy(b->stage + b->stage_len, rec, len);
	b->stage_len += len;
	return 0;
}

static uint64_t bs_overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

/*
 * bs_spans - handler time in [@start, @end]; false if the history does
 * not reach back to @start.  Entries older than @since are left over
 * from before this reader: not history.  (The module's trace_spans().)
 */
static bool bs_spans(const struct gl_trace_span *ring, uint32_t pos,
		     uint64_t since, uint64_t start, uint64_t end,
		     __u64 *sum)
{
	uint32_t i;

	*sum = 0;
	for (i = 1; i <= GL_TRACE_IRQS; i++) {
		const struct gl_trace_span *e;

		if (i > pos)
			return start >= since;
		e = &ring[(pos - i) & (GL_TRACE_IRQS - 1)];
		if (e->end < since)
			return start >= since;
		if (e->end < start)
			return true;
		*sum += bs_overlap(e->end - e->ns, e->end, start, end);
	}
	return false;
}

/*
 * bs_walk - who had the CPU during [@start, @end] by the switch history,
 * newest first, into @who; false if it does not reach @start.  (The
 * module's trace_walk().)
 */
static bool bs_walk(const struct gl_trace_act *a, int32_t waiter,
		    uint64_t since, uint64_t start, uint64_t end,
		    struct gpulat_hold_who *who, unsigned int *n)
{
	uint64_t upto = end, ns;
	unsigned int i;

	for (i = 1; i <= GL_TRACE_SWITCHES && i <= a->sw_pos; i++) {
		const struct gl_trace_switch *e =
			&a->sw[(a->sw_pos - i) & (GL_TRACE_SWITCHES - 1)];

		if (e->t < since)
			break;
		ns = bs_overlap(e->t, upto, start, end);
		upto = e->t;
		/* not the idle task, nor the waiter itself */
		if (ns && e->pid && e->pid != waiter)
			gpulat_hold_add(who, n, GL_TRACE_SWITCHES, e->pid,
					e->cg, ns);
		if (e->t <= start)
			return true;
	}
	return false;
}

/*
 * bs_culprits - who had the CPU during [@start, @end]: the switch
 * history when it reaches back that far, else the holders the record
 * carries (gpulat_hold.h); the top ones named.  (The module's
 * trace_culprits().)
 */
static void bs_culprits(struct gl_bpf *b, struct gpulat_rec_sample *s,
			const struct gl_bpf_rec *r, uint64_t start,
			uint64_t end)
{
	struct gpulat_hold_who who[GL_TRACE_SWITCHES];
	const struct gl_trace_act *a = &r->act;
	const struct gl_trace_switch *cur;
	unsigned int n = 0, k;
	uint64_t named = 0;

	_Static_assert(GL_TRACE_SWITCHES >= GPULAT_HOLD_WHO, "who[]");
	if (!bs_walk(a, s->pid, r->since_ns, start, end, who, &n)) {
		cur = &a->sw[(a->sw_pos - 1) & (GL_TRACE_SWITCHES - 1)];
		if (r->hold_ok && a->sw_pos && cur->t >= r->since_ns) {
			n = gpulat_hold_who(r->hold_slot, &r->hold_ck, start,
					    end, s->pid, cur->pid, cur->cg,
					    cur->t, who);
			if (!r->hold_reached)
				s->flags |= GPULAT_REC_F_PARTIAL;
		} else {
			s->flags |= GPULAT_REC_F_PARTIAL;
		}
	}
	n = gpulat_hold_top(who, n, GPULAT_NR_CULPRITS);
	for (k = 0; k < n; k++) {
		struct gpulat_culprit *c = &s->culprits[k];

		c->pid = who[k].pid;
		c->ns = who[k].ns;
		named += c->ns;
		/* its cgroup at its latest switch-in in the wait */
		s->culprit_cgroup[k] = who[k].cg;
		procname_get(&b->names, c->pid, gl_bpf_now_ns(), &c->tgid,
			     c->comm);
	}
	s->nr_culprits = k;
	s->other_ns = end - start > named ? end - start - named : 0;
	s->flags |= GPULAT_REC_F_CULPRITS;
}

/* bs_explain - fill in who held the CPU of a wait from its history */
static void bs_explain(struct gl_bpf *b, struct gpulat_rec_sample *s,
		       const struct gl_bpf_rec *r)
{
	uint64_t end = s->hdr.time_ns, start;

	if (!r->keeps || s->latency_ns > end)
		return;
	start = end - s->latency_ns;
	if (r->keeps & GL_KEEPS_SWITCHES)
		bs_culprits(b, s, r, start, end);
	if (r->keeps & GL_KEEPS_IRQ) {
		if (!bs_spans(r->act.irq, r->act.irq_pos, r->since_ns, start,
			      end, &s->irq_ns))
			s->flags |= GPULAT_REC_F_SPANS_PARTIAL;
		s->flags |= GPULAT_REC_F_IRQ_TIME;
	}
	if (r->keeps & GL_KEEPS_SOFTIRQ) {
		if (!bs_spans(r->act.sirq, r->act.sirq_pos, r->since_ns, start,
			      end, &s->softirq_ns))
			s->flags |= GPULAT_REC_F_SPANS_PARTIAL;
		s->flags |= GPULAT_REC_F_SOFTIRQ_TIME;
	}
}

/*
 * a record from the ring: checked, explained, staged; one that cannot be
 * staged is counted as lost on its CPU (lost_seen runs behind)
 */
static int bs_on_rec(void *ctx, void *data, size_t len)
{
	struct gl_bpf *b = ctx;
	const struct gl_bpf_rec *r = data;
	const struct gpulat_rec_event *ev = data;
	struct gpulat_rec_sample s;

	/* a timeline event (an Xid) is the module's record as it is */
	if (len == sizeof(*ev) && ev->hdr.type == GPULAT_REC_EVENT &&
	    ev->hdr.size == sizeof(*ev)) {
		if (bs_stage(b, ev, sizeof(*ev)) && ev->hdr.cpu < b->ncpus)
			b->lost_seen[ev->hdr.cpu]--;
		return 0;
	}
	if (len != sizeof(*r) || r->s.hdr.type != GPULAT_REC_SAMPLE ||
	    r->s.hdr.size != sizeof(s))
		return 0;	/* the programs write no other */
	memcpy(&s, &r->s, sizeof(s));
	bs_explain(b, &s, r);
	if (bs_stage(b, &s, sizeof(s)) && s.hdr.cpu < b->ncpus)
		b->lost_seen[s.hdr.cpu]--;
	return 0;
}

/* bs_cnt - this reader's losses per CPU into @lost, self_left summed; 0 or -errno */
static int bs_cnt(struct gl_bpf *b, uint64_t *lost, uint64_t *self_left)
{
	int fd = gl_bpf_map_fd(b, "gl_trace_cnt");
	struct gl_bpf_trace_cnt *v;
	uint32_t zero = 0, cpu;

	if (fd < 0)
		return -ENOENT;
	v = calloc(b->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &zero, v)) {
		free(v);
		return -errno;
	}
	*self_left = 0;
	for (cpu = 0; cpu < b->ncpus; cpu++) {
		if (lost && b->slot >= 0)
			lost[cpu] = v[cpu].lost[b->slot];
		*self_left += v[cpu].self_left;
	}
	free(v);
	return 0;
}

/* bs_lost - a GPULAT_REC_LOST record per CPU whose loss count grew */
static void bs_lost(struct gl_bpf *b)
{
	struct gpulat_rec_lost r;
	uint64_t *v, self;
	uint32_t cpu;

	v = calloc(b->ncpus, sizeof(*v));
	if (!v || b->slot < 0 || bs_cnt(b, v, &self)) {
		free(v);
		return;
	}
	for (cpu = 0; cpu < b->ncpus; cpu++) {
		if (v[cpu] == b->lost_seen[cpu])
			continue;
		memset(&r, 0, sizeof(r));
		r.hdr.size = sizeof(r);
		r.hdr.type = GPULAT_REC_LOST;
		r.hdr.cpu = cpu;
		r.hdr.time_ns = gl_bpf_now_ns();
		r.lost = v[cpu] - b->lost_seen[cpu];
		if (!bs_stage(b, &r, sizeof(r)))
			b->lost_seen[cpu] = v[cpu];
	}
	free(v);
}

/*
 * gl_bpf_readers_fix - under the lock: free the slots of readers that
 * are gone (killed; a zombie too), then the gates, histories and reader count that
 * the slots taken make (the lowest threshold by family, the histories
 * of the attached families); the settings are put by the caller
 */
void gl_bpf_readers_fix(struct gl_bpf *b, struct gl_bpf_conf *c)
{
	int rfd = gl_bpf_map_fd(b, "gl_rings");
	uint32_t i, f, was = c->nr_readers;
	unsigned int t;

	c->nr_readers = 0;
	for (i = 0; i < GL_BPF_READERS; i++) {
		struct gl_bpf_reader *r = &c->rdr[i];

		if (r->tgid && procname_start(r->tgid) != r->start) {
			memset(r, 0, sizeof(*r));
			if (rfd >= 0)
				bpf_map_delete_elem(rfd, &i);
		}
		c->nr_readers += !!r->tgid;
	}
	c->keep_history = 0;
	for (f = 0; f < GPULAT_FAM_MAX; f++) {
		bool on = false;

		c->gate[f] = ~0ULL;
		for (i = 0; i < GL_BPF_READERS; i++)
			if (c->rdr[i].tgid && c->rdr[i].gate[f] < c->gate[f])
				c->gate[f] = c->rdr[i].gate[f];
		for (t = 0; t < GL_BPF_NR_TPS; t++)
			on |= b->tp[f][t].state == GPULAT_PROBE_ATTACHED;
		if (c->nr_readers && on)
			c->keep_history |= fam_keeps[f];
	}
	c->hold_shift = gpulat_hold_shift(c->gate[GPULAT_FAM_SCHED]);
	if (c->nr_readers && !was)
		c->since_ns = gl_bpf_now_ns();
}

/* bs_gate - this process's threshold of family @f as a gate (~0: off) */
static uint64_t bs_gate(const struct gl_bpf *b, const struct gl_bpf_conf *c,
			uint32_t f)
{
	uint64_t ns = b->thr_set & (1ULL << f) ? b->thr[f] : c->threshold[f];

	return ns ? ns : ~0ULL;
}

/*
 * bs_reader - become a reader: a slot, a ring of its own in gl_rings,
 * the gates of this process's thresholds, the histories kept
 */
static int bs_reader(struct gl_bpf *b)
{
	int rfd = gl_bpf_map_fd(b, "gl_rings");
	struct gl_bpf_conf c;
	uint64_t self;
	uint32_t f, i;
	int ret;

	if (b->reader)
		return 0;
	if (rfd < 0)
		return -ENOENT;
	/* kept from a try that found no slot (a fifth reader) */
	if (!b->lost_seen)
		b->lost_seen = calloc(b->ncpus, sizeof(*b->lost_seen));
	if (!b->lost_seen)
		return -ENOMEM;
	if (b->ring_fd < 0)
		b->ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "gl_trace",
					    0, 0, GL_BPF_TRACE_BYTES, NULL);
	if (b->ring_fd < 0) {
		b->ring_fd = -1;
		return -errno;
	}
	gl_bpf_lock(b);
	ret = gl_bpf_conf_get(b, &c);
	if (ret)
		goto out;
	gl_bpf_readers_fix(b, &c);
	for (i = 0; i < GL_BPF_READERS && c.rdr[i].tgid; i++)
		;
	if (i == GL_BPF_READERS) {
		ret = -EBUSY;
		goto out;
	}
	if (bpf_map_update_elem(rfd, &i, &b->ring_fd, BPF_ANY)) {
		ret = -errno;
		goto out;
	}
	b->slot = i;
	/* losses in this slot before this reader are not its own */
	bs_cnt(b, b->lost_seen, &self);
	memset(&c.rdr[i], 0, sizeof(c.rdr[i]));
	c.rdr[i].tgid = getpid();
	c.rdr[i].pid = gettid();
	c.rdr[i].start = procname_start(getpid());
	for (f = 0; f < GPULAT_FAM_MAX; f++)
		c.rdr[i].gate[f] = bs_gate(b, &c, f);
	gl_bpf_readers_fix(b, &c);
	ret = gl_bpf_conf_put(b, &c);
	if (ret)
		bpf_map_delete_elem(rfd, &i);
out:
	gl_bpf_unlock(b);
	if (ret) {
		b->slot = -1;
		return ret;
	}
	b->reader = true;
	b->rb = ring_buffer__new(b->ring_fd, bs_on_rec, b, NULL);
	if (!b->rb) {
		ret = -errno;
		gl_bpf_trace_close(b);	/* the slot back */
		return ret;
	}
	return 0;
}

/* gl_bpf_reader_gates - this reader's gates again, after a threshold changed */
int gl_bpf_reader_gates(struct gl_bpf *b)
{
	struct gl_bpf_conf c;
	uint32_t f;
	int ret;

	if (!b->reader || b->slot < 0)
		return 0;
	gl_bpf_lock(b);
	ret = gl_bpf_conf_get(b, &c);
	if (!ret && c.rdr[b->slot].tgid == (uint32_t)getpid()) {
		for (f = 0; f < GPULAT_FAM_MAX; f++)
			c.rdr[b->slot].gate[f] = bs_gate(b, &c, f);
		gl_bpf_readers_fix(b, &c);
		ret = gl_bpf_conf_put(b, &c);
	}
	gl_bpf_unlock(b);
	return ret;
}

/* gl_bpf_trace_self_left - records left out as a reader's own, since load */
int gl_bpf_trace_self_left(struct gl_bpf *b, uint64_t *n)
{
	return bs_cnt(b, NULL, n);
}

void gl_bpf_trace_close(struct gl_bpf *b)
{
	int rfd = gl_bpf_map_fd(b, "gl_rings");
	struct gl_bpf_conf c;
	uint32_t i;

	if (b->reader && b->slot >= 0) {
		i = b->slot;
		gl_bpf_lock(b);
		if (!gl_bpf_conf_get(b, &c) &&
		    c.rdr[i].tgid == (uint32_t)getpid()) {
			memset(&c.rdr[i], 0, sizeof(c.rdr[i]));
			if (rfd >= 0)
				bpf_map_delete_elem(rfd, &i);
			gl_bpf_readers_fix(b, &c);
			gl_bpf_conf_put(b, &c);
		}
		gl_bpf_unlock(b);
	}
	b->reader = false;
	b->slot = -1;
	ring_buffer__free(b->rb);
	b->rb = NULL;
	if (b->ring_fd >= 0)
		close(b->ring_fd);
	b->ring_fd = -1;
	free(b->stage);
	b->stage = NULL;
	b->stage_len = b->stage_off = b->stage_cap = 0;
	free(b->lost_seen);
	b->lost_seen = NULL;
}

int gl_bpf_poll_fd(struct gl_bpf *b)
{
	if (bs_reader(b))
		return -1;
	return ring_buffer__epoll_fd(b->rb);
}

/*
 * gl_bpf_trace_pending - records staged, or in the ring: fetched here,
 * without a system call, because the ring buffer's wakeup can be lost
 * (a reader that only reads after poll() says so could wait for good)
 */
bool gl_bpf_trace_pending(struct gl_bpf *b)
{
	if (b->stage_off < b->stage_len)
		return true;
	if (!b->reader || ring_buffer__consume(b->rb) <= 0)
		return false;
	return b->stage_off < b->stage_len;
}

ssize_t gl_bpf_trace_read(struct gl_bpf *b, void *buf, size_t len)
{
	const struct gpulat_rec_header *h;
	size_t n = 0;
	int ret;

	ret = bs_reader(b);
	if (ret)
		return ret;
	if (b->stage_off == b->stage_len) {
		ret = ring_buffer__consume(b->rb);
		if (ret < 0)
			return ret;
		bs_lost(b);
	}
	/* whole records, as a module's read() returns them */
	while (b->stage_off + n + sizeof(*h) <= b->stage_len) {
		h = (const void *)(b->stage + b->stage_off + n);
		if (n + h->size > len)
			break;
		n += h->size;
	}
	if (!n) {
		if (b->stage_off < b->stage_len)
			return -EINVAL;	/* @buf too small for the next */
		return -EAGAIN;
	}
	memcpy(buf, b->stage + b->stage_off, n);
	b->stage_off += n;
	return n;
}
