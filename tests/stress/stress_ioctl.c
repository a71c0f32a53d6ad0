// SPDX-License-Identifier: GPL-2.0
/*
 * (c) Random ioctls on /dev/gpulat from several threads, while trace
 * readers read with random buffers and a toggler switches families on and
 * off and moves thresholds.
 *
 *   stress_ioctl -n CALLS [-t THREADS] [-s SEED]
 *
 * Each fuzz thread issues CALLS / THREADS ioctls: half the real commands
 * (version and threshold 3 parts each, snapshot and family 2, reset 1),
 * half commands next to them (another number, direction or size, or the
 * neighbouring magic), each with an argument that is NULL, a kernel
 * address, unaligned, or a struct that runs into an unmapped guard page,
 * or a mapped struct with random contents: size (0, short, exact, larger,
 * over a page), flags, family ids (0..9), enable (1, or the invalid 2),
 * thresholds (0, 1 ns, random, huge), pad; snapshots with random buffer
 * sizes (0, short, exact, more) at buffers that end at a guard page.
 * Every argument lies in the thread's own scratch pages, so whatever the
 * module writes cannot reach the program's state.  Three threads read the
 * trace (two of them one file) with random lengths (0 to 64 KiB) into
 * NULL, unaligned and guard-crossing buffers; a toggler switches a random
 * family on or off and sets a random threshold every 100 ms.
 *
 * Asserted:
 * - every call returns 0 or an errno its command documents in
 *   uapi/gpulat.h (ENOTTY for every command the module does not know);
 * - the known answers, checked between random calls: the version ioctl
 *   (1.x, size 16), a size query and a snapshot into a buffer of the size
 *   asked for (a header with magic, major and total_size, which parses),
 *   a buffer 8 bytes short gets ENOSPC and stays as it was poisoned
 *   (0xcc), ENOENT for families 0 and GPULAT_FAM_MAX, EINVAL for enable 2,
 *   ENOTTY for the next command number;
 * - trace reads return whole, well-formed records (sizes multiples of 8,
 *   known types, CPU below nr_cpu_ids) or EAGAIN/EINVAL/EFAULT;
 * - afterwards: each family attached before is switched on again (0), the
 *   thresholds set back read back, the version ioctl answers, a snapshot
 *   parses and lists every family's probes in their state from before.
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "lib/gpulat_user.h"
#include "stress.h"

#define PAGE		4096UL
#define SCRATCH_PAGES	8		/* arguments: 6 pages, then a guard */
#define SNAP_PAGES	257		/* snapshot buffers end at a guard */

static long calls_per_thread = 12500;
static atomic_long calls_done, unexpected, known_checks, known_failed;
static atomic_long reads_done, records_read, bad_records;
static atomic_int stop_readers;
static uint32_t nr_cpu_ids_seen = 4096;

static const unsigned int real_cmds[] = {
	GPULAT_IOC_VERSION, GPULAT_IOC_SNAPSHOT, GPULAT_IOC_RESET,
	GPULAT_IOC_FAMILY, GPULAT_IOC_THRESHOLD,
};
#define NR_REAL	(sizeof(real_cmds) / sizeof(real_cmds[0]))

/* errnos each command may return (uapi/gpulat.h); bit per errno */
static uint64_t allowed[NR_REAL + 1];
#define BIT(e)	(1ULL << (e))

/* counts by command (NR_REAL: not a real one) and errno, for the log */
static atomic_long errno_count[NR_REAL + 1][64];
/* time in the calls by command: sum and the longest, ns */
static atomic_ulong ns_sum[NR_REAL + 1], ns_max[NR_REAL + 1];

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void known(bool cond, const char *what, long v)
{
	atomic_fetch_add(&known_checks, 1);
	if (cond)
		return;
	if (atomic_fetch_add(&known_failed, 1) < 20) {
		pthread_mutex_lock(&log_lock);
		st_diag("known answer failed: %s (%ld)", what, v);
		pthread_mutex_unlock(&log_lock);
	}
}

struct fuzzer {
	pthread_t t;
	int fd;
	uint64_t seed;
	char *scratch;		/* SCRATCH_PAGES, the last one PROT_NONE */
	char *snap;		/* SNAP_PAGES, the last one PROT_NONE */
	uint64_t needed;	/* last snapshot size seen */
};

