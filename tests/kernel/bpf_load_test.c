// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF source loads on this kernel, in the VM: the verifier accepts
 * every family of its table and each of its tracepoints attaches.
 *
 * A probe may be missing only where the kernel lacks the tracepoint: the
 * module (loaded beside it) does not find it either, and tracefs does not
 * list it.  The test names each such tracepoint.  When a family failed,
 * the source is loaded once more with GPULAT_BPF_DEBUG=1 and the
 * verifier's log of the program it refused is printed.  Last, the pins
 * of `gpulat attach`, in the guest's bpffs.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib/gpulat_user.h"
#include "vmtest.h"

#define DEBUG_LOG	"/tmp/bpf_load_test.log"
/* lines of each refused program's verifier log printed: its end says why */
#define LOG_TAIL	30

/* the diagnostics on stdout, in order with the harness's lines */
static void __attribute__((constructor)) line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

/* tp_base - "nvidia_x" of "nvidia:nvidia_x", the name tracefs lists */
static const char *tp_base(const char *tp)
{
	const char *c = strchr(tp, ':');

	return c ? c + 1 : tp;
}

/* tracefs_has - whether tracefs lists the event @tp */
static bool tracefs_has(const char *tp)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char pat[160];
	bool found = false;
	size_t i;
	glob_t g;

	for (i = 0; i < ARRAY_SIZE(roots) && !found; i++) {
		snprintf(pat, sizeof(pat), "%s/events/*/%s", roots[i],
			 tp_base(tp));
		found = !glob(pat, GLOB_NOSORT, NULL, &g) && g.gl_pathc;
		globfree(&g);
	}
	return found;
}

/*
 * module_has - whether the module found tracepoint @tp of @fam (it may
 * be switched off or have failed, but the kernel has it)
 */
static bool module_has(const struct gl_snapshot *k, uint32_t fam,
		       const char *tp)
{
	size_t i;

	for (i = 0; k && i < gl_snapshot_nr_probes(k); i++) {
		const struct gpulat_probe *p = gl_snapshot_probe(k, i);

		if (p->family == fam && p->state != GPULAT_PROBE_MISSING &&
		    !strcmp(tp_base(p->tracepoint), tp_base(tp)))
			return true;
	}
	return false;
}

/*
 * print_verifier_log - load the BPF source again with libbpf's messages
 * on (GPULAT_BPF_DEBUG=1) into DEBUG_LOG, and print the end of each
 * program load log in it: the verifier's reason
 */
static void print_verifier_log(void)
{
	char line[512], last[512] = "", err[1024], *tail[LOG_TAIL] = { NULL };
	struct gl_source *src;
	unsigned int n = 0, last_n = 0, i;
	bool in = false;
	int fd, saved, ret;
	FILE *f;

	fflush(stderr);
	fd = open(DEBUG_LOG, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	saved = dup(2);
	if (fd < 0 || saved < 0 || dup2(fd, 2) < 0)
		return;
	setenv("GPULAT_BPF_DEBUG", "1", 1);
	src = gl_source_open(GL_SOURCE_BPF, &ret, err, sizeof(err));
	gl_source_close(src);
	unsetenv("GPULAT_BPF_DEBUG");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);

	f = fopen(DEBUG_LOG, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strstr(line, "BEGIN PROG LOAD LOG")) {
			in = true;
			n = 0;
		} else if (strstr(line, "END PROG LOAD LOG")) {
			in = false;
			/* libbpf may print one log twice: once is enough */
			if (!n || (n == last_n &&
				   !strcmp(last, tail[(n - 1) % LOG_TAIL])))
				continue;
			last_n = n;
			snprintf(last, sizeof(last), "%s", tail[(n - 1) % LOG_TAIL]);
			ksft_print_msg("verifier log, last %u lines:\n",
				       n < LOG_TAIL ? n : LOG_TAIL);
			for (i = n > LOG_TAIL ? n - LOG_TAIL : 0; i < n; i++)
				ksft_print_msg("  %s\n", tail[i % LOG_TAIL]);
		} else if (in) {
			free(tail[n % LOG_TAIL]);
			tail[n++ % LOG_TAIL] = strdup(line);
		} else if (strstr(line, "libbpf: prog '") &&
			   strstr(line, "failed")) {
			ksft_print_msg("%s\n", line);
		}
	}
	for (i = 0; i < LOG_TAIL; i++)
		free(tail[i]);
	fclose(f);
}

