# SPDX-License-Identifier: GPL-2.0
#
# Kernel differences are decided by what the target kernel's headers have,
# not by its version number: distributions backport changes.  Each test
# greps the header that defines the thing and sets -DGPULAT_HAVE_<X>.
# gpulat_compat.h turns these into the few helpers the probes use.
# (Patterns sit in variables: make would split a call argument at commas.)

# This file's folder: it is included from kmod/ and from tests/kmod/.
gpulat-compat := $(dir $(lastword $(MAKEFILE_LIST)))

gpulat-have = $(shell grep -qE '$(2)' $(srctree)/$(1) 2>/dev/null && echo -D$(3))

# sched_switch gained a trailing prev_state in 5.18 (fa2c3254d7cf).
gpulat-re-prev-state := ^[[:space:]]*unsigned int prev_state\)
ccflags-y += $(call gpulat-have,include/trace/events/sched.h,$(gpulat-re-prev-state),GPULAT_HAVE_SWITCH_PREV_STATE)

# task_struct::state became __state in 5.14 (2f064a59a11f).
gpulat-re-ustate := ^[[:space:]]*unsigned int[[:space:]]+__state;
ccflags-y += $(call gpulat-have,include/linux/sched.h,$(gpulat-re-ustate),GPULAT_HAVE_TASK_USTATE)

# One file per family, so that families evolve apart.
include $(gpulat-compat)features-block.mk
include $(gpulat-compat)features-net.mk
include $(gpulat-compat)features-irq.mk
include $(gpulat-compat)features-nvidia.mk
include $(gpulat-compat)features-mm.mk
