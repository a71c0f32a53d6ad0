// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: the BPF source's cuda family, what the tool does for it
 * (bpf/cuda.bpf.h).  Before its programs attach, forget the calls in
 * flight (the module's cuda_clear()).  Once its tracepoints attached,
 * place its programs on the CUDA driver library gl_cudalib_resolve()
 * finds ($GPULAT_LIBCUDA, else the dynamic linker's libcuda.so.1): a
 * uretprobe and a uprobe at each function's file offset, every return
 * before any entry (a call entered between them would keep an entry no
 * return ever deletes: its thread's later calls would all count as
 * nested); take the entries off, then the returns, before the
 * tracepoints detach.  A uprobe is on the file's inode: one placement
 * covers every process that maps it, containers included.
 *
 * Each placement is a perf event of the uprobe PMU with the program
 * attached by a BPF link (Linux 5.15), which a pinned source pins as
 * links/gl_cuda_{entry,return}_FUNCTION, so that it stays placed after
 * gpulat attach exits and a later user sees it there and places nothing
 * twice.  This goes by the programs' fds, not libbpf's
 * bpf_program__attach_uprobe_opts(): a pinned source's later users (its
 * refresh once the library is installed, gpulat enable) have the pinned
 * programs' fds, not the object that loaded them.  Before Linux 5.15 a
 * perf event takes the program itself (PERF_EVENT_IOC_SET_BPF): it lasts
 * as long as the process that placed it, so a source of a command's own
 * has its uprobes and a pinned one holds the family back, saying why.
 * Without the library, the family is held back too, and its tracepoints
 * stay off: nothing would be timed.  Where the uprobes lie (inode, device,
 * offsets) is kept in the settings, as GPULAT_IOC_CUDA answers it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>

#include "lib/bpf_fam.h"
#include "lib/bpf_int.h"
#include "lib/bpf_source.h"
#include "lib/cudalib.h"
#include "lib/source.h"

#define BS_UPROBE_PMU	"/sys/bus/event_source/devices/uprobe"

/* Deletes at most while emptying the calls in flight (they are 1,024). */
#define BS_CUDA_DELETES	65536

enum { BS_UP_ENTRY, BS_UP_RETURN };

int gl_bpf_cuda_clear(struct gl_bpf *b)
{
	int cfd = gl_bpf_map_fd(b, "gl_cuda_calls");
	int sfd = gl_bpf_map_fd(b, "gl_cuda_state");
	uint64_t zero64 = 0;
	uint32_t zero = 0, tid;
	unsigned int n;

	if (cfd < 0 || sfd < 0)
		return -ENOENT;
	/* the first key each time: a walk of a map that changes restarts */
	for (n = 0; n < BS_CUDA_DELETES; n++)
		if (bpf_map_get_next_key(cfd, NULL, &tid) ||
		    bpf_map_delete_elem(cfd, &tid))
			break;
	return bpf_map_update_elem(sfd, &zero, &zero64, BPF_ANY) ? -errno : 0;
}

/* bs_read_uint - the number a sysfs file of the uprobe PMU starts with */
static int bs_read_uint(const char *file, const char *fmt, int *v)
{
	char path[128];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/%s", BS_UPROBE_PMU, file);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, fmt, v);
	fclose(f);
	return n == 1 ? 0 : -EINVAL;
}

/* bs_up_open - a perf event of the uprobe PMU at @path + @off, any process */
static int bs_up_open(const char *path, uint64_t off, bool ret)
{
	struct perf_event_attr attr;
	int type, bit = 0, fd;

	if (bs_read_uint("type", "%d", &type) ||
	    (ret && bs_read_uint("format/retprobe", "config:%d", &bit)) ||
	    bit < 0 || bit > 63)
		return -ENOENT;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = ret ? 1ULL << bit : 0;
	attr.config1 = (uint64_t)(uintptr_t)path;
	attr.config2 = off;
	/* every process (pid -1), which perf takes with one CPU named */
	fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * bs_up_attach - program @prog on perf event @pfd (closed): a BPF link,
 * which can be pinned (*@pinnable), else, before Linux 5.15, the event
 * itself; the fd that holds the placement, or -errno
 */
static int bs_up_attach(int prog, int pfd, bool *pinnable)
{
	int link = bpf_link_create(prog, pfd, BPF_PERF_EVENT, NULL);
	int ret;

	*pinnable = link >= 0;
	if (link >= 0) {
		close(pfd);
		return link;
	}
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog) ||
	    ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0)) {
		ret = -errno;
		close(pfd);
		return ret;
	}
	return pfd;
}

