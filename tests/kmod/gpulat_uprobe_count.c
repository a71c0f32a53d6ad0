// SPDX-License-Identifier: GPL-2.0
/*
 * A uprobe and a uretprobe at one function of a shared library, through
 * kmod/compat/uprobe.h, that only count: the check, on every kernel, of
 * the kernel interface the job's GPU waits are measured by, and of the
 * file offsets the tool finds (lib/elfsym.c).  Test-only; never shipped.
 *
 * Parameters: path and offset (set at load: the library and the
 * function's file offset), hits and returns (read-only: the entries and
 * returns seen since load, in every process that maps the library).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/ptrace.h>

#include "compat/uprobe.h"

static char *path;
module_param(path, charp, 0444);
MODULE_PARM_DESC(path, "the shared library (required)");

static unsigned long offset;
module_param(offset, ulong, 0444);
MODULE_PARM_DESC(offset, "the function's file offset in it (required)");

static atomic_long_t hits, returns;

static int count_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops count_ops = { .get = count_get };
module_param_cb(hits, &count_ops, &hits, 0444);
module_param_cb(returns, &count_ops, &returns, 0444);

static struct gpulat_uprobe count_up;

static int count_entry(struct uprobe_consumer *self, struct pt_regs *regs)
{
	atomic_long_inc(&hits);
	return 0;
}

static int count_return(struct uprobe_consumer *self, unsigned long func,
			struct pt_regs *regs)
{
	atomic_long_inc(&returns);
	return 0;
}

static int __init uprobe_count_init(void)
{
	struct path p;
	int ret;

	if (!path || !offset)
		return -EINVAL;
	ret = kern_path(path, LOOKUP_FOLLOW, &p);
	if (ret)
		return ret;
	count_up.inode = igrab(d_inode(p.dentry));
	path_put(&p);
	if (!count_up.inode)
		return -ENOENT;
	count_up.offset = offset;
	count_up.uc.handler = count_entry;
	count_up.uc.ret_handler = count_return;
	ret = gpulat_uprobe_register(&count_up);
	if (ret) {
		pr_err("cannot place a uprobe at %s+%#lx: %d\n", path, offset,
		       ret);
		iput(count_up.inode);
	}
	return ret;
}

static void __exit uprobe_count_exit(void)
{
	gpulat_uprobe_unregister(&count_up);
	gpulat_uprobe_sync();
	iput(count_up.inode);
}

module_init(uprobe_count_init);
module_exit(uprobe_count_exit);
MODULE_DESCRIPTION("gpulat test: count a function's calls and returns by uprobe");
MODULE_LICENSE("GPL");
