/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Who held a CPU through a long wait, for the outlier trace: shared by
 * the module, the BPF programs and the tool (which names the BPF
 * source's culprits), so that both sources credit the same time to the
 * same tasks.  Pure integer code: no kernel-only or libc-only calls.
 *
 * The switch history (GPULAT_TRACE_SWITCHES entries) names the holders of
 * a wait exactly while the wait has fewer switches than it holds.  For a
 * longer one, each CPU also credits every task's time on it to one of
 * GPULAT_HOLD_SLOTS slots (the least recently credited one is reused),
 * and copies the slots' totals to checkpoints.  Time is cut in epochs,
 * 2^(shift + j) ns long at level j (2^shift about 1/16 of the sched
 * threshold); level j takes a checkpoint at the first switch of each of
 * its epochs, in the ring entry of the epoch's number modulo
 * GPULAT_HOLD_RING, so that the one for a moment is found by its number,
 * in a few probes (a search would cost the verifier a path per entry).
 * A wait's holders are the slots' growth since the first checkpoint
 * after the wait began, in the finest level that still holds the wait's
 * start, plus the task that ran into that checkpoint (back to the start)
 * and the task that ran until the wait's end.  What this misses: the
 * time before that checkpoint, beyond the task that ran into it (less
 * than an epoch of its level: at most 1/16 of the wait at level 0, and
 * 2/31 above, as the finer level's 31 epochs did not reach back), time
 * in a slot reused during the wait, and idle time.  Waits of the nvidia
 * family's threads are counted the same way, at the sched family's
 * epochs.
 *
 * Cost per switch: a search of the slots and one compare; checkpoints
 * copy the slots' totals, once per epoch per level.  All of it only
 * while the trace is read, like the history.
 */
#ifndef _GPULAT_HOLD_H
#define _GPULAT_HOLD_H

#include "uapi/gpulat.h"

#define GPULAT_HOLD_SLOTS	6
#define GPULAT_HOLD_LEVELS	8
#define GPULAT_HOLD_RING	32	/* checkpoints per level: a power of 2 */
/* checkpoints keep the slots' totals in units of 2^10 ns, modulo 2^32 */
#define GPULAT_HOLD_SHIFT	10
#define GPULAT_HOLD_UNIT	(1ULL << GPULAT_HOLD_SHIFT)
/* level 0's epochs: 2^shift ns, at most the sched threshold / 16 */
#define GPULAT_HOLD_DIV		16
#define GPULAT_HOLD_MIN_SHIFT	13	/* 8.2 us */
#define GPULAT_HOLD_MAX_SHIFT	27	/* 134 ms */
/*
 * probes for the first checkpoint of a level after a moment: a run
 * without a switch longer than that many epochs is looked for in the
 * next level, and the coarsest (33.5 ms epochs at the default
 * threshold) probes 16 of them: a run of 0.5 s
 */
#define GPULAT_HOLD_PROBES	4
#define GPULAT_HOLD_LAST_PROBES	16
/* who a wait's holders can be: the slots, the run in, the run out */
#define GPULAT_HOLD_WHO		(GPULAT_HOLD_SLOTS + 2)

struct gpulat_hold_slot {
	__s32 pid;		/* 0: unused */
	__u32 pad;
	__u64 since;		/* when pid took the slot */
	__u64 last;		/* when pid last left the CPU */
	__u64 ns;		/* its time on the CPU since it took the slot */
	__u64 cg;		/* its cgroup (v2) id */
};

struct gpulat_hold_ck {
	__u64 t;		/* taken at the switch at t */
	__s32 run_pid;		/* who left the CPU at t */
	__u32 run_units;	/* ... after running this long (saturated) */
	__u32 units[GPULAT_HOLD_SLOTS];	/* the slots' ns at t, in units up */
};

/*
 * One CPU's: written only by that CPU, at its switches.  ck[j][e %
 * GPULAT_HOLD_RING] is level j's checkpoint of epoch e (its t says which
 * epoch it is of; 0: none yet).
 */
struct gpulat_hold {
	struct gpulat_hold_slot slot[GPULAT_HOLD_SLOTS];
	struct gpulat_hold_ck ck[GPULAT_HOLD_LEVELS][GPULAT_HOLD_RING];
};

/* A holder of a wait, and its time on the CPU within it. */
struct gpulat_hold_who {
	__s32 pid;
	__u32 pad;
	__u64 cg;
	__u64 ns;
};

/*
 * gpulat_hold_shift - level 0's epochs, 2^shift ns: the largest power of
 * two at most the sched family's outlier threshold / 16 (~0: not
 * traced).  The levels then surely reach back (GPULAT_HOLD_RING - 1)
 * epochs of the coarsest level, 3968 x 2^shift (124 to 248
 * thresholds), and up to two more as the switches fell.
 */
static inline __u32 gpulat_hold_shift(__u64 sched_gate)
{
	__u64 g = sched_gate / GPULAT_HOLD_DIV;
	__u32 shift = GPULAT_HOLD_MIN_SHIFT;

	while (shift < GPULAT_HOLD_MAX_SHIFT && (2ULL << shift) <= g)
		shift++;
	return shift;
}

static inline const struct gpulat_hold_ck *
gpulat_hold_at(const struct gpulat_hold *h, unsigned int j, __u64 e)
{
	return &h->ck[j][e & (GPULAT_HOLD_RING - 1)];
}

/*
 * gpulat_hold_credit - @pid (cgroup @cg; 0: the idle task) had the CPU
 * from @from to the switch at @now; checkpoint the levels whose epoch
 * (level 0's: 2^@shift ns) began since their last
 */
static inline void gpulat_hold_credit(struct gpulat_hold *h, __s32 pid,
				      __u64 cg, __u64 from, __u64 now,
				      __u32 shift)
{
	struct gpulat_hold_ck *c;
	unsigned int k, v = 0, j;
	__u64 run = now > from ? now - from : 0;

	if (pid) {
		for (k = 0; k < GPULAT_HOLD_SLOTS; k++)
			if (h->slot[k].pid == pid)
				break;
		if (k == GPULAT_HOLD_SLOTS) {
			/* the least recently credited slot, reused */
			for (k = 1; k < GPULAT_HOLD_SLOTS; k++)
				if (h->slot[k].last < h->slot[v].last)
					v = k;
			k = v;
			h->slot[k].pid = pid;
			h->slot[k].since = now;
			h->slot[k].ns = 0;
		}
		h->slot[k].last = now;
		h->slot[k].ns += run;
		h->slot[k].cg = cg;
	}
	/*
	 * epochs nest: when level j has this epoch's checkpoint, the
	 * coarser ones have theirs, so a switch pays one compare
	 */
	for (j = 0; j < GPULAT_HOLD_LEVELS; j++) {
		c = &h->ck[j][(now >> (shift + j)) & (GPULAT_HOLD_RING - 1)];
		if (c->t >> (shift + j) == now >> (shift + j))
			break;
		c->t = now;
		c->run_pid = pid;
		c->run_units = run >> GPULAT_HOLD_SHIFT > 0xffffffffULL ?
			       0xffffffffU : (__u32)(run >> GPULAT_HOLD_SHIFT);
		/* rounded up: a delta from here never exceeds */
		for (k = 0; k < GPULAT_HOLD_SLOTS; k++)
			c->units[k] = (__u32)((h->slot[k].ns +
					       GPULAT_HOLD_UNIT - 1) >>
					      GPULAT_HOLD_SHIFT);
	}
}

/*
 * gpulat_hold_pick - the checkpoint to count a wait [@start, @end] from,
 * level 0's epochs 2^@shift ns: the first at or after @start, in the
 * finest level whose ring still holds @start's epoch; checkpoints before
 * @since (an earlier run of readers) do not count.  *@reached: false
 * when no level holds it: the checkpoint is then the oldest of the
 * coarsest level, and the time before it unknown.  NULL: none.
 */
static inline const struct gpulat_hold_ck *
gpulat_hold_pick(const struct gpulat_hold *h, __u32 shift, __u64 since,
		 __u64 start, __u64 end, int *reached)
{
	__u64 lim = start > since ? start : since, e;
	const struct gpulat_hold_ck *c;
	unsigned int j, i, s, n;

	*reached = 0;
	for (j = 0; j < GPULAT_HOLD_LEVELS; j++) {
		s = shift + j;
		e = start >> s;
		/* a later epoch's checkpoint in its entry: overwritten */
		if (gpulat_hold_at(h, j, e)->t >> s > e)
			continue;
		n = j + 1 < GPULAT_HOLD_LEVELS ? GPULAT_HOLD_PROBES :
						 GPULAT_HOLD_LAST_PROBES;
		for (i = 0; i < n; i++) {
			c = gpulat_hold_at(h, j, e + i);
			if (c->t >> s == e + i && c->t >= lim) {
				*reached = start >= since;
				return c;
			}
		}
	}
	/* none holds it: the oldest the coarsest level has */
	s = shift + GPULAT_HOLD_LEVELS - 1;
	e = (end >> s) - (GPULAT_HOLD_RING - 1);
	for (i = 0; i < GPULAT_HOLD_PROBES; i++) {
		c = gpulat_hold_at(h, GPULAT_HOLD_LEVELS - 1, e + i);
		if (c->t >> s == e + i && c->t >= lim)
			return c;
	}
	return 0;
}

/*
 * gpulat_hold_add - @ns more for @pid among the @n holders in @who, which
 * has room for @max (none more when full)
 */
static inline void gpulat_hold_add(struct gpulat_hold_who *who,
				   unsigned int *n, unsigned int max,
				   __s32 pid, __u64 cg, __u64 ns)
{
	unsigned int j;

	for (j = 0; j < max; j++) {
		if (j == *n) {
			who[j].pid = pid;
			who[j].pad = 0;
			who[j].cg = cg;
			who[j].ns = 0;
			*n = j + 1;
		}
		if (who[j].pid == pid) {
			who[j].ns += ns;
			return;
		}
	}
}

/*
 * gpulat_hold_who - the holders of a wait [@start, @end] of @waiter from
 * checkpoint @c and the slots as they are, @cur (cgroup @cur_cg) having
 * had the CPU since @cur_in; the idle task and the waiter are not
 * holders.  Each is credited at most its time in the wait (less by under
 * two units of rounding), so they never add up to more than the wait.
 * @who has room for GPULAT_HOLD_WHO; returns how many it holds.
 */
static inline unsigned int
gpulat_hold_who(const struct gpulat_hold_slot *slot,
		const struct gpulat_hold_ck *c, __u64 start, __u64 end,
		__s32 waiter, __s32 cur, __u64 cur_cg, __u64 cur_in,
		struct gpulat_hold_who *who)
{
	unsigned int n = 0, k;
	__u64 ns, from, head_cg = 0;
	__s32 d;

	for (k = 0; k < GPULAT_HOLD_SLOTS; k++) {
		if (!slot[k].pid)
			continue;
		if (slot[k].pid == c->run_pid)
			head_cg = slot[k].cg;
		if (slot[k].pid == waiter)
			continue;
		/* taken after the checkpoint: all of its time is after it */
		if (slot[k].since > c->t) {
			ns = slot[k].ns;
		} else {
			/* whole units, down from the checkpoint's up */
			d = (__s32)((__u32)(slot[k].ns >> GPULAT_HOLD_SHIFT) -
				    c->units[k]);
			ns = d > 0 ? (__u64)d << GPULAT_HOLD_SHIFT : 0;
		}
		if (ns)
			gpulat_hold_add(who, &n, GPULAT_HOLD_WHO, slot[k].pid, slot[k].cg, ns);
	}
	/* who ran into the checkpoint, back to the wait's start */
	from = c->t - ((__u64)c->run_units << GPULAT_HOLD_SHIFT);
	if (from < start)
		from = start;
	if (c->run_pid && c->run_pid != waiter && c->t > from)
		gpulat_hold_add(who, &n, GPULAT_HOLD_WHO, c->run_pid, head_cg, c->t - from);
	/* who had the CPU until the wait's end, not yet credited */
	if (cur && cur != waiter && end > cur_in && cur_in >= c->t)
		gpulat_hold_add(who, &n, GPULAT_HOLD_WHO, cur, cur_cg, end - cur_in);
	return n;
}

/*
 * gpulat_hold_top - sort the @k largest of the @n holders in @who to its
 * front, largest first; returns how many that is
 */
static inline unsigned int gpulat_hold_top(struct gpulat_hold_who *who,
					   unsigned int n, unsigned int k)
{
	struct gpulat_hold_who t;
	unsigned int i, j, m;

	for (i = 0; i < k && i < n; i++) {
		for (j = i + 1, m = i; j < n; j++)
			if (who[j].ns > who[m].ns)
				m = j;
		t = who[i];
		who[i] = who[m];
		who[m] = t;
	}
	return i;
}

#endif /* _GPULAT_HOLD_H */