/* family_has_probes - whether the BPF snapshot @b lists probes of @fam */
static bool family_has_probes(const struct gl_snapshot *b, uint32_t fam)
{
	size_t i;

	for (i = 0; i < gl_snapshot_nr_probes(b); i++)
		if (gl_snapshot_probe(b, i)->family == fam)
			return true;
	return false;
}

/*
 * Each probe of the BPF source attached, or is missing because the
 * kernel lacks its tracepoint; none failed, none stayed off.
 */
TEST(every_family_attaches)
{
	struct gl_snapshot *k = NULL, *b = NULL;
	struct gl_source *src;
	char err[1024], missing[512];
	unsigned int bad = 0, fam_bad, attached, nr_fam = 0;
	size_t i, off;
	uint32_t fam;
	int kfd, ret;

	/*
	 * the guest has no NVIDIA driver: the nvidia family, held back
	 * without it, is attached as if it were loaded
	 */
	setenv("GPULAT_BPF_ASSUME_DRIVERS", "1", 1);
	/* the module's view of the same tracepoints */
	kfd = gl_open(err, sizeof(err));
	ASSERT_LE(0, kfd) TH_LOG("module: %s", err);
	ASSERT_EQ(0, gl_snapshot_take(kfd, &k));
	close(kfd);

	src = gl_source_open(GL_SOURCE_BPF, &ret, err, sizeof(err));
	if (!src)
		print_verifier_log();
	ASSERT_NE(NULL, src) TH_LOG("BPF source: %s", err);
	ASSERT_EQ(0, gl_source_snapshot(src, &b, err, sizeof(err)))
		TH_LOG("%s", err);

	for (fam = 1; fam < GPULAT_FAM_MAX; fam++) {
		if (!family_has_probes(b, fam)) {
			ksft_print_msg("family %s: not in the BPF source yet\n",
				       gl_family_name(fam));
			continue;
		}
		nr_fam++;
		missing[0] = '\0';
		off = 0;
		fam_bad = bad;
		attached = 0;
		for (i = 0; i < gl_snapshot_nr_probes(b); i++) {
			const struct gpulat_probe *p = gl_snapshot_probe(b, i);

			if (p->family != fam)
				continue;
			switch (p->state) {
			case GPULAT_PROBE_ATTACHED:
				attached++;
				break;
			case GPULAT_PROBE_MISSING:
				if (module_has(k, fam, p->tracepoint) ||
				    tracefs_has(p->tracepoint)) {
					bad++;
					ksft_print_msg("%s %s: missing, but the kernel has it\n",
						       p->family_name,
						       p->tracepoint);
				} else if (off < sizeof(missing)) {
					off += snprintf(missing + off,
							sizeof(missing) - off,
							"%s%s", off ? ", " : "",
							p->tracepoint);
				}
				break;
			default:
				bad++;
				ksft_print_msg("%s %s: %s (%s)\n",
					       p->family_name, p->tracepoint,
					       gl_probe_state_name(p->state),
					       strerror(p->error));
			}
		}
		if (bad > fam_bad)
			ksft_print_msg("family %s: %u probes neither attached nor missing\n",
				       gl_family_name(fam), bad - fam_bad);
		else if (!attached)
			ksft_print_msg("family %s: every tracepoint missing on this kernel, which lacks them: %s\n",
				       gl_family_name(fam), missing);
		else
			ksft_print_msg("family %s: attached%s%s%s\n",
				       gl_family_name(fam),
				       missing[0] ? "; missing on this kernel, which lacks them: " : "",
				       missing, missing[0] ? "" : " (every tracepoint)");
	}
	if (bad)
		print_verifier_log();
	EXPECT_EQ(0, bad);
	/* sched is the first family and every kernel has its tracepoints */
	EXPECT_LE(1, nr_fam);
	EXPECT_TRUE(family_has_probes(b, GPULAT_FAM_SCHED));
	gl_snapshot_free(k);
	gl_snapshot_free(b);
	gl_source_close(src);
}