static char *guarded(size_t pages)
{
	char *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + (pages - 1) * PAGE, PAGE, PROT_NONE))
		return NULL;
	return p;
}

static uint32_t pick_size(uint64_t *s, uint32_t real)
{
	static const uint32_t sizes[] = { 0, 4, 7, 8, 12, 15, 16, 23, 24,
					  31, 32, 40, 64, 176, 4096, 4097,
					  65536, 0xffffffffu };

	switch (st_rand(s) % 4) {
	case 0:
	case 1:
		return real;
	case 2:
		return real + 8 * (st_rand(s) % 4);	/* larger, tail random */
	default:
		return sizes[st_rand(s) % (sizeof(sizes) / sizeof(sizes[0]))];
	}
}

static uint64_t pick_u64(uint64_t *s)
{
	static const uint64_t v[] = { 0, 1, 2, 1000, 1000000, 5000000,
				      ~0ULL, 1ULL << 63, 0xffffffffULL };

	return st_rand(s) % 2 ? v[st_rand(s) % (sizeof(v) / sizeof(v[0]))] :
				st_rand(s);
}

/*
 * fill_arg - random contents for command @idx (NR_REAL: any) at @a; the
 * struct's fields biased towards valid values so that calls get past the
 * first checks.  @snapbuf: a buffer ending at a guard page.
 */
static void fill_arg(struct fuzzer *f, unsigned int idx, uint32_t *a,
		     size_t room)
{
	uint64_t *s = &f->seed;
	static const uint32_t real_size[] = {
		GPULAT_VERSION_SIZE_VER0, GPULAT_SNAPSHOT_SIZE_VER0,
		GPULAT_RESET_SIZE_VER0, GPULAT_FAMILY_SIZE_VER0,
		GPULAT_THRESHOLD_SIZE_VER0, 16,
	};
	size_t i;

	/* random bytes, mostly zero beyond the struct (larger size accepted) */
	for (i = 0; i < room / 4 && i < 64; i++)
		a[i] = (st_rand(s) % 4 == 0) ? (uint32_t)st_rand(s) : 0;
	a[0] = pick_size(s, real_size[idx]);
	a[1] = st_rand(s) % 8 == 0 ? (uint32_t)st_rand(s) % 4 : 0;	/* flags */
	switch (idx) {
	case 1: {	/* snapshot: buf, buf_size */
		struct gpulat_snapshot_req *r = (void *)a;
		uint64_t len = st_rand(s) % 5;
		static const uint64_t sizes[] = { 0, 1, 175, 176, 192 };
		uint64_t want;

		switch (len) {
		case 0: want = sizes[st_rand(s) % 5]; break;
		case 1: want = f->needed ? f->needed - 8 : 64; break;
		case 2: want = f->needed; break;
		case 3: want = f->needed + st_rand(s) % (16 * PAGE); break;
		default: want = pick_u64(s); break;
		}
		r->buf_size = want;
		switch (st_rand(s) % 6) {
		case 0: r->buf = 0; break;
		case 1: r->buf = 0xffffffff81000000ULL; break;
		case 2: r->buf = (uintptr_t)f->snap + 1 + st_rand(s) % 64; break;
		default: {
			/* ends at the guard: more than fits faults there */
			uint64_t fit = (SNAP_PAGES - 1) * PAGE;
			uint64_t l = want < fit ? want : fit;

			r->buf = (uintptr_t)f->snap + fit - l;
			break;
		}
		}
		break;
	}
	case 3: {	/* family */
		struct gpulat_family_req *r = (void *)a;

		/*
		 * "on" (free while on) or invalid: a real switch waits for
		 * RCU under the module's lock, the toggler thread does those
		 */
		r->family = st_rand(s) % 10;
		r->enable = st_rand(s) % 4 ? 1 : 2;
		break;
	}
	case 4: {	/* threshold */
		struct gpulat_threshold_req *r = (void *)a;

		r->flags = st_rand(s) % 2 ? GPULAT_THRESHOLD_SET :
					    (st_rand(s) % 8 ? 0 : 2);
		r->family = st_rand(s) % 10;
		r->pad = st_rand(s) % 8 ? 0 : 1;
		r->threshold_ns = pick_u64(s);
		break;
	}
	default:
		break;
	}
}