/* bs_up_link_path - where the placement of function @i, @kind is pinned */
static void bs_up_link_path(const struct gl_bpf *b, char *buf, size_t len,
			    unsigned int i, int kind)
{
	char name[GL_BPF_NAME];

	snprintf(name, sizeof(name), "%s_%s",
		 gl_bpf_family(GPULAT_FAM_CUDA)->up_prog[kind],
		 gl_cuda_fn_name(i));
	gl_bpf_pin_path(b, buf, len, "links", name);
}

/* bs_up_placed - whether function @i has its @kind placement already */
static bool bs_up_placed(const struct gl_bpf *b, unsigned int i, int kind)
{
	char path[256];

	if (b->up_link[i][kind] >= 0)
		return true;
	if (!b->pinned)
		return false;
	bs_up_link_path(b, path, sizeof(path), i, kind);
	return !access(path, F_OK);
}

/* bs_up_remove - take function @i's @kind placement off (pin and fd) */
static void bs_up_remove(struct gl_bpf *b, unsigned int i, int kind)
{
	char path[256];

	if (b->pinned) {
		bs_up_link_path(b, path, sizeof(path), i, kind);
		unlink(path);
	}
	if (b->up_link[i][kind] >= 0)
		close(b->up_link[i][kind]);
	b->up_link[i][kind] = -1;
}

/*
 * bs_up_place - place @kind at function @i of @lib, pinned when @b is; 0
 * when it was placed before
 */
static int bs_up_place(struct gl_bpf *b, const struct gl_cudalib *lib,
		       unsigned int i, int kind)
{
	char path[256];
	bool pinnable;
	int fd;

	if (bs_up_placed(b, i, kind))
		return 0;
	if (b->up_prog[kind] < 0)
		return -ENOENT;
	fd = bs_up_open(lib->path, lib->offset[i], kind == BS_UP_RETURN);
	if (fd < 0)
		return fd;
	fd = bs_up_attach(b->up_prog[kind], fd, &pinnable);
	if (fd < 0)
		return fd;
	b->up_link[i][kind] = fd;
	if (!b->pinned)
		return 0;
	if (!pinnable)
		return -EOPNOTSUPP;	/* gone with this process: not placed */
	bs_up_link_path(b, path, sizeof(path), i, kind);
	if (bpf_obj_pin(fd, path))
		return -errno;
	/* the pin holds it: a detach by another user takes it off at once */
	close(fd);
	b->up_link[i][kind] = -1;
	return 0;
}

/* bs_up_record - the settings say where the uprobes lie (@lib NULL: none) */
static void bs_up_record(struct gl_bpf *b, const struct gl_cudalib *lib)
{
	struct gl_bpf_conf c;
	struct stat st;
	unsigned int i;

	gl_bpf_lock(b);
	if (!gl_bpf_conf_get(b, &c)) {
		c.cuda_ino = c.cuda_dev = 0;
		memset(c.cuda_off, 0, sizeof(c.cuda_off));
		if (lib && !stat(lib->path, &st)) {
			c.cuda_ino = st.st_ino;
			c.cuda_dev = st.st_dev;
			for (i = 0; i < GPULAT_CUDA_FN_MAX; i++)
				c.cuda_off[i] = lib->offset[i];
		}
		gl_bpf_conf_put(b, &c);
	}
	gl_bpf_unlock(b);
}

/* bs_up_remove_all - the entries first, then the returns */
static void bs_up_remove_all(struct gl_bpf *b)
{
	unsigned int i;
	int kind;

	for (kind = BS_UP_ENTRY; kind <= BS_UP_RETURN; kind++)
		for (i = 0; i < GPULAT_CUDA_FN_MAX; i++)
			bs_up_remove(b, i, kind);
}

/*
 * bs_perf_links - whether this kernel attaches programs to perf events by
 * BPF links (Linux 5.15), which can be pinned: one refused for its bad
 * target (EBADF), not for its attach type (EINVAL), as libbpf probes it
 */
