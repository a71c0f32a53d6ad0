// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat - latency at the source for GPU servers.
 *
 * Module entry, and /dev/gpulat: the control and data path.  debugfs is a
 * read-only view beside it (debugfs.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "fault.h"
#include "gpulat.h"
#include "sized.h"
#include "trace.h"

/*
 * Control ioctls (reset, family switches, setting a threshold) check
 * CAP_SYS_ADMIN themselves: whoever may open the device (a group given
 * read access for an exporter) may read, never change the module's state.
 */

/*
 * gpulat_copy_in - fetch a size-prefixed ioctl argument
 *
 * The first __u32 is the caller's struct size: smaller than the first
 * version is -EINVAL; larger is fine if the bytes we do not know are zero
 * (copy_struct_from_user() answers -E2BIG otherwise).
 */
static int gpulat_copy_in(void *k, size_t ksize, size_t ver0,
			  const void __user *u, u32 *usize)
{
	if (get_user(*usize, (const u32 __user *)u))
		return -EFAULT;
	if (*usize < ver0)
		return -EINVAL;
	if (*usize > PAGE_SIZE)
		return -E2BIG;
	return copy_struct_from_user(k, ksize, u, *usize);
}

static int gpulat_copy_out(void __user *u, const void *k, size_t ksize,
			   u32 usize)
{
	return copy_to_user(u, k, min_t(size_t, ksize, usize)) ? -EFAULT : 0;
}

static long gpulat_ioc_version(void __user *uarg)
{
	struct gpulat_version v;
	u32 usize;
	int ret;

	ret = gpulat_copy_in(&v, sizeof(v), GPULAT_VERSION_SIZE_VER0, uarg,
			     &usize);
	if (ret)
		return ret;
	if (v.flags)
		return -EINVAL;
	v.size = sizeof(v);
	v.major = GPULAT_ABI_MAJOR;
	v.minor = GPULAT_ABI_MINOR;
	return gpulat_copy_out(uarg, &v, sizeof(v), usize);
}

static long gpulat_ioc_snapshot(void __user *uarg)
{
	struct gpulat_snapshot_req req;
	u32 usize;
	long ret;
	int err;

	ret = gpulat_copy_in(&req, sizeof(req), GPULAT_SNAPSHOT_SIZE_VER0,
			     uarg, &usize);
	if (ret)
		return ret;
	if (req.flags)
		return -EINVAL;
	if (req.buf_size && !req.buf)
		return -EFAULT;

	mutex_lock(&gpulat_lock);
	ret = gpulat_snapshot_to_user(u64_to_user_ptr(req.buf), req.buf_size,
				      &req.needed);
	mutex_unlock(&gpulat_lock);

	/* needed goes back even when the buffer was too short */
	req.size = sizeof(req);
	err = gpulat_copy_out(uarg, &req, sizeof(req), usize);
	return ret ? ret : err;
}

static long gpulat_ioc_reset(void __user *uarg)
{
	struct gpulat_reset r;
	u32 usize;
	int ret;

	ret = gpulat_copy_in(&r, sizeof(r), GPULAT_RESET_SIZE_VER0, uarg,
			     &usize);
	if (ret)
		return ret;
	if (r.flags)
		return -EINVAL;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&gpulat_lock);
	ret = gpulat_reset_all();
	mutex_unlock(&gpulat_lock);
	return ret;
}

static long gpulat_ioc_family(void __user *uarg)
{
	struct gpulat_family_req r;
	struct gpulat_family *fam;
	u32 usize;
	int ret;

	ret = gpulat_copy_in(&r, sizeof(r), GPULAT_FAMILY_SIZE_VER0, uarg,
			     &usize);
	if (ret)
		return ret;
	if (r.flags || r.enable > 1)
		return -EINVAL;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	fam = gpulat_family_by_id(r.family);
	if (!fam)
		return -ENOENT;
	mutex_lock(&gpulat_lock);
	ret = gpulat_family_switch(fam, r.enable);
	mutex_unlock(&gpulat_lock);
	return ret;
}

