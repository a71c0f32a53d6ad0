/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences of uprobes, placed by (inode, file offset) on a
 * shared library: one registration covers every process that maps it.
 * The handlers' prototypes are the same on 5.10, 6.1 and 6.12; a filter
 * is not used (its prototype changed).
 */
#ifndef _GPULAT_KMOD_COMPAT_UPROBE_H
#define _GPULAT_KMOD_COMPAT_UPROBE_H

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/uprobes.h>

struct gpulat_uprobe {
	struct inode *inode;		/* held while registered */
	loff_t offset;
	struct uprobe_consumer uc;	/* the caller sets the handlers */
#ifdef GPULAT_HAVE_UPROBE_NOSYNC
	struct uprobe *up;
#endif
};

/*
 * gpulat_uprobe_register - place @u at its inode and offset (the caller
 * holds a reference on the inode); 0 or -errno
 */
static inline int gpulat_uprobe_register(struct gpulat_uprobe *u)
{
#ifdef GPULAT_HAVE_UPROBE_NOSYNC
	/* 6.12: the uprobe is returned, to unregister by */
	u->up = uprobe_register(u->inode, u->offset, 0, &u->uc);
	return PTR_ERR_OR_ZERO(u->up);
#else
	return uprobe_register(u->inode, u->offset, &u->uc);
#endif
}

/*
 * gpulat_uprobe_unregister - take @u off; its handlers may still run on
 * another CPU until gpulat_uprobe_sync()
 */
static inline void gpulat_uprobe_unregister(struct gpulat_uprobe *u)
{
#ifdef GPULAT_HAVE_UPROBE_NOSYNC
	uprobe_unregister_nosync(u->up, &u->uc);
#else
	/* before 6.12 this waits for the handlers itself */
	uprobe_unregister(u->inode, u->offset, &u->uc);
#endif
}

/* gpulat_uprobe_sync - no handler of an unregistered uprobe still runs */
static inline void gpulat_uprobe_sync(void)
{
#ifdef GPULAT_HAVE_UPROBE_NOSYNC
	uprobe_unregister_sync();
#endif
}

#endif /* _GPULAT_KMOD_COMPAT_UPROBE_H */