/* version and threshold are cheap; snapshot, reset, family take the lock */
static const unsigned int cmd_weight[] = { 3, 2, 1, 2, 3 };

static unsigned int pick_cmd(uint64_t *s, unsigned int *idx)
{
	unsigned int w = st_rand(s) % 11, i, c;

	for (i = 0; w >= cmd_weight[i]; i++)
		w -= cmd_weight[i];
	c = real_cmds[i];

	if (st_rand(s) % 2) {
		switch (st_rand(s) % 5) {
		case 0: c = _IOC(_IOC_DIR(c) ^ (1 + st_rand(s) % 3), _IOC_TYPE(c),
				 _IOC_NR(c), _IOC_SIZE(c)); break;
		case 1: c = _IOC(_IOC_DIR(c), _IOC_TYPE(c), st_rand(s) % 16,
				 _IOC_SIZE(c)); break;
		case 2: c = _IOC(_IOC_DIR(c), _IOC_TYPE(c), _IOC_NR(c),
				 st_rand(s) % 256); break;
		case 3: c = _IOC(_IOC_DIR(c), _IOC_TYPE(c) + (st_rand(s) % 2 ? 1 : -1),
				 _IOC_NR(c), _IOC_SIZE(c)); break;
		default: c = _IOC(st_rand(s) % 4, GPULAT_IOC_MAGIC,
				  st_rand(s) % 256, st_rand(s) % 64); break;
		}
	}
	*idx = NR_REAL;
	for (i = 0; i < NR_REAL; i++)
		if (c == real_cmds[i])
			*idx = i;
	return c;
}

static void account(unsigned int idx, unsigned int cmd, int err)
{
	if (err < 0 || err >= 64)
		err = 63;
	atomic_fetch_add(&errno_count[idx][err], 1);
	if (allowed[idx] & BIT(err))
		return;
	if (atomic_fetch_add(&unexpected, 1) < 20) {
		pthread_mutex_lock(&log_lock);
		st_diag("unexpected: cmd %#x returned %s (%d)", cmd,
			err ? strerror(err) : "0", err);
		pthread_mutex_unlock(&log_lock);
	}
}

