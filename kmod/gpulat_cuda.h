/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The CUDA driver library's calls in which a GPU job waits for the GPU,
 * declared once: function i's file offset is struct gpulat_cuda_req's
 * offset[i] (uapi/gpulat.h) and the BPF source's uprobe i.  The tool
 * resolves each by name with libelf (user/lib/elfsym.c); a name the
 * library lacks is skipped.  Order is ABI: new names go at the end.
 * Pure macros: the kernel, the BPF objects and the tool compile it alike.
 *
 * GPULAT_CUDA_FNS(F) calls F(name) per function, name a string.
 */
#ifndef _GPULAT_CUDA_H
#define _GPULAT_CUDA_H

#define GPULAT_CUDA_LIB		"libcuda.so.1"

#define GPULAT_CUDA_FNS(F)						\
	F("cuStreamSynchronize")					\
	F("cuEventSynchronize")						\
	F("cuCtxSynchronize")						\
	F("cuMemcpyDtoH")						\
	F("cuMemcpyDtoH_v2")						\
	F("cuMemcpyHtoD")						\
	F("cuMemcpyHtoD_v2")						\
	F("cuStreamSynchronize_ptsz")					\
	F("cuMemcpyDtoH_v2_ptds")					\
	F("cuMemcpyHtoD_v2_ptds")

#endif /* _GPULAT_CUDA_H */