static long gpulat_ioc_threshold(void __user *uarg)
{
	struct gpulat_threshold_req r;
	u32 usize;
	long ret;

	ret = gpulat_copy_in(&r, sizeof(r), GPULAT_THRESHOLD_SIZE_VER0, uarg,
			     &usize);
	if (ret)
		return ret;
	if ((r.flags & ~GPULAT_THRESHOLD_SET) || r.pad)
		return -EINVAL;
	if ((r.flags & GPULAT_THRESHOLD_SET) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = gpulat_trace_threshold(r.family, r.flags & GPULAT_THRESHOLD_SET,
				     &r.threshold_ns);
	if (ret)
		return ret;
	r.size = sizeof(r);
	return gpulat_copy_out(uarg, &r, sizeof(r), usize);
}

static long gpulat_ioc_cgroup(void __user *uarg)
{
	struct gpulat_cgroup_req r;
	u32 usize;
	long ret;

	ret = gpulat_copy_in(&r, sizeof(r), GPULAT_CGROUP_SIZE_VER0, uarg,
			     &usize);
	if (ret)
		return ret;
	ret = gpulat_cgroup_ioctl(&r);
	if (ret)
		return ret;
	r.size = sizeof(r);
	return gpulat_copy_out(uarg, &r, sizeof(r), usize);
}

static long gpulat_ioc_cuda(void __user *uarg)
{
	struct gpulat_cuda_req r;
	u32 usize;
	long ret;

	ret = gpulat_copy_in(&r, sizeof(r), GPULAT_CUDA_SIZE_VER0, uarg,
			     &usize);
	if (ret)
		return ret;
	ret = gpulat_cuda_ioctl(&r);
	if (ret)
		return ret;
	r.size = sizeof(r);
	return gpulat_copy_out(uarg, &r, sizeof(r), usize);
}

static long gpulat_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case GPULAT_IOC_VERSION:
		return gpulat_ioc_version(uarg);
	case GPULAT_IOC_SNAPSHOT:
		return gpulat_ioc_snapshot(uarg);
	case GPULAT_IOC_RESET:
		return gpulat_ioc_reset(uarg);
	case GPULAT_IOC_FAMILY:
		return gpulat_ioc_family(uarg);
	case GPULAT_IOC_THRESHOLD:
		return gpulat_ioc_threshold(uarg);
	case GPULAT_IOC_CGROUP:
		return gpulat_ioc_cgroup(uarg);
	case GPULAT_IOC_CUDA:
		return gpulat_ioc_cuda(uarg);
	default:
		return -ENOTTY;
	}
}

static int gpulat_open(struct inode *inode, struct file *file)
{
	/* misc_open() left the miscdevice here; the trace reader goes here */
	file->private_data = NULL;
	return nonseekable_open(inode, file);
}

static ssize_t gpulat_read(struct file *file, char __user *buf, size_t len,
			   loff_t *ppos)
{
	if (!len)
		return 0;
	return gpulat_trace_read(file, buf, len);
}

static int gpulat_release(struct inode *inode, struct file *file)
{
	gpulat_trace_release(file);
	return 0;
}

static const struct file_operations gpulat_fops = {
	.owner		= THIS_MODULE,
	.open		= gpulat_open,
	.read		= gpulat_read,
	.poll		= gpulat_trace_poll,
	.release	= gpulat_release,
	.unlocked_ioctl	= gpulat_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

/*
 * Root's alone by default.  udev may give a group read access to the node
 * (scripts/fleet/60-gpulat.rules): its members then read snapshots and
 * the trace, while every control ioctl above still needs CAP_SYS_ADMIN.
 */
static struct miscdevice gpulat_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "gpulat",
	.fops	= &gpulat_fops,
	.mode	= 0600,
};

static int __init gpulat_init(void)
{
	int ret;

	/* a refused parameter has said why, in one line */
	ret = gpulat_registry_check();
	if (ret)
		return ret;
	ret = gpulat_trace_init();
	if (ret)
		return ret;
	ret = gpulat_registry_init();
	if (ret) {
		/* a table that did not allocate has said which, in one line */
		if (!gpulat_sized_failed())
			pr_err("probe registry setup failed: %d\n", ret);
		goto fail;
	}
	ret = GL_CALL(-ENOMEM, misc_register(&gpulat_misc));
	if (ret) {
		pr_err("cannot register /dev/gpulat: %d\n", ret);
		gpulat_registry_exit();
		goto fail;
	}
	gpulat_debugfs_init();
	pr_info("loaded, ABI %u.%u\n", GPULAT_ABI_MAJOR, GPULAT_ABI_MINOR);
	return 0;
fail:
	gpulat_cgroup_exit();
	gpulat_trace_exit();
	gpulat_fault_check_leaks("after a failed load");
	return ret;
}

static void __exit gpulat_exit(void)
{
	gpulat_debugfs_exit();
	misc_deregister(&gpulat_misc);
	gpulat_registry_exit();
	gpulat_cgroup_exit();
	gpulat_trace_exit();
	gpulat_fault_check_leaks("at unload");
}

module_init(gpulat_init);
module_exit(gpulat_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Latency histograms at the source for GPU servers");
MODULE_AUTHOR("The gpulat authors");
