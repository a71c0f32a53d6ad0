/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every fallible step of the module (an allocation, a registration) goes
 * through these wrappers.  In the test build (GPULAT_FAULT_INJECT: the
 * module gpulat_fault.ko, never shipped) the step numbered fault_nth since
 * that parameter was written fails, and allocations are counted, so that
 * the module checks at unload and after a failed load that it gave back
 * all it took.  A normal build compiles the plain calls.
 */
#ifndef _GPULAT_KMOD_FAULT_H
#define _GPULAT_KMOD_FAULT_H

#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#ifdef GPULAT_FAULT_INJECT
bool gpulat_fault(const char *fn, int line);
void *gpulat_fault_track(void *p);
void gpulat_fault_untrack(const void *p);
void gpulat_fault_check_leaks(const char *when);
#define GL_FAIL()		gpulat_fault(__func__, __LINE__)
#define GL_TRACK(p)		gpulat_fault_track(p)
#define GL_UNTRACK(p)		gpulat_fault_untrack(p)
#else
#define GL_FAIL()		false
#define GL_TRACK(p)		(p)
#define GL_UNTRACK(p)		do { } while (0)
static inline void gpulat_fault_check_leaks(const char *when) { }
#endif

/* a fallible call: @err instead when the step is made to fail */
#define GL_CALL(err, call)	(GL_FAIL() ? (err) : (call))

#define gl_kvcalloc(n, size)						\
	(GL_FAIL() ? NULL : GL_TRACK(kvcalloc(n, size, GFP_KERNEL)))
/*
 * A table a module parameter sizes (sized.h): a failure is quiet, since
 * the caller names the parameter in one line, and fails rather than wake
 * the OOM killer.
 */
#define GL_GFP_SIZED	(GFP_KERNEL | __GFP_NOWARN | __GFP_RETRY_MAYFAIL)
#define gl_kvcalloc_sized(n, size)					\
	(GL_FAIL() ? NULL : GL_TRACK(kvcalloc(n, size, GL_GFP_SIZED)))
#define gl_bitmap_zalloc_sized(bits)					\
	(GL_FAIL() ? NULL :						\
	 (unsigned long *)GL_TRACK(bitmap_zalloc(bits, GL_GFP_SIZED)))
#define gl_kcalloc(n, size)						\
	(GL_FAIL() ? NULL : GL_TRACK(kcalloc(n, size, GFP_KERNEL)))
#define gl_kzalloc(size)						\
	(GL_FAIL() ? NULL : GL_TRACK(kzalloc(size, GFP_KERNEL)))
#define gl_bitmap_zalloc(bits)						\
	(GL_FAIL() ? NULL : (unsigned long *)GL_TRACK(bitmap_zalloc(bits, GFP_KERNEL)))
#define gl_alloc_percpu(size, align)					\
	(GL_FAIL() ? NULL : (void __percpu *)				\
	 GL_TRACK((void __force *)__alloc_percpu(size, align)))

static inline void gl_kvfree(const void *p)
{
	GL_UNTRACK(p);
	kvfree(p);
}

static inline void gl_kfree(const void *p)
{
	GL_UNTRACK(p);
	kfree(p);
}

static inline void gl_bitmap_free(unsigned long *p)
{
	GL_UNTRACK(p);
	bitmap_free(p);
}

static inline void gl_free_percpu(void __percpu *p)
{
	GL_UNTRACK((void __force *)p);
	free_percpu(p);
}

#endif /* _GPULAT_KMOD_FAULT_H */
