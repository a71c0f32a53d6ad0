// SPDX-License-Identifier: GPL-2.0
/* Command line: the parser alone, then the built tool's exit codes. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "blob.h"
#include "cmd/cmd.h"
#include "text.h"

#define ARGV(...)	((char *[]){ "gpulat", __VA_ARGS__, NULL })
#define ARGC(...)	((int)(sizeof((char *[]){ "gpulat", __VA_ARGS__ }) / sizeof(char *)))

/* parse - run the parser on a literal argv, errors into @err */
#define parse(o, err, ...) \
	parse_argv(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o, err, sizeof(err))

static int parse_argv(int argc, char **argv, struct gpulat_opts *o,
		      char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	ret = gpulat_parse_args(argc, argv, o, f);
	fclose(f);
	snprintf(err, errlen, "%s", buf);
	free(buf);
	return ret;
}

TEST(parse_valid)
{
	struct gpulat_opts o;
	char err[512];

	ASSERT_EQ(0, parse(&o, err, "hist"));
	ASSERT_EQ(GPULAT_CMD_HIST, o.cmd);
	ASSERT_FALSE(o.has_interval);
	ASSERT_EQ(0, o.families);
	ASSERT_EQ(0, parse(&o, err, "hist", "sched", "--per-cpu", "-j",
			   "0.25", "3"));
	ASSERT_TRUE(o.per_cpu);
	ASSERT_TRUE(o.json);
	ASSERT_TRUE(o.has_interval);
	ASSERT_EQ(0.25, o.interval_s);
	ASSERT_EQ(3, o.count);
	ASSERT_EQ(1ULL << GPULAT_FAM_SCHED, o.families);
	ASSERT_EQ(0, parse(&o, err, "hist", "2", "--json"));
	ASSERT_EQ(2.0, o.interval_s);
	ASSERT_EQ(0, o.count);
	ASSERT_EQ(0, parse(&o, err, "hist", "--input", "b", "--from=a"));
	ASSERT_STREQ("b", o.input);
	ASSERT_STREQ("a", o.from);
	ASSERT_EQ(0, parse(&o, err, "status", "--json", "-i", "x"));
	ASSERT_EQ(GPULAT_CMD_STATUS, o.cmd);
	ASSERT_STREQ("x", o.input);
	ASSERT_EQ(0, parse(&o, err, "snapshot", "-o", "out.bin"));
	ASSERT_STREQ("out.bin", o.output);
	ASSERT_EQ(0, parse(&o, err, "hist", "-h"));
	ASSERT_TRUE(o.help);
	ASSERT_EQ(0, parse(&o, err, "--help"));
	ASSERT_EQ(GPULAT_CMD_HELP, o.cmd);
	ASSERT_EQ(0, parse(&o, err, "-V"));
	ASSERT_EQ(GPULAT_CMD_VERSION, o.cmd);
	ASSERT_EQ(0, parse(&o, err, "hist", "--per-c"));	/* unique prefix */
	ASSERT_TRUE(o.per_cpu);
	ASSERT_FALSE(o.per_key);
	ASSERT_EQ(0, parse(&o, err, "hist", "block", "-D", "irq", "1"));
	ASSERT_TRUE(o.per_key);
	ASSERT_FALSE(o.per_cpu);
	ASSERT_EQ((1ULL << GPULAT_FAM_BLOCK) | (1ULL << GPULAT_FAM_IRQ),
		  o.families);
	ASSERT_EQ(1.0, o.interval_s);
	ASSERT_EQ(0, parse(&o, err, "hist", "--per-key", "-C", "mm",
			   "softirq", "nvidia", "net"));
	ASSERT_TRUE(o.per_key);
	ASSERT_TRUE(o.per_cpu);
	ASSERT_EQ((1ULL << GPULAT_FAM_MM) | (1ULL << GPULAT_FAM_SOFTIRQ) |
		  (1ULL << GPULAT_FAM_NVIDIA) | (1ULL << GPULAT_FAM_NET),
		  o.families);
	ASSERT_EQ(0, parse(&o, err, "hist", "-DCj"));
	ASSERT_TRUE(o.per_key && o.per_cpu && o.json);
	ASSERT_FALSE(o.summary);
	ASSERT_EQ(0, parse(&o, err, "hist", "sched", "-Cs", "2", "1"));
	ASSERT_TRUE(o.summary && o.per_cpu);
	ASSERT_EQ(1, o.count);
	ASSERT_EQ(0, parse(&o, err, "hist", "--summary", "-i", "x"));
	ASSERT_TRUE(o.summary);
}

