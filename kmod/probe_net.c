// SPDX-License-Identifier: GPL-2.0
/*
 * net family: per network device, two keyed series.
 *
 *   net.tx       net_dev_queue -> net_dev_xmit with a return code that says
 *                the driver took the skb (qdisc wait plus the driver call)
 *   net.backlog  netif_rx -> netif_receive_skb of the same skb (time in a
 *                CPU's backlog queue; NAPI/GRO receive never passes netif_rx)
 *
 * The key is the device's ifindex; a device outside the initial network
 * namespace has that namespace's inode number in bits 32-63 (ifindexes are
 * only unique per namespace).
 *
 * Start stamps travel in the shared in-flight table keyed by skb address.
 * A tx stamp leaves the table at net_dev_start_xmit, while the skb is
 * still alive, for a per-CPU stack of the transmissions in progress: the
 * driver may free the skb (and its address be reused on another CPU)
 * before net_dev_xmit fires, and a stacked device (vlan, bond, tunnel)
 * queues the same skb to its lower device from inside its own xmit.
 * net_dev_xmit runs on the CPU of its net_dev_start_xmit, nested in LIFO
 * order, so it finds its stamp on top of that stack.  A driver that
 * answers NETDEV_TX_BUSY gets the skb requeued: its stamp goes back into
 * the table for the next attempt.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/timekeeping.h>
#include <net/net_namespace.h>
#include <trace/events/net.h>

#include "gpulat.h"
#include "gpulat_defaults.h"
#include "gpulat_drops.h"
#include "keyed.h"
#include "sized.h"
#include "trace.h"

/* Transmissions in progress on one CPU, stacked devices nested. */
#define NET_NEST_MAX		8
/* key_idx of a stamp whose device found no room in the key table */
#define NET_NO_KEY		U32_MAX
/* in-flight table entries: 256 per possible CPU, at least 4096, by default */
#define NET_INFLIGHT_PER_CPU	((u64)GPULAT_NET_INFLIGHT_PER_CPU)
#define NET_INFLIGHT_MIN	((u64)GPULAT_NET_INFLIGHT_MIN)
#define NET_INFLIGHT_MAX	(1ULL << 22)

enum {
	NET_HITS_AFTER = GPULAT_NET_KEYS_FULL,	/* the last drop counter */
	GPULAT_TPS_NET(GPULAT_TP_HIT)
	NET_NR_COUNTERS,
};

/* A tx stamp taken out of the table at net_dev_start_xmit. */
struct net_pending {
	unsigned long skb;
	u64 ts;				/* 0: the skb had no stamp */
	u32 key_idx;
};

struct net_pcpu {
	u64 counters[NET_NR_COUNTERS];
	unsigned int depth;		/* used entries of stack */
	struct net_pending stack[NET_NEST_MAX];
};

static unsigned int net_inflight;
module_param(net_inflight, uint, 0444);
MODULE_PARM_DESC(net_inflight,
		 "in-flight table entries (0: "
		 __stringify(GPULAT_NET_INFLIGHT_PER_CPU)
		 " per possible CPU, at least "
		 __stringify(GPULAT_NET_INFLIGHT_MIN) "; at most 4194304)");

static unsigned int net_expire_ms = GPULAT_NET_EXPIRE_MS;
module_param(net_expire_ms, uint, 0444);
MODULE_PARM_DESC(net_expire_ms,
		 "a stamp older than this may be taken over (packet dropped on the way)");

static const struct gpulat_series_desc net_series[] = {
	GPULAT_DECL_NET(GPULAT_SERIES_DESC)
};

static struct gpulat_keyed net_keyed = {
	.series		= net_series,
	.nr_series	= ARRAY_SIZE(net_series),
	.max_keys	= 32,
	.param		= "net_max_devs",
};

module_param_named(net_max_devs, net_keyed.max_keys, uint, 0444);
MODULE_PARM_DESC(net_max_devs, "network devices with their own series (default 32, at most 65535)");