/* known_answers - the checks between random calls (see the top) */
static void known_answers(struct fuzzer *f)
{
	struct gpulat_version v = { .size = sizeof(v) };
	struct gpulat_snapshot_req r = { .size = sizeof(r) };
	struct gpulat_family_req fr = { .size = sizeof(fr) };
	struct gpulat_threshold_req tr = { .size = sizeof(tr) };
	const struct gpulat_snap_header *h = (const void *)f->snap;
	size_t fit = (SNAP_PAGES - 1) * PAGE, i;
	char *buf;
	int ret;

	ret = ioctl(f->fd, GPULAT_IOC_VERSION, &v);
	known(!ret && v.major == GPULAT_ABI_MAJOR && v.minor >= 2 &&
	      v.size == sizeof(v), "version 1.x, size 16", ret ? errno : v.major);

	ret = ioctl(f->fd, GPULAT_IOC_SNAPSHOT, &r);
	known(!ret && r.needed >= GPULAT_SNAP_HEADER_SIZE_VER1,
	      "snapshot size query", ret ? errno : (long)r.needed);
	if (ret || r.needed + 4096 > fit)
		return;
	f->needed = r.needed;
	/* 8 bytes short, poisoned: ENOSPC, nothing written */
	buf = f->snap + fit - (r.needed - 8);
	memset(buf, 0xcc, r.needed - 8);
	r.buf = (uintptr_t)buf;
	r.buf_size = r.needed - 8;
	ret = ioctl(f->fd, GPULAT_IOC_SNAPSHOT, &r);
	known(ret && errno == ENOSPC, "short buffer: ENOSPC", ret ? errno : 0);
	for (i = 0; i < r.buf_size && (unsigned char)buf[i] == 0xcc; i++)
		;
	known(i == r.buf_size, "short buffer stays untouched", (long)i);
	/* room for growth: the snapshot at the start of the pages */
	r.buf = (uintptr_t)f->snap;
	r.buf_size = r.needed + 4096;
	ret = ioctl(f->fd, GPULAT_IOC_SNAPSHOT, &r);
	known(!ret || errno == ENOSPC, "snapshot with room", ret ? errno : 0);
	if (!ret) {
		struct gl_snapshot *s = NULL;
		char err[128];

		known(h->magic == GPULAT_SNAP_MAGIC &&
		      h->abi_major == GPULAT_ABI_MAJOR &&
		      h->total_size == r.needed, "snapshot header",
		      (long)h->total_size);
		known(!gl_snapshot_parse(f->snap, r.needed, &s, err, sizeof(err)),
		      "snapshot parses", 0);
		if (s)
			nr_cpu_ids_seen = gl_snapshot_header(s)->nr_cpu_ids;
		gl_snapshot_free(s);
	}
	fr.family = 0;
	fr.enable = 1;
	ret = ioctl(f->fd, GPULAT_IOC_FAMILY, &fr);
	known(ret && errno == ENOENT, "family 0: ENOENT", ret ? errno : 0);
	fr.family = GPULAT_FAM_MAX;
	ret = ioctl(f->fd, GPULAT_IOC_FAMILY, &fr);
	known(ret && errno == ENOENT, "family MAX: ENOENT", ret ? errno : 0);
	fr.family = GPULAT_FAM_SCHED;
	fr.enable = 2;
	ret = ioctl(f->fd, GPULAT_IOC_FAMILY, &fr);
	known(ret && errno == EINVAL, "enable 2: EINVAL", ret ? errno : 0);
	tr.family = GPULAT_FAM_MAX;
	ret = ioctl(f->fd, GPULAT_IOC_THRESHOLD, &tr);
	known(ret && errno == ENOENT, "threshold of family MAX: ENOENT",
	      ret ? errno : 0);
	tr.family = GPULAT_FAM_MM;
	ret = ioctl(f->fd, GPULAT_IOC_THRESHOLD, &tr);
	known(!ret && tr.size == sizeof(tr), "threshold get", ret ? errno : 0);
	ret = ioctl(f->fd, _IOC(_IOC_READ | _IOC_WRITE, GPULAT_IOC_MAGIC, 0x05,
				16), &v);
	known(ret && errno == ENOTTY, "command 0x05: ENOTTY", ret ? errno : 0);
}

static void *fuzz(void *arg)
{
	struct fuzzer *f = arg;
	size_t room = (SCRATCH_PAGES - 1) * PAGE;

	for (long i = 0; i < calls_per_thread; i++) {
		unsigned int idx, cmd = pick_cmd(&f->seed, &idx);
		uint64_t kind = st_rand(&f->seed) % 16;
		uint32_t *a;
		void *argp;
		int ret;

		if (i % 500 == 0)
			known_answers(f);
		/* where the argument lies; its room is what remains to the guard */
		size_t off = kind < 11 ? 8 * (st_rand(&f->seed) % 64) :
			     room - 4 * (st_rand(&f->seed) % 8);
		uint32_t tmp[64];

		a = (uint32_t *)(f->scratch + off);
		fill_arg(f, idx < NR_REAL ? idx : st_rand(&f->seed) % NR_REAL,
			 tmp, sizeof(tmp));
		/* what fits before the guard page */
		memcpy(a, tmp, room - off < sizeof(tmp) ? room - off : sizeof(tmp));
		switch (kind) {
		case 11: argp = NULL; break;
		case 12: argp = (void *)0xffffffff81000000UL; break;
		case 13: argp = (char *)a + 1 + st_rand(&f->seed) % 3; break;
		default: argp = a; break;	/* incl. 14, 15: at the guard */
		}
		uint64_t t = st_now_ns(), d;

		ret = ioctl(f->fd, cmd, argp);
		d = st_now_ns() - t;
		account(idx, cmd, ret ? errno : 0);
		atomic_fetch_add(&ns_sum[idx], d);
		for (uint64_t m = atomic_load(&ns_max[idx]); d > m &&
		     !atomic_compare_exchange_weak(&ns_max[idx], &m, d);)
			;
		atomic_fetch_add(&calls_done, 1);
		/* now and then a new file, as tools open and close it */
		if (st_rand(&f->seed) % 5000 == 0) {
			int fd = open(GPULAT_DEVICE_PATH, O_RDWR | O_CLOEXEC);

			if (fd >= 0) {
				close(f->fd);
				f->fd = fd;
			}
		}
	}
	return NULL;
}

