// SPDX-License-Identifier: GPL-2.0
/* libgpulat sources: the module or the BPF programs, behind one API. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/bpf_source.h"
#include "lib/gpulat_user.h"
#include "lib/libinternal.h"
#include "lib/source.h"

struct gl_source {
	enum gl_source_kind kind;	/* KMOD or BPF */
	int fd;				/* the module's file */
	uint32_t major, minor;
	struct gl_bpf *bpf;
};

int gl_source_parse(const char *s, enum gl_source_kind *kind)
{
	if (!strcmp(s, "auto"))
		*kind = GL_SOURCE_AUTO;
	else if (!strcmp(s, "kmod") || !strcmp(s, "module"))
		*kind = GL_SOURCE_KMOD;
	else if (!strcmp(s, "bpf"))
		*kind = GL_SOURCE_BPF;
	else if (!strcmp(s, "pinned"))
		*kind = GL_SOURCE_PINNED;
	else
		return -EINVAL;
	return 0;
}

struct gl_source *gl_source_open(enum gl_source_kind want, int *ret,
				 char *err, size_t errlen)
{
	struct gl_source_req rq = { .kind = want };

	return gl_source_open_req(&rq, ret, err, errlen);
}

/*
 * src_auto_pinned - auto without a module: the pinned source, said in
 * the note; NULL when there is none or it is not sound (said too)
 */
static struct gl_bpf *src_auto_pinned(const struct gl_source_req *rq)
{
	char why[512], by[160];
	struct gl_bpf *b;
	int ret;

	gl_bpf_pin_sweep();	/* what killed attaches left */
	if (rq->own || !gl_bpf_pinned())
		return NULL;
	b = gl_bpf_open(GL_BPF_PINNED, 0, &ret, why, sizeof(why));
	/* detached meanwhile: nothing to say */
	if (!b && ret == -ENOENT && !gl_bpf_pinned())
		return NULL;
	if (b) {
		gl_set_err(rq->note, rq->notelen,
			   "source: BPF pinned in %s by %s (--source bpf: one of this command's own)",
			   GL_BPF_PIN_DIR, gl_bpf_attached_by(b, by, sizeof(by)));
		return b;
	}
	gl_set_err(rq->note, rq->notelen,
		   "not read: %s; this command loads a BPF source of its own",
		   why);
	return NULL;
}

struct gl_source *gl_source_open_req(const struct gl_source_req *rq,
				     int *ret, char *err, size_t errlen)
{
	struct gl_source *src = calloc(1, sizeof(*src));
	enum gl_source_kind want = rq->kind;
	char kerr[1024], berr[1024];
	int fd;

	if (rq->note && rq->notelen)
		rq->note[0] = '\0';
	if (!src) {
		*ret = -ENOMEM;
		gl_set_err(err, errlen, "out of memory");
		return NULL;
	}
	src->fd = -1;
	if (want == GL_SOURCE_AUTO || want == GL_SOURCE_KMOD) {
		fd = gl_open(kerr, sizeof(kerr));
		if (fd >= 0) {
			src->kind = GL_SOURCE_KMOD;
			src->fd = fd;
			gl_version(fd, &src->major, &src->minor);
			return src;
		}
		/* auto goes on to BPF only when there is no module at all */
		if (want == GL_SOURCE_KMOD || !gl_no_module(fd)) {
			*ret = fd;
			gl_set_err(err, errlen, "%s", kerr);
			free(src);
			return NULL;
		}
	}
	src->kind = GL_SOURCE_BPF;
	src->major = GPULAT_ABI_MAJOR;
	src->minor = GPULAT_ABI_MINOR;
	if (want == GL_SOURCE_AUTO)
		src->bpf = src_auto_pinned(rq);
	if (!src->bpf)
		src->bpf = gl_bpf_open(want == GL_SOURCE_PINNED ?
				       GL_BPF_PINNED : GL_BPF_PRIVATE,
				       rq->families, ret,
				       want == GL_SOURCE_AUTO ? berr : err,
				       want == GL_SOURCE_AUTO ? sizeof(berr) :
				       errlen);
	if (!src->bpf) {
		/* auto: no source at all, which is what "no module" means */
		if (want == GL_SOURCE_AUTO) {
			gl_set_err(err, errlen,
				   "%s; and the BPF source cannot run: %s",
				   kerr, berr);
			*ret = -ENOENT;
		}
		free(src);
		return NULL;
	}
	return src;
}

void gl_source_close(struct gl_source *src)
{
	if (!src)
		return;
	if (src->fd >= 0)
		close(src->fd);
	gl_bpf_close(src->bpf);
	free(src);
}

enum gl_source_kind gl_source_kind(const struct gl_source *src)
{
	return src->kind;
}

const char *gl_source_describe(const struct gl_source *src, char *buf,
			       size_t len)
{
	if (src->kind == GL_SOURCE_BPF)
		return gl_bpf_describe(src->bpf, buf, len);
	snprintf(buf, len, "module %s (ABI %u.%u)", GPULAT_DEVICE_PATH,
		 src->major, src->minor);
	return buf;
}

