/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences of the mm family, each with its history.  The
 * GPULAT_HAVE_* switches come from features-mm.mk, which looks at the
 * target kernel's headers.  probe_mm.c includes this and never tests
 * kernel versions itself.  The probes use none of the arguments: only the
 * prototypes differ.
 */
#ifndef _GPULAT_KMOD_COMPAT_MM_H
#define _GPULAT_KMOD_COMPAT_MM_H

#include <linux/gfp.h>
#include <linux/types.h>

/*
 * <trace/events/compaction.h> names struct compact_control (private to
 * mm/) in its prototypes without declaring it: declared here first, the
 * probes' type and the tracepoint's are the same.
 */
struct compact_control;
struct mem_cgroup;

/*
 * mm_vmscan_direct_reclaim_begin (the class it shares with the memcg
 * reclaim events):
 *   4.8 - 5.1   (int order, int may_writepage, gfp_t gfp_flags,
 *                int classzone_idx)
 *   5.2 on      (int order, gfp_t gfp_flags): 5.10, 6.1 and 6.12
 *   later       (gfp_t gfp_flags, int order, struct mem_cgroup *memcg),
 *               and mm_vmscan_direct_reclaim_end gained the memcg too
 * The later form is matched by pattern only: no kernel built here has it,
 * and GPULAT_CHECK_PROBE turns a wrong guess into a build error.
 */
#if defined(GPULAT_HAVE_RECLAIM_MEMCG_ARG)
#define GPULAT_MM_RECLAIM_BEGIN_ARGS					\
	void *data, gfp_t gfp_flags, int order, struct mem_cgroup *memcg
#define GPULAT_MM_RECLAIM_END_ARGS					\
	void *data, unsigned long nr_reclaimed, struct mem_cgroup *memcg
#elif defined(GPULAT_HAVE_RECLAIM_BEGIN_WRITEPAGE)
#define GPULAT_MM_RECLAIM_BEGIN_ARGS					\
	void *data, int order, int may_writepage, gfp_t gfp_flags,	\
	int classzone_idx
#define GPULAT_MM_RECLAIM_END_ARGS	void *data, unsigned long nr_reclaimed
#else
#define GPULAT_MM_RECLAIM_BEGIN_ARGS	void *data, int order, gfp_t gfp_flags
#define GPULAT_MM_RECLAIM_END_ARGS	void *data, unsigned long nr_reclaimed
#endif

/*
 * mm_compaction_begin/_end: 5.10 passes the zone bounds and both scanner
 * positions; later kernels pass the compact_control, from which the event
 * reads the scanner positions (6.1, 6.12).  _end adds the result status.
 */
#ifdef GPULAT_HAVE_COMPACTION_CC
#define GPULAT_MM_COMPACTION_BEGIN_ARGS					\
	void *data, struct compact_control *cc, unsigned long zone_start, \
	unsigned long zone_end, bool sync
#define GPULAT_MM_COMPACTION_END_ARGS					\
	void *data, struct compact_control *cc, unsigned long zone_start, \
	unsigned long zone_end, bool sync, int status
#else
#define GPULAT_MM_COMPACTION_BEGIN_ARGS					\
	void *data, unsigned long zone_start, unsigned long migrate_pfn, \
	unsigned long free_pfn, unsigned long zone_end, bool sync
#define GPULAT_MM_COMPACTION_END_ARGS					\
	void *data, unsigned long zone_start, unsigned long migrate_pfn, \
	unsigned long free_pfn, unsigned long zone_end, bool sync,	\
	int status
#endif

#endif /* _GPULAT_KMOD_COMPAT_MM_H */
