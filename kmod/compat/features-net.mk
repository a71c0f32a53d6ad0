# SPDX-License-Identifier: GPL-2.0
# Kernel differences of the net family (see features.mk).