/* check_records - walk one read()'s bytes: whole records, each sane */
static void check_records(const char *buf, ssize_t len)
{
	ssize_t off = 0;

	while (off < len) {
		const struct gpulat_rec_header *h = (const void *)(buf + off);
		bool good = len - off >= (ssize_t)sizeof(*h) &&
			    h->size >= sizeof(*h) && h->size % 8 == 0 &&
			    h->size <= len - off && h->cpu < nr_cpu_ids_seen &&
			    ((h->type == GPULAT_REC_SAMPLE &&
			      h->size >= GPULAT_REC_SAMPLE_SIZE_VER0) ||
			     (h->type == GPULAT_REC_EVENT &&
			      h->size >= GPULAT_REC_EVENT_SIZE_VER0) ||
			     (h->type == GPULAT_REC_LOST &&
			      h->size >= GPULAT_REC_LOST_SIZE_VER0));

		if (!good) {
			if (atomic_fetch_add(&bad_records, 1) < 10) {
				pthread_mutex_lock(&log_lock);
				st_diag("bad record at %zd of %zd: size %u type %u cpu %u",
					off, len, len - off >= 4 ? h->size : 0,
					len - off >= 4 ? h->type : 0,
					len - off >= 8 ? h->cpu : 0);
				pthread_mutex_unlock(&log_lock);
			}
			return;
		}
		atomic_fetch_add(&records_read, 1);
		off += h->size;
	}
}

struct reader {
	pthread_t t;
	int *fdp;
	uint64_t seed;
	char *buf;		/* 17 pages, the last one PROT_NONE */
};

static void *reader(void *arg)
{
	struct reader *r = arg;
	static const size_t lens[] = { 0, 1, 15, 16, 23, 24, 191, 192, 193,
				       4096, 65536 };

	while (!atomic_load(&stop_readers)) {
		struct pollfd p = { .fd = *r->fdp, .events = POLLIN };
		size_t len = lens[st_rand(&r->seed) % (sizeof(lens) / sizeof(lens[0]))];
		char *b = r->buf + 16 * PAGE - len;	/* ends at the guard */
		uint64_t kind = st_rand(&r->seed) % 10;
		ssize_t n;

		poll(&p, 1, 10);
		if (kind == 0)
			b = NULL;
		else if (kind == 1)
			b += len / 2 + 1;	/* runs into the guard */
		else if (kind == 2 && len)
			b -= 1;			/* unaligned */
		n = read(*r->fdp, b, len);
		atomic_fetch_add(&reads_done, 1);
		st_sleep_us(1000);
		if (n > 0 && kind >= 2) {
			check_records(b, n);
		} else if (n < 0 && errno != EAGAIN && errno != EINVAL &&
			   errno != EFAULT && errno != EINTR) {
			if (atomic_fetch_add(&unexpected, 1) < 20)
				st_diag("unexpected: read of %zu returned %s",
					len, strerror(errno));
		} else if (n == 0 && len) {
			if (atomic_fetch_add(&unexpected, 1) < 20)
				st_diag("unexpected: read of %zu returned 0", len);
		}
	}
	return NULL;
}

struct toggler {
	pthread_t t;
	int fd;
	uint64_t seed;
	bool can[GPULAT_FAM_MAX];	/* attached at the start */
	long toggles, failed;
};

/* toggler - valid family switches and thresholds, all of them must work */
static void *toggler(void *arg)
{
	struct toggler *g = arg;

	while (!atomic_load(&stop_readers)) {
		uint32_t fam = 1 + st_rand(&g->seed) % (GPULAT_FAM_MAX - 1);
		int ret;

		if (!g->can[fam]) {
			st_sleep_us(1000);
			continue;
		}
		ret = gl_family_switch(g->fd, fam, st_rand(&g->seed) % 2);
		g->toggles++;
		if (ret) {
			g->failed++;
			st_diag("family %u switch failed: %s", fam, strerror(-ret));
		}
		ret = st_threshold(g->fd, 1 + st_rand(&g->seed) % (GPULAT_FAM_MAX - 1),
				   st_rand(&g->seed) % 3 ? 1 : st_rand(&g->seed) % 10000000);
		if (ret) {
			g->failed++;
			st_diag("threshold set failed: %s", strerror(-ret));
		}
		st_sleep_us(100000);
	}
	return NULL;
}

