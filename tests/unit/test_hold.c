// SPDX-License-Identifier: GPL-2.0
/*
 * Who held a CPU through a long wait (kmod/gpulat_hold.h, shared by both
 * sources), on simulated CPUs whose every run is logged: the known answer
 * of a wait is each task's time on the CPU within it, from the log.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "gpulat_hold.h"

#define MS		1000000ULL
#define US		1000ULL
#define RUNS_MAX	200000
/* the default sched threshold, 5 ms: level 0's epochs are 2^18 ns */
#define GATE		(5 * MS)

struct run {
	int32_t pid;
	uint64_t from, to;
};

/* One simulated CPU: its holders' state and the log of every run. */
struct cpu {
	struct gpulat_hold h;
	uint32_t shift;
	int32_t cur;
	uint64_t cur_in;
	struct run *log;
	unsigned int nr;
};

static struct cpu *cpu_new(uint64_t gate)
{
	struct cpu *c = calloc(1, sizeof(*c));

	c->shift = gpulat_hold_shift(gate);
	c->log = calloc(RUNS_MAX, sizeof(*c->log));
	c->cur_in = 1 * MS;
	return c;
}

static void cpu_free(struct cpu *c)
{
	free(c->log);
	free(c);
}

/* cpu_switch - @next gets the CPU at @at (the probe's order: credit, then) */
static void cpu_switch(struct cpu *c, int32_t next, uint64_t at)
{
	gpulat_hold_credit(&c->h, c->cur, 0, c->cur_in, at, c->shift);
	if (c->nr < RUNS_MAX)
		c->log[c->nr++] = (struct run){ c->cur, c->cur_in, at };
	c->cur = next;
	c->cur_in = at;
}

/* truth - @pid's time on the CPU in [@start, @end], the current run too */
static uint64_t truth(const struct cpu *c, int32_t pid, uint64_t start,
		      uint64_t end)
{
	uint64_t sum = 0, lo, hi;
	unsigned int i;

	for (i = 0; i <= c->nr; i++) {
		struct run r = i < c->nr ? c->log[i] :
			       (struct run){ c->cur, c->cur_in, end };

		lo = r.from > start ? r.from : start;
		hi = r.to < end ? r.to : end;
		if (r.pid == pid && hi > lo)
			sum += hi - lo;
	}
	return sum;
}

/* eval - the holders of @waiter's wait [@start, @end], as a probe names */
static unsigned int eval(const struct cpu *c, int32_t waiter, uint64_t since,
			 uint64_t start, uint64_t end,
			 struct gpulat_hold_who *who, int *reached)
{
	const struct gpulat_hold_ck *ck;

	ck = gpulat_hold_pick(&c->h, c->shift, since, start, end, reached);
	if (!ck)
		return 0;
	return gpulat_hold_who(c->h.slot, ck, start, end, waiter, c->cur, 0,
			       c->cur_in, who);
}

static uint64_t who_ns(const struct gpulat_hold_who *who, unsigned int n,
		       int32_t pid)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (who[i].pid == pid)
			return who[i].ns;
	return 0;
}


/*
 * Two hogs share the CPU in 100 us turns (hundreds of switches a wait)
 * while a task waits 20 ms to 1 s: both are named for their whole share.
 */
TEST(two_hogs_every_length)
{
	static const uint64_t waits[] = { 6 * MS, 20 * MS, 100 * MS,
					  400 * MS, 1000 * MS };
	struct gpulat_hold_who who[GPULAT_HOLD_WHO];
	unsigned int w, n;
	int reached;

	for (w = 0; w < sizeof(waits) / sizeof(waits[0]); w++) {
		struct cpu *c = cpu_new(GATE);
		uint64_t t = 2 * MS, start, end, a, b, na, nb;
		int32_t next = 101;

		/* a second of history first, then the wait */
		for (; t < 1002 * MS; t += 100 * US, next ^= 101 ^ 102)
			cpu_switch(c, next, t);
		start = t - 30 * US;
		for (end = start + waits[w]; t < end; t += 100 * US,
		     next ^= 101 ^ 102)
			cpu_switch(c, next, t);
		n = eval(c, 7, 0, start, end, who, &reached);
		a = truth(c, 101, start, end);
		b = truth(c, 102, start, end);
		na = who_ns(who, n, 101);
		nb = who_ns(who, n, 102);
		TH_LOG("wait %llu ms: named %llu + %llu of %llu + %llu ns",
		       (unsigned long long)(waits[w] / MS),
		       (unsigned long long)na, (unsigned long long)nb,
		       (unsigned long long)a, (unsigned long long)b);
		EXPECT_TRUE(reached);
		EXPECT_EQ(2U, n);
		/* never more than the truth, and at least 90% of the wait */
		EXPECT_LE(na, a);
		EXPECT_LE(nb, b);
		EXPECT_GE((na + nb) * 10, waits[w] * 9);
		EXPECT_LE(na + nb, waits[w]);
		cpu_free(c);
	}
}