/* --source before the command, or GPULAT_SOURCE; auto by default. */
TEST(parse_source)
{
	struct gpulat_opts o;
	char err[512];

	unsetenv(GL_SOURCE_ENV);
	ASSERT_EQ(0, parse(&o, err, "hist"));
	ASSERT_EQ(GL_SOURCE_AUTO, o.source);
	ASSERT_EQ(0, parse(&o, err, "--source", "bpf", "hist", "1"));
	ASSERT_EQ(GL_SOURCE_BPF, o.source);
	ASSERT_EQ(GPULAT_CMD_HIST, o.cmd);
	ASSERT_EQ(1.0, o.interval_s);
	ASSERT_EQ(0, parse(&o, err, "--source=kmod", "status"));
	ASSERT_EQ(GL_SOURCE_KMOD, o.source);
	ASSERT_EQ(0, parse(&o, err, "--source=module", "status"));
	ASSERT_EQ(GL_SOURCE_KMOD, o.source);
	ASSERT_EQ(0, parse(&o, err, "--source", "kmod", "--source", "auto",
			   "attach"));
	ASSERT_EQ(GL_SOURCE_AUTO, o.source);
	ASSERT_EQ(GPULAT_CMD_ATTACH, o.cmd);
	ASSERT_NE(0, parse(&o, err, "--source", "dkms", "hist"));
	ASSERT_NE(NULL, strstr(err, "auto, kmod, bpf or pinned"));
	ASSERT_EQ(0, parse(&o, err, "--source", "pinned", "trace"));
	ASSERT_EQ(GL_SOURCE_PINNED, o.source);
	ASSERT_NE(0, parse(&o, err, "--source"));
	ASSERT_NE(0, parse(&o, err, "--source=", "hist"));
	ASSERT_NE(0, parse(&o, err, "--sourcery", "hist"));
	setenv(GL_SOURCE_ENV, "bpf", 1);
	ASSERT_EQ(0, parse(&o, err, "hist"));
	ASSERT_EQ(GL_SOURCE_BPF, o.source);
	ASSERT_EQ(0, parse(&o, err, "--source", "kmod", "hist"));
	ASSERT_EQ(GL_SOURCE_KMOD, o.source);
	setenv(GL_SOURCE_ENV, "nope", 1);
	ASSERT_NE(0, parse(&o, err, "hist"));
	ASSERT_NE(NULL, strstr(err, GL_SOURCE_ENV));
	setenv(GL_SOURCE_ENV, "kmod", 1);	/* as make unit runs it */
}

/* enable, disable: the families in order, once each; reset: nothing. */
TEST(parse_control)
{
	struct gpulat_opts o;
	char err[512];

	ASSERT_EQ(0, parse(&o, err, "enable", "irq", "block", "irq"));
	ASSERT_EQ(GPULAT_CMD_ENABLE, o.cmd);
	ASSERT_EQ(2, o.nr_family_list);
	ASSERT_EQ(GPULAT_FAM_IRQ, o.family_list[0]);
	ASSERT_EQ(GPULAT_FAM_BLOCK, o.family_list[1]);
	ASSERT_EQ((1ULL << GPULAT_FAM_IRQ) | (1ULL << GPULAT_FAM_BLOCK),
		  o.families);
	ASSERT_EQ(0, parse(&o, err, "disable", "sched", "block", "net", "irq",
			   "softirq", "nvidia", "mm"));
	ASSERT_EQ(GPULAT_CMD_DISABLE, o.cmd);
	ASSERT_EQ(7, o.nr_family_list);
	ASSERT_EQ(GPULAT_FAM_MM, o.family_list[6]);
	ASSERT_EQ(0, parse(&o, err, "reset"));
	ASSERT_EQ(GPULAT_CMD_RESET, o.cmd);
	ASSERT_EQ(0, o.nr_family_list);
	ASSERT_EQ(0, parse(&o, err, "enable", "--help"));
	ASSERT_TRUE(o.help);
	ASSERT_EQ(0, parse(&o, err, "reset", "-h"));
	ASSERT_TRUE(o.help);
}

/* The reasons enable, disable and reset give for each errno. */
TEST(control_reasons)
{
	char buf[160];

	ASSERT_STREQ("its tracepoints are missing on this kernel",
		     control_reason(buf, sizeof(buf), GPULAT_CMD_ENABLE,
				    -ENODEV));
	ASSERT_STREQ("unknown family: the loaded module does not have it",
		     control_reason(buf, sizeof(buf), GPULAT_CMD_DISABLE,
				    -ENOENT));
	ASSERT_STREQ("permission denied; run gpulat as root",
		     control_reason(buf, sizeof(buf), GPULAT_CMD_RESET,
				    -EPERM));
	ASSERT_STREQ("out of memory in the kernel",
		     control_reason(buf, sizeof(buf), GPULAT_CMD_ENABLE,
				    -ENOMEM));
	ASSERT_STREQ("the module refused the request as invalid (EINVAL)",
		     control_reason(buf, sizeof(buf), GPULAT_CMD_ENABLE,
				    -EINVAL));
	ASSERT_NE(NULL, strstr(control_reason(buf, sizeof(buf),
					      GPULAT_CMD_ENABLE, -ENOTTY),
			       "cannot switch families (ABI 1.0)"));
	/* any other errno of a family switch is the registration's */
	ASSERT_STREQ("registration failed: Device or resource busy (EBUSY)",
		     control_reason(buf, sizeof(buf), GPULAT_CMD_ENABLE,
				    -EBUSY));
	ASSERT_STREQ("No such device (ENODEV)",
		     control_reason(buf, sizeof(buf), GPULAT_CMD_RESET,
				    -ENODEV));
	ASSERT_STREQ("Interrupted system call (EINTR)",
		     control_reason(buf, sizeof(buf), GPULAT_CMD_RESET,
				    -EINTR));
}

