/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The names of every family's drop counters (struct gpulat_counter.name),
 * declared once for the module (kmod/probe_*.c) and the BPF source's
 * reader (user/lib/bpf_fam.c), which fill the same counters.  Pure
 * initializers: no kernel-only or libc-only code.
 */
#ifndef _GPULAT_DROPS_H
#define _GPULAT_DROPS_H

#include "uapi/gpulat.h"

#define GPULAT_SCHED_DROP_NAMES { \
	[GPULAT_SCHED_NO_START] = "sched.no_start", \
	[GPULAT_SCHED_EVICTED] = "sched.evicted", \
	[GPULAT_SCHED_NEGATIVE] = "sched.negative", \
}

#define GPULAT_BLOCK_DROP_NAMES { \
	[GPULAT_BLOCK_NO_START] = "block.no_start", \
	[GPULAT_BLOCK_FULL] = "block.full", \
	[GPULAT_BLOCK_EXPIRED] = "block.expired", \
	[GPULAT_BLOCK_NEGATIVE] = "block.negative", \
	[GPULAT_BLOCK_KEYS_FULL] = "block.keys_full", \
}

#define GPULAT_NET_DROP_NAMES { \
	[GPULAT_NET_NO_START] = "net.no_start", \
	[GPULAT_NET_FULL] = "net.full", \
	[GPULAT_NET_EXPIRED] = "net.expired", \
	[GPULAT_NET_NEGATIVE] = "net.negative", \
	[GPULAT_NET_KEYS_FULL] = "net.keys_full", \
}

#define GPULAT_IRQ_DROP_NAMES { \
	[GPULAT_IRQ_NO_START] = "irq.no_start", \
	[GPULAT_IRQ_NEGATIVE] = "irq.negative", \
	[GPULAT_IRQ_KEYS_FULL] = "irq.keys_full", \
	[GPULAT_IRQ_UNPAIRED] = "irq.unpaired", \
}

#define GPULAT_SOFTIRQ_DROP_NAMES { \
	[GPULAT_SOFTIRQ_NO_START] = "softirq.no_start", \
	[GPULAT_SOFTIRQ_NEGATIVE] = "softirq.negative", \
}

#define GPULAT_MM_DROP_NAMES { \
	[GPULAT_MM_NO_START] = "mm.no_start", \
	[GPULAT_MM_NEGATIVE] = "mm.negative", \
	[GPULAT_MM_EVICTED] = "mm.evicted", \
}

#define GPULAT_NV_DROP_NAMES { \
	[GPULAT_NV_NO_START] = "nvidia.no_start", \
	[GPULAT_NV_NEGATIVE] = "nvidia.negative", \
	[GPULAT_NV_KEYS_FULL] = "nvidia.keys_full", \
	[GPULAT_NV_XID_LOST] = "nvidia.xid_lost", \
}

#define GPULAT_CG_DROP_NAMES { \
	[GPULAT_CG_KEYS_FULL] = "cgroup.keys_full", \
}

#define GPULAT_CUDA_DROP_NAMES { \
	[GPULAT_CUDA_NO_SLOT] = "cuda.no_slot", \
	[GPULAT_CUDA_NO_ENTRY] = "cuda.no_entry", \
	[GPULAT_CUDA_NEGATIVE] = "cuda.negative", \
	[GPULAT_CUDA_KEYS_FULL] = "cuda.keys_full", \
	[GPULAT_CUDA_EXITED] = "cuda.exited", \
	[GPULAT_CUDA_NESTED] = "cuda.nested", \
}

#endif /* _GPULAT_DROPS_H */
