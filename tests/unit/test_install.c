// SPDX-License-Identifier: GPL-2.0
/*
 * An installed tool: gpulat --version, and the "module not loaded" advice
 * for each place the module can be (installed, built beside the tool,
 * nowhere), over a fake /proc and /lib/modules (GPULAT_SYSROOT).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "cmd/cmd.h"
#include "lib/libinternal.h"
#include "shell.h"

#define REL	"9.9.9-gpulat-test"

/* put - write @text to @root/@rel, making the folders */
static int put(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (sh("mkdir -p \"$(dirname '%s')\"", path))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* run_tool - the built tool with @args (shell words); status, output */
static int run_tool(const char *env, const char *args, char *out,
		    size_t outlen, char *err, size_t errlen)
{
	const char *bin = getenv("GPULAT_BIN");
	char o[] = "/tmp/gpulat-inst-o.XXXXXX", e[] = "/tmp/gpulat-inst-e.XXXXXX";
	int fo = mkstemp(o), fe = mkstemp(e), ret;
	ssize_t n;

	if (!bin)
		bin = "build/unit/gpulat";
	ret = sh("%s %s %s >%s 2>%s", env, bin, args, o, e);
	n = read(fo, out, outlen - 1);
	out[n > 0 ? n : 0] = '\0';
	n = read(fe, err, errlen - 1);
	err[n > 0 ? n : 0] = '\0';
	close(fo);
	close(fe);
	unlink(o);
	unlink(e);
	return ret;
}

/* is_version - a version word: starts with a digit, no blank */
static bool is_version(const char *s, size_t n)
{
	size_t i;

	if (!n || s[0] < '0' || s[0] > '9')
		return false;
	for (i = 0; i < n; i++)
		if (s[i] == ' ' || s[i] == '\n' || s[i] == '(')
			return false;
	return true;
}

/* "gpulat VERSION (ABI M.N)", with or without the module. */
TEST(version)
{
	static const char *const flags[] = { "--version", "-V" };
	char out[4096], err[4096], tail[64], first[256];
	const char *sp;
	size_t i;

	snprintf(tail, sizeof(tail), " (ABI %u.%u)\n", GPULAT_ABI_MAJOR,
		 GPULAT_ABI_MINOR);
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		ASSERT_EQ(0, run_tool("", flags[i], out, sizeof(out), err,
				      sizeof(err)));
		ASSERT_STREQ("", err);
		ASSERT_EQ(0, strncmp(out, "gpulat ", 7)) TH_LOG("%s", out);
		snprintf(first, sizeof(first), "%.*s",
			 (int)(strcspn(out, "\n") + 1), out);
		sp = strchr(first + 7, ' ');
		ASSERT_NE(NULL, sp) TH_LOG("%s", first);
		ASSERT_TRUE(is_version(first + 7, sp - (first + 7)))
			TH_LOG("%s", first);
		ASSERT_STREQ(tail, sp) TH_LOG("%s", first);
		/* the module's ABI follows only when the device opens */
		if (access(GPULAT_DEVICE_PATH, F_OK))
			ASSERT_STREQ(first, out);
	}
	/* the same version the build took from scripts/version */
	ASSERT_EQ(0, sh("v=$(scripts/version) && %s --version | grep -qxF \"gpulat $v (ABI %u.%u)\"",
			getenv("GPULAT_BIN") ?: "build/unit/gpulat",
			GPULAT_ABI_MAJOR, GPULAT_ABI_MINOR));
}

FIXTURE(hint) {
	char root[64];
	char msg[2048];
};

