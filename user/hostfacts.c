// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report: the report folder, its MANIFEST, packing it with tar,
 * and the host facts that explain latency on GPU servers but that
 * nvidia-bug-report.sh does not collect.  Everything is read from /proc
 * and /sys directly (below a root that tests replace); nothing is run but
 * tar.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostfacts.h"

#define ARRAY_SIZE_HF(a)	(sizeof(a) / sizeof((a)[0]))

/* Largest /proc or /sys file read whole (/proc/interrupts of big hosts). */
#define HF_READ_MAX	(64u << 20)

/* ---------------------------------------------------------------------- */
/* The report folder                                                       */
/* ---------------------------------------------------------------------- */

/* bundle_fail - keep the first failure and its reason */
void bundle_fail(struct bundle *b, int err, const char *fmt, ...)
{
	va_list ap;

	if (b->err)
		return;
	b->err = err ? err : -EIO;
	va_start(ap, fmt);
	vsnprintf(b->errmsg, sizeof(b->errmsg), fmt, ap);
	va_end(ap);
}

int bundle_init(struct bundle *b, const char *dir)
{
	memset(b, 0, sizeof(*b));
	b->dir = strdup(dir);
	if (!b->dir)
		return -ENOMEM;
	if (mkdir(dir, 0700)) {
		b->err = -errno;
		snprintf(b->errmsg, sizeof(b->errmsg), "cannot create %s: %s",
			 dir, strerror(errno));
		return b->err;
	}
	return 0;
}

void bundle_free(struct bundle *b)
{
	size_t i;

	for (i = 0; i < b->nr; i++) {
		free(b->e[i].path);
		free(b->e[i].what);
		free(b->e[i].absent);
	}
	free(b->e);
	free(b->dir);
	memset(b, 0, sizeof(*b));
}

static struct bundle_entry *bundle_entry(struct bundle *b, const char *path)
{
	struct bundle_entry *e;
	size_t i;

	for (i = b->nr; i-- > 0;)
		if (!strcmp(b->e[i].path, path))
			return &b->e[i];
	if (b->nr == b->alloc) {
		size_t n = b->alloc ? 2 * b->alloc : 32;

		e = realloc(b->e, n * sizeof(*e));
		if (!e)
			return NULL;
		b->e = e;
		b->alloc = n;
	}
	e = &b->e[b->nr];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	if (!e->path)
		return NULL;
	b->nr++;
	return e;
}

/* bundle_mkdirs - make the folders of @path below the top folder */
static int bundle_mkdirs(struct bundle *b, const char *path)
{
	char full[PATH_MAX];
	char *p;
	int n;

	n = snprintf(full, sizeof(full), "%s/%s", b->dir, path);
	if (n < 0 || (size_t)n >= sizeof(full))
		return -ENAMETOOLONG;
	for (p = full + strlen(b->dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(full, 0700) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

FILE *bundle_create(struct bundle *b, const char *path, const char *what)
{
	struct bundle_entry *e;
	char full[PATH_MAX];
	FILE *f;
	int ret;

	if (b->err)
		return NULL;
	e = bundle_entry(b, path);
	if (!e || !(e->what || (e->what = strdup(what)))) {
		bundle_fail(b, -ENOMEM, "out of memory");
		return NULL;
	}
	ret = bundle_mkdirs(b, path);
	if (ret) {
		bundle_fail(b, ret, "cannot create the folder of %s/%s: %s",
			    b->dir, path, strerror(-ret));
		return NULL;
	}
	snprintf(full, sizeof(full), "%s/%s", b->dir, path);
	f = fopen(full, "w");
	if (!f)
		bundle_fail(b, -errno, "cannot create %s: %s", full,
			    strerror(errno));
	return f;
}

int bundle_close(struct bundle *b, FILE *f, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) || bad) {
		bundle_fail(b, -EIO, "cannot write %s/%s: %s", b->dir, path,
			    bad ? "write error" : strerror(errno));
		return -EIO;
	}
	return 0;
}

void bundle_absent(struct bundle *b, const char *path, const char *fmt, ...)
{
	struct bundle_entry *e = bundle_entry(b, path);
	va_list ap;
	char *s;
	int n;

	if (!e) {
		bundle_fail(b, -ENOMEM, "out of memory");
		return;
	}
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		bundle_fail(b, -ENOMEM, "out of memory");
		return;
	}
	free(e->absent);
	e->absent = s;
}

size_t bundle_nr_absent(const struct bundle *b)
{
	size_t i, n = 0;

	for (i = 0; i < b->nr; i++)
		n += !!b->e[i].absent;
	return n;
}

int bundle_write_manifest(struct bundle *b, const char *header)
{
	static const char what[] =
		"this list: every file, then every absent source";
	size_t i, w = strlen("MANIFEST");
	FILE *f;

	f = bundle_create(b, "MANIFEST", what);
	if (!f)
		return b->err;
	for (i = 0; i < b->nr; i++)
		if (strlen(b->e[i].path) > w)
			w = strlen(b->e[i].path);
	/* This file first: a reader opens the archive here. */
	fprintf(f, "%s\nfiles:\n  %-*s  %s\n", header, (int)w, "MANIFEST",
		what);
	for (i = 0; i < b->nr; i++)
		if (b->e[i].what && strcmp(b->e[i].path, "MANIFEST"))
			fprintf(f, "  %-*s  %s\n", (int)w, b->e[i].path,
				b->e[i].what);
	fprintf(f, "\nabsent sources (each file says so too):\n");
	if (!bundle_nr_absent(b))
		fprintf(f, "  none\n");
	for (i = 0; i < b->nr; i++)
		if (b->e[i].absent)
			fprintf(f, "  absent: %s: %s\n", b->e[i].path,
				b->e[i].absent);
	return bundle_close(b, f, "MANIFEST");
}

bool bundle_find_prog(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	const char *p, *end;

	if (strchr(name, '/'))
		return !access(name, X_OK);
	if (!path || !path[0])
		path = "/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		end = strchrnul(p, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p),
			     end > p ? p : ".", name) < (int)sizeof(buf) &&
		    !access(buf, X_OK))
			return true;
		if (!*end)
			return false;
	}
}

int bundle_pack(const char *parent, const char *top, const char *out,
		char *err, size_t errlen)
{
	int pfd[2], status, child_errno = 0;
	ssize_t n;
	pid_t pid;

	/* The pipe closes on exec; an errno on it means exec failed. */
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot run tar: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot run tar: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		close(pfd[0]);
		execlp("tar", "tar", "-czf", out, "-C", parent, top,
		       (char *)NULL);
		child_errno = errno;
		if (write(pfd[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(err, errlen, "waiting for tar: %s",
				 strerror(errno));
			return -1;
		}
	}
	if (n == sizeof(child_errno)) {
		snprintf(err, errlen, "cannot run tar: %s%s",
			 strerror(child_errno), child_errno == ENOENT ?
			 " (tar is not installed or not in PATH)" : "");
		return -1;
	}
	if (WIFSIGNALED(status)) {
		snprintf(err, errlen, "tar -czf %s was killed by signal %d",
			 out, WTERMSIG(status));
		return -1;
	}
	if (WEXITSTATUS(status)) {
		snprintf(err, errlen, "tar -czf %s failed with status %d",
			 out, WEXITSTATUS(status));
		return -1;
	}
	return 0;
}

static int bundle_rm_one(const char *path, const struct stat *st, int flag,
			 struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) ? -1 : 0;
	return unlink(path) ? -1 : 0;
}