/* Every bad input: exit code 1 and a message naming the problem. */
TEST(parse_serve)
{
	struct gpulat_opts o;
	char err[512];

	ASSERT_EQ(0, parse(&o, err, "serve"));
	ASSERT_EQ(GPULAT_CMD_SERVE, o.cmd);
	ASSERT_EQ(NULL, o.listen);	/* the command picks :9464 */
	ASSERT_EQ(GPULAT_FLIGHT_BEFORE_S, o.flight_before_s);
	ASSERT_EQ(GPULAT_FLIGHT_AFTER_S, o.flight_after_s);
	ASSERT_EQ(GPULAT_FLIGHT_GAP_S, o.flight_gap_s);
	ASSERT_EQ(GPULAT_FLIGHT_KEEP, o.flight_keep);
	ASSERT_EQ(GPULAT_VERDICT_S, o.verdict_s);
	ASSERT_EQ(0, parse(&o, err, "serve", "--verdict", "0"));
	ASSERT_EQ(0, o.verdict_s);
	ASSERT_EQ(0, parse(&o, err, "serve", "--verdict", "30"));
	ASSERT_EQ(30, o.verdict_s);
	ASSERT_EQ(1, parse(&o, err, "serve", "--verdict", "1"));
	ASSERT_NE(NULL, strstr(err, "bad --verdict '1': seconds from 2 to 600, or 0 (off)"));
	ASSERT_EQ(1, parse(&o, err, "serve", "--verdict", "10x"));
	ASSERT_EQ(0, parse(&o, err, "serve", "--listen", "[::1]:9464",
			   "--textfile", "/t", "--flight=/f", "--buckets", "2",
			   "--max-keys", "5", "-C", "--flight-window", "30",
			   "--flight-after", "2.5", "--flight-gap", "0",
			   "--flight-keep", "3", "--trigger", "sched=50ms",
			   "-t", "block=10ms"));
	ASSERT_STREQ("[::1]:9464", o.listen);
	ASSERT_STREQ("/t", o.textfile);
	ASSERT_STREQ("/f", o.flight);
	ASSERT_EQ(2, o.serve_buckets);
	ASSERT_EQ(5, o.serve_max_keys);
	ASSERT_TRUE(o.per_cpu);
	ASSERT_EQ(30, o.flight_before_s);
	ASSERT_EQ(2.5, o.flight_after_s);
	ASSERT_EQ(0, o.flight_gap_s);
	ASSERT_EQ(3, o.flight_keep);
	ASSERT_EQ(50000000ULL, o.triggers[GPULAT_FAM_SCHED]);
	ASSERT_EQ(0, o.triggers[GPULAT_FAM_BLOCK]);
	ASSERT_EQ(10000000ULL, o.thresholds[GPULAT_FAM_BLOCK]);
	/* and what it refuses, each with its reason */
	ASSERT_EQ(1, parse(&o, err, "serve", "--buckets", "3"));
	ASSERT_NE(NULL, strstr(err, "bad --buckets '3': 8, 4, 2 or 1"));
	ASSERT_EQ(1, parse(&o, err, "serve", "--listen", "9464"));
	ASSERT_NE(NULL, strstr(err, "bad --listen '9464'"));
	ASSERT_EQ(1, parse(&o, err, "serve", "--max-keys", "0"));
	ASSERT_NE(NULL, strstr(err, "bad --max-keys '0'"));
	/* one message for a bad value, not a second "unknown option" */
	ASSERT_EQ(NULL, strstr(err, "unknown or ambiguous"));
	ASSERT_EQ(1, parse(&o, err, "serve", "--max-keys", "99999999999"));
	ASSERT_EQ(1, parse(&o, err, "serve", "--flight-window", "4000"));
	ASSERT_NE(NULL, strstr(err, "bad --flight-window '4000': seconds from 0.1 to 3600"));
	ASSERT_EQ(1, parse(&o, err, "serve", "--flight-keep", "-1"));
	ASSERT_EQ(1, parse(&o, err, "serve", "--trigger", "gpu=1ms"));
	ASSERT_NE(NULL, strstr(err, "unknown family 'gpu'"));
	ASSERT_EQ(1, parse(&o, err, "serve", "--trigger", "sched"));
	ASSERT_NE(NULL, strstr(err, "bad trigger 'sched': FAMILY=DURATION"));
	ASSERT_EQ(1, parse(&o, err, "serve", "--flight", ""));
	ASSERT_NE(NULL, strstr(err, "--flight needs a folder"));
	ASSERT_EQ(1, parse(&o, err, "hist", "--listen", ":1"));
	ASSERT_NE(NULL, strstr(err, "does not apply to hist"));
	ASSERT_EQ(1, parse(&o, err, "serve", "extra"));
	ASSERT_NE(NULL, strstr(err, "unexpected argument 'extra'"));
}