int gl_source_fd(const struct gl_source *src)
{
	return src->fd;
}

/* the module's count, in its debugfs trace file */
#define SRC_KMOD_TRACE		"/sys/kernel/debug/gpulat/trace"
#define SRC_SELF_LEFT		"records about the trace's own readers, left out "

int gl_source_trace_self_left(struct gl_source *src, uint64_t *n)
{
	char line[256];
	int ret = -ENOENT;
	FILE *f;

	if (src->kind == GL_SOURCE_BPF)
		return gl_bpf_trace_self_left(src->bpf, n);
	f = fopen(SRC_KMOD_TRACE, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, SRC_SELF_LEFT, strlen(SRC_SELF_LEFT))) {
			*n = strtoull(line + strlen(SRC_SELF_LEFT), NULL, 10);
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

int gl_source_refresh(struct gl_source *src)
{
	return src->kind == GL_SOURCE_BPF ? gl_bpf_refresh(src->bpf) : 0;
}

const char *gl_source_family_held(struct gl_source *src, uint32_t family,
				  char *why, size_t len)
{
	if (src->kind != GL_SOURCE_BPF)
		return NULL;
	return gl_bpf_family_held(src->bpf, family, why, len);
}

bool gl_source_pinned(const struct gl_source *src)
{
	return src->kind == GL_SOURCE_BPF && gl_bpf_is_pinned(src->bpf);
}

bool gl_source_fresh(const struct gl_source *src)
{
	return src->kind == GL_SOURCE_BPF && gl_bpf_fresh(src->bpf);
}

void gl_source_version(const struct gl_source *src, uint32_t *major,
		       uint32_t *minor)
{
	*major = src->major;
	*minor = src->minor;
}

int gl_source_snapshot(struct gl_source *src, struct gl_snapshot **out,
		       char *err, size_t errlen)
{
	if (src->kind == GL_SOURCE_BPF)
		return gl_bpf_snapshot(src->bpf, out, err, errlen);
	return gl_snapshot_take_err(src->fd, out, err, errlen);
}

int gl_source_reset(struct gl_source *src)
{
	if (src->kind == GL_SOURCE_BPF)
		return gl_bpf_reset(src->bpf);
	return gl_reset(src->fd);
}

int gl_source_family_switch(struct gl_source *src, uint32_t family, bool on)
{
	if (src->kind == GL_SOURCE_BPF)
		return gl_bpf_family_switch(src->bpf, family, on);
	return gl_family_switch(src->fd, family, on);
}

int gl_source_threshold(struct gl_source *src, uint32_t family, bool set,
			uint64_t *ns)
{
	if (src->kind == GL_SOURCE_BPF)
		return gl_bpf_threshold(src->bpf, family, set, ns);
	return gl_threshold(src->fd, family, set, ns);
}

int gl_source_cgroup_set(struct gl_source *src,
			 const struct gl_cgroup_watch *w, unsigned int n)
{
	if (src->kind == GL_SOURCE_BPF)
		return gl_bpf_cgroup_set(src->bpf, w, n);
	return gl_cgroup_set(src->fd, w, n);
}

int gl_source_cgroup_get(struct gl_source *src, uint64_t *ids,
			 unsigned int *n)
{
	if (src->kind == GL_SOURCE_BPF)
		return gl_bpf_cgroup_get(src->bpf, ids, n);
	return gl_cgroup_get(src->fd, ids, n);
}

int gl_source_cuda_set(struct gl_source *src, const struct gl_cudalib *lib)
{
	if (src->kind == GL_SOURCE_BPF)
		return -EOPNOTSUPP;	/* it attaches what it finds at load */
	return gl_cuda_set(src->fd, lib);
}

int gl_source_cuda_get(struct gl_source *src, struct gl_cuda_attached *a)
{
	if (src->kind == GL_SOURCE_BPF)
		return gl_bpf_cuda_get(src->bpf, a);
	return gl_cuda_get(src->fd, a);
}

int gl_source_poll_fd(struct gl_source *src)
{
	if (src->kind == GL_SOURCE_BPF)
		return gl_bpf_poll_fd(src->bpf);
	return src->fd;
}

ssize_t gl_source_trace_read(struct gl_source *src, void *buf, size_t len)
{
	if (src->kind == GL_SOURCE_BPF)
		return gl_bpf_trace_read(src->bpf, buf, len);
	return gl_trace_read(src->fd, buf, len);
}

bool gl_source_trace_pending(struct gl_source *src)
{
	return src->kind == GL_SOURCE_BPF && gl_bpf_trace_pending(src->bpf);
}

int gl_source_bpf_pin(char *err, size_t errlen)
{
	return gl_bpf_pin(err, errlen);
}

int gl_source_bpf_unpin(char *err, size_t errlen)
{
	return gl_bpf_unpin(err, errlen);
}

bool gl_source_bpf_pinned(void)
{
	return gl_bpf_pinned();
}
