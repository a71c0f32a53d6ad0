// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF source: every probe family of gpulat.ko as BPF programs that
 * fill the maps of gpulat_bpf.h, which libgpulat reads into the
 * module's snapshot layout.  One object, one skeleton; the tool attaches
 * each family's programs as the module registers its probes.
 * Documentation/bpf.rst says where the two sources differ, and why.
 */
#include "common.bpf.h"

/* Gates closed until the tool opens them (a zeroed gate traces all). */
struct gl_bpf_conf gl_conf = {
	.gate = { [0 ... GPULAT_FAM_MAX - 1] = GL_U64_MAX },
};

/* A family whose programs the verifier must refuse: tests only (0: none). */
const volatile __u32 gl_test_reject;
const volatile __u32 gl_pst_bits[GPULAT_FAM_MAX];

#include "sched.bpf.h"
#include "block.bpf.h"
#include "net.bpf.h"
#include "irq.bpf.h"
#include "softirq.bpf.h"
#include "mm.bpf.h"
#include "nvidia.bpf.h"
#include "cuda.bpf.h"

char LICENSE[] SEC("license") = "GPL";