TEST(parse_errors)
{
	static const struct {
		char *argv[6];
		const char *msg;
	} cases[] = {
		{ { "gpulat", NULL }, "no command" },
		{ { "gpulat", "histo", NULL }, "unknown command 'histo'" },
		{ { "gpulat", "hist", "abc", NULL }, "unknown family or bad interval 'abc' (families: " },
		{ { "gpulat", "hist", "--per", NULL }, "unknown or ambiguous option '--per'" },
		{ { "gpulat", "status", "-D", NULL }, "unknown option -D" },
		{ { "gpulat", "enable", NULL }, "enable needs at least one FAMILY" },
		{ { "gpulat", "disable", NULL }, "disable needs at least one FAMILY" },
		{ { "gpulat", "enable", "block", "gpu", NULL }, "unknown family 'gpu' (families: sched, block," },
		{ { "gpulat", "disable", "1", NULL }, "unknown family '1'" },
		{ { "gpulat", "enable", "--json", "irq", NULL }, "does not apply to enable" },
		{ { "gpulat", "enable", "-i", "x", "irq", NULL }, "unknown option -i" },
		{ { "gpulat", "reset", "now", NULL }, "unexpected argument 'now'" },
		{ { "gpulat", "reset", "--per-key", NULL }, "does not apply to reset" },
		{ { "gpulat", "hist", "1", "abc", NULL }, "bad count 'abc'" },
		{ { "gpulat", "hist", "1", "0", NULL }, "bad count '0'" },
		{ { "gpulat", "hist", "1", "2.5", NULL }, "bad count '2.5'" },
		{ { "gpulat", "hist", "0", NULL }, "bad interval '0'" },
		{ { "gpulat", "hist", "0.0", NULL }, "bad interval '0.0'" },
		{ { "gpulat", "hist", "1.2.3", NULL }, "unknown family or bad interval '1.2.3'" },
		{ { "gpulat", "hist", "99999999", NULL }, "bad interval '99999999'" },
		{ { "gpulat", "hist", "sched", "0.0000001", "3", NULL }, "bad interval '0.0000001': seconds from 0.1 to 86400" },
		{ { "gpulat", "hist", "-1", NULL }, "must be positive" },
		{ { "gpulat", "hist", "1", "2", "3", NULL }, "unexpected argument '3'" },
		{ { "gpulat", "hist", "--bogus", NULL }, "unknown or ambiguous option '--bogus'" },
		{ { "gpulat", "hist", "-x", NULL }, "unknown option -x" },
		{ { "gpulat", "hist", "--input", NULL }, "option -i needs an argument" },
		{ { "gpulat", "hist", "--json=1", NULL }, "option -j takes no argument" },
		{ { "gpulat", "hist", "--from", "a", NULL }, "--from needs --input" },
		{ { "gpulat", "hist", "-i", "a", "1", NULL }, "INTERVAL needs the device" },
		{ { "gpulat", "status", "1", NULL }, "unexpected argument '1'" },
		{ { "gpulat", "status", "--per-cpu", NULL }, "does not apply to status" },
		{ { "gpulat", "snapshot", NULL }, "snapshot needs -o FILE" },
		{ { "gpulat", "hist", "-s", "-j", NULL }, "--summary is a text view" },
		{ { "gpulat", "status", "--summary", NULL }, "does not apply to status" },
		{ { "gpulat", "snapshot", "-o", "", NULL }, "snapshot needs -o FILE" },
	};
	char *bad_family[] = { "gpulat", "hist", "abc", NULL };
	char fams[96], want[160];
	struct gpulat_opts o;
	char err[512];
	size_t i;
	int argc;

	/* the whole list, as the family table has it */
	snprintf(want, sizeof(want), "(families: %s)",
		 family_list(fams, sizeof(fams)));
	ASSERT_EQ(GPULAT_EXIT_ERROR, parse_argv(3, bad_family, &o, err,
						sizeof(err)));
	ASSERT_NE(NULL, strstr(err, want)) TH_LOG("got '%s'", err);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (argc = 0; cases[i].argv[argc]; argc++)
			;
		ASSERT_EQ(GPULAT_EXIT_ERROR,
			  parse_argv(argc, (char **)cases[i].argv, &o, err,
				     sizeof(err))) TH_LOG("case %zu", i);
		ASSERT_NE(NULL, strstr(err, cases[i].msg))
			TH_LOG("case %zu: got '%s'", i, err);
		ASSERT_NE(NULL, strstr(err, "--help'."));
	}
}

/*
 * INTERVAL, --duration and --interval: from 0.1 s (GPULAT_INTERVAL_MIN)
 * to a day, both ends included, in every command that takes them.
 */