/*
 * The reach, at every phase of the coarsest epoch (33.5 ms here), the
 * CPU switching each millisecond: a wait of 31 of its epochs is always
 * reached back, one of 33 and a millisecond never (its start's ring
 * entry was overwritten by then).  Documentation/trace.rst.
 */
TEST(the_reach_at_every_phase)
{
	struct gpulat_hold_who who[GPULAT_HOLD_WHO];
	unsigned int p, n;
	int reached;

	for (p = 0; p < 16; p++) {
		struct cpu *c = cpu_new(GATE);
		uint64_t ep = 1ULL << (c->shift + GPULAT_HOLD_LEVELS - 1),
			 t = 2 * MS, start = 300 * MS + p * ep / 16 + 7 * US,
			 in = start + 31 * ep, out = start + 33 * ep + MS;
		int32_t next = 101;

		for (; t < in; t += MS, next ^= 101 ^ 102)
			cpu_switch(c, next, t);
		n = eval(c, 7, 0, start, in, who, &reached);
		EXPECT_TRUE(reached) TH_LOG("phase %u/16: 31 epochs", p);
		EXPECT_EQ(2U, n);
		for (; t < out; t += MS, next ^= 101 ^ 102)
			cpu_switch(c, next, t);
		eval(c, 7, 0, start, out, who, &reached);
		EXPECT_FALSE(reached) TH_LOG("phase %u/16: 33 epochs", p);
		cpu_free(c);
	}
}

/*
 * Beyond 33 epochs of the coarsest level (1.1 s here) the levels do not
 * reach back: what the coarsest level still holds is named, and reached says
 * the rest is unknown.
 */
TEST(beyond_the_levels)
{
	struct gpulat_hold_who who[GPULAT_HOLD_WHO];
	struct cpu *c = cpu_new(GATE);
	uint64_t t = 2 * MS, start, end;
	int32_t next = 101;
	unsigned int n;
	int reached;

	start = t;
	for (end = start + 2000 * MS; t < end; t += 1 * MS, next ^= 101 ^ 102)
		cpu_switch(c, next, t);
	n = eval(c, 7, 0, start + MS / 2, end, who, &reached);
	EXPECT_FALSE(reached);
	ASSERT_EQ(2U, n);
	/* the coarsest level's oldest: 28 of its 33.5 ms epochs back at least */
	EXPECT_GE(who_ns(who, n, 101) + who_ns(who, n, 102),
		  28ULL << (c->shift + GPULAT_HOLD_LEVELS - 1));
	EXPECT_LE(who_ns(who, n, 101), truth(c, 101, start, end));
	cpu_free(c);
}

/*
 * One task holds the CPU from before the wait began to a checkpoint
 * long after: the run into the checkpoint is credited back to the start.
 */
TEST(long_run_into_the_checkpoint)
{
	struct gpulat_hold_who who[GPULAT_HOLD_WHO];
	struct cpu *c = cpu_new(GATE);
	uint64_t t, start, end;
	int32_t next = 101;
	unsigned int n;
	int reached;

	for (t = 2 * MS; t < 500 * MS; t += 100 * US, next ^= 101 ^ 102)
		cpu_switch(c, next, t);
	cpu_switch(c, 103, t);		/* 103 runs 300 ms */
	start = t + 10 * MS;
	t += 300 * MS;
	for (end = t + 40 * MS; t < end; t += 100 * US, next ^= 101 ^ 102)
		cpu_switch(c, next, t);
	n = eval(c, 7, 0, start, end, who, &reached);
	EXPECT_TRUE(reached);
	EXPECT_EQ(truth(c, 103, start, end), who_ns(who, n, 103));
	EXPECT_GE((who_ns(who, n, 101) + who_ns(who, n, 102) +
		   who_ns(who, n, 103)) * 100, (end - start) * 99);
	cpu_free(c);
}

