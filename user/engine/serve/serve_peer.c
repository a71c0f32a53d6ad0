// SPDX-License-Identifier: GPL-2.0
/*
 * Who a connection to gpulat serve is, for its bounds: a remote address,
 * or the local user that owns the client's socket.  A client on this
 * host is one whose socket the kernel finds in this network namespace:
 * one exact sock_diag lookup of the connection's 4-tuple, reversed.
 */
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "engine/serve/serve.h"

/*
 * serve_local_uid - the owner of the client's socket of @fd when the
 * client is on this host (its socket is in this network namespace),
 * else -1: one exact sock_diag lookup
 */
static long serve_local_uid(int fd)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req;
	struct sockaddr_storage me, peer;
	socklen_t ml = sizeof(me), pl = sizeof(peer);
	struct timeval tv = { 0, 200000 };
	struct inet_diag_msg *m;
	struct nlmsghdr *nh;
	long buf[256], uid = -1;
	ssize_t n;
	int s;

	if (getsockname(fd, (struct sockaddr *)&me, &ml) ||
	    getpeername(fd, (struct sockaddr *)&peer, &pl) ||
	    me.ss_family != peer.ss_family)
		return -1;
	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	req.r.sdiag_family = me.ss_family;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~0U;
	req.r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	/* the client's socket: its local side is our peer */
	if (me.ss_family == AF_INET) {
		struct sockaddr_in *a = (void *)&peer, *b = (void *)&me;

		req.r.id.idiag_sport = a->sin_port;
		req.r.id.idiag_dport = b->sin_port;
		memcpy(req.r.id.idiag_src, &a->sin_addr, 4);
		memcpy(req.r.id.idiag_dst, &b->sin_addr, 4);
	} else if (me.ss_family == AF_INET6) {
		struct sockaddr_in6 *a = (void *)&peer, *b = (void *)&me;

		req.r.id.idiag_sport = a->sin6_port;
		req.r.id.idiag_dport = b->sin6_port;
		memcpy(req.r.id.idiag_src, &a->sin6_addr, 16);
		memcpy(req.r.id.idiag_dst, &b->sin6_addr, 16);
	} else {
		return -1;
	}
	s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (s < 0)
		return -1;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(s, &req, sizeof(req), 0) == (ssize_t)sizeof(req)) {
		n = recv(s, buf, sizeof(buf), 0);
		nh = (struct nlmsghdr *)buf;
		if (n > 0 && NLMSG_OK(nh, (size_t)n) &&
		    nh->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
		    nh->nlmsg_len >= NLMSG_LENGTH(sizeof(*m))) {
			m = NLMSG_DATA(nh);
			uid = m->idiag_uid;
		}
	}
	close(s);
	return uid;
}

/* serve_peer - see serve.h */
void serve_peer(int fd, char *buf, size_t len)
{
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);
	char a[INET6_ADDRSTRLEN] = "?";
	long uid = serve_local_uid(fd);

	if (uid >= 0) {
		snprintf(buf, len, "uid %ld", uid);
		return;
	}
	if (!getpeername(fd, (struct sockaddr *)&peer, &pl)) {
		if (peer.ss_family == AF_INET)
			inet_ntop(AF_INET,
				  &((struct sockaddr_in *)&peer)->sin_addr, a,
				  sizeof(a));
		else if (peer.ss_family == AF_INET6)
			inet_ntop(AF_INET6,
				  &((struct sockaddr_in6 *)&peer)->sin6_addr, a,
				  sizeof(a));
	}
	snprintf(buf, len, "%s", a);
}