TEST(interval_bounds)
{
	static const struct {
		const char *cmd, *opt;	/* opt NULL: hist's INTERVAL */
		const char *what;	/* the word of the error */
	} where[] = {
		{ "hist", NULL, "interval" },
		{ "trace", "-d", "duration" },
		{ "trace", "--duration", "duration" },
		{ "diagnose", "-d", "duration" },
		{ "report", "--duration", "duration" },
		{ "report", "--interval", "interval" },
	};
	static const char *const good[] = { "0.1", "0.10", "0.5", "1",
					     "86400", "86400.0" };
	static const char *const bad[] = { "0.0000001", "0.01", "0.09",
					   "0.099999", "0", "86400.01",
					   "100000" };
	struct gpulat_opts o;
	char err[512], want[128];
	size_t i, j;
	double v;

	ASSERT_EQ(0.1, GPULAT_INTERVAL_MIN);
	for (i = 0; i < ARRAY_SIZE(where); i++) {
		for (j = 0; j < ARRAY_SIZE(good); j++) {
			char *argv[] = { "gpulat", (char *)where[i].cmd,
					 (char *)(where[i].opt ?: good[j]),
					 (char *)good[j], NULL };
			int argc = where[i].opt ? 4 : 3;

			ASSERT_EQ(0, parse_argv(argc, argv, &o, err,
						sizeof(err)))
				TH_LOG("%s %s %s: %s", where[i].cmd,
				       where[i].opt ?: "", good[j], err);
			v = !where[i].opt ? o.interval_s :
			    !strcmp(where[i].opt, "--interval") ?
			    o.report_interval_s : o.duration_s;
			EXPECT_EQ(strtod(good[j], NULL), v);
		}
		for (j = 0; j < ARRAY_SIZE(bad); j++) {
			char *argv[] = { "gpulat", (char *)where[i].cmd,
					 (char *)(where[i].opt ?: bad[j]),
					 (char *)bad[j], NULL };
			int argc = where[i].opt ? 4 : 3;

			ASSERT_EQ(GPULAT_EXIT_ERROR,
				  parse_argv(argc, argv, &o, err, sizeof(err)))
				TH_LOG("%s %s %s accepted", where[i].cmd,
				       where[i].opt ?: "", bad[j]);
			snprintf(want, sizeof(want),
				 "gpulat: bad %s '%s': seconds from 0.1 to 86400\n",
				 where[i].what, bad[j]);
			EXPECT_EQ(0, strncmp(want, err, strlen(want)))
				TH_LOG("got '%s'", err);
		}
	}
}

/* read_all - read @fd to its end into @buf, NUL-terminated */
static void read_all(int fd, char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off + 1 < len && (n = read(fd, buf + off, len - 1 - off)) > 0)
		off += n;
	buf[off] = '\0';
}

/* run - run the tool; exit code, stdout and stderr in @out/@err */
static int run(char *out, size_t outlen, char *err, size_t errlen,
	       char *const argv[])
{
	const char *bin = getenv("GPULAT_BIN");
	int po[2], pe[2], status;
	pid_t pid;

	if (!bin)
		bin = "build/unit/gpulat";
	if (pipe(po) || pipe(pe))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		execv(bin, argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	read_all(po[0], out, outlen);
	read_all(pe[0], err, errlen);
	close(po[0]);
	close(pe[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

FIXTURE(tool) {
	char out[65536], err[4096];
};

FIXTURE_SETUP(tool) { }
FIXTURE_TEARDOWN(tool) { }

TEST_F(tool, bad_interval)
{
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("hist", "abc")));
	ASSERT_NE(NULL, strstr(self->err, "'abc'"));
	ASSERT_STREQ("", self->out);
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("hist", "1", "0")));
	ASSERT_NE(NULL, strstr(self->err, "bad count '0'"));
	/* 100 ns intervals: refused before the device is looked for */
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("hist", "sched", "0.0000001", "3")));
	ASSERT_STREQ("gpulat: bad interval '0.0000001': seconds from 0.1 to 86400\n"
		     "Try 'gpulat hist --help'.\n", self->err);
	ASSERT_STREQ("", self->out);
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("trace", "-d", "0.05")));
	ASSERT_NE(NULL, strstr(self->err, "bad duration '0.05': seconds from 0.1"));
}

/* serve: a bad address, a folder it cannot write, a port in use */
TEST_F(tool, serve_errors)
{
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("serve", "--listen", "host:9464")));
	ASSERT_NE(NULL, strstr(self->err, "bad --listen 'host:9464': ADDRESS:PORT, [IPV6]:PORT or :PORT, numeric"));
	/* getaddrinfo() would take 99999 and listen on 34463 */
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("serve", "--listen", "127.0.0.1:99999")));
	ASSERT_NE(NULL, strstr(self->err, "bad --listen '127.0.0.1:99999': the port is a number from 1 to 65535"));
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("serve", "--listen", "127.0.0.1:0")));
	ASSERT_NE(NULL, strstr(self->err, "the port is a number from 1 to 65535"));
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("serve", "--textfile", "/tmp",
					      "--flight", "/nonexistent")));
	ASSERT_NE(NULL, strstr(self->err, "--flight /nonexistent: not a folder this process may write"));
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("serve", "--flight", "/tmp",
					      "--flight-max-bytes", "512K")));
	ASSERT_NE(NULL, strstr(self->err, "bad --flight-max-bytes '512K'"));
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("snapshot", "-o", "x", "--mode", "0400")));
	ASSERT_NE(NULL, strstr(self->err, "bad --mode '0400'"));
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("snapshot", "-o", "x", "--mode", "0648")));
	ASSERT_NE(NULL, strstr(self->err, "bad --mode '0648'"));
}

