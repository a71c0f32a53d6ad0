# SPDX-License-Identifier: GPL-2.0
# Kernel differences of the block family (see features.mk).