static bool bs_perf_links(int prog)
{
	int fd = bpf_link_create(prog, -1, BPF_PERF_EVENT, NULL);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	return errno == EBADF;
}

/*
 * bs_why - why no uprobe can be placed (@why), or 0 with @lib resolved:
 * no library, or a pinned source on a kernel that cannot pin them
 */
static int bs_why(const struct gl_bpf *b, struct gl_cudalib *lib, char *why,
		  size_t len)
{
	int ret = gl_cudalib_resolve(lib, NULL, why, len);

	if (ret)
		return ret;
	if (b->pinned && b->up_prog[BS_UP_ENTRY] >= 0 &&
	    !bs_perf_links(b->up_prog[BS_UP_ENTRY])) {
		snprintf(why, len,
			 "this kernel cannot keep uprobes pinned (BPF perf links, Linux 5.15); a BPF source loaded for a command (--source bpf) times the calls");
		return -EOPNOTSUPP;
	}
	return 0;
}

const char *gl_bpf_cuda_absent(const struct gl_bpf *b, char *why, size_t len)
{
	struct gl_cudalib lib;
	char lwhy[400];
	int ret = bs_why(b, &lib, lwhy, sizeof(lwhy));

	if (!ret)
		return NULL;
	snprintf(why, len, "held back%s: %s",
		 ret == -EOPNOTSUPP ? "" :
		 " until a CUDA driver library is found", lwhy);
	return why;
}

/*
 * bs_unplaced - whether the settings say the family is attached and its
 * uprobes lie nowhere (what a refresh places)
 */
static bool bs_unplaced(const struct gl_bpf *b)
{
	struct gl_bpf_conf c;

	return !gl_bpf_conf_get(b, &c) && !c.cuda_ino &&
	       (c.attached & (1U << GPULAT_FAM_CUDA));
}

/* bs_place - place them all, or none */
static int bs_place(struct gl_bpf *b, const struct gl_cudalib *lib)
{
	unsigned int i;
	int kind, ret;

	/* every return before any entry */
	for (kind = BS_UP_RETURN; kind >= BS_UP_ENTRY; kind--)
		for (i = 0; i < GPULAT_CUDA_FN_MAX; i++) {
			if (!lib->offset[i])
				continue;
			ret = bs_up_place(b, lib, i, kind);
			if (ret) {
				fprintf(stderr,
					"gpulat: the cuda family's uprobe on %s (%s at 0x%llx) failed: %s\n",
					lib->path, gl_cuda_fn_name(i),
					(unsigned long long)lib->offset[i],
					strerror(-ret));
				bs_up_remove_all(b);
				bs_up_record(b, NULL);
				return ret;
			}
		}
	bs_up_record(b, lib);
	return 0;
}

int gl_bpf_cuda_on(struct gl_bpf *b, bool refresh)
{
	struct gl_cudalib lib;
	char why[512];
	int ret = 0;

	if (refresh && !bs_unplaced(b))
		return 0;
	if (bs_why(b, &lib, why, sizeof(why))) {
		if (!refresh)
			fprintf(stderr, "gpulat: the cuda family times nothing: %s\n",
				why);
		return 0;
	}
	/*
	 * one user of a pinned source at a time: at a refresh, another may
	 * have placed them, or switched the family off, meanwhile
	 */
	gl_bpf_lock(b);
	if (!refresh || bs_unplaced(b))
		ret = bs_place(b, &lib);
	gl_bpf_unlock(b);
	return ret;
}

void gl_bpf_cuda_off(struct gl_bpf *b)
{
	bs_up_remove_all(b);
	bs_up_record(b, NULL);
}

/*
 * gl_bpf_cuda_get - where the uprobes lie, as the module's GPULAT_IOC_CUDA
 * answers it; ino 0: none
 */
int gl_bpf_cuda_get(struct gl_bpf *b, struct gl_cuda_attached *a)
{
	struct gl_bpf_conf c;
	unsigned int i;
	int ret;

	memset(a, 0, sizeof(*a));
	ret = gl_bpf_conf_get(b, &c);
	if (ret)
		return ret;
	a->ino = c.cuda_ino;
	a->dev = c.cuda_dev;
	for (i = 0; c.cuda_ino && i < GPULAT_CUDA_FN_MAX; i++) {
		a->offset[i] = c.cuda_off[i];
		a->nr += !!c.cuda_off[i];
	}
	return 0;
}
