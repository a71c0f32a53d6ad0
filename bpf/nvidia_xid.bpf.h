/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvidia family in BPF: Xid events (the module's probe_nvidia_xid.c).
 * The driver's nvidia:nvidia_dev_xid (575+) is a module's tracepoint,
 * without vmlinux BTF: the tool attaches the raw_tp twin when tracefs
 * lists it at load.  Each Xid goes to this CPU's ring of gl_events,
 * whose newest GL_BPF_NR_EVENTS over all CPUs the snapshot lists, and,
 * while a tool reads the trace, to the trace as a GPULAT_REC_EVENT.
 */
#ifndef _GPULAT_BPF_NVIDIA_XID_H
#define _GPULAT_BPF_NVIDIA_XID_H

#include "nvidia_set.bpf.h"

/* one ring per possible CPU (the loader sizes it), mapped by the tool */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gl_bpf_events);
} gl_events SEC(".maps");

/*
 * Xids seen since load, all CPUs (the module's nv_xid_next); in .data,
 * after the settings, as a .bss of its own would cost a page more
 */
__u64 gl_nv_xids SEC(".data");

/* gl_nv_xid_trace - @ev to the trace, as the module's gpulat_trace_event() */
static __always_inline void gl_nv_xid_trace(const struct gpulat_event *ev)
{
	struct gl_bpf_trace_cnt *cnt;
	struct gpulat_rec_event r;
	__u32 zero = 0;

	cnt = bpf_map_lookup_elem(&gl_trace_cnt, &zero);
	if (!cnt)
		return;
	__builtin_memset(&r, 0, sizeof(r));
	r.hdr.size = sizeof(r);
	r.hdr.type = GPULAT_REC_EVENT;
	r.hdr.cpu = ev->cpu;
	r.hdr.time_ns = ev->time_ns;
	__builtin_memcpy(&r.event, ev, sizeof(*ev));
	/* every reader, whatever its thresholds */
	gl_trace_out(cnt, &r, sizeof(r), GPULAT_FAM_NVIDIA, ~0ULL);
}

/*
 * The driver's prototype (kernel-open/nvidia/nv-tracepoint.h, 575+):
 * TP_PROTO(const struct pci_dev *pdev, uint32_t error_code, const char *msg)
 */
GL_TP(nvidia_dev_xid, gl_nv_xid, const struct pci_dev *pdev, __u32 code)
{
	struct gl_bpf_events *r;
	struct gl_bpf_event *e;
	__u32 cpu = bpf_get_smp_processor_id();
	const char *dev = NULL;
	__u64 n;

	gl_hit(GPULAT_FAM_NVIDIA, GL_HIT_NVIDIA_XID);
	r = bpf_map_lookup_elem(&gl_events, &cpu);
	if (!r)
		return 0;
	/* the number first: an Xid of an interrupt on top takes the next */
	n = r->next;
	r->next = n + 1;
	e = &r->e[n & (GL_BPF_NR_EVENTS - 1)];
	e->seq = 0;
	gl_barrier();	/* seq cleared before the fields change */
	__builtin_memset(&e->ev, 0, sizeof(e->ev));
	e->ev.time_ns = bpf_ktime_get_ns();
	e->ev.type = GPULAT_EVENT_XID;
	e->ev.code = code;
	e->ev.cpu = cpu;
	/* pci_name(): dev_name(&pdev->dev), init_name until device_add() */
	if (pdev) {
		dev = BPF_CORE_READ(pdev, dev.init_name);
		if (!dev)
			dev = BPF_CORE_READ(pdev, dev.kobj.name);
	}
	if (dev)
		bpf_probe_read_kernel_str(e->ev.device, sizeof(e->ev.device),
					  dev);
	gl_barrier();	/* fields before seq */
	e->seq = n + 1;
	/*
	 * The module counts every Xid past the ring's GL_BPF_NR_EVENTS: the
	 * count of all CPUs, read after its own add (two Xids at once on
	 * two CPUs as the count passes GL_BPF_NR_EVENTS may both count)
	 */
	__sync_fetch_and_add(&gl_nv_xids, 1);
	if (gl_nv_xids > GL_BPF_NR_EVENTS)
		gl_count(GPULAT_FAM_NVIDIA, GPULAT_NV_XID_LOST);
	if (gl_conf.nr_readers)
		gl_nv_xid_trace(&e->ev);
	return 0;
}

#endif /* _GPULAT_BPF_NVIDIA_XID_H */
