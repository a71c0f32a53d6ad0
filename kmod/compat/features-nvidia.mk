# SPDX-License-Identifier: GPL-2.0
# Kernel differences of the nvidia family (see features.mk).
