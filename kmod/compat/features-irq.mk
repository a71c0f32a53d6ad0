# SPDX-License-Identifier: GPL-2.0
# Kernel differences of the irq and softirq families (see features.mk).
#
# None so far: irq_handler_entry/_exit and softirq_raise/_entry/_exit have
# the same prototypes on 5.10, 6.1 and 6.12, and the probes check them at
# build time (GPULAT_CHECK_PROBE).  The softirq vector list is checked in
# compat/irq.h.
