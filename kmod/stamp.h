/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Start stamps: the layout and the packing are gpulat_stamp.h's, which
 * the BPF programs and the tool compile too.
 */
#ifndef _GPULAT_KMOD_STAMP_H
#define _GPULAT_KMOD_STAMP_H

#include <linux/types.h>

#include "gpulat_stamp.h"

#endif /* _GPULAT_KMOD_STAMP_H */
