/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Which series a request's samples are filed under, shared by the module
 * (probe_block.c), the BPF programs (block.bpf.h) and the tool's tests,
 * so that both sources classify alike.  The operations are the kernel's
 * REQ_OP_* numbers (req_op(): the low bits of cmd_flags), stable since
 * 4.10; each source asserts at build time that its kernel's equal these.
 * Pure integer code.
 */
#ifndef _GPULAT_OPS_H
#define _GPULAT_OPS_H

#include "uapi/gpulat.h"

#define GPULAT_REQ_OP_READ	0
#define GPULAT_REQ_OP_WRITE	1
#define GPULAT_REQ_OP_FLUSH	2
#define GPULAT_REQ_OP_DISCARD	3

/* gpulat_block_op - the GPULAT_BLOCK_* of a request of operation @op */
static inline unsigned int gpulat_block_op(unsigned int op)
{
	switch (op) {
	case GPULAT_REQ_OP_READ:
		return GPULAT_BLOCK_READ;
	case GPULAT_REQ_OP_WRITE:
		return GPULAT_BLOCK_WRITE;
	case GPULAT_REQ_OP_FLUSH:
		return GPULAT_BLOCK_FLUSH;
	case GPULAT_REQ_OP_DISCARD:
		return GPULAT_BLOCK_DISCARD;
	default:
		return GPULAT_BLOCK_OTHER;
	}
}

#endif /* _GPULAT_OPS_H */
