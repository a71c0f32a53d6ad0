// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat drill net: a network namespace and a veth pair of the drill's
 * own (named after its pid), a netem delay of 20 ms on the near end, and
 * UDP datagrams sent over it every 10 ms (where netem is
 * missing, a token bucket slower than that instead).  Addresses come from 198.18.0.0/15
 * (RFC 2544, benchmarking): no existing interface or route is touched.
 * ip and tc run with fixed argv; deleting the namespace takes the far
 * end with it, deleting the near end the qdisc.
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/mount.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

#include "engine/drill/drill.h"
#include "lib/array_size.h"

#define NET_DELAY_MS	20

struct drill_net {
	char ip[128], tc[128];
	char ns[48], near[IFNAMSIZ], far[IFNAMSIZ];
	char addr_near[32], addr_far[32];
	bool netns_mounted;	/* /run/netns was a mount before */
	char qdisc[64];		/* the delay, in words */
};

static struct drill_net drill_net_state;

static int drill_net_check(struct drill *d)
{
	struct drill_net *dn = &drill_net_state;
	int pid = getpid();

	memset(dn, 0, sizeof(*dn));
	d->priv = dn;
	if (drill_which("ip", dn->ip, sizeof(dn->ip)))
		return drill_set(d, DRILL_SKIP, "no ip (iproute2) to make a veth pair with");
	if (drill_which("tc", dn->tc, sizeof(dn->tc)))
		return drill_set(d, DRILL_SKIP, "no tc (iproute2) to add a netem delay with");
	snprintf(dn->ns, sizeof(dn->ns), "%s", d->name);
	snprintf(dn->near, sizeof(dn->near), "gldA%d", pid % 10000000);
	snprintf(dn->far, sizeof(dn->far), "gldB%d", pid % 10000000);
	snprintf(dn->addr_near, sizeof(dn->addr_near), "198.19.%d.%d",
		 pid % 250, (pid / 250) % 60 * 4 + 1);
	snprintf(dn->addr_far, sizeof(dn->addr_far), "198.19.%d.%d",
		 pid % 250, (pid / 250) % 60 * 4 + 2);
	return 0;
}

static int drill_undo_netns(struct drill_undo *u)
{
	return drill_rm_netns(u->arg);
}

/* ip netns add mounted /run/netns: unmounted again once empty */
static int drill_undo_netns_mount(struct drill_undo *u)
{
	(void)u;
	drill_rm_netns_mount();
	return 0;
}

static int drill_undo_link(struct drill_undo *u)
{
	return drill_rm_link(u->arg);
}

