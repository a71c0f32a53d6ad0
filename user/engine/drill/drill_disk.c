// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat drill disk: a null_blk device of the drill's own, made through
 * configfs, that completes every request 50 ms after issue (irqmode 2,
 * the timer), and the drill's own O_DIRECT reads of it.  No existing
 * device is touched; null_blk is loaded (nr_devices=0) only when it is
 * not loaded yet, and then unloaded after.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/drill/drill.h"
#include "lib/array_size.h"

#define NULLB_CONFIGFS	"/sys/kernel/config/nullb"
#define NULLB_COMPLETION_NS	50000000UL
#define NULLB_BLOCK	4096

struct drill_disk {
	char cfg[160];		/* its configfs folder */
	char disk[64];		/* its disk name */
	bool load;		/* null_blk needs loading */
	char modprobe[128];
};

static struct drill_disk drill_disk_state;

static int drill_disk_check(struct drill *d)
{
	struct drill_disk *dd = &drill_disk_state;

	memset(dd, 0, sizeof(*dd));
	d->priv = dd;
	if (drill_exists(NULLB_CONFIGFS))
		return 0;
	if (!drill_exists("/sys/kernel/config"))
		return drill_set(d, DRILL_SKIP,
				 "configfs is not mounted at /sys/kernel/config: no null_blk device can be made");
	if (drill_exists("/sys/module/null_blk"))
		return drill_set(d, DRILL_SKIP,
				 "null_blk is loaded but has no configfs folder (" NULLB_CONFIGFS ")");
	if (drill_which("modprobe", dd->modprobe, sizeof(dd->modprobe)))
		return drill_set(d, DRILL_SKIP,
				 "null_blk is not loaded and there is no modprobe to load it");
	dd->load = true;
	return 0;
}

static int drill_undo_module(struct drill_undo *u)
{
	return drill_rm_module(u->arg, 30);
}

static int drill_undo_nullb(struct drill_undo *u)
{
	return drill_rm_nullb(u->arg);
}

/* drill_disk_attr - write one attribute of the device's folder */
static int drill_disk_attr(struct drill_disk *dd, const char *attr,
			   unsigned long v)
{
	char path[200], val[32];

	snprintf(path, sizeof(path), "%s/%s", dd->cfg, attr);
	snprintf(val, sizeof(val), "%lu", v);
	return drill_write(path, val);
}

