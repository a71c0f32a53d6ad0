/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GL_TP(tp, prog, args...) - one program body attached two ways:
 * SEC("tp_btf/tp") as prog (BTF-typed arguments, on a kernel whose BTF
 * describes the tracepoint: Linux 5.5 and later; its call costs what
 * raw_tp's does) and
 * SEC("raw_tp/tp") as prog##_raw (the same arguments untyped, on a kernel
 * without), chosen at load by user/lib/bpf_source.c.  The body sees
 * gl_btf, a constant: true in the tp_btf program, where a field of a
 * typed pointer is read with a plain load (a faulting one reads 0, as a
 * failed helper read does), false in the raw_tp one, where only
 * BPF_CORE_READ's helper call may read it (block.bpf.h: the plain loads
 * took a tenth off the block family's cost).  An integer argument is cast from
 * its u64 slot (bpf.mk: -Wno-int-conversion, as libbpf's BPF_PROG does
 * for its own).
 */
#ifndef _GPULAT_BPF_TP_H
#define _GPULAT_BPF_TP_H

#include "common.bpf.h"

#define GL_TP(tp, prog, args...)					\
	static __always_inline int prog##_body(const bool gl_btf,	\
					       unsigned long long *ctx,	\
					       ##args);			\
	SEC("tp_btf/" #tp)						\
	int prog(unsigned long long *ctx)				\
	{								\
		return prog##_body(true, ___bpf_ctx_cast(args));	\
	}								\
	SEC("raw_tp/" #tp)						\
	int prog##_raw(unsigned long long *ctx)				\
	{								\
		return prog##_body(false, ___bpf_ctx_cast(args));	\
	}								\
	static __always_inline int prog##_body(const bool gl_btf,	\
					       unsigned long long *ctx,	\
					       ##args)

#endif /* _GPULAT_BPF_TP_H */