int bundle_remove(const char *dir)
{
	if (nftw(dir, bundle_rm_one, 16, FTW_DEPTH | FTW_PHYS))
		return errno ? -errno : -EIO;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Parsers                                                                 */
/* ---------------------------------------------------------------------- */

/* hf_num - decimal digits at *@p, saturating; false when there are none */
static bool hf_num(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= end || !isdigit((unsigned char)*s))
		return false;
	for (; s < end && isdigit((unsigned char)*s); s++) {
		unsigned int d = *s - '0';

		x = x > (UINT64_MAX - d) / 10 ? UINT64_MAX : x * 10 + d;
	}
	*p = s;
	*v = x;
	return true;
}

int hf_cpulist_parse(const char *s, uint64_t *mask)
{
	const char *end = s + strlen(s);
	uint64_t a, b, c;

	memset(mask, 0, HF_MASK_WORDS * sizeof(*mask));
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	while (s < end) {
		if (!hf_num(&s, end, &a))
			return -EINVAL;
		b = a;
		if (s < end && *s == '-') {
			s++;
			if (!hf_num(&s, end, &b))
				return -EINVAL;
		}
		if (a > b || b >= HF_MAX_CPUS)
			return -EINVAL;
		for (c = a; c <= b; c++)
			mask[c / 64] |= 1ULL << (c % 64);
		if (s < end && *s++ != ',')
			return -EINVAL;
		if (s == end && s[-1] == ',')
			return -EINVAL;
	}
	return 0;
}

static bool hf_bit(const uint64_t *mask, unsigned int c)
{
	return mask[c / 64] & (1ULL << (c % 64));
}

char *hf_cpulist_format(char *buf, size_t len, const uint64_t *mask)
{
	unsigned int c = 0, a;
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	while (c < HF_MAX_CPUS) {
		if (!hf_bit(mask, c)) {
			c++;
			continue;
		}
		a = c;
		while (c + 1 < HF_MAX_CPUS && hf_bit(mask, c + 1))
			c++;
		if (a == c)
			off += snprintf(buf + off, off < len ? len - off : 0,
					"%s%u", off ? "," : "", a);
		else
			off += snprintf(buf + off, off < len ? len - off : 0,
					"%s%u-%u", off ? "," : "", a, c);
		c++;
	}
	return buf;
}

static bool hf_is_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* hf_interrupts_header - the CPU columns of the first line */
static int hf_interrupts_header(const char *p, const char *end,
				struct hf_interrupts *in)
{
	size_t alloc = 0;
	unsigned int *c;
	uint64_t v;

	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end)
			break;
		if (end - p < 4 || memcmp(p, "CPU", 3))
			return -EINVAL;
		p += 3;
		if (!hf_num(&p, end, &v) || v >= HF_MAX_CPUS)
			return -EINVAL;
		if (in->nr_cols == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			c = realloc(in->cpu, alloc * sizeof(*c));
			if (!c)
				return -ENOMEM;
			in->cpu = c;
		}
		in->cpu[in->nr_cols++] = v;
	}
	return in->nr_cols ? 0 : -EINVAL;
}

/* hf_interrupts_row - one IRQ row; 1 added, 0 skipped, -ENOMEM */
static int hf_interrupts_row(const char *p, const char *end,
			     struct hf_interrupts *in, size_t *alloc)
{
	struct hf_irq_line *l;
	const char *colon, *q;
	unsigned int col;
	uint64_t v;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	colon = memchr(p, ':', end - p);
	if (!colon || colon == p || colon - p >= (long)sizeof(l->name))
		return 0;
	for (q = p; q < colon; q++)
		if (isspace((unsigned char)*q) || !isprint((unsigned char)*q))
			return 0;
	if (in->nr == *alloc) {
		size_t n = *alloc ? 2 * *alloc : 64;

		l = realloc(in->line, n * sizeof(*l));
		if (!l)
			return -ENOMEM;
		in->line = l;
		*alloc = n;
	}
	l = &in->line[in->nr];
	memset(l, 0, sizeof(*l));
	memcpy(l->name, p, colon - p);
	l->irq = -1;
	if (hf_is_digits(l->name) && strlen(l->name) < 10)
		l->irq = atoi(l->name);
	l->counts = calloc(in->nr_cols, sizeof(*l->counts));
	if (!l->counts)
		return -ENOMEM;
	p = colon + 1;
	/* Named rows (ERR, MIS) have fewer columns than there are CPUs. */
	for (col = 0; col < in->nr_cols; col++) {
		q = p;
		while (q < end && *q == ' ')
			q++;
		if (!hf_num(&q, end, &v) || (q < end && !isspace((unsigned char)*q)))
			break;
		l->counts[col] = v;
		l->total = l->total > UINT64_MAX - v ? UINT64_MAX : l->total + v;
		p = q;
	}
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	l->desc = strndup(p, end - p);
	if (!l->desc) {
		free(l->counts);
		return -ENOMEM;
	}
	in->nr++;
	return 1;
}

int hf_interrupts_parse(const char *text, size_t len,
			struct hf_interrupts *out)
{
	const char *p = text, *end = text + len, *nl;
	size_t alloc = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	nl = memchr(p, '\n', end - p);
	ret = hf_interrupts_header(p, nl ? nl : end, out);
	if (ret)
		goto fail;
	while (nl) {
		p = nl + 1;
		nl = memchr(p, '\n', end - p);
		ret = hf_interrupts_row(p, nl ? nl : end, out, &alloc);
		if (ret < 0)
			goto fail;
	}
	return 0;
fail:
	hf_interrupts_free(out);
	return ret;
}

void hf_interrupts_free(struct hf_interrupts *in)
{
	size_t i;

	for (i = 0; i < in->nr; i++) {
		free(in->line[i].counts);
		free(in->line[i].desc);
	}
	free(in->line);
	free(in->cpu);
	memset(in, 0, sizeof(*in));
}

const struct hf_irq_line *hf_interrupts_find(const struct hf_interrupts *in,
					     int irq)
{
	size_t i;

	for (i = 0; i < in->nr; i++)
		if (in->line[i].irq == irq && irq >= 0)
			return &in->line[i];
	return NULL;
}

bool hf_desc_has_action(const char *desc, const char *name)
{
	size_t n = strlen(name);
	const char *p = desc;

	/* Actions end the row, separated by spaces or ", ". */
	while ((p = strstr(p, name))) {
		bool start = p == desc || p[-1] == ' ' || p[-1] == ',';
		bool stop = !p[n] || p[n] == ',' || p[n] == ' ';

		if (start && stop)
			return true;
		p += n;
	}
	return false;
}

int hf_kmsg_parse(const char *rec, size_t len, uint64_t *usec,
		  const char **msg, size_t *msglen)
{
	const char *p = rec, *end = rec + len, *semi, *nl;
	uint64_t v;

	if (!hf_num(&p, end, &v) || p >= end || *p++ != ',')
		return -EINVAL;
	if (!hf_num(&p, end, &v) || p >= end || *p++ != ',')
		return -EINVAL;
	if (!hf_num(&p, end, usec) || p >= end || (*p != ',' && *p != ';'))
		return -EINVAL;
	semi = memchr(p, ';', end - p);
	if (!semi)
		return -EINVAL;
	*msg = semi + 1;
	nl = memchr(*msg, '\n', end - *msg);
	*msglen = (nl ? nl : end) - *msg;
	return 0;
}

