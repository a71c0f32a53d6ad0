// SPDX-License-Identifier: GPL-2.0
/*
 * A provider of the NVIDIA driver's tracepoint nvidia:nvidia_dev_xid, for
 * the nvidia family's tests.  Test-only; never shipped.
 *
 * Writing "CODE PCI-ADDRESS" to the parameter fire reports one Xid:
 *   echo "79 0000:3b:00.0" > /sys/module/gpulat_fake_xid/parameters/fire
 * The device is a bare struct pci_dev whose name is the address given.
 */
/* Its log lines say it is a test double: a fake Xid must not pass for one. */
#define pr_fmt(fmt) KBUILD_MODNAME ": [gpulat test double] " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/string.h>

#define CREATE_TRACE_POINTS
#include "gpulat_fake_xid_trace.h"

static DEFINE_MUTEX(fake_xid_lock);
static struct pci_dev fake_xid_pdev;
static char fake_xid_name[32];

static int fake_xid_fire(const char *val, const struct kernel_param *kp)
{
	char name[32];
	u32 code;

	if (sscanf(val, "%u %31s", &code, name) != 2)
		return -EINVAL;
	mutex_lock(&fake_xid_lock);
	strscpy(fake_xid_name, name, sizeof(fake_xid_name));
	fake_xid_pdev.dev.init_name = fake_xid_name;
	trace_nvidia_dev_xid(&fake_xid_pdev, code,
			     "[gpulat test double] fake Xid");
	mutex_unlock(&fake_xid_lock);
	pr_info("fired a fake Xid %u for %s (no GPU)\n", code, name);
	return 0;
}

static const struct kernel_param_ops fake_xid_fire_ops = {
	.set = fake_xid_fire,
};

module_param_cb(fire, &fake_xid_fire_ops, NULL, 0200);
MODULE_PARM_DESC(fire, "write \"CODE PCI-ADDRESS\" to report one Xid");

static int __init fake_xid_init(void)
{
	pr_info("loaded: provides nvidia:nvidia_dev_xid, no NVIDIA driver or GPU\n");
	return 0;
}

/* an exit function keeps the module unloadable once it has an init */
static void __exit fake_xid_exit(void)
{
}

module_init(fake_xid_init);
module_exit(fake_xid_exit);

MODULE_DESCRIPTION("gpulat test: a provider of nvidia:nvidia_dev_xid");
MODULE_LICENSE("GPL");
