/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe families, one line each.  Everything the core knows about a
 * family by name comes from this list: the externs and the registry's
 * array (gpulat.h, registry.c), the outlier trace's default thresholds
 * and their <name>_threshold_us module parameters, and which families
 * keep the per-CPU histories that name the culprits of a CPU wait
 * (trace.c, registry.c).  Kbuild builds every probe_*.c.
 *
 * GPULAT_FAMILY(name, id, threshold_us, keeps, tool)
 *   name          gpulat_<name>_family, defined in probe_<name>.c (with
 *                 the module parameter <name>, on at load)
 *   id            enum gpulat_family_id, uapi/gpulat.h; the registry
 *                 sets up, switches on and lists the families in its order
 *   threshold_us  default outlier threshold, microseconds (0: not traced)
 *   keeps         GPULAT_KEEPS_* (trace.h): the history the family's
 *                 probes keep while the trace is read, or 0
 *   tool          (key, key_label, layer, copies): the tool's family row
 *                 (user/lib/family.c): the kind of the keys its series
 *                 do not declare, the key's label in trace text (NULL:
 *                 keyless), the layer its probes measure, and 1 when its
 *                 series count again samples other families count
 *
 * Its series are gpulat_series.h's GPULAT_DECL_<NAME>() list.
 *
 * Not a header: a file that includes it defines GPULAT_FAMILY() first and
 * undefines it after.
 */
GPULAT_FAMILY(sched, GPULAT_FAM_SCHED, 5000, GPULAT_KEEPS_SWITCHES,
	      (NONE, NULL, SCHED, 0))
GPULAT_FAMILY(block, GPULAT_FAM_BLOCK, 50000, 0,
	      (DISK, "disk", STORAGE, 0))
GPULAT_FAMILY(net, GPULAT_FAM_NET, 5000, 0,
	      (NETDEV, "dev", NETWORK, 0))
GPULAT_FAMILY(irq, GPULAT_FAM_IRQ, 1000, GPULAT_KEEPS_IRQ,
	      (IRQ, "irq", NONE, 0))
GPULAT_FAMILY(softirq, GPULAT_FAM_SOFTIRQ, 5000, GPULAT_KEEPS_SOFTIRQ,
	      (VECTOR, "vec", NONE, 0))
GPULAT_FAMILY(nvidia, GPULAT_FAM_NVIDIA, 1000, 0,
	      (NONE, "nv", DRIVER, 0))
GPULAT_FAMILY(mm, GPULAT_FAM_MM, 10000, 0,
	      (NONE, NULL, MEMORY, 0))
/* samples the sched, block and mm probes trace already: not traced again */
GPULAT_FAMILY(cgroup, GPULAT_FAM_CGROUP, 0, 0,
	      (CGROUP, "cgroup", NONE, 1))
/*
 * a GPU job's waits in the CUDA driver library, per process; its
 * threshold is on the host's share of a call, not the call
 */
GPULAT_FAMILY(cuda, GPULAT_FAM_CUDA, 1000, 0,
	      (PROCESS, "pid", NONE, 1))