/* drill_net_make - the namespace, the pair, addresses, the delay */
static int drill_net_make(struct drill *d, struct drill_net *dn)
{
	char why[160], near_a[40], far_a[40], path[128], buf[32];
	char *add_ns[] = { dn->ip, "netns", "add", dn->ns, NULL };
	char *lo_up[] = { dn->ip, "-n", dn->ns, "link", "set", "lo", "up", NULL };
	char *add_veth[] = { dn->ip, "link", "add", dn->near, "type", "veth",
			     "peer", "name", dn->far, "netns", dn->ns, NULL };
	char *addr_near[] = { dn->ip, "addr", "add", near_a, "dev", dn->near,
			      NULL };
	char *up_near[] = { dn->ip, "link", "set", dn->near, "up", NULL };
	char *addr_far[] = { dn->ip, "-n", dn->ns, "addr", "add", far_a, "dev",
			     dn->far, NULL };
	char *up_far[] = { dn->ip, "-n", dn->ns, "link", "set", dn->far, "up",
			   NULL };
	char *netem[] = { dn->tc, "qdisc", "add", "dev", dn->near, "root",
			  "netem", "delay", "20ms", NULL };
	/* where netem is missing: a token bucket slower than the sender */
	char *tbf[] = { dn->tc, "qdisc", "add", "dev", dn->near, "root", "tbf",
			"rate", "32kbit", "burst", "128", "latency", "50ms",
			NULL };
	char *const *steps[] = { addr_near, up_near, addr_far, up_far };
	size_t i;

	snprintf(near_a, sizeof(near_a), "%s/30", dn->addr_near);
	snprintf(far_a, sizeof(far_a), "%s/30", dn->addr_far);
	dn->netns_mounted = drill_run_netns_mounted();
	if (!dn->netns_mounted && drill_journal(d, "netns-mount /run/netns"))
		return -1;
	if (drill_journal(d, "netns %s", dn->ns))
		return -1;
	if (drill_cmd(add_ns, why, sizeof(why))) {
		drill_rm_netns(dn->ns);
		if (!dn->netns_mounted)
			drill_rm_netns_mount();
		return drill_set(d, DRILL_SKIP, "cannot make a network namespace: %s", why);
	}
	if (!dn->netns_mounted && drill_run_netns_mounted() &&
	    !drill_push(&d->undo, drill_undo_netns_mount, NULL,
			"the /run/netns mount made by ip netns add"))
		return drill_set(d, DRILL_FAIL, "too many things to undo");
	if (!drill_push(&d->undo, drill_undo_netns, dn->ns,
			"network namespace %s", dn->ns))
		return drill_set(d, DRILL_FAIL, "too many things to undo");
	if (drill_cmd(lo_up, why, sizeof(why)))
		return drill_set(d, DRILL_SKIP,
				 "cannot enter a network namespace here (a chroot?): %s", why);
	if (drill_journal(d, "link %s", dn->near))
		return -1;
	if (drill_cmd(add_veth, why, sizeof(why)))
		return drill_set(d, DRILL_SKIP, "cannot make a veth pair: %s", why);
	if (!drill_push(&d->undo, drill_undo_link, dn->near,
			"veth pair %s (here) - %s (in %s)", dn->near, dn->far,
			dn->ns))
		return drill_set(d, DRILL_FAIL, "too many things to undo");
	/* no IPv6: nothing but the drill's datagrams on the link */
	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6",
		 dn->near);
	drill_write(path, "1");
	for (i = 0; i < ARRAY_SIZE(steps); i++)
		if (drill_cmd(steps[i], why, sizeof(why)))
			return drill_set(d, DRILL_FAIL, "%s: %s", steps[i][1], why);
	/* the qdisc goes with the link: recorded for what status lists */
	if (drill_journal(d, "qdisc %s", dn->near))
		return -1;
	if (!drill_cmd(netem, why, sizeof(why)))
		snprintf(dn->qdisc, sizeof(dn->qdisc), "netem delay %d ms",
			 NET_DELAY_MS);
	else if (!drill_cmd(tbf, why, sizeof(why)))
		snprintf(dn->qdisc, sizeof(dn->qdisc),
			 "tbf 32 kbit/s, up to 50 ms queued (no netem here)");
	else
		return drill_set(d, DRILL_SKIP, "neither netem nor tbf qdisc: %s", why);
	snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", dn->near);
	if (drill_read(path, buf, sizeof(buf)))
		return drill_set(d, DRILL_FAIL, "no ifindex of %s", dn->near);
	d->expect.has_key = true;
	d->expect.key = strtoull(buf, NULL, 10);
	snprintf(d->expect.key_name, sizeof(d->expect.key_name), "%s",
		 dn->near);
	return 0;
}

/* drill_net_sender - a UDP datagram to the far end every 10 ms */
static pid_t drill_net_sender(struct drill *d, struct drill_net *dn)
{
	const struct timespec gap = { 0, 10000000 };
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(9) };
	pid_t pid;
	int s;

	pid = drill_fork(d->duration_s, "gldrill-sender");
	if (pid)
		return pid;
	inet_pton(AF_INET, dn->addr_far, &to.sin_addr);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, dn->near,
				strlen(dn->near)))
		_exit(1);
	for (;;) {
		sendto(s, "gpulat-drill", 12, 0, (struct sockaddr *)&to,
		       sizeof(to));
		nanosleep(&gap, NULL);
	}
}

static int drill_net_inject(struct drill *d)
{
	struct drill_net *dn = d->priv;
	pid_t pid;

	if (drill_net_make(d, dn))
		return -1;
	d->inject_ns = drill_now_ns();
	pid = drill_net_sender(d, dn);
	if (pid < 0)
		return drill_set(d, DRILL_FAIL, "fork: %s", strerror(errno));
	if (!drill_push_child(&d->undo, pid, true,
			      "UDP sender process %d on %s", pid, dn->near))
		return drill_set(d, DRILL_FAIL, "too many things to undo");
	if (drill_journal_child(d, pid, "gldrill-sender"))
		return -1;
	snprintf(d->where, sizeof(d->where), "%s", dn->near);
	snprintf(d->fault, sizeof(d->fault),
		 "%s on veth %s (peer %s in namespace %s), UDP every 10 ms by pid %d",
		 dn->qdisc, dn->near, dn->far, dn->ns, pid);
	return 0;
}

const struct drill_ops drill_net_ops = {
	.family = GPULAT_FAM_NET,
	.layer = DIAG_NETWORK,
	.threshold_ns = 5000000,
	.check = drill_net_check,
	.inject = drill_net_inject,
};
