# SPDX-License-Identifier: GPL-2.0
# Kernel differences of the scheduler's tracepoints and task state, which
# the sched and nvidia families and the mux read (see features.mk and
# compat/sched.h).

# sched_switch gained a trailing prev_state in 5.18 (fa2c3254d7cf).
gpulat-re-prev-state := ^[[:space:]]*unsigned int prev_state\)
ccflags-y += $(call gpulat-have,include/trace/events/sched.h,$(gpulat-re-prev-state),GPULAT_HAVE_SWITCH_PREV_STATE)

# task_struct::state became __state in 5.14 (2f064a59a11f).
gpulat-re-ustate := ^[[:space:]]*unsigned int[[:space:]]+__state;
ccflags-y += $(call gpulat-have,include/linux/sched.h,$(gpulat-re-ustate),GPULAT_HAVE_TASK_USTATE)