static struct net_pcpu __percpu *net_pc;
static struct gpulat_inflight net_flight;

#define NET_COUNT(c)	this_cpu_inc(net_pc->counters[c])

/*
 * net_key - ifindex, plus the namespace's inode number in bits 32-63 for a
 * device outside the initial namespace
 */
static __always_inline u64 net_key(const struct net_device *dev)
{
	const struct net *net = dev_net(dev);
	u64 key = (u32)dev->ifindex;

	if (!net_eq(net, &init_net))
		key |= (u64)net->ns.inum << 32;
	return key;
}

/* net_key_fill - name a new key, once: "eth0", or "eth0/net:4026532290" */
static void net_key_fill(struct gpulat_key *k, const void *arg)
{
	const struct net_device *dev = arg;
	const struct net *net = dev_net(dev);

	/* %.15s: a rename may be rewriting the name under us */
	if (net_eq(net, &init_net))
		snprintf(k->name, sizeof(k->name), "%.*s", IFNAMSIZ - 1,
			 dev->name);
	else
		snprintf(k->name, sizeof(k->name), "%.*s/net:%u",
			 IFNAMSIZ - 1, dev->name, net->ns.inum);
}

/* net_start - stamp @skb as entering @series on its device at @now */
static __always_inline void net_start(struct sk_buff *skb, u32 series)
{
	struct net_device *dev = skb->dev;
	struct gpulat_flight *f;
	enum gpulat_claim how;
	int idx;

	/* never NULL here (the events print its name); its end counts it */
	if (unlikely(!dev))
		return;
	idx = gpulat_key_get(&net_keyed, net_key(dev), net_key_fill, dev);
	f = gpulat_flight_claim(&net_flight, (unsigned long)skb,
				ktime_get_mono_fast_ns(), &how);
	if (unlikely(!f)) {
		NET_COUNT(GPULAT_NET_FULL);
		return;
	}
	/* a stamp already there: the skb that set it was dropped */
	if (unlikely(how != GPULAT_CLAIM_NEW))
		NET_COUNT(GPULAT_NET_EXPIRED);
	f->key_idx = idx < 0 ? NET_NO_KEY : idx;
	f->aux = series;
}

/* net_end - file the wait from @ts to @now of @series on key @idx */
static __always_inline void net_end(u64 ts, u32 idx, u64 now, u32 series)
{
	s64 delta = (s64)(now - ts);

	if (unlikely(idx == NET_NO_KEY)) {
		NET_COUNT(GPULAT_NET_KEYS_FULL);
		return;
	}
	if (unlikely(delta < 0)) {
		NET_COUNT(GPULAT_NET_NEGATIVE);
		return;
	}
	gpulat_ghist_record(gpulat_key_hist(&net_keyed, idx, series), delta);
	gpulat_trace_check(GPULAT_FAM_NET, series, net_keyed.keys[idx].key,
			   now, delta, NULL, 0);
}

/*
 * net_end_now - net_end() at the current time, stamped and filed with
 * interrupts off, so that no record from an interrupt comes between and
 * the trace stays in time order
 */
static __always_inline void net_end_now(u64 ts, u32 idx, u32 series)
{
	unsigned long flags;

	local_irq_save(flags);
	net_end(ts, idx, ktime_get_mono_fast_ns(), series);
	local_irq_restore(flags);
}

static void net_probe_queue(void *data, struct sk_buff *skb)
{
	NET_COUNT(NET_HIT_QUEUE);
	net_start(skb, GPULAT_NET_TX);
}

/*
 * net_probe_start_xmit - the driver is about to get @skb: move its stamp
 * from the table to this CPU's stack (an entry with ts 0 if it has none,
 * so that a nested transmission of the same skb cannot take an outer one)
 */
