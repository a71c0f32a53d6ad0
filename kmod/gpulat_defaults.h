/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The sizes and timeouts of the module's tables by default, which the
 * BPF source's loader gives its maps too (user/lib/bpf_fam.c): stated
 * once, so that the two sources hold and expire alike.  Plain numbers,
 * so that a module parameter's description can print them.
 */
#ifndef _GPULAT_DEFAULTS_H
#define _GPULAT_DEFAULTS_H

/* sched's start stamps (sched_slots 0): entries per possible CPU */
#define GPULAT_SCHED_SLOTS_PER_CPU	1024
/* mm's stall stamps (mm_slots 0): pid entries per possible CPU */
#define GPULAT_MM_SLOTS_PER_CPU		128

/* block's in-flight requests (block_inflight 0): per CPU, at least */
#define GPULAT_BLOCK_INFLIGHT_PER_CPU	128
#define GPULAT_BLOCK_INFLIGHT_MIN	4096
/* a request stamp this old may be taken over: twice the usual timeout */
#define GPULAT_BLOCK_EXPIRE_MS		60000

/* net's in-flight packets (net_inflight 0): per CPU, at least */
#define GPULAT_NET_INFLIGHT_PER_CPU	256
#define GPULAT_NET_INFLIGHT_MIN		4096
/* net_expire_ms: a packet stamp this old is taken over, counted */
#define GPULAT_NET_EXPIRE_MS		1000

#endif /* _GPULAT_DEFAULTS_H */