/* watch-cgroup and hist --cgroup refuse bad options before any device. */
TEST_F(tool, watch_cgroup_errors)
{
#define CG_ERR(...) \
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out), \
					 self->err, sizeof(self->err), \
					 ARGV(__VA_ARGS__)))
	CG_ERR("watch-cgroup");
	ASSERT_NE(NULL, strstr(self->err, "watch-cgroup needs at least one cgroup PATH"));
	CG_ERR("watch-cgroup", "-i", "0", "/");
	ASSERT_NE(NULL, strstr(self->err, "bad interval '0': seconds from 0.1 to 86400"));
	CG_ERR("watch-cgroup", "--interval", "x", "/");
	ASSERT_NE(NULL, strstr(self->err, "bad interval 'x'"));
	CG_ERR("watch-cgroup", "-d", "-1", "/");
	ASSERT_NE(NULL, strstr(self->err, "bad duration '-1'"));
	CG_ERR("watch-cgroup", "a", "b", "c", "d", "e", "f", "g", "h", "i");
	ASSERT_NE(NULL, strstr(self->err, "more than 8 cgroups: the source watches at most 8 at once"));
	CG_ERR("watch-cgroup", "");
	ASSERT_NE(NULL, strstr(self->err, "empty cgroup path"));
	CG_ERR("watch-cgroup", "--per-cpu", "/");
	ASSERT_NE(NULL, strstr(self->err, "option '--per-cpu' does not apply to watch-cgroup"));
	CG_ERR("watch-cgroup", "-s", "/");
	ASSERT_NE(NULL, strstr(self->err, "unknown option -s"));
	/* a path that is no cgroup: refused with its reason, nothing opened */
	CG_ERR("watch-cgroup", "/no/such/cgroup-gpulat-test");
	ASSERT_TRUE(strstr(self->err, "No such file or directory") ||
		    strstr(self->err, "no cgroup2 file system is mounted"));
	CG_ERR("hist", "--cgroup", "");
	ASSERT_NE(NULL, strstr(self->err, "--cgroup needs a cgroup path"));
	CG_ERR("hist", "--cgroup", "/", "-i", "/tmp/x");
	ASSERT_NE(NULL, strstr(self->err, "--cgroup reads this host's cgroups; --input shows a saved snapshot"));
	CG_ERR("status", "--cgroup", "/");
	ASSERT_NE(NULL, strstr(self->err, "option '--cgroup' does not apply to status"));
#undef CG_ERR
}

TEST_F(tool, missing_input)
{
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("hist", "--input",
					      "/nonexistent/snap.bin")));
	ASSERT_STREQ("gpulat: cannot open /nonexistent/snap.bin: No such file or directory\n",
		     self->err);
}

TEST_F(tool, status_without_module)
{
	if (!access(GPULAT_DEVICE_PATH, F_OK))
		SKIP(return, "%s exists on this machine", GPULAT_DEVICE_PATH);
	ASSERT_EQ(GPULAT_EXIT_NO_MODULE, run(self->out, sizeof(self->out),
					     self->err, sizeof(self->err),
					     ARGV("status")));
	ASSERT_NE(NULL, strstr(self->err, "module is not loaded"));
	/* how to load it depends on the host: test_install.c */
	ASSERT_NE(NULL, strstr(self->err, "modprobe gpulat") ?:
			strstr(self->err, "insmod "));
	ASSERT_EQ(GPULAT_EXIT_NO_MODULE, run(self->out, sizeof(self->out),
					     self->err, sizeof(self->err),
					     ARGV("hist", "1", "1")));
	ASSERT_EQ(GPULAT_EXIT_NO_MODULE, run(self->out, sizeof(self->out),
					     self->err, sizeof(self->err),
					     ARGV("status", "--json")));
	ASSERT_NE(NULL, strstr(self->out, "{\"loaded\":false,"));
	ASSERT_EQ(GPULAT_EXIT_NO_MODULE, run(self->out, sizeof(self->out),
					     self->err, sizeof(self->err),
					     ARGV("enable", "block")));
	ASSERT_NE(NULL, strstr(self->err, "module is not loaded"));
	ASSERT_STREQ("", self->out);
	ASSERT_EQ(GPULAT_EXIT_NO_MODULE, run(self->out, sizeof(self->out),
					     self->err, sizeof(self->err),
					     ARGV("disable", "sched")));
	ASSERT_EQ(GPULAT_EXIT_NO_MODULE, run(self->out, sizeof(self->out),
					     self->err, sizeof(self->err),
					     ARGV("reset")));
	/* a usage error is reported before the device is looked for */
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("enable", "gpu")));
	ASSERT_NE(NULL, strstr(self->err, "unknown family 'gpu'"));
}