static void net_probe_start_xmit(void *data, const struct sk_buff *skb,
				 const struct net_device *dev)
{
	struct net_pcpu *pc = this_cpu_ptr(net_pc);
	struct gpulat_flight *f;
	struct net_pending *p;
	unsigned int d, i;
	u64 ts = 0;
	u32 idx = 0;

	NET_COUNT(NET_HIT_START_XMIT);
	f = gpulat_flight_find(&net_flight, (unsigned long)skb);
	if (f) {
		if (likely(f->aux == GPULAT_NET_TX)) {
			ts = READ_ONCE(f->ts);
			idx = f->key_idx;
		} else {
			/* a backlog stamp of a freed skb at this address */
			NET_COUNT(GPULAT_NET_EXPIRED);
		}
		gpulat_flight_release(f);
	}

	d = READ_ONCE(pc->depth);
	if (unlikely(d >= NET_NEST_MAX)) {
		/*
		 * Deeper than any stacking the kernel allows: these are ends
		 * never seen (the family was switched off in between).
		 */
		for (i = 0; i < d; i++)
			if (pc->stack[i].ts)
				NET_COUNT(GPULAT_NET_EXPIRED);
		d = 0;
	}
	/* reserve before filling: an interrupt nesting here pushes above */
	WRITE_ONCE(pc->depth, d + 1);
	barrier();
	p = &pc->stack[d];
	p->skb = (unsigned long)skb;
	p->ts = ts;
	p->key_idx = idx;
}

/* net_requeue - the driver refused @p's skb: put its stamp back */
static void net_requeue(const struct net_pending *p)
{
	struct gpulat_flight *f;
	enum gpulat_claim how;

	if (!p->ts)
		return;
	f = gpulat_flight_claim(&net_flight, p->skb, p->ts, &how);
	if (unlikely(!f)) {
		NET_COUNT(GPULAT_NET_FULL);
		return;
	}
	if (unlikely(how != GPULAT_CLAIM_NEW))
		NET_COUNT(GPULAT_NET_EXPIRED);
	f->key_idx = p->key_idx;
	f->aux = GPULAT_NET_TX;
}

static void net_probe_xmit(void *data, struct sk_buff *skb, int rc,
			   struct net_device *dev, unsigned int skb_len)
{
	struct net_pcpu *pc = this_cpu_ptr(net_pc);
	unsigned int d = READ_ONCE(pc->depth), i, j;
	struct net_pending p;

	NET_COUNT(NET_HIT_XMIT);
	for (i = d; i > 0; i--)
		if (pc->stack[i - 1].skb == (unsigned long)skb)
			break;
	if (unlikely(!i)) {
		/* its start came before the family was on */
		if (dev_xmit_complete(rc))
			NET_COUNT(GPULAT_NET_NO_START);
		return;
	}
	p = pc->stack[--i];
	/* entries above it are starts whose end was never seen */
	for (j = i + 1; j < d; j++)
		if (pc->stack[j].ts)
			NET_COUNT(GPULAT_NET_EXPIRED);
	WRITE_ONCE(pc->depth, i);

	if (unlikely(!dev_xmit_complete(rc))) {
		/* NETDEV_TX_BUSY: requeued, the measurement goes on */
		net_requeue(&p);
		return;
	}
	if (unlikely(!p.ts)) {
		NET_COUNT(GPULAT_NET_NO_START);
		return;
	}
	net_end_now(p.ts, p.key_idx, GPULAT_NET_TX);
}

static void net_probe_rx(void *data, struct sk_buff *skb)
{
	NET_COUNT(NET_HIT_RX);
	net_start(skb, GPULAT_NET_BACKLOG);
}

/*
 * net_probe_receive - every received skb passes here; only those with a
 * backlog stamp are filed, the others (NAPI, GRO) are not counted
 */
static void net_probe_receive(void *data, struct sk_buff *skb)
{
	struct gpulat_flight *f;
	u32 idx, series;
	u64 ts;

	NET_COUNT(NET_HIT_RECEIVE);
	f = gpulat_flight_find(&net_flight, (unsigned long)skb);
	if (!f)
		return;
	ts = READ_ONCE(f->ts);
	idx = f->key_idx;
	series = f->aux;
	gpulat_flight_release(f);
	if (unlikely(series != GPULAT_NET_BACKLOG)) {
		/* a tx stamp of a freed skb at this address */
		NET_COUNT(GPULAT_NET_EXPIRED);
		return;
	}
	net_end_now(ts, idx, GPULAT_NET_BACKLOG);
}