/*
 * Three hogs and a stream of short-lived tasks (a new pid every run
 * between theirs, so slots are reused all along): the hogs keep their
 * slots and are named for their time; no task is credited more than it
 * ran; the idle task and the waiter are never named.
 */
TEST(slot_reuse_and_noise)
{
	struct gpulat_hold_who who[GPULAT_HOLD_WHO];
	struct cpu *c = cpu_new(GATE);
	uint64_t t = 2 * MS, start = 0, end = 0, hogs = 0, named = 0;
	int32_t noise = 1000, k;
	unsigned int n, i, turn = 0;
	int reached;

	for (; t < 800 * MS; turn++) {
		if (!start && t > 300 * MS)
			start = t + 7 * US;
		cpu_switch(c, 101 + turn % 3, t);
		t += 1 * MS;
		cpu_switch(c, turn % 5 ? noise++ : 0, t);	/* or idle */
		t += 20 * US;
	}
	end = t - 5 * US;
	n = eval(c, 7, 0, start, end, who, &reached);
	EXPECT_TRUE(reached);
	for (i = 0; i < n; i++) {
		EXPECT_NE(0, who[i].pid);
		EXPECT_NE(7, who[i].pid);
		EXPECT_LE(who[i].ns, truth(c, who[i].pid, start, end));
		named += who[i].ns;
	}
	EXPECT_LE(named, end - start);
	for (k = 101; k <= 103; k++)
		hogs += truth(c, k, start, end);
	n = gpulat_hold_top(who, n, 3);
	EXPECT_EQ(3U, n);
	for (i = 0; i < n; i++) {
		EXPECT_GE(who[i].pid, 101);
		EXPECT_LE(who[i].pid, 103);
	}
	EXPECT_GE((who[0].ns + who[1].ns + who[2].ns) * 100, hogs * 95);
	cpu_free(c);
}

/* Checkpoints from before @since (an earlier reader) never count. */
TEST(since)
{
	struct gpulat_hold_who who[GPULAT_HOLD_WHO];
	struct cpu *c = cpu_new(GATE);
	uint64_t t, since = 400 * MS;
	int32_t next = 101;
	unsigned int n;
	int reached;

	for (t = 2 * MS; t < 600 * MS; t += 100 * US, next ^= 101 ^ 102)
		cpu_switch(c, next, t);
	/* a wait from before the histories began: known only since then */
	n = eval(c, 7, since, 300 * MS, t, who, &reached);
	EXPECT_FALSE(reached);
	EXPECT_LE(who_ns(who, n, 101) + who_ns(who, n, 102),
		  t - since);
	/* one after: reached */
	eval(c, 7, since, 450 * MS, t, who, &reached);
	EXPECT_TRUE(reached);
	cpu_free(c);
}

/* Level 0's epochs: 2^shift ns, at most 1/16 of the threshold. */
TEST(shift)
{
	EXPECT_EQ(18U, gpulat_hold_shift(GATE));		/* 262 us */
	EXPECT_EQ(15U, gpulat_hold_shift(1 * MS));	/* 32.8 us */
	EXPECT_EQ((uint32_t)GPULAT_HOLD_MIN_SHIFT, gpulat_hold_shift(20 * US));
	EXPECT_EQ((uint32_t)GPULAT_HOLD_MAX_SHIFT, gpulat_hold_shift(~0ULL));
}

/* A wait that began after the newest checkpoint: none to pick. */
TEST(no_checkpoint_yet)
{
	struct cpu *c = cpu_new(GATE);
	int reached;

	EXPECT_EQ(NULL, gpulat_hold_pick(&c->h, c->shift, 0, 5 * MS, 6 * MS,
					 &reached));
	cpu_switch(c, 101, 2 * MS);
	EXPECT_EQ(NULL, gpulat_hold_pick(&c->h, c->shift, 0, 3 * MS, 4 * MS,
					 &reached));
	cpu_free(c);
}

TEST_HARNESS_MAIN