/*
 * Each family off and on again: its programs detach and attach again as
 * `gpulat disable` / `enable` do, and they run (sched_switch's hits).
 */
TEST(families_switch_off_and_on)
{
	struct gl_snapshot *b = NULL;
	struct gl_source *src;
	uint64_t switches = 0;
	char err[1024];
	size_t i;
	uint32_t fam;
	int ret;

	src = gl_source_open(GL_SOURCE_BPF, &ret, err, sizeof(err));
	ASSERT_NE(NULL, src) TH_LOG("BPF source: %s", err);
	for (fam = 1; fam < GPULAT_FAM_MAX; fam++) {
		ret = gl_source_family_switch(src, fam, false);
		if (ret == -ENOENT || ret == -ENODEV)
			continue;	/* not in the table, or all missing */
		EXPECT_EQ(0, ret) TH_LOG("%s off", gl_family_name(fam));
		EXPECT_EQ(0, gl_source_family_switch(src, fam, true))
			TH_LOG("%s on", gl_family_name(fam));
	}
	usleep(100000);
	ASSERT_EQ(0, gl_source_snapshot(src, &b, err, sizeof(err)))
		TH_LOG("%s", err);
	for (i = 0; i < gl_snapshot_nr_probes(b); i++) {
		const struct gpulat_probe *p = gl_snapshot_probe(b, i);

		EXPECT_NE(GPULAT_PROBE_DISABLED, p->state)
			TH_LOG("%s %s", p->family_name, p->tracepoint);
		EXPECT_NE(GPULAT_PROBE_FAILED, p->state)
			TH_LOG("%s %s", p->family_name, p->tracepoint);
		if (p->family == GPULAT_FAM_SCHED &&
		    !strcmp(p->tracepoint, "sched_switch"))
			switches = p->hits;
	}
	/* the test slept: its own switches at least */
	EXPECT_LT(0, switches);
	gl_snapshot_free(b);
	gl_source_close(src);
}

/*
 * `gpulat attach`'s pins in bpffs: the programs stay attached without a
 * process, a second open finds them, and unpinning detaches them.
 */
TEST(pins_in_bpffs)
{
	struct gl_snapshot *b = NULL;
	struct gl_source *src;
	char err[1024], desc[128];
	unsigned int attached = 0;
	size_t i;
	int ret;

	if (gl_source_bpf_pinned())
		SKIP(return, "a BPF source is pinned in %s already",
		     GL_BPF_PIN_DIR);
	ASSERT_EQ(0, gl_source_bpf_pin(err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_TRUE(gl_source_bpf_pinned());
	src = gl_source_open(GL_SOURCE_PINNED, &ret, err, sizeof(err));
	EXPECT_NE(NULL, src) TH_LOG("%s", err);
	if (src) {
		EXPECT_FALSE(gl_source_fresh(src))
			TH_LOG("%s", gl_source_describe(src, desc,
							sizeof(desc)));
		EXPECT_EQ(0, gl_source_snapshot(src, &b, err, sizeof(err)));
		for (i = 0; b && i < gl_snapshot_nr_probes(b); i++)
			attached += gl_snapshot_probe(b, i)->state ==
				    GPULAT_PROBE_ATTACHED;
		EXPECT_LT(0, attached);
		gl_snapshot_free(b);
		gl_source_close(src);
	}
	EXPECT_EQ(0, gl_source_bpf_unpin(err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_FALSE(gl_source_bpf_pinned());
}

VMTEST_HARNESS_MAIN