TEST_F(tool, help_has_examples)
{
	char *const cmds[][4] = {
		{ "gpulat", "--help", NULL },
		{ "gpulat", "hist", "-h", NULL },
		{ "gpulat", "status", "--help", NULL },
		{ "gpulat", "enable", "-h", NULL },
		{ "gpulat", "disable", "irq", "--help" },
		{ "gpulat", "reset", "-h", NULL },
		{ "gpulat", "snapshot", "-h", NULL },
	};
	char *line, *save;
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ASSERT_EQ(0, run(self->out, sizeof(self->out), self->err,
				 sizeof(self->err), cmds[i]));
		ASSERT_NE(NULL, strstr(self->out, "EXAMPLES:"));
		for (line = strtok_r(self->out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			ASSERT_LT(strlen(line), 80);
	}
}

/* The help texts name the new commands and options. */
TEST_F(tool, help_texts)
{
	ASSERT_EQ(0, run(self->out, sizeof(self->out), self->err,
			 sizeof(self->err), ARGV("--help")));
	ASSERT_NE(NULL, strstr(self->out, "\n  enable       switch families on"));
	ASSERT_NE(NULL, strstr(self->out, "\n  reset        zero every"));
	ASSERT_NE(NULL, strstr(self->out, "gpulat enable irq nvidia"));
	ASSERT_EQ(0, run(self->out, sizeof(self->out), self->err,
			 sizeof(self->err), ARGV("hist", "--help")));
	ASSERT_NE(NULL, strstr(self->out, "  -D, --per-key "));
	ASSERT_NE(NULL, strstr(self->out, "gpulat hist block -D"));
	ASSERT_EQ(0, run(self->out, sizeof(self->out), self->err,
			 sizeof(self->err), ARGV("enable", "--help")));
	ASSERT_NE(NULL, strstr(self->out, "usage: gpulat enable FAMILY...\n"));
	ASSERT_NE(NULL, strstr(self->out, "gpulat disable sched"));
}

/* Every list of families in the help is the table's, whole. */
TEST_F(tool, help_lists_every_family)
{
	char *const *cmds[] = {
		ARGV("--help"), ARGV("hist", "--help"),
		ARGV("enable", "--help"), ARGV("disable", "--help"),
	};
	const char *list, *end;
	size_t i, k;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ASSERT_EQ(0, run(self->out, sizeof(self->out), self->err,
				 sizeof(self->err), cmds[i]));
		ASSERT_EQ(NULL, strstr(self->out, GPULAT_USAGE_FAMILIES));
		list = strstr(self->out, "amilies: ");
		ASSERT_NE(NULL, list);
		end = strchr(list, '\n');
		ASSERT_NE(NULL, end);
		ASSERT_LT(2, gl_family_count());
		for (k = 0; k < gl_family_count(); k++) {
			const char *name = gl_family_name(gl_family_at(k));
			const char *at = strstr(list, name);

			ASSERT_TRUE(at && at < end) {
				TH_LOG("%s missing in %s", name, cmds[i][0]);
			}
		}
	}
}

/* The tool on a saved snapshot of every family: filters and splits. */
TEST_F(tool, families_input)
{
	char a[] = "/tmp/gpulat-f-XXXXXX";
	struct blob bl;
	size_t len;
	void *buf;
	int fd;

	blob_families(&bl);
	buf = blob_build(&bl, &len);
	fd = mkstemp(a);
	ASSERT_EQ((ssize_t)len, write(fd, buf, len));
	close(fd);
	free(buf);
	blob_release(&bl);
	ASSERT_EQ(0, run(self->out, sizeof(self->out), self->err,
			 sizeof(self->err), ARGV("hist", "net", "-i", a)));
	ASSERT_NE(NULL, strstr(self->out, "\nnet.tx  (all CPUs, 2 keys)\n"));
	ASSERT_NE(NULL, strstr(self->out, "\nsoftirq.run  NET_RX  (all CPUs)\n"));
	ASSERT_NE(NULL, strstr(self->out, "\nsoftirq.run  NET_TX  (all CPUs)\n"));
	ASSERT_EQ(NULL, strstr(self->out, "TIMER"));
	ASSERT_EQ(NULL, strstr(self->out, "block."));
	ASSERT_NE(NULL, strstr(self->out, "\ndrops: net.expired 2\n"));
	ASSERT_EQ(0, run(self->out, sizeof(self->out), self->err,
			 sizeof(self->err),
			 ARGV("hist", "--per-key", "block", "-i", a)));
	ASSERT_NE(NULL, strstr(self->out, "\nblock.read.device  nullb0  (all CPUs)\ncount 4  "));
	ASSERT_NE(NULL, strstr(self->out, "\nblock.read.device  sda  (all CPUs)\ncount 10  "));
	/* the tool passes --summary to the view: one line per disk */
	ASSERT_EQ(0, run(self->out, sizeof(self->out), self->err,
			 sizeof(self->err),
			 ARGV("hist", "-D", "-s", "block", "-i", a)));
	ASSERT_NE(NULL, strstr(self->out, "\nblock.read.device  nullb0      4  "));
	ASSERT_EQ(NULL, strstr(self->out, "count 4"));
	ASSERT_EQ(0, run(self->out, sizeof(self->out), self->err,
			 sizeof(self->err),
			 ARGV("status", "-i", a)));
	ASSERT_NE(NULL, strstr(self->out, "\nfamily softirq: unavailable, tracepoints missing on this kernel\n  missing:    softirq_raise, softirq_exit\n"));
	ASSERT_NE(NULL, strstr(self->out, "\nxid events:   2\n"));
	unlink(a);
}

