// SPDX-License-Identifier: GPL-2.0
/* gpulat trace's Xids from NVML, merged with the tracepoint's (trace_nvml.h). */
#include <string.h>

#include "engine/gpusample/gpusample.h"

int tn_start(struct trace_nvml *t,
	     void (*print)(uint64_t time_ns, uint32_t code,
			   const char *device, void *arg), void *arg)
{
	int ret;

	memset(t, 0, sizeof(*t));
	t->print = print;
	t->arg = arg;
	ret = gs_start_xids(&t->s);
	t->on = !ret;
	return ret;
}

/* tn_out - print held Xid @k and drop it */
static void tn_out(struct trace_nvml *t, size_t k)
{
	const struct tn_xid *x = &t->held[k];

	if (x->matched)
		t->merged++;
	else {
		t->print(x->time_ns, x->code, x->device, t->arg);
		t->printed++;
	}
	memmove(&t->held[k], &t->held[k + 1],
		(t->nr_held - k - 1) * sizeof(t->held[0]));
	t->nr_held--;
}

void tn_kernel_xid(struct trace_nvml *t, uint64_t time_ns, uint32_t code,
		   const char *device)
{
	struct tn_xid *x;
	size_t k;

	if (!t->on)
		return;
	for (k = 0; k < t->nr_held; k++)
		if (!t->held[k].matched &&
		    gs_xid_same(t->held[k].code, t->held[k].device,
				t->held[k].lo_ns, t->held[k].time_ns, code,
				device, time_ns, time_ns)) {
			t->held[k].matched = true;
			return;
		}
	if (t->nr_seen == TN_MAX) {
		memmove(&t->seen[0], &t->seen[1],
			(TN_MAX - 1) * sizeof(t->seen[0]));
		t->nr_seen--;
	}
	x = &t->seen[t->nr_seen++];
	memset(x, 0, sizeof(*x));
	x->lo_ns = x->time_ns = time_ns;
	x->code = code;
	snprintf(x->device, sizeof(x->device), "%s", device);
}

/* tn_take - NVML's Xid: one the tracepoint printed already, or held */
static void tn_take(struct trace_nvml *t, const struct gs_xid *g,
		    const char *bus)
{
	struct tn_xid x = {
		.lo_ns = g->lo_ns, .time_ns = g->time_ns, .code = g->code
	};
	size_t k;

	gs_bus_kernel(x.device, sizeof(x.device), bus);
	for (k = 0; k < t->nr_seen; k++)
		if (!t->seen[k].matched &&
		    gs_xid_same(t->seen[k].code, t->seen[k].device,
				t->seen[k].lo_ns, t->seen[k].time_ns, x.code,
				x.device, x.lo_ns, x.time_ns)) {
			t->seen[k].matched = true;
			t->merged++;
			return;
		}
	if (t->nr_held == TN_MAX) {
		t->early++;	/* may print again if the tracepoint has it */
		tn_out(t, 0);
	}
	t->held[t->nr_held++] = x;
}

void tn_tick(struct trace_nvml *t, uint64_t now_ns)
{
	struct gs_xid x[TN_MAX];
	char bus[TN_MAX][32];
	size_t n, k;

	if (!t->on)
		return;
	do {
		n = gs_xids_read(&t->s, &t->cursor, x, bus, TN_MAX, &t->lost);
		for (k = 0; k < n; k++)
			tn_take(t, &x[k], bus[k]);
	} while (n == TN_MAX);
	while (t->nr_held &&
	       (t->held[0].matched ||
		now_ns >= t->held[0].time_ns + GS_XID_SAME_NS))
		tn_out(t, 0);
}

void tn_stop(struct trace_nvml *t, struct gs_timeline *tl)
{
	memset(tl, 0, sizeof(*tl));
	if (!t->on) {
		/* one that could not start says why */
		if (gs_stop(&t->s, tl))
			memset(tl, 0, sizeof(*tl));
		return;
	}
	/* the last records are in: what is held prints now */
	tn_tick(t, UINT64_MAX - GS_XID_SAME_NS);
	while (t->nr_held)
		tn_out(t, 0);
	if (gs_stop(&t->s, tl))
		memset(tl, 0, sizeof(*tl));
	t->on = false;
}
