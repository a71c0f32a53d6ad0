// SPDX-License-Identifier: GPL-2.0
/* The FAMILY filter of a view, and the names it prints. */
#include "engine/view/view.h"

/*
 * view_kernel - kernel release of the data: the one the module recorded
 * in the snapshot, else uname -r of this host (NULL when unknown)
 */
const char *view_kernel(const struct view *v, const struct gl_snapshot *s)
{
	const char *r = gl_snapshot_header(s)->kernel_release;

	return r[0] ? r : v->kernel;
}

/* view_wants_family - whether @family passes the FAMILY filter */
bool view_wants_family(const struct view *v, uint32_t family)
{
	if (!v->families)
		return true;
	return family < 64 && (v->families & (1ULL << family));
}

/*
 * view_wants_series - whether @sr passes the FAMILY filter: its family
 * is named, or its softirq vector belongs to a family that is (NET_RX
 * and NET_TX to net, which has no softirq probes of its own)
 */
bool view_wants_series(const struct view *v, const struct gpulat_series *sr)
{
	const struct gl_family_info *fi = gl_family(sr->family);
	const struct gl_vector_info *vi = gl_vector_info(sr->key);

	if (view_wants_family(v, sr->family))
		return true;
	return fi && fi->key == GL_KEY_VECTOR && vi && vi->also_family &&
	       view_wants_family(v, vi->also_family);
}

/* view_family_name - table name of @family, or "family<N>" */
const char *view_family_name(uint32_t family, char *buf, size_t len)
{
	const char *name = gl_family_name(family);

	if (name)
		return name;
	snprintf(buf, len, "family%u", family);
	return buf;
}
