# SPDX-License-Identifier: GPL-2.0
# Kernel differences of the mm family (see features.mk and compat/mm.h for
# what each switch changes).

# mm_vmscan_direct_reclaim_begin took (order, may_writepage, gfp_flags,
# classzone_idx) from 4.8 until 5.2 dropped the middle two.
gpulat-re-reclaim-wp := TP_PROTO\(int order, int may_writepage, gfp_t gfp_flags, int classzone_idx\)
ccflags-y += $(call gpulat-have,include/trace/events/vmscan.h,$(gpulat-re-reclaim-wp),GPULAT_HAVE_RECLAIM_BEGIN_WRITEPAGE)

# Later kernels pass (gfp_flags, order, memcg) to the begin events and
# (nr_reclaimed, memcg) to the end events of direct and memcg reclaim.
gpulat-re-reclaim-memcg := TP_PROTO\(gfp_t gfp_flags, int order, struct mem_cgroup \*memcg\)
ccflags-y += $(call gpulat-have,include/trace/events/vmscan.h,$(gpulat-re-reclaim-memcg),GPULAT_HAVE_RECLAIM_MEMCG_ARG)

# mm_compaction_begin/_end take the compact_control (6.1 and 6.12) where
# 5.10 passes the scanner positions (migrate_pfn, free_pfn) themselves.
gpulat-re-compact-cc := TP_PROTO\(struct compact_control \*cc, unsigned long zone_start,
ccflags-y += $(call gpulat-have,include/trace/events/compaction.h,$(gpulat-re-compact-cc),GPULAT_HAVE_COMPACTION_CC)
