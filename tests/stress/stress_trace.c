// SPDX-License-Identifier: GPL-2.0
/*
 * (d) The outlier trace overflowed, and its loss accounting checked
 * exactly against the module's own count.
 *
 *   stress_trace [-r READERS] [-d SECONDS]
 *
 * READERS (default 32) files are opened and made trace readers (a first
 * poll()) while every family's threshold is 0, so no record is written:
 * each reader's window starts at the same "records written" W0 of the
 * debugfs trace file, read twice until it holds still.  Then every
 * family's threshold goes to 1 ns (every sample an outlier) for SECONDS.
 * The readers meanwhile: a quarter read as fast as they can (64 KiB
 * buffers; half of those files read by two threads at once), a third read
 * one record at a time with a 20 ms pause (slow), the rest do not read at
 * all (asleep).  The thresholds go back to 0, "records written" holds
 * still at W1, and every reader drains its file to EAGAIN.
 *
 * Asserted, exactly:
 * A. for every reader, records read (samples and events) plus the counts
 *    of its GPULAT_REC_LOST records equal W1 - W0;
 * B. per CPU, records read plus lost is the same for every reader (what
 *    that CPU wrote in the window: debugfs gives only the total);
 * C. the lost counts of all readers add up to the growth of the debugfs
 *    "records lost by readers" (no other reader may be open);
 * D. a reader that did not read in the window got, for each CPU, exactly
 *    min(written there, records per CPU ring) records: the ring keeps its
 *    last records, and W1 - W0 exceeds the rings of every CPU, so these
 *    readers lost records (the rings did overflow);
 * E. every record is well-formed (size a multiple of 8, at least its
 *    type's size, known type, CPU below the possible CPUs, a LOST record
 *    counting at least one), and sched samples were among them.
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>

#include "stress.h"

#define MAX_READERS	256
#define MAX_CPUS	256
#define BUF		65536

enum kind { FAST, SLOW, ASLEEP };
static const char *const kind_name[] = { "fast", "slow", "asleep" };

struct rfile {
	int fd;
	enum kind kind;
	int threads;
	pthread_mutex_t lock;		/* the counts, two threads on one file */
	uint64_t read[MAX_CPUS], lost[MAX_CPUS];
	uint64_t samples, sched, events, lost_recs, bad;
};

static atomic_int stop;
static int nr_cpus;

static void bad_rec(struct rfile *r, const char *why, unsigned int v)
{
	if (r->bad++ < 5)
		st_diag("reader fd %d: bad record: %s (%u)", r->fd, why, v);
}

/* account - one read()'s records; under r->lock */
static void account(struct rfile *r, const char *buf, ssize_t len)
{
	ssize_t off = 0;

	while (off < len) {
		const struct gpulat_rec_header *h = (const void *)(buf + off);
		size_t need;

		if (len - off < (ssize_t)sizeof(*h) || h->size < sizeof(*h) ||
		    h->size % 8 || h->size > len - off) {
			bad_rec(r, "size", len - off >= 2 ? h->size : 0);
			return;
		}
		if (h->cpu >= (unsigned int)nr_cpus) {
			bad_rec(r, "cpu", h->cpu);
			return;
		}
		switch (h->type) {
		case GPULAT_REC_SAMPLE:
			need = GPULAT_REC_SAMPLE_SIZE_VER0;
			break;
		case GPULAT_REC_EVENT:
			need = GPULAT_REC_EVENT_SIZE_VER0;
			break;
		case GPULAT_REC_LOST:
			need = GPULAT_REC_LOST_SIZE_VER0;
			break;
		default:
			bad_rec(r, "type", h->type);
			return;
		}
		if (h->size < need) {
			bad_rec(r, "short for its type", h->size);
			return;
		}
		if (h->type == GPULAT_REC_LOST) {
			const struct gpulat_rec_lost *l = (const void *)h;

			if (!l->lost)
				bad_rec(r, "lost 0", 0);
			r->lost[h->cpu] += l->lost;
			r->lost_recs++;
		} else {
			r->read[h->cpu]++;
			if (h->type == GPULAT_REC_SAMPLE) {
				const struct gpulat_rec_sample *s = (const void *)h;

				r->samples++;
				r->sched += s->family == GPULAT_FAM_SCHED;
			} else {
				r->events++;
			}
		}
		off += h->size;
	}
}

