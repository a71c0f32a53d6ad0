# SPDX-License-Identifier: GPL-2.0
#
# Kernel differences are decided by what the target kernel's headers have,
# not by its version number: distributions backport changes.  Each test
# greps the header that defines the thing and sets -DGPULAT_HAVE_<X>.
# The headers beside this file turn them into the few helpers the probes
# use.
# (Patterns sit in variables: make would split a call argument at commas.)

# This file's folder: it is included from kmod/ and from tests/kmod/.
gpulat-compat := $(dir $(lastword $(MAKEFILE_LIST)))

gpulat-have = $(shell grep -qE '$(2)' $(srctree)/$(1) 2>/dev/null && echo -D$(3))

# One file per subsystem, so that families evolve apart; a family with no
# kernel differences has none.
include $(sort $(wildcard $(gpulat-compat)features-*.mk))
