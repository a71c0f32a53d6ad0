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
#include "gpulat.h"

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
	ASSERT_EQ(0, parse(&o, err, "hist", "--per"));	/* unique prefix */
	ASSERT_TRUE(o.per_cpu);
}

/* Every bad input: exit code 1 and a message naming the problem. */
TEST(parse_errors)
{
	static const struct {
		char *argv[6];
		const char *msg;
	} cases[] = {
		{ { "gpulat", NULL }, "no command" },
		{ { "gpulat", "histo", NULL }, "unknown command 'histo'" },
		{ { "gpulat", "hist", "abc", NULL }, "unknown family or bad interval 'abc' (families: sched)" },
		{ { "gpulat", "hist", "1", "abc", NULL }, "bad count 'abc'" },
		{ { "gpulat", "hist", "1", "0", NULL }, "bad count '0'" },
		{ { "gpulat", "hist", "1", "2.5", NULL }, "bad count '2.5'" },
		{ { "gpulat", "hist", "0", NULL }, "bad interval '0'" },
		{ { "gpulat", "hist", "0.0", NULL }, "bad interval '0.0'" },
		{ { "gpulat", "hist", "1.2.3", NULL }, "unknown family or bad interval '1.2.3'" },
		{ { "gpulat", "hist", "99999999", NULL }, "bad interval '99999999'" },
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
		{ { "gpulat", "snapshot", "-o", "", NULL }, "snapshot needs -o FILE" },
	};
	struct gpulat_opts o;
	char err[512];
	size_t i;
	int argc;

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
	ASSERT_NE(NULL, strstr(self->err, "insmod kmod/gpulat.ko"));
	ASSERT_EQ(GPULAT_EXIT_NO_MODULE, run(self->out, sizeof(self->out),
					     self->err, sizeof(self->err),
					     ARGV("hist", "1", "1")));
	ASSERT_EQ(GPULAT_EXIT_NO_MODULE, run(self->out, sizeof(self->out),
					     self->err, sizeof(self->err),
					     ARGV("status", "--json")));
	ASSERT_NE(NULL, strstr(self->out, "{\"loaded\":false,"));
}

TEST_F(tool, help_has_examples)
{
	char *const cmds[][3] = {
		{ "gpulat", "--help", NULL },
		{ "gpulat", "hist", "-h" },
		{ "gpulat", "status", "--help" },
	};
	char *line, *save;
	size_t i;

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, run(self->out, sizeof(self->out), self->err,
				 sizeof(self->err), cmds[i]));
		ASSERT_NE(NULL, strstr(self->out, "EXAMPLES:"));
		for (line = strtok_r(self->out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			ASSERT_LT(strlen(line), 80);
	}
}

/* Replay saved snapshots: totals, difference, corrupt file, bad ABI. */
TEST_F(tool, input_files)
{
	char a[] = "/tmp/gpulat-a-XXXXXX", b[] = "/tmp/gpulat-b-XXXXXX";
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
	ASSERT_NE(NULL, strstr(self->out, "count 0\n"));
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
	ASSERT_NE(NULL, strstr(self->err, "ABI 2.0 is incompatible"));
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

TEST_HARNESS_MAIN
