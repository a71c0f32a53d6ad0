/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tables whose size a module parameter sets (stamp and in-flight tables,
 * keyed series).  At load, before anything is allocated, every such
 * parameter is checked, whether or not its family starts on:
 *
 *   above its bound         -EINVAL
 *   tables over 1/8 of RAM  -ENOMEM
 *
 * and the load is refused with one line naming the parameter, its value,
 * the bytes its tables need and what the machine has.  The tables are
 * then allocated quietly (gl_kvcalloc_sized(): no allocation-failure
 * report, no OOM killer); one that fails all the same says so in one line
 * of the same kind.
 */
#ifndef _GPULAT_KMOD_SIZED_H
#define _GPULAT_KMOD_SIZED_H

#include <linux/bitops.h>
#include <linux/types.h>

/* A parameter's tables may take RAM >> GPULAT_SIZED_RAM_SHIFT at most. */
#define GPULAT_SIZED_RAM_SHIFT	3

/*
 * One parameter: @value as given, @max its bound, @bytes what its tables
 * take at @value (for a value over the bound: would take, unclamped).
 */
struct gpulat_sized {
	const char *param;
	u64 value;
	u64 max;
	u64 bytes;
};

/* gpulat_sized_pow2 - @n rounded up to a power of two, in 64 bits */
static inline u64 gpulat_sized_pow2(u64 n)
{
	return n <= 1 ? 1 : 1ULL << fls64(n - 1);
}

int gpulat_sized_check(const struct gpulat_sized *s);
void gpulat_sized_nomem(const struct gpulat_sized *s);
bool gpulat_sized_failed(void);

#endif /* _GPULAT_KMOD_SIZED_H */
