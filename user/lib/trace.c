// SPDX-License-Identifier: GPL-2.0
/* libgpulat outlier trace: thresholds, reading and decoding records. */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/gpulat_user.h"

/* gl_threshold - a family's outlier threshold; with @set, first make it *@ns */
int gl_threshold(int fd, uint32_t family, bool set, uint64_t *ns)
{
	struct gpulat_threshold_req r = {
		.size = sizeof(r),
		.flags = set ? GPULAT_THRESHOLD_SET : 0,
		.family = family,
		.threshold_ns = set ? *ns : 0,
	};

	if (ioctl(fd, GPULAT_IOC_THRESHOLD, &r))
		return -errno;
	*ns = r.threshold_ns;
	return 0;
}

/* gl_trace_read - one read() of records; bytes, or -errno */
ssize_t gl_trace_read(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	return n < 0 ? -errno : n;
}

/* rec_copy - the record's bytes into @dst (@want bytes), zero-extended */
static void rec_copy(void *dst, size_t want, const unsigned char *src,
		     size_t have)
{
	memset(dst, 0, want);
	memcpy(dst, src, have < want ? have : want);
}

static void terminate(char *s, size_t len)
{
	s[len - 1] = '\0';
}

/*
 * gl_trace_parse - decode the record at *@off; 1, 0 at the end, -EINVAL
 *
 * The size field alone decides where the next record starts; a record
 * shorter than its type's first version, or running past @len, is
 * malformed.  Strings are NUL-terminated and counts clamped here, so that
 * callers may print them as they are.
 */
int gl_trace_parse(const void *buf, size_t len, size_t *off,
		   struct gl_trace_rec *rec)
{
	const unsigned char *p = (const unsigned char *)buf + *off;
	struct gpulat_rec_header h;
	size_t left, i;

	if (*off >= len)
		return 0;
	left = len - *off;
	if (left < sizeof(h))
		return -EINVAL;
	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(h) || h.size > left || h.size % 8)
		return -EINVAL;
	memset(rec, 0, sizeof(*rec));
	rec->type = h.type;
	rec->cpu = h.cpu;
	rec->time_ns = h.time_ns;
	switch (h.type) {
	case GPULAT_REC_SAMPLE: {
		struct gpulat_rec_sample *s = &rec->u.sample;

		if (h.size < GPULAT_REC_SAMPLE_SIZE_VER0)
			return -EINVAL;
		rec_copy(s, sizeof(*s), p, h.size);
		terminate(s->comm, sizeof(s->comm));
		if (s->nr_culprits > GPULAT_NR_CULPRITS)
			s->nr_culprits = GPULAT_NR_CULPRITS;
		for (i = 0; i < GPULAT_NR_CULPRITS; i++)
			terminate(s->culprits[i].comm,
				  sizeof(s->culprits[i].comm));
		/* cgroups: ABI 1.3 records with the flag; else 0, unknown */
		if (h.size < GPULAT_REC_SAMPLE_SIZE_VER1)
			s->flags &= ~GPULAT_REC_F_CGROUP;
		if (!(s->flags & GPULAT_REC_F_CGROUP)) {
			s->cgroup_id = 0;
			memset(s->culprit_cgroup, 0, sizeof(s->culprit_cgroup));
		}
		break;
	}
	case GPULAT_REC_EVENT:
		if (h.size < GPULAT_REC_EVENT_SIZE_VER0)
			return -EINVAL;
		rec_copy(&rec->u.event, sizeof(rec->u.event), p, h.size);
		terminate(rec->u.event.event.device,
			  sizeof(rec->u.event.event.device));
		break;
	case GPULAT_REC_LOST:
		if (h.size < GPULAT_REC_LOST_SIZE_VER0)
			return -EINVAL;
		rec_copy(&rec->u.lost, sizeof(rec->u.lost), p, h.size);
		break;
	default:
		break;	/* a newer type: the header says enough to skip it */
	}
	*off += h.size;
	return 1;
}
