# SPDX-License-Identifier: GPL-2.0
# Kernel differences of the irq and softirq families (see features.mk).
#
# irq_handler_entry/_exit and softirq_raise/_entry/_exit have the same
# prototypes on 5.10, 6.1 and 6.12, and the probes check them at build
# time (GPULAT_CHECK_PROBE).  The softirq vector list is checked in
# compat/irq.h.

# PREEMPT_RT kernels with the ktimers thread (6.1-rt) raise TIMER and
# HRTIMER into that thread's own mask, pending_timer_softirq (not
# exported), not the CPU's pending bits: compat/irq.h.
gpulat-re-ktimers := DECLARE_PER_CPU\(unsigned (long|int), pending_timer_softirq\)
ccflags-y += $(call gpulat-have,include/linux/interrupt.h,$(gpulat-re-ktimers),GPULAT_HAVE_KTIMERS)