FIXTURE_SETUP(hint)
{
	snprintf(self->root, sizeof(self->root), "/tmp/gpulat-hint.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	ASSERT_EQ(0, put(self->root, "proc/sys/kernel/osrelease", REL "\n"));
	ASSERT_EQ(0, setenv("GPULAT_SYSROOT", self->root, 1));
}

FIXTURE_TEARDOWN(hint)
{
	unsetenv("GPULAT_SYSROOT");
	sh("rm -rf %s", self->root);
}

/* hint - gl_load_hint() into self->msg */
#define hint(self) \
	(gl_load_hint((self)->msg, sizeof((self)->msg)), (self)->msg)

/*
 * tool_beside - /proc/self/exe is /opt/g/build/user/gpulat, and
 * /opt/g/kmod/gpulat.ko a fake module whose .modinfo names @vermagic
 */
static int tool_beside(const char *root, const char *vermagic)
{
	static const char elf[] = "\177ELF...license=GPL";	/* NUL kept */
	char path[PATH_MAX];
	FILE *f;

	if (sh("mkdir -p %s/opt/g/build/user %s/opt/g/kmod %s/proc/self && ln -sf /opt/g/build/user/gpulat %s/proc/self/exe",
	       root, root, root, root))
		return -1;
	snprintf(path, sizeof(path), "%s/opt/g/kmod/gpulat.ko", root);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fwrite(elf, 1, sizeof(elf), f);
	fprintf(f, "vermagic=%s SMP preempt mod_unload modversions ",
		vermagic);
	fputc('\0', f);
	return fclose(f);
}

/* Installed and indexed by depmod: modprobe, also when compressed. */
TEST_F(hint, installed)
{
	ASSERT_EQ(0, put(self->root, "lib/modules/" REL "/modules.dep",
			 "kernel/drivers/block/null_blk/null_blk.ko:\n"
			 "updates/gpulat.ko:\n"));
	ASSERT_STREQ("load it with 'modprobe gpulat'", hint(self));
	ASSERT_EQ(0, put(self->root, "lib/modules/" REL "/modules.dep",
			 "updates/dkms/gpulat.ko.xz: kernel/lib/x.ko.xz\n"));
	ASSERT_STREQ("load it with 'modprobe gpulat'", hint(self));
	/* a module built beside the tool does not matter then */
	ASSERT_EQ(0, tool_beside(self->root, REL));
	ASSERT_STREQ("load it with 'modprobe gpulat'", hint(self));
}

/* Other kernels and other modules named alike do not count. */
TEST_F(hint, not_ours)
{
	ASSERT_EQ(0, put(self->root, "lib/modules/" REL "/modules.dep",
			 "updates/gpulat_floor_ret.ko:\n"
			 "extra/notgpulat.ko:\n"
			 "kernel/x.ko: updates/gpulat.ko\n"));
	ASSERT_EQ(0, put(self->root, "lib/modules/6.1.0-57-amd64/modules.dep",
			 "updates/gpulat.ko:\n"));
	ASSERT_EQ(0, put(self->root, "lib/modules/6.1.0-57-amd64/updates/gpulat.ko",
			 ""));
	ASSERT_STREQ("it is not installed for this kernel (" REL "): run 'make && make install' in the gpulat source tree, then 'modprobe gpulat'",
		     hint(self));
}

/* Copied in place, but depmod did not run: modprobe would not find it. */
TEST_F(hint, unindexed)
{
	ASSERT_EQ(0, put(self->root, "lib/modules/" REL "/updates/dkms/gpulat.ko.xz",
			 ""));
	ASSERT_STREQ("load it with 'depmod -a && modprobe gpulat'",
		     hint(self));
}

/* Built in the tree the tool was built in: insmod that file. */
TEST_F(hint, built)
{
	ASSERT_EQ(0, tool_beside(self->root, REL));
	ASSERT_STREQ("load it with 'insmod /opt/g/kmod/gpulat.ko'",
		     hint(self));
}

/* Built there, but for another kernel: insmod would refuse it. */
TEST_F(hint, built_for_another_kernel)
{
	ASSERT_EQ(0, tool_beside(self->root, "6.1.0-57-amd64"));
	ASSERT_STREQ("/opt/g/kmod/gpulat.ko is built for kernel 6.1.0-57-amd64, this one is " REL ": rebuild it with 'make -C /opt/g', then 'insmod /opt/g/kmod/gpulat.ko'",
		     hint(self));
}

/* Neither: how to build and install it. */
TEST_F(hint, nowhere)
{
	ASSERT_EQ(0, sh("mkdir -p %s/proc/self && ln -s /usr/local/sbin/gpulat %s/proc/self/exe",
			self->root, self->root));
	ASSERT_NE(NULL, strstr(hint(self), "make && make install"));
	ASSERT_NE(NULL, strstr(self->msg, "then 'modprobe gpulat'"));
}

/* The tool says it, after the reason, with exit status 2. */
TEST_F(hint, tool_says_it)
{
	char out[4096], err[4096], env[128];

	if (!access(GPULAT_DEVICE_PATH, F_OK))
		SKIP(return, "%s exists on this machine", GPULAT_DEVICE_PATH);
	ASSERT_EQ(0, tool_beside(self->root, REL));
	snprintf(env, sizeof(env), "GPULAT_SYSROOT=%s", self->root);
	ASSERT_EQ(GPULAT_EXIT_NO_MODULE,
		  run_tool(env, "status", out, sizeof(out), err, sizeof(err)));
	ASSERT_STREQ("gpulat: " GPULAT_DEVICE_PATH ": No such file or directory: the gpulat module is not loaded; load it with 'insmod /opt/g/kmod/gpulat.ko'\n",
		     err);
	/* gl_open() itself, for programs on the library */
	ASSERT_EQ(-ENOENT, gl_open(self->msg, sizeof(self->msg)));
	ASSERT_NE(NULL, strstr(self->msg, "not loaded; load it with 'insmod /opt/g/kmod/gpulat.ko'"));
}

TEST_HARNESS_MAIN