/*
 * net_inflight_entries - table size from net_inflight: 0 is the default
 * above (up to the bound); at least 64, rounded up to a power of two; over
 * the bound only as net_check() reports it
 */
static u64 net_inflight_entries(void)
{
	u64 n = net_inflight;

	if (!n)
		n = clamp(NET_INFLIGHT_PER_CPU * num_possible_cpus(),
			  NET_INFLIGHT_MIN, NET_INFLIGHT_MAX);
	return gpulat_sized_pow2(max(n, 64ULL));
}

static void net_sized(struct gpulat_sized *s)
{
	s->param = "net_inflight";
	s->value = net_inflight;
	s->max = NET_INFLIGHT_MAX;
	s->bytes = net_inflight_entries() * sizeof(*net_flight.e);
}

static int net_check(struct gpulat_family *fam)
{
	struct gpulat_sized s;

	net_sized(&s);
	return gpulat_sized_check(&s);
}

static int net_init(struct gpulat_family *fam, void __percpu *pcpu)
{
	/* net_check() refused more at load */
	unsigned int n = min(net_inflight_entries(), NET_INFLIGHT_MAX);
	int ret;

	GPULAT_CHECK_PROBE(net_dev_queue, net_probe_queue);
	GPULAT_CHECK_PROBE(net_dev_start_xmit, net_probe_start_xmit);
	GPULAT_CHECK_PROBE(net_dev_xmit, net_probe_xmit);
	GPULAT_CHECK_PROBE(netif_rx, net_probe_rx);
	GPULAT_CHECK_PROBE(netif_receive_skb, net_probe_receive);

	ret = gpulat_inflight_alloc(&net_flight, n,
				    (u64)net_expire_ms * NSEC_PER_MSEC);
	if (ret) {
		struct gpulat_sized s;

		net_sized(&s);
		gpulat_sized_nomem(&s);
		return ret;
	}
	net_pc = pcpu;
	fam->extra_bytes += sizeof(struct gpulat_flight) << net_flight.bits;
	return 0;
}

/* net_clear - forget every pending stamp: no probe runs now */
static void net_clear(struct gpulat_family *fam)
{
	int cpu;

	gpulat_inflight_clear(&net_flight);
	for_each_possible_cpu(cpu) {
		struct net_pcpu *pc = per_cpu_ptr(net_pc, cpu);

		memset(pc->stack, 0, sizeof(pc->stack));
		pc->depth = 0;
	}
}

static void net_exit(struct gpulat_family *fam)
{
	gpulat_inflight_free(&net_flight);
}

/*
 * Attached in this order (and detached in the same): each end before its
 * start, so that no stamp set after the attach misses its end.
 */
static struct gpulat_tp net_tps[] = {
	GPULAT_TPS_NET(GPULAT_TP_ROW)
};

static const char * const net_drop_names[] = GPULAT_NET_DROP_NAMES;

struct gpulat_family gpulat_net_family = {
	.id		= GPULAT_FAM_NET,
	.name		= "net",
	.tps		= net_tps,
	.nr_tps		= ARRAY_SIZE(net_tps),
	.drop_names	= net_drop_names,
	.nr_drops	= ARRAY_SIZE(net_drop_names),
	.pcpu_size	= sizeof(struct net_pcpu),
	.counter_offset	= offsetof(struct net_pcpu, counters),
	.keyed		= &net_keyed,
	.check		= net_check,
	.init		= net_init,
	.exit		= net_exit,
	.clear		= net_clear,
	.enabled	= true,
};

module_param_named(net, gpulat_net_family.enabled, bool, 0444);
MODULE_PARM_DESC(net, "network device latency family (default on)");