bool hf_kmsg_wanted(const char *msg, size_t len)
{
	return memmem(msg, len, "NVRM", 4) || memmem(msg, len, "Xid", 3);
}

int hf_bracket_choice(const char *s, char *out, size_t len)
{
	const char *a = strchr(s, '['), *b;

	if (!a || !(b = strchr(a, ']')) || b == a + 1 || !len)
		return -EINVAL;
	snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
	return 0;
}

int hf_aer_total(const char *text, uint64_t *total)
{
	const char *p = text, *end = text + strlen(text), *nl;

	for (; p < end; p = nl + 1) {
		nl = strchrnul(p, '\n');
		if (!strncmp(p, "TOTAL_ERR_", 10)) {
			p = strchr(p, ' ');
			if (!p || p > nl)
				return -EINVAL;
			while (p < nl && *p == ' ')
				p++;
			return hf_num(&p, nl, total) ? 0 : -EINVAL;
		}
		if (!*nl)
			break;
	}
	return -EINVAL;
}

double hf_link_speed(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	return end == s || v < 0 ? 0 : v;
}

/* ---------------------------------------------------------------------- */
/* Reading /proc and /sys                                                  */
/* ---------------------------------------------------------------------- */

static int hf_path(char *buf, size_t len, const char *root,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int hf_path(char *buf, size_t len, const char *root,
		   const char *fmt, ...)
{
	size_t n = snprintf(buf, len, "%s", root);
	va_list ap;
	int m;

	if (n >= len)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	return m < 0 || (size_t)m >= len - n ? -ENAMETOOLONG : 0;
}

int hf_read(const char *root, const char *path, char **buf, size_t *len)
{
	size_t alloc = 4096, n = 0;
	char full[PATH_MAX];
	char *b = NULL, *nb;
	ssize_t r;
	int fd, ret;

	*buf = NULL;
	*len = 0;
	ret = hf_path(full, sizeof(full), root, "%s", path);
	if (ret)
		return ret;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (!b || alloc - n < 2) {
			if (b)
				alloc *= 2;
			if (alloc > HF_READ_MAX) {
				ret = -EFBIG;
				break;
			}
			nb = realloc(b, alloc);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			b = nb;
		}
		r = read(fd, b + n, alloc - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			break;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	if (ret) {
		free(b);
		return ret;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* hf_read_line - first line of a small file, without its newline */
static int hf_read_line(const char *root, char *out, size_t len,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int hf_read_line(const char *root, char *out, size_t len,
			const char *fmt, ...)
{
	char path[PATH_MAX], *b;
	size_t n;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (ret < 0 || (size_t)ret >= sizeof(path))
		return -ENAMETOOLONG;
	ret = hf_read(root, path, &b, &n);
	if (ret)
		return ret;
	b[strcspn(b, "\n")] = '\0';
	snprintf(out, len, "%s", b);
	free(b);
	return 0;
}

static int hf_read_int(const char *root, long long *v, const char *fmt,
		       const char *arg)
{
	char buf[64], *end;
	int ret;

	ret = hf_read_line(root, buf, sizeof(buf), fmt, arg);
	if (ret)
		return ret;
	errno = 0;
	*v = strtoll(buf, &end, 0);
	return end == buf || errno ? -EINVAL : 0;
}

/* hf_why - strerror, with what the common errors mean here */
static const char *hf_why(int err)
{
	switch (-err) {
	case ENOENT:
		return "no such file";
	case EACCES:
	case EPERM:
		return "permission denied (run as root)";
	default:
		return strerror(-err);
	}
}

static int hf_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* hf_list - names in folder @root@path (no dot entries), sorted */
static int hf_list(const char *root, const char *path, char ***out,
		   size_t *nr)
{
	char full[PATH_MAX], **v = NULL, **nv;
	size_t n = 0, alloc = 0;
	struct dirent *d;
	DIR *dir;
	int ret;

	*out = NULL;
	*nr = 0;
	ret = hf_path(full, sizeof(full), root, "%s", path);
	if (ret)
		return ret;
	dir = opendir(full);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 32;
			nv = realloc(v, alloc * sizeof(*v));
			if (!nv)
				goto oom;
			v = nv;
		}
		v[n] = strdup(d->d_name);
		if (!v[n])
			goto oom;
		n++;
	}
	closedir(dir);
	if (n)
		qsort(v, n, sizeof(*v), hf_cmp_str);
	*out = v;
	*nr = n;
	return 0;
oom:
	closedir(dir);
	while (n)
		free(v[--n]);
	free(v);
	return -ENOMEM;
}

static void hf_list_free(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

/* --- PCI functions of vendor 0x10de ---------------------------------- */

#define PCI_DEVS	"/sys/bus/pci/devices/"

static int hf_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int hf_pci_read(const char *root, const char *addr,
		       struct hf_pci_fn *fn)
{
	static const char *const aer[] = {
		"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal",
	};
	uint64_t *tot[] = { &fn->aer_cor, &fn->aer_nonfatal, &fn->aer_fatal };
	char path[PATH_MAX], **msi, *b;
	size_t i, n, len;
	long long v;

	memset(fn, 0, sizeof(*fn));
	snprintf(fn->addr, sizeof(fn->addr), "%s", addr);
	fn->cur_width = fn->max_width = fn->numa_node = -1;
	if (!hf_read_int(root, &v, PCI_DEVS "%s/device", addr))
		fn->device = v;
	if (!hf_read_int(root, &v, PCI_DEVS "%s/class", addr))
		fn->class = v;
	hf_read_line(root, fn->cur_speed, sizeof(fn->cur_speed),
		     PCI_DEVS "%s/current_link_speed", addr);
	hf_read_line(root, fn->max_speed, sizeof(fn->max_speed),
		     PCI_DEVS "%s/max_link_speed", addr);
	if (!hf_read_int(root, &v, PCI_DEVS "%s/current_link_width", addr))
		fn->cur_width = v;
	if (!hf_read_int(root, &v, PCI_DEVS "%s/max_link_width", addr))
		fn->max_width = v;
	if (!hf_read_int(root, &v, PCI_DEVS "%s/numa_node", addr))
		fn->numa_node = v;
	hf_read_line(root, fn->local_cpus, sizeof(fn->local_cpus),
		     PCI_DEVS "%s/local_cpulist", addr);
	if (!hf_read_int(root, &v, PCI_DEVS "%s/irq", addr))
		fn->irq = v;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), PCI_DEVS "%s/%s", addr, aer[i]);
		if (hf_read(root, path, &b, &len))
			continue;
		if (!hf_aer_total(b, tot[i]))
			fn->has_aer = true;
		free(b);
	}
	snprintf(path, sizeof(path), PCI_DEVS "%s/msi_irqs", addr);
	if (hf_list(root, path, &msi, &n))
		return 0;
	fn->msi = calloc(n ? n : 1, sizeof(*fn->msi));
	if (!fn->msi) {
		hf_list_free(msi, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (hf_is_digits(msi[i]) && strlen(msi[i]) < 10)
			fn->msi[fn->nr_msi++] = atoi(msi[i]);
	qsort(fn->msi, fn->nr_msi, sizeof(*fn->msi), hf_cmp_int);
	hf_list_free(msi, n);
	return 0;
}

int hf_pci_scan(const char *root, struct hf_pci_fn **out, size_t *nr)
{
	struct hf_pci_fn *fn = NULL, *nf;
	size_t i, n, cnt = 0;
	char **names;
	long long vendor;
	int ret;

	*out = NULL;
	*nr = 0;
	ret = hf_list(root, PCI_DEVS, &names, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (hf_read_int(root, &vendor, PCI_DEVS "%s/vendor", names[i]) ||
		    vendor != 0x10de)
			continue;
		nf = realloc(fn, (cnt + 1) * sizeof(*fn));
		if (!nf) {
			ret = -ENOMEM;
			break;
		}
		fn = nf;
		ret = hf_pci_read(root, names[i], &fn[cnt]);
		cnt++;
		if (ret)
			break;
	}
	hf_list_free(names, n);
	if (ret) {
		hf_pci_free(fn, cnt);
		return ret;
	}
	*out = fn;
	*nr = cnt;
	return 0;
}

void hf_pci_free(struct hf_pci_fn *fn, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(fn[i].msi);
	free(fn);
}

const struct hf_pci_fn *hf_pci_of_irq(const struct hf_pci_fn *fn, size_t nr,
				      int irq)
{
	size_t i, j;

	for (i = 0; i < nr; i++) {
		if (fn[i].irq == irq && irq > 0)
			return &fn[i];
		for (j = 0; j < fn[i].nr_msi; j++)
			if (fn[i].msi[j] == irq)
				return &fn[i];
	}
	return NULL;
}

bool hf_pci_downtrained(const struct hf_pci_fn *fn)
{
	double cur = hf_link_speed(fn->cur_speed);
	double max = hf_link_speed(fn->max_speed);

	if (fn->cur_width > 0 && fn->max_width > 0 &&
	    fn->cur_width < fn->max_width)
		return true;
	return cur > 0 && max > 0 && cur < max;
}

int hf_irqbalance_pids(const char *root, int *pids, size_t max)
{
	char **names, comm[64];
	size_t i, n;
	int ret, cnt = 0;

	ret = hf_list(root, "/proc", &names, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (!hf_is_digits(names[i]) || strlen(names[i]) > 9)
			continue;
		if (hf_read_line(root, comm, sizeof(comm), "/proc/%s/comm",
				 names[i]) || strcmp(comm, "irqbalance"))
			continue;
		if ((size_t)cnt < max)
			pids[cnt] = atoi(names[i]);
		cnt++;
	}
	hf_list_free(names, n);
	return cnt;
}

/* ---------------------------------------------------------------------- */
/* The files                                                               */
/* ---------------------------------------------------------------------- */

struct hf_idle_usage {
	unsigned int cpu, state;
	uint64_t usage;
};

static void hf_absent(struct bundle *b, FILE *f, const char *path,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* hf_absent - "absent: why" in the file and in the MANIFEST */
static void hf_absent(struct bundle *b, FILE *f, const char *path,
		      const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(f, "absent: %s\n", why);
	bundle_absent(b, path, "%s", why);
}

/* hf_copy - @src of the host as file @dst, or why it is absent */
static int hf_copy(struct hostfacts *h, struct bundle *b, const char *src,
		   const char *dst, const char *what, const char *hint)
{
	size_t len;
	char *buf;
	FILE *f;
	int ret;

	f = bundle_create(b, dst, what);
	if (!f)
		return b->err;
	ret = hf_read(h->root, src, &buf, &len);
	if (ret) {
		hf_absent(b, f, dst, "%s: %s%s%s", src, hf_why(ret),
			  hint && ret == -ENOENT ? " " : "",
			  hint && ret == -ENOENT ? hint : "");
	} else {
		fwrite(buf, 1, len, f);
		free(buf);
	}
	return bundle_close(b, f, dst);
}

/* hf_cpus - the CPU numbers of /sys/devices/system/cpu/cpuN, ascending */
static int hf_cpus(const char *root, unsigned int **out, size_t *nr)
{
	unsigned int *c;
	char **names;
	size_t i, n, cnt = 0;
	int ret;

	*out = NULL;
	*nr = 0;
	ret = hf_list(root, "/sys/devices/system/cpu", &names, &n);
	if (ret)
		return ret;
	c = calloc(n ? n : 1, sizeof(*c));
	if (!c) {
		hf_list_free(names, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (!strncmp(names[i], "cpu", 3) && hf_is_digits(names[i] + 3) &&
		    strlen(names[i]) < 9)
			c[cnt++] = atoi(names[i] + 3);
	hf_list_free(names, n);
	qsort(c, cnt, sizeof(*c), hf_cmp_int);
	*out = c;
	*nr = cnt;
	return 0;
}

#define HF_MAX_IDLE_STATES	16

/* hf_idle_read - usage of every idle state of every CPU */
static int hf_idle_read(const char *root, struct hf_idle_usage **out,
			size_t *nr)
{
	struct hf_idle_usage *u = NULL, *nu;
	unsigned int *cpus, s;
	size_t i, n, cnt = 0;
	long long v;
	char arg[64];
	int ret;

	*out = NULL;
	*nr = 0;
	ret = hf_cpus(root, &cpus, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		for (s = 0; s < HF_MAX_IDLE_STATES; s++) {
			snprintf(arg, sizeof(arg), "%u/cpuidle/state%u",
				 cpus[i], s);
			if (hf_read_int(root, &v,
					"/sys/devices/system/cpu/cpu%s/usage",
					arg))
				break;
			nu = realloc(u, (cnt + 1) * sizeof(*u));
			if (!nu) {
				free(u);
				free(cpus);
				return -ENOMEM;
			}
			u = nu;
			u[cnt].cpu = cpus[i];
			u[cnt].state = s;
			u[cnt].usage = v;
			cnt++;
		}
	}
	free(cpus);
	*out = u;
	*nr = cnt;
	return 0;
}

int hostfacts_start(struct hostfacts *h, const char *root, struct bundle *b)
{
	int ret;

	memset(h, 0, sizeof(*h));
	h->root = root;
	ret = hf_copy(h, b, "/proc/interrupts", "host/interrupts-start.txt",
		      "/proc/interrupts when the watch began", NULL);
	if (!ret)
		ret = hf_copy(h, b, "/proc/softirqs", "host/softirqs-start.txt",
			      "/proc/softirqs when the watch began", NULL);
	if (!ret)
		ret = hf_copy(h, b, "/proc/vmstat", "host/vmstat-start.txt",
			      "/proc/vmstat when the watch began (compaction, THP, reclaim counters)",
			      NULL);
	if (ret)
		return ret;
	/* Kept for the differences at the end; absent is fine. */
	hf_read(root, "/proc/interrupts", &h->interrupts, &h->interrupts_len);
	if (hf_idle_read(root, &h->idle, &h->nr_idle) == -ENOMEM)
		return -ENOMEM;
	return 0;
}

void hostfacts_free(struct hostfacts *h)
{
	free(h->interrupts);
	free(h->idle);
	memset(h, 0, sizeof(*h));
}

/*
 * hf_count_delta - @now - @then of a counter; a counter that went down
 * restarted meanwhile (the NVIDIA driver frees its IRQs when the last
 * client closes and requests them again, from 0, at the next open): then
 * its current value, the count since it restarted, and *@reset is set
 */
static uint64_t hf_count_delta(uint64_t now, uint64_t then, bool *reset)
{
	if (now >= then)
		return now - then;
	*reset = true;
	return now;
}

/* hf_irq_counts - interrupts per CPU in the window, "CPU 3: 120, CPU 5: 7" */
static void hf_irq_counts(FILE *f, const struct hf_interrupts *in,
			  const struct hf_irq_line *now,
			  const struct hf_irq_line *then)
{
	uint64_t d, sum = 0;
	unsigned int c;
	bool any = false, reset = false, r;

	for (c = 0; c < in->nr_cols; c++)
		sum += hf_count_delta(now->counts[c],
				      then ? then->counts[c] : 0, &reset);
	fprintf(f, "  in the window:       %llu%s", (unsigned long long)sum,
		reset ? " (counter reset)" : "");
	if (!then)
		fprintf(f, " (since boot: no start to compare with)");
	for (c = 0; c < in->nr_cols; c++) {
		r = false;
		d = hf_count_delta(now->counts[c], then ? then->counts[c] : 0,
				   &r);
		if (!d && !r)
			continue;
		fprintf(f, "%sCPU %u: %llu%s", any ? ", " : " (", in->cpu[c],
			(unsigned long long)d, r ? " since reset" : "");
		any = true;
	}
	fprintf(f, "%s\n", any ? ")" : "");
	if (reset)
		fprintf(f, "  %-20s a count went down: the IRQ was freed and requested again (the driver does so when its last client closes); counted from 0 since\n",
			"counter reset:");
}

/* hf_irq_aff - one affinity file of IRQ @irq, or "absent: why" */
static void hf_irq_aff(FILE *f, const char *root, int irq, const char *file,
		       const char *label, uint64_t *mask, bool *ok)
{
	char buf[1024];
	int ret;

	*ok = false;
	ret = hf_read_line(root, buf, sizeof(buf), "/proc/irq/%d/%s", irq,
			   file);
	if (ret) {
		fprintf(f, "  %-20s absent: /proc/irq/%d/%s: %s\n", label, irq,
			file, hf_why(ret));
		return;
	}
	fprintf(f, "  %-20s %s\n", label, buf);
	if (mask && !hf_cpulist_parse(buf, mask))
		*ok = true;
}

static int hf_write_irq(struct hostfacts *h, struct bundle *b,
			const struct hf_interrupts *now,
			const struct hf_interrupts *then, int now_err,
			const struct hf_pci_fn *pci, size_t nr_pci)
{
	static const char path[] = "host/irq.txt";
	uint64_t eff[HF_MASK_WORDS], local[HF_MASK_WORDS];
	const struct hf_irq_line *l, *t;
	const struct hf_pci_fn *fn;
	char buf[256];
	size_t i, n = 0;
	bool eff_ok, dummy;
	unsigned int c;
	FILE *f;

	f = bundle_create(b, path,
			  "IRQs of the nvidia driver: affinity, effective affinity, node, their GPU, interrupts per CPU in the window");
	if (!f)
		return b->err;
	if (!hf_read_line(h->root, buf, sizeof(buf),
			  "/proc/irq/default_smp_affinity"))
		fprintf(f, "default_smp_affinity: %s\n\n", buf);
	if (now_err) {
		hf_absent(b, f, path, "/proc/interrupts: %s", hf_why(now_err));
		return bundle_close(b, f, path);
	}
	for (i = 0; i < now->nr; i++) {
		l = &now->line[i];
		if (l->irq < 0 || !hf_desc_has_action(l->desc, "nvidia"))
			continue;
		n++;
		fprintf(f, "irq %d  %s\n", l->irq, l->desc);
		fn = hf_pci_of_irq(pci, nr_pci, l->irq);
		if (fn)
			fprintf(f, "  %-20s %s (NUMA node %d, local CPUs %s)\n",
				"device:", fn->addr, fn->numa_node,
				fn->local_cpus[0] ? fn->local_cpus : "unknown");
		else
			fprintf(f, "  %-20s not found among the NVIDIA PCI functions' irq and msi_irqs\n",
				"device:");
		hf_irq_aff(f, h->root, l->irq, "smp_affinity_list",
			   "smp_affinity_list:", NULL, &dummy);
		hf_irq_aff(f, h->root, l->irq, "effective_affinity_list",
			   "effective_affinity:", eff, &eff_ok);
		hf_irq_aff(f, h->root, l->irq, "node", "node:", NULL, &dummy);
		if (eff_ok && fn && fn->local_cpus[0] &&
		    !hf_cpulist_parse(fn->local_cpus, local)) {
			bool remote = false;

			for (c = 0; c < HF_MAX_CPUS; c++)
				if (hf_bit(eff, c) && !hf_bit(local, c))
					remote = true;
			fprintf(f, "  %-20s %s\n", "local to the GPU:",
				remote ? "no: handled on a CPU of another NUMA node" :
				"yes");
		}
		t = then ? hf_interrupts_find(then, l->irq) : NULL;
		if (t && then->nr_cols != now->nr_cols)
			t = NULL;
		hf_irq_counts(f, now, l, t);
		fprintf(f, "  %-20s %llu\n", "since boot:",
			(unsigned long long)l->total);
	}
	if (!n)
		hf_absent(b, f, path,
			  "no IRQ with an action named nvidia in /proc/interrupts (the driver requests them when a GPU is first opened and frees them when the last client closes, unless persistence mode is on)");
	return bundle_close(b, f, path);
}

static int hf_write_irqbalance(struct hostfacts *h, struct bundle *b)
{
	static const char path[] = "host/irqbalance.txt";
	char cmd[512], *args;
	int pids[8], n, i;
	size_t len, j;
	FILE *f;

	f = bundle_create(b, path, "whether irqbalance runs, and its command line");
	if (!f)
		return b->err;
	n = hf_irqbalance_pids(h->root, pids, 8);
	if (n < 0) {
		hf_absent(b, f, path, "/proc: %s", hf_why(n));
		return bundle_close(b, f, path);
	}
	if (!n)
		fprintf(f, "irqbalance: not running\n");
	for (i = 0; i < n && i < 8; i++) {
		snprintf(cmd, sizeof(cmd), "/proc/%d/cmdline", pids[i]);
		if (hf_read(h->root, cmd, &args, &len)) {
			fprintf(f, "irqbalance: running, pid %d\n", pids[i]);
			continue;
		}
		for (j = 0; j + 1 < len; j++)
			if (!args[j])
				args[j] = ' ';
		fprintf(f, "irqbalance: running, pid %d: %s\n", pids[i], args);
		free(args);
	}
	if (n)
		fprintf(f, "note: irqbalance rewrites the affinity of IRQs it is not told to leave alone (--banirq, IRQBALANCE_BANNED_CPULIST)\n");
	return bundle_close(b, f, path);
}

/* hf_cpu_freq - governors, then one row per CPU */
static void hf_cpu_freq(FILE *f, const char *root, const unsigned int *cpus,
			size_t n)
{
	static const char *const col[] = {
		"scaling_cur_freq", "scaling_min_freq", "scaling_max_freq",
		"cpuinfo_max_freq",
	};
	char gov[64], drv[64], val[64], list[1024], base[64];
	uint64_t mask[HF_MASK_WORDS];
	size_t i, j, k, have = 0;

	if (!hf_read_line(root, drv, sizeof(drv),
			  "/sys/devices/system/cpu/cpu%u/cpufreq/scaling_driver",
			  n ? cpus[0] : 0))
		fprintf(f, "cpufreq driver: %s\n", drv);
	/* One line per governor with the CPUs using it. */
	for (i = 0; i < n; i++) {
		bool seen = false;

		if (hf_read_line(root, gov, sizeof(gov),
				 "/sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor",
				 cpus[i]))
			continue;
		have++;
		for (j = 0; j < i && !seen; j++)
			seen = !hf_read_line(root, val, sizeof(val),
				"/sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor",
				cpus[j]) && !strcmp(val, gov);
		if (seen)
			continue;
		memset(mask, 0, sizeof(mask));
		for (j = i; j < n; j++)
			if (!hf_read_line(root, val, sizeof(val),
				"/sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor",
				cpus[j]) && !strcmp(val, gov) && cpus[j] < HF_MAX_CPUS)
				mask[cpus[j] / 64] |= 1ULL << (cpus[j] % 64);
		fprintf(f, "governor %s: CPUs %s\n", gov,
			hf_cpulist_format(list, sizeof(list), mask));
	}
	if (!have) {
		fprintf(f, "absent: no /sys/devices/system/cpu/cpu*/cpufreq (no cpufreq driver: firmware controls the clock, or a virtual machine)\n");
		return;
	}
	fprintf(f, "\n%-5s %-14s %10s %10s %10s %10s  (kHz)\n", "cpu",
		"governor", "cur", "min", "max", "hw max");
	for (i = 0; i < n; i++) {
		snprintf(base, sizeof(base), "/sys/devices/system/cpu/cpu%u/cpufreq",
			 cpus[i]);
		if (hf_read_line(root, gov, sizeof(gov), "%s/scaling_governor",
				 base))
			snprintf(gov, sizeof(gov), "-");
		fprintf(f, "%-5u %-14s", cpus[i], gov);
		for (k = 0; k < 4; k++) {
			if (hf_read_line(root, val, sizeof(val), "%s/%s", base,
					 col[k]))
				snprintf(val, sizeof(val), "-");
			fprintf(f, " %10s", val);
		}
		fputc('\n', f);
	}
}

/* hf_cpu_idle - the idle states: exit latency, where disabled, entries */
static void hf_cpu_idle(FILE *f, struct hostfacts *h, const unsigned int *cpus,
			size_t n)
{
	struct hf_idle_usage *now = NULL;
	uint64_t dis[HF_MASK_WORDS], entries;
	bool reset;
	char name[64], lat[32], res[32], list[1024], path[128], val[32];
	size_t nr_now = 0, i, j;
	unsigned int s;

	if (!hf_read_line(h->root, val, sizeof(val),
			  "/sys/devices/system/cpu/cpuidle/current_driver"))
		fprintf(f, "cpuidle driver: %s\n", val);
	if (!hf_read_line(h->root, val, sizeof(val),
			  "/sys/devices/system/cpu/cpuidle/current_governor_ro") ||
	    !hf_read_line(h->root, val, sizeof(val),
			  "/sys/devices/system/cpu/cpuidle/current_governor"))
		fprintf(f, "cpuidle governor: %s\n", val);
	if (!n || hf_read_line(h->root, name, sizeof(name),
			       "/sys/devices/system/cpu/cpu%u/cpuidle/state0/name",
			       cpus[0])) {
		fprintf(f, "absent: no /sys/devices/system/cpu/cpu*/cpuidle (no cpuidle driver, or idle=poll)\n");
		return;
	}
	if (hf_idle_read(h->root, &now, &nr_now))
		nr_now = 0;
	fprintf(f, "\nidle states (names and latencies of CPU %u):\n", cpus[0]);
	fprintf(f, "%-6s %-16s %12s %14s  %-16s %s\n", "state", "name",
		"exit lat us", "residency us", "disabled on", "entered in window");
	for (s = 0; s < HF_MAX_IDLE_STATES; s++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/cpuidle/state%u",
			 cpus[0], s);
		if (hf_read_line(h->root, name, sizeof(name), "%s/name", path))
			break;
		if (hf_read_line(h->root, lat, sizeof(lat), "%s/latency", path))
			snprintf(lat, sizeof(lat), "-");
		if (hf_read_line(h->root, res, sizeof(res), "%s/residency", path))
			snprintf(res, sizeof(res), "-");
		memset(dis, 0, sizeof(dis));
		for (i = 0; i < n; i++)
			if (!hf_read_line(h->root, val, sizeof(val),
				"/sys/devices/system/cpu/cpu%u/cpuidle/state%u/disable",
				cpus[i], s) && atoi(val) && cpus[i] < HF_MAX_CPUS)
				dis[cpus[i] / 64] |= 1ULL << (cpus[i] % 64);
		hf_cpulist_format(list, sizeof(list), dis);
		entries = 0;
		reset = false;
		for (i = 0; i < nr_now; i++) {
			if (now[i].state != s)
				continue;
			for (j = 0; j < h->nr_idle; j++)
				if (h->idle[j].cpu == now[i].cpu &&
				    h->idle[j].state == s)
					entries += hf_count_delta(now[i].usage,
								  h->idle[j].usage,
								  &reset);
		}
		fprintf(f, "%-6u %-16s %12s %14s  %-16s %llu%s\n", s, name, lat,
			res, list[0] ? list : "-", (unsigned long long)entries,
			reset ? " (counter reset)" : "");
	}
	free(now);
}

static int hf_write_cpu(struct hostfacts *h, struct bundle *b)
{
	static const char path[] = "host/cpu.txt";
	static const char *const sets[] = { "online", "isolated", "nohz_full" };
	unsigned int *cpus = NULL;
	char val[1024];
	size_t n = 0, i;
	FILE *f;
	int ret;

	f = bundle_create(b, path,
			  "cpufreq governors and clocks, idle states and their exit latency, isolated and nohz_full CPUs");
	if (!f)
		return b->err;
	ret = hf_cpus(h->root, &cpus, &n);
	if (ret) {
		hf_absent(b, f, path, "/sys/devices/system/cpu: %s", hf_why(ret));
		return bundle_close(b, f, path);
	}
	for (i = 0; i < 3; i++) {
		ret = hf_read_line(h->root, val, sizeof(val),
				   "/sys/devices/system/cpu/%s", sets[i]);
		fprintf(f, "%-10s %s\n", sets[i], ret ? "absent" :
			val[0] ? val : "none");
	}
	fputc('\n', f);
	hf_cpu_freq(f, h->root, cpus, n);
	fputc('\n', f);
	hf_cpu_idle(f, h, cpus, n);
	free(cpus);
	return bundle_close(b, f, path);
}

/* hf_vmstat_get - value of counter @name in vmstat text, or false */
static bool hf_vmstat_get(const char *text, const char *name, uint64_t *v)
{
	size_t n = strlen(name);
	const char *p = text, *end;

	while (p && *p) {
		if (!strncmp(p, name, n) && p[n] == ' ') {
			p += n + 1;
			end = strchrnul(p, '\n');
			return hf_num(&p, end, v);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

static int hf_write_thp(struct hostfacts *h, struct bundle *b,
			const char *vm_start)
{
	static const char path[] = "host/thp.txt";
	static const char *const thp[] = {
		"enabled", "defrag", "khugepaged/defrag", "shmem_enabled",
	};
	static const char *const sysctl[] = {
		"vm/compaction_proactiveness", "vm/extfrag_threshold",
		"vm/zone_reclaim_mode", "vm/swappiness", "vm/min_free_kbytes",
		"kernel/numa_balancing",
	};
	/* Counters of the stalls that hold up the driver's allocations. */
	static const char *const vm[] = {
		"compact_stall", "compact_fail", "compact_success",
		"allocstall_normal", "allocstall_movable", "pgscan_direct",
		"thp_fault_alloc", "thp_fault_fallback", "thp_collapse_alloc",
	};
	char val[256], choice[64], *vm_end = NULL;
	uint64_t a, z;
	size_t i, len;
	FILE *f;
	int ret;

	f = bundle_create(b, path,
			  "transparent huge pages enabled/defrag, compaction and reclaim settings, their stall counters in the window");
	if (!f)
		return b->err;
	for (i = 0; i < 4; i++) {
		ret = hf_read_line(h->root, val, sizeof(val),
				   "/sys/kernel/mm/transparent_hugepage/%s",
				   thp[i]);
		if (ret && i == 0) {
			hf_absent(b, f, path,
				  "/sys/kernel/mm/transparent_hugepage/enabled: %s (kernel without THP?)",
				  hf_why(ret));
			continue;
		}
		if (ret)
			fprintf(f, "%-22s absent: %s\n", thp[i], hf_why(ret));
		else if (!hf_bracket_choice(val, choice, sizeof(choice)))
			fprintf(f, "%-22s %s  (%s)\n", thp[i], choice, val);
		else
			fprintf(f, "%-22s %s\n", thp[i], val);
	}
	fputc('\n', f);
	for (i = 0; i < ARRAY_SIZE_HF(sysctl); i++) {
		ret = hf_read_line(h->root, val, sizeof(val), "/proc/sys/%s",
				   sysctl[i]);
		fprintf(f, "%-28s %s\n", sysctl[i], ret ? "absent" : val);
	}
	if (hf_read(h->root, "/proc/vmstat", &vm_end, &len)) {
		fprintf(f, "\nabsent: /proc/vmstat\n");
		return bundle_close(b, f, path);
	}
	fprintf(f, "\n%-22s %14s %14s\n", "/proc/vmstat", "in window", "since boot");
	for (i = 0; i < ARRAY_SIZE_HF(vm); i++) {
		if (!hf_vmstat_get(vm_end, vm[i], &z))
			continue;
		if (vm_start && hf_vmstat_get(vm_start, vm[i], &a))
			fprintf(f, "%-22s %14llu %14llu\n", vm[i],
				(unsigned long long)(z - a),
				(unsigned long long)z);
		else
			fprintf(f, "%-22s %14s %14llu\n", vm[i], "-",
				(unsigned long long)z);
	}
	free(vm_end);
	return bundle_close(b, f, path);
}

/* hf_aer_lines - the non-zero counters of one aer_dev_* file */
static void hf_aer_lines(FILE *f, const char *root, const char *addr,
			 const char *file)
{
	char path[PATH_MAX], *buf, *p, *nl;
	size_t len;

	snprintf(path, sizeof(path), PCI_DEVS "%s/%s", addr, file);
	if (hf_read(root, path, &buf, &len))
		return;
	for (p = buf; *p; p = nl + (*nl != '\0')) {
		const char *sp;

		nl = strchrnul(p, '\n');
		sp = memchr(p, ' ', nl - p);
		if (sp && strncmp(p, "TOTAL_", 6) &&
		    (nl - sp != 2 || sp[1] != '0'))
			fprintf(f, "    %s: %.*s\n", file, (int)(nl - p), p);
	}
	free(buf);
}

static int hf_write_pcie(struct hostfacts *h, struct bundle *b,
			 const struct hf_pci_fn *fn, size_t nr, int err)
{
	static const char path[] = "host/pcie.txt";
	size_t i, j;
	FILE *f;

	f = bundle_create(b, path,
			  "PCIe link speed and width, current against maximum, and AER counters of every NVIDIA function");
	if (!f)
		return b->err;
	if (err) {
		hf_absent(b, f, path, PCI_DEVS ": %s", hf_why(err));
		return bundle_close(b, f, path);
	}
	if (!nr) {
		hf_absent(b, f, path,
			  "no PCI function of vendor 0x10de under " PCI_DEVS);
		return bundle_close(b, f, path);
	}
	fprintf(f, "note: GPUs lower their link speed when idle; a width below the maximum is a hardware fault\n\n");
	for (i = 0; i < nr; i++) {
		fprintf(f, "%s  class 0x%06x  device 0x%04x\n", fn[i].addr,
			fn[i].class, fn[i].device);
		if (fn[i].cur_speed[0] || fn[i].cur_width >= 0)
			fprintf(f, "  link:   %s x%d, max %s x%d%s\n",
				fn[i].cur_speed[0] ? fn[i].cur_speed : "?",
				fn[i].cur_width,
				fn[i].max_speed[0] ? fn[i].max_speed : "?",
				fn[i].max_width,
				hf_pci_downtrained(&fn[i]) ?
				"  BELOW MAXIMUM" : "");
		else
			fprintf(f, "  link:   absent: no current_link_speed/width (not a PCIe function?)\n");
		fprintf(f, "  node:   %d, local CPUs %s\n", fn[i].numa_node,
			fn[i].local_cpus[0] ? fn[i].local_cpus : "unknown");
		fprintf(f, "  irqs:   ");
		if (fn[i].irq > 0)
			fprintf(f, "INTx %d", fn[i].irq);
		for (j = 0; j < fn[i].nr_msi; j++)
			fprintf(f, "%s%d", j ? "," : fn[i].irq > 0 ?
				", MSI " : "MSI ", fn[i].msi[j]);
		if (fn[i].irq <= 0 && !fn[i].nr_msi)
			fprintf(f, "none");
		fputc('\n', f);
		if (!fn[i].has_aer) {
			fprintf(f, "  aer:    absent: no aer_dev_* files (AER not enabled for this function)\n");
			continue;
		}
		fprintf(f, "  aer:    correctable %llu, nonfatal %llu, fatal %llu\n",
			(unsigned long long)fn[i].aer_cor,
			(unsigned long long)fn[i].aer_nonfatal,
			(unsigned long long)fn[i].aer_fatal);
		hf_aer_lines(f, h->root, fn[i].addr, "aer_dev_correctable");
		hf_aer_lines(f, h->root, fn[i].addr, "aer_dev_nonfatal");
		hf_aer_lines(f, h->root, fn[i].addr, "aer_dev_fatal");
	}
	return bundle_close(b, f, path);
}

/* The last HF_KMSG_KEEP wanted lines, as a ring. */
struct hf_kmsg {
	char *line[HF_KMSG_KEEP];
	size_t next, total;
};

static int hf_kmsg_add(struct hf_kmsg *k, const char *rec, size_t len)
{
	const char *msg;
	size_t mlen;
	uint64_t us;
	char *s;

	if (!len || rec[0] == ' ')	/* continuation " KEY=value" */
		return 0;
	if (hf_kmsg_parse(rec, len, &us, &msg, &mlen) ||
	    !hf_kmsg_wanted(msg, mlen))
		return 0;
	if (asprintf(&s, "[%5llu.%06llu] %.*s", (unsigned long long)(us / 1000000),
		     (unsigned long long)(us % 1000000), (int)mlen, msg) < 0)
		return -ENOMEM;
	free(k->line[k->next]);
	k->line[k->next] = s;
	k->next = (k->next + 1) % HF_KMSG_KEEP;
	k->total++;
	return 0;
}

/* hf_kmsg_read - every record /dev/kmsg holds now, without blocking */
static int hf_kmsg_read(const char *root, struct hf_kmsg *k)
{
	char path[PATH_MAX], buf[8192 + 1];
	size_t have = 0;
	ssize_t n;
	char *p, *nl;
	int fd, ret = 0;

	ret = hf_path(path, sizeof(path), root, "/dev/kmsg");
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0) {
			/* EPIPE: records were overwritten under us; go on. */
			if (errno == EINTR || errno == EPIPE)
				continue;
			if (errno != EAGAIN)
				ret = -errno;
			break;
		}
		if (!n)
			break;
		have += n;
		buf[have] = '\0';
		/* /dev/kmsg gives one record per read; a file gives many. */
		for (p = buf; (nl = memchr(p, '\n', buf + have - p)); p = nl + 1)
			if (hf_kmsg_add(k, p, nl - p)) {
				ret = -ENOMEM;
				goto out;
			}
		have -= p - buf;
		memmove(buf, p, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* a line longer than the buffer */
	}
	if (!ret && have && hf_kmsg_add(k, buf, have))
		ret = -ENOMEM;
out:
	close(fd);
	return ret;
}

static int hf_write_kmsg(struct hostfacts *h, struct bundle *b)
{
	static const char path[] = "host/kernel-log.txt";
	struct hf_kmsg k = { 0 };
	size_t i, n;
	FILE *f;
	int ret;

	f = bundle_create(b, path,
			  "the last kernel log lines that mention NVRM or Xid (/dev/kmsg)");
	if (!f)
		return b->err;
	ret = hf_kmsg_read(h->root, &k);
	if (ret == -ENOMEM) {
		fclose(f);
		for (i = 0; i < HF_KMSG_KEEP; i++)
			free(k.line[i]);
		bundle_fail(b, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	if (ret && !k.total) {
		hf_absent(b, f, path, "/dev/kmsg: %s", hf_why(ret));
	} else {
		n = k.total < HF_KMSG_KEEP ? k.total : HF_KMSG_KEEP;
		fprintf(f, "%zu kernel log lines mention NVRM or Xid", k.total);
		if (n < k.total)
			fprintf(f, " (the last %zu shown)", n);
		fprintf(f, "%s\n", ret ? " (reading stopped early)" : "");
		for (i = 0; i < n; i++)
			fprintf(f, "%s\n",
				k.line[(k.next + HF_KMSG_KEEP - n + i) % HF_KMSG_KEEP]);
	}
	for (i = 0; i < HF_KMSG_KEEP; i++)
		free(k.line[i]);
	return bundle_close(b, f, path);
}

static int hf_write_kernel(struct hostfacts *h, struct bundle *b)
{
	static const char path[] = "host/kernel.txt";
	static const char *const src[][2] = {
		{ "release", "/proc/sys/kernel/osrelease" },
		{ "version", "/proc/version" },
		{ "cmdline", "/proc/cmdline" },
		{ "tainted", "/proc/sys/kernel/tainted" },
	};
	char val[4096];
	size_t i;
	FILE *f;
	int ret;

	f = bundle_create(b, path, "kernel release, version, command line, taint flags");
	if (!f)
		return b->err;
	for (i = 0; i < ARRAY_SIZE_HF(src); i++) {
		ret = hf_read_line(h->root, val, sizeof(val), "%s", src[i][1]);
		if (ret && i == 0)
			hf_absent(b, f, path, "%s: %s", src[i][1], hf_why(ret));
		else if (ret)
			fprintf(f, "%-8s absent: %s: %s\n", src[i][0], src[i][1],
				hf_why(ret));
		else
			fprintf(f, "%-8s %s\n", src[i][0], val);
	}
	return bundle_close(b, f, path);
}

static int hf_write_params(struct hostfacts *h, struct bundle *b)
{
	static const char path[] = "host/gpulat-params.txt";
	static const char dir[] = "/sys/module/gpulat/parameters";
	char **names, val[1024];
	size_t i, n;
	FILE *f;
	int ret;

	f = bundle_create(b, path, "gpulat.ko's parameters (/sys/module/gpulat/parameters)");
	if (!f)
		return b->err;
	ret = hf_list(h->root, dir, &names, &n);
	if (ret) {
		hf_absent(b, f, path, "%s: %s%s", dir, hf_why(ret),
			  ret == -ENOENT ? " (gpulat.ko is not loaded)" : "");
		return bundle_close(b, f, path);
	}
	for (i = 0; i < n; i++) {
		ret = hf_read_line(h->root, val, sizeof(val), "%s/%s", dir,
				   names[i]);
		fprintf(f, "%s = %s\n", names[i], ret ? "(not readable)" : val);
	}
	if (!n)
		fprintf(f, "(no parameters)\n");
	hf_list_free(names, n);
	return bundle_close(b, f, path);
}

int hostfacts_end(struct hostfacts *h, struct bundle *b)
{
	struct hf_interrupts now = { 0 }, then = { 0 };
	struct hf_pci_fn *pci = NULL;
	size_t nr_pci = 0, len;
	int ret, now_err, pci_err;
	char *text, *vm_start = NULL;

	ret = hf_copy(h, b, "/proc/interrupts", "host/interrupts-end.txt",
		      "/proc/interrupts when the watch ended", NULL);
	if (!ret)
		ret = hf_copy(h, b, "/proc/softirqs", "host/softirqs-end.txt",
			      "/proc/softirqs when the watch ended", NULL);
	if (!ret)
		ret = hf_copy(h, b, "/proc/vmstat", "host/vmstat-end.txt",
			      "/proc/vmstat when the watch ended", NULL);
	if (ret)
		return ret;

	now_err = hf_read(h->root, "/proc/interrupts", &text, &len);
	if (!now_err) {
		now_err = hf_interrupts_parse(text, len, &now);
		free(text);
	}
	if (now_err == -ENOMEM)
		goto oom;
	if (h->interrupts && hf_interrupts_parse(h->interrupts,
						 h->interrupts_len, &then) == -ENOMEM)
		goto oom;
	pci_err = hf_pci_scan(h->root, &pci, &nr_pci);
	if (pci_err == -ENOMEM)
		goto oom;
	/* The start's vmstat is in the folder already. */
	{
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/host/vmstat-start.txt", b->dir);
		if (hf_read("", p, &vm_start, &len))
			vm_start = NULL;
	}

	ret = hf_write_irq(h, b, &now, h->interrupts && then.nr_cols ?
			   &then : NULL, now_err, pci, nr_pci);
	if (!ret)
		ret = hf_write_irqbalance(h, b);
	if (!ret)
		ret = hf_write_cpu(h, b);
	if (!ret)
		ret = hf_write_thp(h, b, vm_start);
	if (!ret)
		ret = hf_write_pcie(h, b, pci, nr_pci, pci_err);
	if (!ret)
		ret = hf_copy(h, b, "/proc/driver/nvidia/version",
			      "host/driver.txt",
			      "NVIDIA driver version (/proc/driver/nvidia/version)",
			      "(the NVIDIA driver is not loaded)");
	if (!ret)
		ret = hf_write_kmsg(h, b);
	if (!ret)
		ret = hf_write_kernel(h, b);
	if (!ret)
		ret = hf_write_params(h, b);
	free(vm_start);
	hf_pci_free(pci, nr_pci);
	hf_interrupts_free(&now);
	hf_interrupts_free(&then);
	return ret;
oom:
	hf_pci_free(pci, nr_pci);
	hf_interrupts_free(&now);
	hf_interrupts_free(&then);
	bundle_fail(b, -ENOMEM, "out of memory");
	return -ENOMEM;
}
