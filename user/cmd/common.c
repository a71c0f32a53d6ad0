// SPDX-License-Identifier: GPL-2.0
/*
 * What the commands share: opening the source, reading saved snapshots,
 * the kernel release, and the exit codes their errors mean.
 */
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/bpf_pin.h"
#include "lib/outfile.h"

/*
 * cmd_families - what a BPF source of the command's own attaches: hist's
 * families (net with the softirq vectors it shows); 0, all, for the rest
 */
static uint64_t cmd_families(const struct gpulat_opts *o)
{
	uint64_t f = o->families;

	if (o->cmd != GPULAT_CMD_HIST || !f)
		return 0;
	if (f & (1ULL << GPULAT_FAM_NET))
		f |= 1ULL << GPULAT_FAM_SOFTIRQ;
	return f;
}

/*
 * cmd_own - whether the command changes what other users of a pinned
 * source share (thresholds, the cgroup watch set): under auto it takes
 * a BPF source of its own
 */
static bool cmd_own(const struct gpulat_opts *o)
{
	return o->cmd == GPULAT_CMD_DRILL || o->cmd == GPULAT_CMD_WATCH_CGROUP ||
	       (o->cmd == GPULAT_CMD_HIST && o->cgroup);
}

/*
 * gpulat_source_open - the source @o names (--source, GPULAT_SOURCE; auto
 * by default) and its ABI; 0, or -errno after the reason on @err (auto's
 * word on the source it took first, when it has one)
 */
int gpulat_source_open(const struct gpulat_opts *o, struct gl_source **src,
		       uint32_t *major, uint32_t *minor, FILE *err)
{
	char msg[1024], note[1024];
	struct gl_source_req rq = {
		.kind = o->source,
		.own = cmd_own(o),
		.families = cmd_families(o),
		.note = note,
		.notelen = sizeof(note),
	};
	int ret = 0;

	*src = gl_source_open_req(&rq, &ret, msg, sizeof(msg));
	if (note[0])
		fprintf(err, "gpulat: %s\n", note);
	if (!*src) {
		fprintf(err, "gpulat: %s\n", msg);
		return ret ? ret : -EIO;
	}
	gl_source_version(*src, major, minor);
	return 0;
}

void gpulat_view_source(struct view *v, const struct gl_source *src,
			char *buf, size_t len)
{
	v->source = gl_source_kind(src) == GL_SOURCE_BPF ? "bpf" : "kmod";
	v->source_desc = gl_source_describe(src, buf, len);
}

bool gpulat_fresh_note(const struct gl_source *src, double seconds)
{
	if (!gl_source_fresh(src))
		return false;
	fprintf(stderr, "gpulat: the BPF source was loaded for this command and counts from now: the next %.0f s (gpulat attach keeps it attached between commands)\n",
		seconds);
	return true;
}

bool gpulat_fresh_wait(const struct gl_source *src, double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
	};

	if (!gpulat_fresh_note(src, seconds))
		return false;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	return true;
}

/* gpulat_pins_swept - see cmd/cmd.h */
void gpulat_pins_swept(FILE *f)
{
	char said[1024], *p, *n;

	if (!gl_bpf_pin_sweep_said(said, sizeof(said)))
		return;
	for (p = said; p; p = n) {
		n = strstr(p, "; ");
		if (n) {
			*n = '\0';
			n += 2;
		}
		fprintf(f, "gpulat: removed %s\n", p);
	}
}

mode_t gpulat_file_mode(const struct gpulat_opts *o)
{
	return o->has_file_mode ? (mode_t)o->file_mode : GL_OUT_PRIVATE;
}

/* gpulat_device_exit - exit code of a gpulat_source_open() error */
int gpulat_device_exit(int err)
{
	if (gl_no_module(err))
		return GPULAT_EXIT_NO_MODULE;
	if (err == -EPROTONOSUPPORT)
		return GPULAT_EXIT_INCOMPATIBLE;
	return GPULAT_EXIT_ERROR;
}

/* gpulat_load_input - read @input, minus @from when given; 0 or -errno */
int gpulat_load_input(const char *input, const char *from,
		      struct gl_snapshot **out, FILE *err)
{
	struct gl_snapshot *a = NULL, *b = NULL;
	char msg[512];
	int ret;

	*out = NULL;
	ret = gl_snapshot_read(input, &b, msg, sizeof(msg));
	if (!ret && from)
		ret = gl_snapshot_read(from, &a, msg, sizeof(msg));
	if (ret) {
		fprintf(err, "gpulat: %s\n", msg);
		gl_snapshot_free(b);
		return ret;
	}
	if (!from) {
		*out = b;
		return 0;
	}
	ret = gl_snapshot_diff(a, b, out);
	gl_snapshot_free(a);
	gl_snapshot_free(b);
	if (ret)
		fprintf(err, "gpulat: %s\n", strerror(-ret));
	return ret;
}

/* gpulat_input_exit - exit code of a gpulat_load_input() error */
int gpulat_input_exit(int err)
{
	return err == -EPROTONOSUPPORT ? GPULAT_EXIT_INCOMPATIBLE :
					 GPULAT_EXIT_ERROR;
}

/* gpulat_kernel_release - uname -r */
const char *gpulat_kernel_release(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		return NULL;
	snprintf(buf, len, "%s", u.release);
	return buf;
}
