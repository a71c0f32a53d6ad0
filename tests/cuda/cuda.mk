# SPDX-License-Identifier: GPL-2.0
#
# scripts/gpu-check's workload, included at the end of user/user.mk.
#
#   make gpu-job   $(GPU_JOB): tests/cuda/gpu_job.c, a CUDA driver-API job
#                  (libcuda.so.1 by dlopen(), a PTX kernel it embeds) that
#                  a GPU machine runs with no compiler or CUDA headers
#
# It links the C library alone, dynamically: a static binary cannot
# dlopen() the driver (libcuda.so.1 needs the system's shared libc), so
# gpu-check --bundle ships the build host's glibc runtime beside it for
# a GPU machine whose glibc is older.  tests/scripts/test_gpu_check.sh
# runs it against the libcuda.so.1 double, $(USER_CUDA_DOUBLE).

GPU_JOB := $(USER_OUT)/gpu_job

.PHONY: gpu-job
gpu-job: $(GPU_JOB)

$(GPU_JOB): tests/cuda/gpu_job.c
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) -o $@ $< -ldl
