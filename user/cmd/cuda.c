// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat cuda: which CUDA driver library the cuda family probes, and
 * handing it to the module (GPULAT_IOC_CUDA).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cmd/cmd.h"
#include "lib/cudalib.h"

/*
 * What each timed call costs: two uprobe traps (entry and return) and
 * the split's stamps, measured by make bench (Documentation/families/cuda.rst).
 */
#define CUDA_COST_NOTE \
	"cost: two uprobe traps per call of these functions, entry and return " \
	"(Documentation/families/cuda.rst: the measured cost per call)"

static void cuda_print(const struct gl_cuda_attached *a,
		       const struct gl_cudalib *lib, bool found)
{
	struct stat st;
	unsigned int i;
	bool same = found && !stat(lib->path, &st) && st.st_ino == a->ino;

	if (!a->ino) {
		printf("cuda: no library probed: no GPU wait is timed\n");
		if (found)
			printf("  found %s (%u functions): gpulat cuda attach\n",
			       lib->path, lib->nr);
		return;
	}
	/* dev is new_encode_dev()'s, which major() and minor() decode */
	printf("cuda: %u functions probed in inode %llu on %u:%u%s%s\n",
	       a->nr, (unsigned long long)a->ino, major(a->dev),
	       minor(a->dev), same ? ", " : "", same ? lib->path : "");
	for (i = 0; i < GPULAT_CUDA_FN_MAX; i++)
		if (a->offset[i])
			printf("  %-26s 0x%llx\n", gl_cuda_fn_name(i),
			       (unsigned long long)a->offset[i]);
	if (found && !same)
		printf("  the library found now is another file, %s: gpulat cuda attach\n",
		       lib->path);
	printf("%s\n", CUDA_COST_NOTE);
}

static int cuda_run(const struct gpulat_opts *o)
{
	struct gl_cuda_attached a;
	struct gl_cudalib lib;
	struct gl_source *src;
	uint32_t major, minor;
	char why[512];
	bool found;
	int ret;

	found = !gl_cudalib_resolve(&lib, o->cuda_lib, why, sizeof(why));
	if (o->cuda_op == GPULAT_CUDA_ATTACH && !found) {
		fprintf(stderr, "gpulat: cuda attach: %s\n", why);
		return GPULAT_EXIT_ERROR;
	}
	ret = gpulat_source_open(o, &src, &major, &minor, stderr);
	if (ret)
		return gpulat_device_exit(ret);
	if (o->cuda_op != GPULAT_CUDA_STATUS)
		ret = gl_source_cuda_set(src, o->cuda_op == GPULAT_CUDA_ATTACH ?
					 &lib : NULL);
	if (!ret)
		ret = gl_source_cuda_get(src, &a);
	gl_source_close(src);
	if (ret == -EOPNOTSUPP) {
		fprintf(stderr,
			"gpulat: cuda: the BPF source probes the library it finds when it loads (gpulat status)\n");
		return GPULAT_EXIT_ERROR;
	}
	if (ret) {
		fprintf(stderr, "gpulat: cuda: %s\n",
			ret == -ENOTTY ? "the loaded module predates the cuda family (ABI 1.5)" :
			ret == -ENOENT ? "the module's cuda family is not loaded (cuda=0)" :
			ret == -EPERM ? "permission denied; run gpulat as root" :
			strerror(-ret));
		return GPULAT_EXIT_ERROR;
	}
	if (!found && o->cuda_op == GPULAT_CUDA_STATUS)
		printf("%s\n", why);
	cuda_print(&a, &lib, found);
	return GPULAT_EXIT_OK;
}

static const char usage_cuda[] =
"usage: gpulat cuda [status | attach [LIBRARY] | detach]\n"
"\n"
"The cuda family times a GPU job's waits in the CUDA driver library's\n"
"synchronising calls (cuStreamSynchronize, cuEventSynchronize,\n"
"cuCtxSynchronize, the synchronous copies), per process, and splits each\n"
"into the GPU's time and what the host added (hist cuda).  It probes\n"
"the library by inode: one attach covers every process that maps it,\n"
"containers that bind-mount it included.\n"
"\n"
"  status   what the source probes (default)\n"
"  attach   hand the module LIBRARY, or the libcuda.so.1 the dynamic\n"
"           linker would find ($GPULAT_LIBCUDA overrides); it stays\n"
"           until detach or unload\n"
"  detach   remove the probes\n"
"\n"
"The BPF source probes the library it finds when it loads; with none\n"
"on the host, nothing is probed and nothing costs.\n"
"\n"
CUDA_COST_NOTE "\n"
"\n"
"options:\n"
"  -h, --help   show this help\n";

const struct gpulat_command cmd_cuda = {
	.name = "cuda",
	.summary = "the CUDA library whose synchronising calls are timed",
	.usage = usage_cuda,
	.optstring = "h",
	.args = GPULAT_ARGS_CUDA,
	.run = cuda_run,
};
