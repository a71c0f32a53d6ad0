/* SPDX-License-Identifier: GPL-2.0 */
/*
 * net family in BPF: per network device, as the module measures it
 * (kmod/probe_net.c):
 *
 *   net.tx       net_dev_queue -> net_dev_xmit with a return code that
 *                says the driver took the skb
 *   net.backlog  netif_rx -> netif_receive_skb of the same skb
 *
 * Keyed by ifindex, with the namespace's inode number in bits 32-63 for a
 * device outside the initial network namespace; named "eth0", or
 * "eth0/net:4026532290" there.  Start stamps in net_flight keyed by skb
 * address; a tx stamp leaves it at net_dev_start_xmit for this CPU's
 * stack of transmissions in progress (net_nest), where net_dev_xmit finds
 * it, as in the module (stacked devices nest; the driver may free the skb
 * before net_dev_xmit).  Tracepoints (hit counters, GL_BPF_HIT()), in the
 * module's order: 0 net_dev_xmit, 1 net_dev_start_xmit, 2 net_dev_queue,
 * 3 netif_receive_skb, 4 netif_rx.
 */
#ifndef _GPULAT_BPF_NET_H
#define _GPULAT_BPF_NET_H

#include "flight.bpf.h"
#include "tp.bpf.h"
#include "trace.bpf.h"

#define GL_NET_NR_SERIES	2
/* Transmissions in progress on one CPU, stacked devices nested. */
#define GL_NET_NEST_MAX		8
/* IFNAMSIZ: a device's name, NUL included */
#define GL_IFNAMSIZ		16
/* NET_XMIT_MASK: dev_xmit_complete() (netdevice.h) */
#define GL_NET_XMIT_MASK	0x0f

GL_KEYED(net, GPULAT_FAM_NET, GL_NO_COUNT, GL_NET_NR_SERIES, GL_BPF_NET_KEYS);
GL_FLIGHT_DEFINE(net_flight);

/* A tx stamp taken out of net_flight at net_dev_start_xmit. */
struct gl_net_pending {
	__u64 skb;
	__u64 ts;			/* 0: the skb had no stamp */
	__u64 key;
};

struct gl_net_nest {
	__u32 depth;			/* used entries of stack */
	__u32 pad;
	struct gl_net_pending stack[GL_NET_NEST_MAX];
};

/* Zeroed by the tool when the family is switched on (the module's clear). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gl_net_nest);
} net_nest SEC(".maps");

/*
 * The initial namespace: 6.18 gave the initial namespaces fixed inode
 * numbers ("nsfs: add inode number for each namespace", enum
 * init_ns_ino); before, init_net's address, from kallsyms, which the tool
 * reads and sets before the load only there (a __ksym would make libbpf
 * read all of kallsyms at every load; 0 where it is not listed: every
 * device then counts as outside, see Documentation/bpf-families.rst).
 */
enum init_ns_ino___gl {
	NET_NS_INIT_INO___gl = 0,
};

const volatile __u64 gl_init_net;

/* gl_net_key - ifindex, and the namespace's inode in bits 32-63 outside */
static __always_inline __u64 gl_net_key(struct net_device *dev)
{
	__u64 key = (__u32)BPF_CORE_READ(dev, ifindex);
	struct net *net;
	__u32 inum;

	/* possible_net_t holds the net only with CONFIG_NET_NS */
	if (!bpf_core_field_exists(dev->nd_net.net))
		return key;
	net = BPF_CORE_READ(dev, nd_net.net);
	inum = BPF_CORE_READ(net, ns.inum);
	if (bpf_core_enum_value_exists(enum init_ns_ino___gl,
				       NET_NS_INIT_INO___gl)) {
		/* as u32: libbpf hands a 32-bit enum value sign extended */
		if (inum == (__u32)bpf_core_enum_value(enum init_ns_ino___gl,
						       NET_NS_INIT_INO___gl))
			return key;
	} else if (gl_init_net && (__u64)net == gl_init_net) {
		return key;
	}
	return key | (__u64)inum << 32;
}

/*
 * gl_net_name - name a new key, once: "eth0", or "eth0/net:4026532290"
 * (the module's "%.15s/net:%u"; the name was made zero)
 */
static __always_inline void gl_net_name(struct gl_keyed_net *v,
					struct net_device *dev, __u64 key)
{
	char *n = v->hdr.name;
	__u32 inum = key >> 32, t = inum, nd = 1, off, i;
	long len;

