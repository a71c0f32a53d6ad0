// SPDX-License-Identifier: GPL-2.0
/*
 * nvidia family: Xid events.  The driver's nvidia_dev_xid tracepoint
 * (575+) lives in its module: a tracepoint module notifier attaches to it
 * when the module comes and detaches before it goes.  Each Xid goes to a
 * ring of the last NV_XID_RING, which snapshots list as timeline events,
 * and to the outlier trace.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/pci.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include "fault.h"
#include "gpulat.h"
#include "probe_nvidia.h"

#define NV_XID_RING		64	/* a power of two */

/* One Xid; seq is its number + 1 once complete, 0 while written. */
struct nv_xid {
	u64 seq;
	u64 time_ns;
	u32 code;
	u32 cpu;
	char device[GPULAT_NAME_LEN];
};

static struct nv_xid nv_xids[NV_XID_RING];
static atomic64_t nv_xid_next;		/* Xids seen since load */
/* nv_xid_tp, nv_xid_mod; the order: gpulat.h */
static DEFINE_MUTEX(nv_xid_lock);
static struct tracepoint *nv_xid_tp;	/* the driver's, while attached */
static struct module *nv_xid_mod;

static bool nv_tp_nb_on;		/* the module notifier is registered */

/*
 * The driver's prototype (kernel-open/nvidia/nv-tracepoint.h, 575+):
 * TP_PROTO(const struct pci_dev *pdev, uint32_t error_code, const char *msg)
 */
typedef void (*nv_xid_probe_t)(void *data, const struct pci_dev *pdev,
			       u32 error_code, const char *msg);

static void nv_probe_xid(void *data, const struct pci_dev *pdev,
			 u32 error_code, const char *msg)
{
	unsigned long flags;
	u64 n;
	struct nv_xid *e;

	if (!READ_ONCE(gpulat_nvidia_family.attached))
		return;
	/* stamped and put with interrupts off: the trace stays in order */
	local_irq_save(flags);
	n = atomic64_inc_return(&nv_xid_next) - 1;
	e = &nv_xids[n & (NV_XID_RING - 1)];
	if (n >= NV_XID_RING)
		this_cpu_inc(gpulat_nv_pc->counters[GPULAT_NV_XID_LOST]);
	WRITE_ONCE(e->seq, 0);
	smp_wmb();	/* seq cleared before the fields change */
	e->time_ns = ktime_get_mono_fast_ns();
	e->code = error_code;
	e->cpu = raw_smp_processor_id();
	if (pdev)
		strscpy_pad(e->device, pci_name(pdev), sizeof(e->device));
	else
		memset(e->device, 0, sizeof(e->device));
	smp_wmb();	/* fields before seq */
	WRITE_ONCE(e->seq, n + 1);
	if (gpulat_trace_on()) {
		struct gpulat_event ev = {
			.time_ns = e->time_ns, .type = GPULAT_EVENT_XID,
			.code = error_code, .cpu = e->cpu,
		};

		memcpy(ev.device, e->device, sizeof(ev.device));
		gpulat_trace_event(&ev);
	}
	local_irq_restore(flags);
}

static struct tracepoint *nv_module_tp(struct module *mod, const char *name)
{
	unsigned int i;

	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp =
			tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);

		if (!strcmp(tp->name, name))
			return tp;
	}
	return NULL;
}

/*
 * nv_tp_module - a module with tracepoints comes or goes: attach to the
 * driver's nvidia_dev_xid when it comes, detach before it goes.  Called for
 * the modules already loaded when the notifier is (un)registered, too.
 */
static int nv_tp_module(struct notifier_block *nb, unsigned long val,
			void *data)
{
	struct tp_module *tpm = data;
	struct tracepoint *tp;
	int ret;

	mutex_lock(&nv_xid_lock);
	if (val == MODULE_STATE_COMING && !nv_xid_tp) {
		tp = nv_module_tp(tpm->mod, "nvidia_dev_xid");
		if (tp) {
			ret = GL_CALL(-ENOMEM,
				      tracepoint_probe_register(tp, nv_probe_xid,
								NULL));
			if (ret) {
				pr_err("nvidia: cannot attach nvidia_dev_xid of %s: %d\n",
				       module_name(tpm->mod), ret);
			} else {
				nv_xid_tp = tp;
				nv_xid_mod = tpm->mod;
			}
		}
	} else if (val == MODULE_STATE_GOING && nv_xid_mod == tpm->mod) {
		tracepoint_probe_unregister(nv_xid_tp, nv_probe_xid, NULL);
		nv_xid_tp = NULL;
		nv_xid_mod = NULL;
	}
	mutex_unlock(&nv_xid_lock);
	return NOTIFY_OK;
}

static struct notifier_block nv_tp_nb = {
	.notifier_call = nv_tp_module,
};

/* gpulat_nv_events - the Xids still in the ring, oldest first */
unsigned int gpulat_nv_events(struct gpulat_family *fam,
			      struct gpulat_event *out, unsigned int max)
{
	u64 end = atomic64_read(&nv_xid_next), n;
	unsigned int got = 0;

	n = end > NV_XID_RING ? end - NV_XID_RING : 0;
	for (; n < end && got < max; n++) {
		struct nv_xid *e = &nv_xids[n & (NV_XID_RING - 1)];
		struct gpulat_event *ev = &out[got];

		/* skip one being written or overwritten; fields after seq */
		if (smp_load_acquire(&e->seq) != n + 1)
			continue;
		memset(ev, 0, sizeof(*ev));
		ev->type = GPULAT_EVENT_XID;
		ev->time_ns = READ_ONCE(e->time_ns);
		ev->code = READ_ONCE(e->code);
		ev->cpu = READ_ONCE(e->cpu);
		memcpy(ev->device, e->device, sizeof(ev->device));
		ev->device[sizeof(ev->device) - 1] = '\0';
		smp_rmb();	/* fields before the second look at seq */
		if (READ_ONCE(e->seq) == n + 1)
			got++;
	}
	return got;
}

/* gpulat_nv_xid_init - watch for the driver's Xid tracepoint */
int gpulat_nv_xid_init(void)
{
	int ret;

	/* the driver's tracepoint has no header here: check against its copy */
	BUILD_BUG_ON(!__same_type(&nv_probe_xid, nv_xid_probe_t));

	ret = GL_CALL(-ENOMEM, register_tracepoint_module_notifier(&nv_tp_nb));
	if (ret)
		return ret;
	nv_tp_nb_on = true;
	return 0;
}

/* gpulat_nv_xid_exit - undo gpulat_nv_xid_init(), if it succeeded */
void gpulat_nv_xid_exit(void)
{
	if (!nv_tp_nb_on)
		return;
	/* detaches from the driver's tracepoint if attached */
	unregister_tracepoint_module_notifier(&nv_tp_nb);
	nv_tp_nb_on = false;
	tracepoint_synchronize_unregister();
}

size_t gpulat_nv_xid_bytes(void)
{
	return sizeof(nv_xids);
}