/* drain - read @r until EAGAIN (nothing written any more) */
static int drain(struct rfile *r, char *buf)
{
	for (;;) {
		ssize_t n = read(r->fd, buf, BUF);

		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == 0)
			return -EPROTO;
		pthread_mutex_lock(&r->lock);
		account(r, buf, n);
		pthread_mutex_unlock(&r->lock);
	}
}

static void *reader(void *arg)
{
	struct rfile *r = arg;
	char *buf = malloc(BUF);
	size_t len = r->kind == FAST ? BUF : 256;

	while (buf && !atomic_load(&stop)) {
		struct pollfd p = { .fd = r->fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 50) <= 0)
			continue;
		n = read(r->fd, buf, len);
		if (n > 0) {
			pthread_mutex_lock(&r->lock);
			account(r, buf, n);
			pthread_mutex_unlock(&r->lock);
		} else if (n < 0 && errno != EAGAIN) {
			st_diag("read: %s", strerror(errno));
			pthread_mutex_lock(&r->lock);
			r->bad++;
			pthread_mutex_unlock(&r->lock);
		}
		if (r->kind == SLOW)
			st_sleep_us(20000);
	}
	free(buf);
	return NULL;
}

/* stable - "records written" once two reads 0.4 s apart agree */
static int stable(uint64_t *written, uint64_t *lost, int *readers)
{
	uint64_t w0, w1, l;

	for (int i = 0; i < 50; i++) {
		if (st_trace_debugfs(&w0, &l, readers))
			return -1;
		st_sleep_us(400000);
		if (st_trace_debugfs(&w1, lost, readers))
			return -1;
		if (w0 == w1) {
			*written = w1;
			return 0;
		}
	}
	return -1;
}

static int ring_size(void)
{
	char line[256];
	int ring = -1;
	FILE *f = fopen(ST_DEBUGFS_TRACE, "r");

	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "records per CPU ring %d", &ring);
	if (f)
		fclose(f);
	return ring;
}

