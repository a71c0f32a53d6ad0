# SPDX-License-Identifier: GPL-2.0
# Kernel differences of the irq family (see features.mk).
