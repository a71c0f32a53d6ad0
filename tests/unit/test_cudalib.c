// SPDX-License-Identifier: GPL-2.0
/*
 * Finding libcuda.so.1 as the dynamic linker would (lib/cudalib.c), in
 * fake roots ($GPULAT_SYSROOT): $GPULAT_LIBCUDA first, then the folders
 * of /etc/ld.so.conf.d/ in file order, then the distributions' own; the
 * offsets of the double's functions; the reasons when there is none.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/cudalib.h"
#include "cuda_double.h"
#include "shell.h"


FIXTURE(root) {
	char dir[64];
	char dbl[PATH_MAX];
};

FIXTURE_SETUP(root)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/gl_cudalib.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_NE(NULL, cuda_double(self->dbl, sizeof(self->dbl)));
	unsetenv("GPULAT_LIBCUDA");
	setenv("GPULAT_SYSROOT", self->dir, 1);
}

FIXTURE_TEARDOWN(root)
{
	unsetenv("GPULAT_SYSROOT");
	sh("rm -rf %s", self->dir);
}

/* the double's seven functions, not the three per-thread-stream ones */
TEST_F(root, env_names_the_library)
{
	struct gl_cudalib lib;
	char why[256] = "";
	unsigned int i, found = 0;

	setenv("GPULAT_LIBCUDA", self->dbl, 1);
	ASSERT_EQ(0, gl_cudalib_resolve(&lib, NULL, why, sizeof(why)));
	EXPECT_EQ(7, lib.nr);
	for (i = 0; gl_cuda_fn_name(i); i++) {
		found += !!lib.offset[i];
		if (strstr(gl_cuda_fn_name(i), "_pt"))
			EXPECT_EQ(0, lib.offset[i]);
	}
	EXPECT_EQ(7, found);
	EXPECT_EQ(NULL, gl_cuda_fn_name(GPULAT_CUDA_FN_MAX));
	unsetenv("GPULAT_LIBCUDA");
}

TEST_F(root, env_missing_file_says_so)
{
	struct gl_cudalib lib;
	char why[256] = "";

	setenv("GPULAT_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	EXPECT_EQ(-ENOENT, gl_cudalib_resolve(&lib, NULL, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "GPULAT_LIBCUDA=/nonexistent"));
	unsetenv("GPULAT_LIBCUDA");
}

TEST_F(root, none_on_the_host)
{
	struct gl_cudalib lib;
	char why[256] = "";

	EXPECT_EQ(-ENOENT, gl_cudalib_resolve(&lib, NULL, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "no libcuda.so.1"));
}

/* a conf file's folder before the distribution's, links resolved */
TEST_F(root, conf_folder_first_then_distribution)
{
	struct gl_cudalib lib;
	char why[256] = "", want[PATH_MAX + 64];

	ASSERT_EQ(0, sh("mkdir -p %s/etc/ld.so.conf.d %s/opt/nv/lib %s/usr/lib64 && cp %s %s/usr/lib64/ && cp %s %s/opt/nv/lib/libcuda.so.535 && ln -s libcuda.so.535 %s/opt/nv/lib/libcuda.so.1",
			self->dir, self->dir, self->dir, self->dbl, self->dir,
			self->dbl, self->dir, self->dir));
	ASSERT_EQ(0, sh("printf '# the driver\\ninclude /etc/x.conf\\n  \\n/opt/none # c\\n/opt/nv/lib\\n' >%s/etc/ld.so.conf.d/10-nvidia.conf",
			self->dir));
	ASSERT_EQ(0, gl_cudalib_resolve(&lib, NULL, why, sizeof(why)));
	snprintf(want, sizeof(want), "%s/opt/nv/lib/libcuda.so.535", self->dir);
	EXPECT_STREQ(want, lib.path);
	EXPECT_EQ(7, lib.nr);
	/* without the conf file: the distribution's folder */
	ASSERT_EQ(0, sh("rm %s/etc/ld.so.conf.d/10-nvidia.conf", self->dir));
	ASSERT_EQ(0, gl_cudalib_resolve(&lib, NULL, why, sizeof(why)));
	snprintf(want, sizeof(want), "%s/usr/lib64/libcuda.so.1", self->dir);
	EXPECT_STREQ(want, lib.path);
}

/* a file of that name without the calls: said, not probed */
TEST_F(root, not_the_driver_library)
{
	struct gl_cudalib lib;
	char why[256] = "";

	ASSERT_EQ(0, sh("mkdir -p %s/usr/lib64 && cp /bin/true %s/usr/lib64/libcuda.so.1",
			self->dir, self->dir));
	EXPECT_GT(0, gl_cudalib_resolve(&lib, NULL, why, sizeof(why)));
	EXPECT_NE(0, why[0]);
}

TEST(ldconf_lines)
{
	const char *t = "/a\n#/b\ninclude /c\n/d\t# x\n\n/e";
	char dir[8];

	ASSERT_EQ(1, gl_ldconf_next(&t, dir, sizeof(dir)));
	EXPECT_STREQ("/a", dir);
	ASSERT_EQ(1, gl_ldconf_next(&t, dir, sizeof(dir)));
	EXPECT_STREQ("/d", dir);
	ASSERT_EQ(1, gl_ldconf_next(&t, dir, sizeof(dir)));
	EXPECT_STREQ("/e", dir);
	EXPECT_EQ(0, gl_ldconf_next(&t, dir, sizeof(dir)));
	/* a folder too long for dir is skipped */
	t = "/0123456789\n/f\n";
	ASSERT_EQ(1, gl_ldconf_next(&t, dir, sizeof(dir)));
	EXPECT_STREQ("/f", dir);
}

TEST_HARNESS_MAIN
