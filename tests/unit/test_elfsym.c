// SPDX-License-Identifier: GPL-2.0
/*
 * Functions' file offsets in a shared library (lib/elfsym.c), on the
 * libcuda.so.1 test double: every synchronising call found, and each
 * offset, mapped as the loader maps the file, is the address dlsym()
 * gives; a name it lacks is 0; a file that is no ELF, is gone or is cut
 * short is an error with its reason, never a wrong offset.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/array_size.h"
#include "lib/elfsym.h"
#include "cuda_double.h"
#include "shell.h"

static const char *const names[] = {
	"cuStreamSynchronize", "cuEventSynchronize", "cuCtxSynchronize",
	"cuMemcpyDtoH_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH", "cuMemcpyHtoD",
};


/* mapped - where the loader put file offset @off of @path, or 0 */
static unsigned long mapped(const char *path, uint64_t off)
{
	unsigned long lo, hi, moff;
	char line[PATH_MAX + 128], perm[8], file[PATH_MAX];
	unsigned long at = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		file[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &lo, &hi,
			   perm, &moff, file) < 4 || strcmp(file, path))
			continue;
		if (off >= moff && off - moff < hi - lo && perm[2] == 'x')
			at = lo + (off - moff);
	}
	if (f)
		fclose(f);
	return at;
}

TEST(offsets_are_where_the_loader_puts_them)
{
	uint64_t offs[ARRAY_SIZE(names)];
	char lib[PATH_MAX], real[PATH_MAX], why[256];
	void *h;
	size_t i;

	ASSERT_NE(NULL, cuda_double(lib, sizeof(lib)));
	ASSERT_NE(NULL, realpath(lib, real));
	ASSERT_EQ((int)ARRAY_SIZE(names),
		  gl_elf_sym_offsets(real, names, ARRAY_SIZE(names), offs,
				     why, sizeof(why))) TH_LOG("%s", why);
	h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	ASSERT_NE(NULL, h) TH_LOG("%s", dlerror());
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		ASSERT_NE(0, offs[i]);
		EXPECT_EQ((unsigned long)dlsym(h, names[i]),
			  mapped(real, offs[i])) TH_LOG("%s", names[i]);
	}
	dlclose(h);
}

TEST(a_name_it_lacks_is_zero)
{
	const char *const some[] = { "cuNotAFunction", "cuCtxSynchronize",
				     "fake_calls" /* data, not a function */ };
	uint64_t offs[3];
	char lib[PATH_MAX], why[256];

	ASSERT_NE(NULL, cuda_double(lib, sizeof(lib)));
	ASSERT_EQ(1, gl_elf_sym_offsets(lib, some, 3, offs, why,
					sizeof(why)));
	EXPECT_EQ(0, offs[0]);
	EXPECT_NE(0, offs[1]);
	EXPECT_EQ(0, offs[2]);
}

TEST(bad_files_say_why)
{
	uint64_t offs[ARRAY_SIZE(names)];
	char lib[PATH_MAX], why[256], cut[] = "/tmp/gl-elfsym.XXXXXX";
	size_t i;
	int fd, ret;

	ASSERT_EQ(-ENOENT, gl_elf_sym_offsets("/nonexistent/libcuda.so.1",
					      names, 1, offs, why,
					      sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "/nonexistent/libcuda.so.1"));
	ASSERT_EQ(-ENOEXEC, gl_elf_sym_offsets("/proc/self/status", names,
					       1, offs, why, sizeof(why)));
	EXPECT_STREQ("not an ELF file", why);
	/* cut short at several lengths: an error or nothing, no offset */
	ASSERT_NE(NULL, cuda_double(lib, sizeof(lib)));
	fd = mkstemp(cut);
	ASSERT_LE(0, fd);
	close(fd);
	for (i = 16; i <= 4096; i *= 2) {
		ASSERT_EQ(0, sh("head -c %zu %s > %s", i, lib, cut));
		ret = gl_elf_sym_offsets(cut, names, ARRAY_SIZE(names), offs,
					 why, sizeof(why));
		EXPECT_GE(0, ret) TH_LOG("%zu bytes: %d", i, ret);
	}
	unlink(cut);
}

TEST_HARNESS_MAIN
