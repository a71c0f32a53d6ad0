/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NVIDIA driver's Xid tracepoint, same system, name and prototype as
 * kernel-open/nvidia/nv-tracepoint.h (575+); the event's fields are
 * simpler.  Test-only.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM nvidia

#if !defined(_GPULAT_FAKE_XID_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _GPULAT_FAKE_XID_TRACE_H

#include <linux/pci.h>
#include <linux/tracepoint.h>

TRACE_EVENT(nvidia_dev_xid,
	    TP_PROTO(const struct pci_dev *pdev, u32 error_code, const char *msg),
	    TP_ARGS(pdev, error_code, msg),
	    TP_STRUCT__entry(__array(char, dev, 16) __field(u32, error_code)),
	    TP_fast_assign(strscpy(__entry->dev, pci_name(pdev), sizeof(__entry->dev));
			   __entry->error_code = error_code;),
	    TP_printk("Xid (PCI:%s): %u", __entry->dev, __entry->error_code)
);

#endif /* _GPULAT_FAKE_XID_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE gpulat_fake_xid_trace
#include <trace/define_trace.h>