	len = bpf_probe_read_kernel_str(n, GL_IFNAMSIZ, &dev->name);
	if (!inum)
		return;
	off = len > 0 ? (len - 1) & (GL_IFNAMSIZ - 1) : 0;
	__builtin_memcpy(&n[off], "/net:", 5);
	off += 5;
	/* the digits, last first: at most 10, and 15 + 5 + 10 < 32 */
#pragma unroll
	for (i = 0; i < 9; i++) {
		t /= 10;
		if (t)
			nd++;
	}
#pragma unroll
	for (i = 0; i < 10; i++) {
		if (i < nd) {
			n[(off + nd - 1 - i) & (GPULAT_NAME_LEN - 1)] =
				'0' + inum % 10;
			inum /= 10;
		}
	}
}

/* gl_net_start - stamp @skb as entering @series on its device at now */
static __always_inline void gl_net_start(struct sk_buff *skb, __u32 series)
{
	struct net_device *dev = BPF_CORE_READ(skb, dev);
	struct gl_bpf_flight e = { .aux = series };
	struct gl_kmax_net *max;
	struct gl_keyed_net *v;
	bool created;
	int how;

	/* never NULL here (the events print its name) */
	if (!dev)
		return;
	e.key = gl_net_key(dev);
	v = net_key_get(e.key, &created, &max);
	if (v && created)
		gl_net_name(v, dev, e.key);
	e.ts = bpf_ktime_get_ns();
	how = gl_flight_claim(&net_flight, (__u64)skb, &e);
	if (how == GL_CLAIM_FULL)
		gl_count(GPULAT_FAM_NET, GPULAT_NET_FULL);
	/* a stamp already there: the skb that set it was dropped */
	else if (how == GL_CLAIM_OWN)
		gl_count(GPULAT_FAM_NET, GPULAT_NET_EXPIRED);
}

/* gl_net_end - file the wait from @ts to now of @series on @key */
static __always_inline void gl_net_end(__u64 ts, __u64 key, __u32 series)
{
	struct gl_keyed_net *v = bpf_map_lookup_elem(&net_keys, &key);
	struct gl_kmax_net *m = bpf_map_lookup_elem(&net_kmax, &key);
	__u64 now = bpf_ktime_get_ns();
	__s64 delta = now - ts;

	if (!v || !m) {
		gl_count(GPULAT_FAM_NET, GPULAT_NET_KEYS_FULL);
		return;
	}
	if (delta < 0) {
		gl_count(GPULAT_FAM_NET, GPULAT_NET_NEGATIVE);
		return;
	}
	barrier_var(series);
	if (series >= GL_NET_NR_SERIES)
		return;
	gl_ghist_record(&v->h[series], &m->max[series], delta);
	gl_trace_check(GPULAT_FAM_NET, series, key, now, delta, NULL, 0);
}

static __always_inline struct gl_net_nest *gl_net_nest_this(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&net_nest, &zero);
}

GL_TP(net_dev_queue, gl_net_queue, struct sk_buff *skb)
{
	gl_hit(GPULAT_FAM_NET, GL_HIT_NET_QUEUE);
	gl_net_start(skb, GPULAT_NET_TX);
	return 0;
}

/*
 * net_dev_start_xmit: the driver is about to get the skb; its stamp moves
 * from net_flight to this CPU's stack (ts 0 if it has none, so that a
 * nested transmission of the same skb cannot take an outer one)
 */
GL_TP(net_dev_start_xmit, gl_net_start_xmit, struct sk_buff *skb, struct net_device *dev)
{
	struct gl_net_nest *pc = gl_net_nest_this();
	struct gl_net_pending *p;
	struct gl_bpf_flight *f;
	__u64 ts = 0, key = 0;
	__u32 d, i;

	gl_hit(GPULAT_FAM_NET, GL_HIT_NET_START_XMIT);
	f = gl_flight_find(&net_flight, (__u64)skb);
	if (f) {
		if (f->aux == GPULAT_NET_TX) {
			ts = f->ts;
			key = f->key;
		} else {
			/* a backlog stamp of a freed skb at this address */
			gl_count(GPULAT_FAM_NET, GPULAT_NET_EXPIRED);
		}
		gl_flight_release(&net_flight, (__u64)skb, f);
	}
	if (!pc)
		return 0;
	d = pc->depth;
	if (d >= GL_NET_NEST_MAX) {
		/* deeper than any stacking allows: ends never seen */
#pragma unroll
		for (i = 0; i < GL_NET_NEST_MAX; i++)
			if (pc->stack[i].ts)
				gl_count(GPULAT_FAM_NET, GPULAT_NET_EXPIRED);
		d = 0;
	}
	/* reserve before filling: a program nesting here pushes above */
	pc->depth = d + 1;
	gl_barrier();
	p = &pc->stack[d & (GL_NET_NEST_MAX - 1)];
	p->skb = (__u64)skb;
	p->ts = ts;
	p->key = key;
	return 0;
}

