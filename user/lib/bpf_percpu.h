/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgpulat: per-CPU kernel variables the BPF programs read by their
 * place in the CPU's per-CPU area (bpf_percpu.c).
 */
#ifndef _GPULAT_USER_BPF_PERCPU_H
#define _GPULAT_USER_BPF_PERCPU_H

#include <stdbool.h>
#include <stdint.h>

struct btf;

/*
 * gl_bpf_sirq_pending_off - @off: this kernel's softirq pending mask minus
 * its struct rq, in any CPU's per-CPU area; -ENOENT (and 0) when @btf
 * (the kernel's) and kallsyms do not say
 */
int gl_bpf_sirq_pending_off(const struct btf *btf, int64_t *off);

/*
 * gl_bpf_has_ktimers - whether this kernel serves TIMER and HRTIMER from
 * the ktimers thread: it has that thread's per-CPU mask,
 * pending_timer_softirq (BTF or kallsyms), and threads its interrupts
 * (PREEMPT_RT in uname's version, or threadirqs on the command line:
 * 6.1-rt always, mainline since 6.13 then).  Their raises then leave the
 * CPU's pending bits alone, and softirq.wait does not time them, as the
 * module does not (kmod/compat/irq.h).
 */
bool gl_bpf_has_ktimers(const struct btf *btf);

/*
 * gl_bpf_init_net - @addr: init_net's address, from kallsyms, where the
 * programs need it: 0 on a kernel whose initial namespaces have fixed
 * inode numbers (6.18, @btf's enum init_ns_ino), where they do not (and
 * no 100k lines of kallsyms are read); 0 and -ENOENT when not listed
 */
int gl_bpf_init_net(const struct btf *btf, uint64_t *addr);

#endif /* _GPULAT_USER_BPF_PERCPU_H */