/* probe states of every family: attached (1), else its first state + 2 */
static int family_states(int fd, int *state)
{
	struct gl_snapshot *s;
	char err[128];
	size_t i;

	if (gl_snapshot_take_err(fd, &s, err, sizeof(err))) {
		st_diag("snapshot: %s", err);
		return -1;
	}
	for (i = 0; i < GPULAT_FAM_MAX; i++)
		state[i] = 0;
	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		const struct gpulat_probe *p = gl_snapshot_probe(s, i);

		if (p->family >= GPULAT_FAM_MAX)
			continue;
		if (p->state == GPULAT_PROBE_ATTACHED)
			state[p->family] = 1;
		else if (!state[p->family])
			state[p->family] = 2 + p->state;
	}
	gl_snapshot_free(s);
	return 0;
}

int main(int argc, char **argv)
{
	long calls = 50000, threads = 4;
	uint64_t seed = st_now_ns(), thr[GPULAT_FAM_MAX] = { 0 }, back;
	struct fuzzer *fz;
	struct reader rd[3];
	struct toggler tg = { 0 };
	int rfd[2], before[GPULAT_FAM_MAX], after[GPULAT_FAM_MAX], opt, fd, i;
	char err[256];
	bool same = true, thr_ok = true, on_ok = true;
	uint64_t t0;

	while ((opt = getopt(argc, argv, "n:t:s:")) != -1) {
		switch (opt) {
		case 'n': calls = atol(optarg); break;
		case 't': threads = atol(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: stress_ioctl -n CALLS [-t THREADS] [-s SEED]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > 64 || calls < threads)
		return 2;
	calls_per_thread = calls / threads;
	st_diag("seed %#" PRIx64 ", %ld threads x %ld calls", seed, threads,
		calls_per_thread);

	allowed[0] = BIT(0) | BIT(EINVAL) | BIT(E2BIG) | BIT(EFAULT);
	allowed[1] = allowed[0] | BIT(ENOSPC) | BIT(ENOMEM);
	allowed[2] = allowed[0];
	allowed[3] = allowed[0] | BIT(ENOENT) | BIT(ENODEV) | BIT(ENOMEM);
	allowed[4] = allowed[0] | BIT(ENOENT);
	allowed[NR_REAL] = BIT(ENOTTY);

	fd = gl_open(err, sizeof(err));
	if (fd < 0) {
		st_ok(false, "open /dev/gpulat: %s", err);
		return 1;
	}
	if (family_states(fd, before))
		return 1;
	for (i = 1; i < GPULAT_FAM_MAX; i++) {
		tg.can[i] = before[i] == 1;
		st_get_threshold(fd, i, &thr[i]);
	}

	fz = calloc(threads, sizeof(*fz));
	for (i = 0; i < threads; i++) {
		fz[i].fd = open(GPULAT_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		fz[i].seed = seed + 0x9e3779b97f4a7c15ULL * (i + 1);
		fz[i].scratch = guarded(SCRATCH_PAGES);
		fz[i].snap = guarded(SNAP_PAGES);
		if (fz[i].fd < 0 || !fz[i].scratch || !fz[i].snap) {
			st_ok(false, "fuzzer %d setup: %s", i, strerror(errno));
			return 1;
		}
	}
	/* two reader files, the first read by two threads at once */
	for (i = 0; i < 2; i++)
		rfd[i] = open(GPULAT_DEVICE_PATH, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	for (i = 0; i < 3; i++) {
		rd[i].fdp = &rfd[i == 2];
		rd[i].seed = seed ^ (0x1234567ULL * (i + 1));
		rd[i].buf = guarded(17);
		pthread_create(&rd[i].t, NULL, reader, &rd[i]);
	}
	tg.fd = fd;
	tg.seed = seed ^ 0xabcdefULL;
	pthread_create(&tg.t, NULL, toggler, &tg);

	t0 = st_now_ns();
	for (i = 0; i < threads; i++)
		pthread_create(&fz[i].t, NULL, fuzz, &fz[i]);
	for (i = 0; i < threads; i++)
		pthread_join(fz[i].t, NULL);
	atomic_store(&stop_readers, 1);
	for (i = 0; i < 3; i++)
		pthread_join(rd[i].t, NULL);
	pthread_join(tg.t, NULL);
	st_diag("%ld calls in %.1f s; %ld trace reads, %ld records; %ld toggles",
		atomic_load(&calls_done), (st_now_ns() - t0) / 1e9,
		atomic_load(&reads_done), atomic_load(&records_read), tg.toggles);
	for (unsigned int c = 0; c <= NR_REAL; c++) {
		char line[512];
		size_t off = 0;

		for (int e = 0; e < 64; e++) {
			long v = atomic_load(&errno_count[c][e]);

			if (v)
				off += snprintf(line + off, sizeof(line) - off, " %s %ld",
						e ? strerrorname_np(e) ?: "?" : "ok", v);
		}
		long calls = 0;

		for (int e = 0; e < 64; e++)
			calls += atomic_load(&errno_count[c][e]);
		st_diag("%s:%s; %.0f us on average, at most %.1f ms",
			c < NR_REAL ? (const char *[]){ "version", "snapshot",
			"reset", "family", "threshold" }[c] : "other commands",
			line, calls ? atomic_load(&ns_sum[c]) / 1e3 / calls : 0.0,
			atomic_load(&ns_max[c]) / 1e6);
	}

	st_ok(atomic_load(&calls_done) == calls_per_thread * threads &&
	      !atomic_load(&unexpected),
	      "%ld random ioctls and reads from %ld threads: %ld results outside the documented errnos",
	      atomic_load(&calls_done), threads, atomic_load(&unexpected));
	st_ok(!atomic_load(&known_failed) && atomic_load(&known_checks) > 0,
	      "known answers held between the random calls: %ld of %ld failed",
	      atomic_load(&known_failed), atomic_load(&known_checks));
	st_ok(!atomic_load(&bad_records),
	      "trace reads returned well-formed records: %ld records, %ld malformed",
	      atomic_load(&records_read), atomic_load(&bad_records));
	st_ok(!tg.failed && tg.toggles > 0,
	      "valid family switches and thresholds under the fuzz: %ld, %ld failed",
	      tg.toggles, tg.failed);

	/* put back what was there, and see that it holds */
	for (i = 1; i < GPULAT_FAM_MAX; i++) {
		int ret;

		if (before[i] == 1 && (ret = gl_family_switch(fd, i, true))) {
			st_diag("family %d on: %s", i, strerror(-ret));
			on_ok = false;
		}
		if (st_threshold(fd, i, thr[i]) || st_get_threshold(fd, i, &back) ||
		    back != thr[i]) {
			st_diag("threshold of family %d: set %" PRIu64 ", read %" PRIu64,
				i, thr[i], back);
			thr_ok = false;
		}
	}
	st_ok(on_ok, "every family attached before switches on again");
	st_ok(thr_ok, "thresholds set back read back");
	{
		struct gpulat_version v = { .size = sizeof(v) };
		int ret = ioctl(fd, GPULAT_IOC_VERSION, &v);

		st_ok(!ret && v.major == GPULAT_ABI_MAJOR && v.size == sizeof(v),
		      "version ioctl after the fuzz: %u.%u", v.major, v.minor);
	}
	if (family_states(fd, after)) {
		st_ok(false, "a snapshot parses after the fuzz");
	} else {
		for (i = 1; i < GPULAT_FAM_MAX; i++)
			if (after[i] != before[i]) {
				st_diag("family %d: state %d before, %d after", i,
					before[i], after[i]);
				same = false;
			}
		st_ok(same, "a snapshot parses after the fuzz, every family as before");
	}
	for (i = 0; i < threads; i++)
		close(fz[i].fd);
	close(rfd[0]);
	close(rfd[1]);
	close(fd);
	return st_failed;
}