/* gl_net_requeue - the driver refused @p's skb: put its stamp back */
static __always_inline void gl_net_requeue(const struct gl_net_pending *p)
{
	struct gl_bpf_flight e = {
		.ts = p->ts, .key = p->key, .aux = GPULAT_NET_TX,
	};
	int how;

	if (!p->ts)
		return;
	how = gl_flight_claim(&net_flight, p->skb, &e);
	if (how == GL_CLAIM_FULL)
		gl_count(GPULAT_FAM_NET, GPULAT_NET_FULL);
	else if (how == GL_CLAIM_OWN)
		gl_count(GPULAT_FAM_NET, GPULAT_NET_EXPIRED);
}

GL_TP(net_dev_xmit, gl_net_xmit, struct sk_buff *skb, int rc)
{
	struct gl_net_nest *pc = gl_net_nest_this();
	struct gl_net_pending p;
	__u32 d, i, at = 0;

	gl_hit(GPULAT_FAM_NET, GL_HIT_NET_XMIT);
	if (!pc)
		return 0;
	d = pc->depth;
	if (d > GL_NET_NEST_MAX)
		d = GL_NET_NEST_MAX;
	/* the innermost transmission of this skb: at - 1 */
#pragma unroll
	for (i = 0; i < GL_NET_NEST_MAX; i++)
		if (!at && i < d &&
		    pc->stack[(d - 1 - i) & (GL_NET_NEST_MAX - 1)].skb ==
		    (__u64)skb)
			at = d - i;
	if (!at) {
		/* its start came before the family was on */
		if (rc < GL_NET_XMIT_MASK)
			gl_count(GPULAT_FAM_NET, GPULAT_NET_NO_START);
		return 0;
	}
	i = at - 1;
	/* the verifier's bound, which the compiler would prove away */
	barrier_var(i);
	p = pc->stack[i & (GL_NET_NEST_MAX - 1)];
	/* entries above it are starts whose end was never seen */
#pragma unroll
	for (i = 0; i < GL_NET_NEST_MAX; i++)
		if (i >= at && i < d && pc->stack[i].ts)
			gl_count(GPULAT_FAM_NET, GPULAT_NET_EXPIRED);
	pc->depth = at - 1;

	if (rc >= GL_NET_XMIT_MASK) {
		/* NETDEV_TX_BUSY: requeued, the measurement goes on */
		gl_net_requeue(&p);
		return 0;
	}
	if (!p.ts) {
		gl_count(GPULAT_FAM_NET, GPULAT_NET_NO_START);
		return 0;
	}
	gl_net_end(p.ts, p.key, GPULAT_NET_TX);
	return 0;
}

GL_TP(netif_rx, gl_net_rx, struct sk_buff *skb)
{
	gl_hit(GPULAT_FAM_NET, GL_HIT_NET_RX);
	gl_net_start(skb, GPULAT_NET_BACKLOG);
	return 0;
}

/*
 * netif_receive_skb: every received skb passes here; only those with a
 * backlog stamp are filed, the others (NAPI, GRO) are not counted
 */
GL_TP(netif_receive_skb, gl_net_receive, struct sk_buff *skb)
{
	struct gl_bpf_flight *f;
	__u64 ts, key;
	__u32 series;

	gl_hit(GPULAT_FAM_NET, GL_HIT_NET_RECEIVE);
	f = gl_flight_find(&net_flight, (__u64)skb);
	if (!f)
		return 0;
	ts = f->ts;
	key = f->key;
	series = f->aux;
	gl_flight_release(&net_flight, (__u64)skb, f);
	if (series != GPULAT_NET_BACKLOG) {
		/* a tx stamp of a freed skb at this address */
		gl_count(GPULAT_FAM_NET, GPULAT_NET_EXPIRED);
		return 0;
	}
	gl_net_end(ts, key, GPULAT_NET_BACKLOG);
	return 0;
}

#endif /* _GPULAT_BPF_NET_H */
