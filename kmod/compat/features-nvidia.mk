# SPDX-License-Identifier: GPL-2.0
# Kernel differences of the nvidia family (see features.mk).
#
# None so far.  The family uses gpulat_compat.h's sched_switch arguments and
# task state; irq_handler_entry/exit, sched_wakeup, sched_process_exit,
# struct irqaction's thread and secondary, the tracepoint module notifier
# and tracepoint_ptr_deref() are the same from 5.10 to 6.12.  The driver's
# nvidia_dev_xid prototype is checked against a copy in probe_nvidia.c.