/* Replay saved snapshots: totals, difference, corrupt file, bad ABI. */
TEST_F(tool, input_files)
{
	char a[] = "/tmp/gpulat-a-XXXXXX", b[] = "/tmp/gpulat-b-XXXXXX";
	char b2[64];
	struct blob bl;
	size_t len;
	void *buf;
	int fd;

	blob_sched(&bl, 2);
	buf = blob_build(&bl, &len);
	fd = mkstemp(a);
	ASSERT_EQ((ssize_t)len, write(fd, buf, len));
	close(fd);
	free(buf);
	blob_record(&bl, 0, 5000000, 7);	/* wakeup CPU 0: 7 x 5 ms */
	bl.hdr.time_ns += 2000000000ULL;
	buf = blob_build(&bl, &len);
	fd = mkstemp(b);
	ASSERT_EQ((ssize_t)len, write(fd, buf, len));
	close(fd);
	ASSERT_EQ(0, run(self->out, sizeof(self->out), self->err,
			 sizeof(self->err), ARGV("hist", "-i", b, "-f", a)));
	ASSERT_NE(NULL, strstr(self->out, "interval 2.00s  (generation 1)\n"));
	ASSERT_NE(NULL, strstr(self->out, "count 7  p50 "));
	/* preempt had no samples in the interval: not shown */
	ASSERT_EQ(NULL, strstr(self->out, "sched.preempt"));
	ASSERT_EQ(NULL, strstr(self->out, "count 0\n"));
	ASSERT_EQ(0, run(self->out, sizeof(self->out), self->err,
			 sizeof(self->err),
			 ARGV("hist", "sched", "--json", "-i", b, "-f", a)));
	ASSERT_NE(NULL, strstr(self->out, "\"interval_s\":2,"));
	ASSERT_NE(NULL, strstr(self->out, "\"count\":7,"));
	ASSERT_EQ(0, run(self->out, sizeof(self->out), self->err,
			 sizeof(self->err), ARGV("status", "-i", b)));
	ASSERT_NE(NULL, strstr(self->out, "sched_switch"));
	/* a different ABI major is refused */
	((struct gpulat_snap_header *)buf)->abi_major = 2;
	fd = open(b, O_WRONLY | O_TRUNC);
	ASSERT_EQ((ssize_t)len, write(fd, buf, len));
	close(fd);
	ASSERT_EQ(GPULAT_EXIT_INCOMPATIBLE,
		  run(self->out, sizeof(self->out), self->err,
		      sizeof(self->err), ARGV("hist", "-i", b)));
	snprintf(b2, sizeof(b2), "ABI 2.%u is incompatible", GPULAT_ABI_MINOR);
	ASSERT_NE(NULL, strstr(self->err, b2));
	/* corrupt: truncated */
	ASSERT_EQ(0, truncate(a, 200));
	ASSERT_EQ(GPULAT_EXIT_ERROR, run(self->out, sizeof(self->out),
					 self->err, sizeof(self->err),
					 ARGV("status", "-i", a)));
	ASSERT_NE(NULL, strstr(self->err, "truncated snapshot"));
	unlink(a);
	unlink(b);
	free(buf);
	blob_release(&bl);
}

TEST(gpu_interval)
{
	struct gpulat_opts o;
	char err[512];

	ASSERT_EQ(0, parse(&o, err, "diagnose", "--gpu-interval", "0.5"));
	ASSERT_TRUE(o.has_gpu_interval);
	ASSERT_EQ(0.5, o.gpu_interval_s);
	ASSERT_EQ(0, parse(&o, err, "report", "--gpu-interval", "0"));
	ASSERT_TRUE(o.has_gpu_interval);
	ASSERT_EQ(0, o.gpu_interval_s);
	ASSERT_EQ(0, parse(&o, err, "diagnose", "-d", "2"));
	ASSERT_FALSE(o.has_gpu_interval);
	ASSERT_EQ(1, parse(&o, err, "diagnose", "--gpu-interval", "0.1"));
	ASSERT_NE(NULL, strstr(err, "bad --gpu-interval '0.1': 0 (NVML not sampled) or seconds from 0.2 to 60"));
	ASSERT_EQ(NULL, strstr(err, "unknown or ambiguous"));
	ASSERT_EQ(1, parse(&o, err, "report", "--gpu-interval", "61"));
	ASSERT_EQ(1, parse(&o, err, "report", "--gpu-interval", ""));
	ASSERT_EQ(1, parse(&o, err, "report", "--gpu-interval", "1s"));
	ASSERT_EQ(1, parse(&o, err, "hist", "--gpu-interval", "1"));
	ASSERT_NE(NULL, strstr(err, "does not apply to hist"));
}

TEST_HARNESS_MAIN
