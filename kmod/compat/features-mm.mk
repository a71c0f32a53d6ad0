# SPDX-License-Identifier: GPL-2.0
# Kernel differences of the mm family (see features.mk).
