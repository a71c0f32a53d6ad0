/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-flight stamps of the block and net families (struct gl_bpf_flight,
 * gpulat_bpf.h): the module's gpulat_flight_find/_claim/_release
 * (kmod/keyed.h) over a BPF hash map keyed by the object's address.
 * The module's claim takes over a stale entry of another object when it
 * finds no free one; here the tool sweeps stale entries at each snapshot
 * instead, so a claim is new, the object's own, or full.
 */
#ifndef _GPULAT_BPF_FLIGHT_H
#define _GPULAT_BPF_FLIGHT_H

#include "common.bpf.h"

#define GL_FLIGHT_DEFINE(name)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(max_entries, 4096);	/* sized at load */	\
		__type(key, __u64);					\
		__type(value, struct gl_bpf_flight);			\
	} name SEC(".maps")

/* The module's enum gpulat_claim, less the takeover of a stale entry. */
enum {
	GL_CLAIM_NEW,		/* a new entry */
	GL_CLAIM_OWN,		/* @ptr had one already: reused */
	GL_CLAIM_FULL,		/* none could be had: the caller counts it */
};

/* gl_flight_entry - @ptr's entry in @map, live or released (ts 0), or NULL */
static __always_inline struct gl_bpf_flight *gl_flight_entry(void *map,
							     __u64 ptr)
{
	return bpf_map_lookup_elem(map, &ptr);
}

/* gl_flight_find - @ptr's live entry in @map, or NULL */
static __always_inline struct gl_bpf_flight *gl_flight_find(void *map,
							    __u64 ptr)
{
	struct gl_bpf_flight *f = bpf_map_lookup_elem(map, &ptr);

	return f && f->ts ? f : NULL;
}

/*
 * gl_flight_claim_at - stamp @ptr with @v (ts set), @f its entry in @map
 * as a lookup found it (NULL: none; ts 0: released, not deleted): in
 * place if there is one, else in a new one; GL_CLAIM_FULL when the map
 * is full (or its bucket busy: a program nested in another's update of
 * the same map).  The caller's lookup saves one here.
 */
static __always_inline int gl_flight_claim_at(void *map, __u64 ptr,
					      struct gl_bpf_flight *f,
					      const struct gl_bpf_flight *v)
{
	int how;

	if (f) {
		how = f->ts ? GL_CLAIM_OWN : GL_CLAIM_NEW;
		f->ts = 0;	/* free while it changes, as a release */
		gl_barrier();
		f->key = v->key;
		f->aux = v->aux;
		f->cg_watched = v->cg_watched;
		f->cg = v->cg;
		f->first = v->first;
		gl_barrier();
		f->ts = v->ts;
		return how;
	}
	if (bpf_map_update_elem(map, &ptr, v, BPF_ANY))
		return GL_CLAIM_FULL;
	return GL_CLAIM_NEW;
}

/* gl_flight_claim - gl_flight_claim_at() after a lookup of its own */
static __always_inline int gl_flight_claim(void *map, __u64 ptr,
					   const struct gl_bpf_flight *v)
{
	return gl_flight_claim_at(map, ptr, bpf_map_lookup_elem(map, &ptr),
				  v);
}

/*
 * gl_flight_release - give @ptr's entry @f back; ts 0 first, so that it
 * reads as free should the delete fail (its bucket busy)
 */
static __always_inline void gl_flight_release(void *map, __u64 ptr,
					      struct gl_bpf_flight *f)
{
	f->ts = 0;
	bpf_map_delete_elem(map, &ptr);
}

#endif /* _GPULAT_BPF_FLIGHT_H */
