# SPDX-License-Identifier: GPL-2.0
# Kernel differences of uprobes (see features.mk), for the job's GPU
# waits: 6.12 made uprobe_register() return the uprobe and split its
# unregistering into uprobe_unregister_nosync() and uprobe_unregister_sync()
# (compat/uprobe.h).
ccflags-y += $(call gpulat-have,include/linux/uprobes.h,uprobe_unregister_nosync,GPULAT_HAVE_UPROBE_NOSYNC)