/* drill_disk_make - the device, powered on; its name and key */
static int drill_disk_make(struct drill *d, struct drill_disk *dd)
{
	static const struct { const char *attr; unsigned long v; } attrs[] = {
		{ "size", 64 }, { "blocksize", NULLB_BLOCK }, { "irqmode", 2 },
		{ "completion_nsec", NULLB_COMPLETION_NS },
		{ "submit_queues", 1 }, { "hw_queue_depth", 4 },
		{ "memory_backed", 0 }, { "power", 1 },
	};
	unsigned int maj, min, i;
	char path[200], buf[64];
	int ret;

	snprintf(dd->cfg, sizeof(dd->cfg), NULLB_CONFIGFS "/%s", d->name);
	if (drill_journal(d, "nullb %s", dd->cfg))
		return -1;
	if (mkdir(dd->cfg, 0755))
		return drill_set(d, DRILL_FAIL, "mkdir %s: %s", dd->cfg,
				 strerror(errno));
	if (!drill_push(&d->undo, drill_undo_nullb, dd->cfg,
			"null_blk device %s", dd->cfg))
		return drill_set(d, DRILL_FAIL, "too many things to undo");
	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		ret = drill_disk_attr(dd, attrs[i].attr, attrs[i].v);
		if (ret)
			return drill_set(d, DRILL_FAIL, "null_blk %s: %s",
					 attrs[i].attr, strerror(-ret));
	}
	/* newer kernels name the disk after the folder, older nullb<index> */
	snprintf(path, sizeof(path), "/sys/block/%s", d->name);
	if (drill_exists(path)) {
		snprintf(dd->disk, sizeof(dd->disk), "%s", d->name);
	} else {
		snprintf(path, sizeof(path), "%s/index", dd->cfg);
		if (drill_read(path, buf, sizeof(buf)))
			return drill_set(d, DRILL_FAIL, "no index in %s", dd->cfg);
		snprintf(dd->disk, sizeof(dd->disk), "nullb%lu",
			 strtoul(buf, NULL, 10));
	}
	snprintf(path, sizeof(path), "/sys/block/%s/dev", dd->disk);
	if (drill_read(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%u:%u", &maj, &min) != 2)
		return drill_set(d, DRILL_FAIL, "no %s", path);
	d->expect.has_key = true;
	d->expect.key = (uint64_t)maj << 20 | min;
	snprintf(d->expect.key_name, sizeof(d->expect.key_name), "%s",
		 dd->disk);
	return 0;
}

/*
 * Readers, each with one request in flight: as many as the device's
 * queue depth, so that its waits outweigh a slow emulated host's others.
 */
#define NULLB_READERS	4

/* drill_disk_reader - O_DIRECT 4 KiB reads of the device, one at a time */
static pid_t drill_disk_reader(struct drill *d, int fd, int k)
{
	off_t off = (off_t)k * 1021 * NULLB_BLOCK;
	void *buf;
	pid_t pid;

	pid = drill_fork(d->duration_s, "gldrill-reader");
	if (pid)
		return pid;
	if (posix_memalign(&buf, NULLB_BLOCK, NULLB_BLOCK))
		_exit(1);
	for (;;) {
		if (pread(fd, buf, NULLB_BLOCK, off) != NULLB_BLOCK)
			_exit(1);
		off = (off + 7919 * NULLB_BLOCK) % (64 << 20);
	}
}

static int drill_disk_inject(struct drill *d)
{
	const struct timespec tick = { 0, 50000000 };
	struct drill_disk *dd = d->priv;
	char why[160], dev[80];
	char *argv[] = { dd->modprobe, "null_blk", "nr_devices=0", NULL };
	int fd = -1, i;
	pid_t pid;

	if (dd->load) {
		if (drill_journal(d, "module null_blk"))
			return -1;
		if (drill_cmd(argv, why, sizeof(why)))
			return drill_set(d, DRILL_SKIP,
					 "null_blk cannot be loaded: %s", why);
		if (!drill_push(&d->undo, drill_undo_module, dd->modprobe,
				"module null_blk (loaded by the drill)"))
			return drill_set(d, DRILL_FAIL, "too many things to undo");
		if (!drill_exists(NULLB_CONFIGFS))
			return drill_set(d, DRILL_SKIP,
					 "null_blk has no configfs folder (" NULLB_CONFIGFS ")");
	}
	if (drill_disk_make(d, dd))
		return -1;
	snprintf(dev, sizeof(dev), "/dev/%s", dd->disk);
	/* udev, where there is one, may take a moment */
	for (i = 0; i < 40 && (fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC)) < 0 &&
	     errno == ENOENT; i++)
		nanosleep(&tick, NULL);
	if (fd < 0)
		return drill_set(d, DRILL_FAIL, "open %s: %s", dev,
				 strerror(errno));
	d->inject_ns = drill_now_ns();
	for (i = 0; i < NULLB_READERS; i++) {
		pid = drill_disk_reader(d, fd, i);
		if (pid < 0 ||
		    !drill_push_child(&d->undo, pid, true,
				      "reader process %d of %s", pid, dev) ||
		    drill_journal_child(d, pid, "gldrill-reader"))
			break;
	}
	close(fd);
	if (i < NULLB_READERS)
		return d->verdict != DRILL_PASS ? -1 :
		       drill_set(d, DRILL_FAIL, "starting reader %d failed", i);
	snprintf(d->where, sizeof(d->where), "%s", dd->disk);
	snprintf(d->fault, sizeof(d->fault),
		 "null_blk device %s completing each request after %lu ms, read with O_DIRECT by %d readers (pids %d-%d)",
		 dd->disk, NULLB_COMPLETION_NS / 1000000, NULLB_READERS,
		 pid - NULLB_READERS + 1, pid);
	return 0;
}

const struct drill_ops drill_disk_ops = {
	.family = GPULAT_FAM_BLOCK,
	.layer = DIAG_STORAGE,
	.threshold_ns = 5000000,
	.check = drill_disk_check,
	.inject = drill_disk_inject,
};
