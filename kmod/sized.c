// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters that size tables: the check at load and the one line
 * that explains a refusal or a failed allocation (sized.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/printk.h>

#include "sized.h"

/* a table failed to allocate and said so (main.c prints no more) */
static bool sized_failed;

static u64 sized_ram_bytes(void)
{
	return (u64)totalram_pages() << PAGE_SHIFT;
}

/*
 * gpulat_sized_check - 0 if @s's tables may be allocated on this machine;
 * else one line and -EINVAL (over the bound) or -ENOMEM (over the share
 * of RAM)
 */
int gpulat_sized_check(const struct gpulat_sized *s)
{
	u64 ram = sized_ram_bytes();

	if (s->value > s->max) {
		pr_err("%s=%llu refused: over its bound of %llu (its tables would need %llu bytes; this machine has %llu bytes of RAM)\n",
		       s->param, s->value, s->max, s->bytes, ram);
		return -EINVAL;
	}
	if (s->bytes > ram >> GPULAT_SIZED_RAM_SHIFT) {
		pr_err("%s=%llu refused: its tables need %llu bytes (%llu MiB), over 1/%u of this machine's %llu bytes of RAM (%llu MiB)\n",
		       s->param, s->value, s->bytes, s->bytes >> 20,
		       1U << GPULAT_SIZED_RAM_SHIFT, ram, ram >> 20);
		return -ENOMEM;
	}
	return 0;
}

/* gpulat_sized_nomem - @s's tables passed the check, yet did not allocate */
void gpulat_sized_nomem(const struct gpulat_sized *s)
{
	pr_err("%s=%llu: cannot allocate its tables, %llu bytes (this machine has %llu bytes of RAM, %llu available)\n",
	       s->param, s->value, s->bytes, sized_ram_bytes(),
	       (u64)si_mem_available() << PAGE_SHIFT);
	sized_failed = true;
}

bool gpulat_sized_failed(void)
{
	return sized_failed;
}