int main(int argc, char **argv)
{
	int nr = 32, secs = 5, opt, i, ctl, readers = -1, ring;
	uint64_t w0, w1, l0, l1, thr[GPULAT_FAM_MAX] = { 0 };
	static struct rfile rf[MAX_READERS];
	pthread_t th[2 * MAX_READERS];
	int nth = 0;
	char *buf = malloc(BUF);

	while ((opt = getopt(argc, argv, "r:d:")) != -1) {
		switch (opt) {
		case 'r': nr = atoi(optarg); break;
		case 'd': secs = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: stress_trace [-r READERS] [-d SECONDS]\n");
			return 2;
		}
	}
	if (nr < 4 || nr > MAX_READERS || secs < 1 || !buf)
		return 2;
	nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (nr_cpus < 1 || nr_cpus > MAX_CPUS)
		return 2;

	ctl = open(GPULAT_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		st_ok(false, "open %s: %s", GPULAT_DEVICE_PATH, strerror(errno));
		return 1;
	}
	/* no record while the readers start */
	for (i = 1; i < GPULAT_FAM_MAX; i++)
		if (st_get_threshold(ctl, i, &thr[i]) || st_threshold(ctl, i, 0)) {
			st_ok(false, "threshold ioctl on family %d: %s", i,
			      strerror(errno));
			return 1;
		}
	for (i = 0; i < nr; i++) {
		struct pollfd p;

		rf[i].kind = i < nr / 4 ? FAST : i < nr / 4 + nr / 3 ? SLOW : ASLEEP;
		rf[i].threads = rf[i].kind == FAST && i % 2 ? 2 : 1;
		pthread_mutex_init(&rf[i].lock, NULL);
		rf[i].fd = open(GPULAT_DEVICE_PATH, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (rf[i].fd < 0) {
			st_ok(false, "open reader %d: %s", i, strerror(errno));
			return 1;
		}
		p = (struct pollfd){ .fd = rf[i].fd, .events = POLLIN };
		if (poll(&p, 1, 0) < 0 || (p.revents & POLLERR)) {
			st_ok(false, "reader %d: poll failed", i);
			return 1;
		}
	}
	ring = ring_size();
	if (stable(&w0, &l0, &readers) || ring < 1) {
		st_ok(false, "debugfs trace file: records written never held still");
		return 1;
	}
	if (!st_ok(readers == nr, "%d readers registered, no other reader open (debugfs readers %d)",
		   nr, readers))
		return 1;

	for (i = 0; i < nr; i++)
		for (int t = 0; t < rf[i].threads && rf[i].kind != ASLEEP; t++)
			pthread_create(&th[nth++], NULL, reader, &rf[i]);
	for (i = 1; i < GPULAT_FAM_MAX; i++)
		st_threshold(ctl, i, 1);
	sleep(secs);
	for (i = 1; i < GPULAT_FAM_MAX; i++)
		st_threshold(ctl, i, 0);
	if (stable(&w1, &l1, NULL)) {
		st_ok(false, "records written held still once the thresholds were 0");
		return 1;
	}
	atomic_store(&stop, 1);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < nr; i++) {
		int ret = drain(&rf[i], buf);

		if (ret) {
			st_diag("reader %d: drain: %s", i, strerror(-ret));
			rf[i].bad++;
		}
	}
	{
		uint64_t w_after;

		/* the lost counts grow as the drain reports them */
		if (st_trace_debugfs(&w_after, &l1, NULL))
			return 1;
		if (w_after != w1)
			st_diag("records written moved during the drain: %" PRIu64
				" -> %" PRIu64, w1, w_after);
	}

	uint64_t win = w1 - w0, lost_sum = 0, bad = 0, sched = 0;
	uint64_t per_cpu[MAX_CPUS];
	bool a = true, b = true, d = true, sleepy_lost = true;

	st_diag("window: %" PRIu64 " records written (W0 %" PRIu64 ", W1 %" PRIu64
		"), %d s, rings of %d records on %d CPUs", win, w0, w1, secs,
		ring, nr_cpus);
	for (int c = 0; c < nr_cpus; c++)
		per_cpu[c] = rf[0].read[c] + rf[0].lost[c];
	for (i = 0; i < nr; i++) {
		struct rfile *r = &rf[i];
		uint64_t rd = 0, lo = 0;

		for (int c = 0; c < nr_cpus; c++) {
			rd += r->read[c];
			lo += r->lost[c];
			if (r->read[c] + r->lost[c] != per_cpu[c]) {
				if (b)
					st_diag("reader %d cpu %d: %" PRIu64 " read + %" PRIu64
						" lost, reader 0: %" PRIu64, i, c,
						r->read[c], r->lost[c], per_cpu[c]);
				b = false;
			}
			if (r->kind == ASLEEP) {
				uint64_t want = per_cpu[c] < (uint64_t)ring ?
						per_cpu[c] : (uint64_t)ring;

				if (r->read[c] != want) {
					if (d)
						st_diag("reader %d (asleep) cpu %d: read %" PRIu64
							", want min(%" PRIu64 ", %d)", i, c,
							r->read[c], per_cpu[c], ring);
					d = false;
				}
			}
		}
		if (r->kind == ASLEEP && !lo)
			sleepy_lost = false;
		st_diag("reader %2d %-6s x%d: read %7" PRIu64 " (samples %" PRIu64
			", events %" PRIu64 ") + lost %7" PRIu64 " in %" PRIu64
			" LOST records = %7" PRIu64 "%s", i, kind_name[r->kind],
			r->threads, rd, r->samples, r->events, lo, r->lost_recs,
			rd + lo, rd + lo == win ? "" : "  <-- differs");
		if (rd + lo != win)
			a = false;
		lost_sum += lo;
		bad += r->bad;
		sched += r->sched;
	}
	st_ok(a, "every reader: records read + reported lost = records written in its window (%" PRIu64 ")",
	      win);
	st_ok(b, "per CPU: read + lost is the same for all %d readers", nr);
	st_ok(lost_sum == l1 - l0,
	      "lost counts of all readers (%" PRIu64 ") = growth of debugfs records lost by readers (%" PRIu64 ")",
	      lost_sum, l1 - l0);
	st_ok(d && win > (uint64_t)ring * nr_cpus && sleepy_lost,
	      "readers that did not read got each CPU's last min(written, %d) records and lost the rest (window %" PRIu64 " > %d rings)",
	      ring, win, nr_cpus);
	st_ok(!bad && sched > 0,
	      "every record well-formed (%" PRIu64 " malformed or failed reads); %" PRIu64 " sched samples read, all readers",
	      bad, sched);

	for (i = 1; i < GPULAT_FAM_MAX; i++)
		st_threshold(ctl, i, thr[i]);
	for (i = 0; i < nr; i++)
		close(rf[i].fd);
	close(ctl);
	return st_failed;
}
