// SPDX-License-Identifier: GPL-2.0
/*
 * net family against a workload with a known answer, in the VM.
 *
 * A veth pair joins two network namespaces: NET_DEV_A in NET_NS_A, with a
 * netem qdisc that delays every packet by a fixed time, and NET_DEV_B in
 * NET_NS_B, without a qdisc (veth's default is noqueue).  IPv6 is off and
 * the neighbours are static, so the only packets are the test's own: one
 * UDP datagram each way per period.  So, per phase:
 *
 *   net.tx of A        NET_PACKETS samples, none below the netem delay,
 *                      the median inside the datagrams' one-way latency
 *   net.tx of B        NET_PACKETS samples, median far below the delay
 *   net.backlog of A   NET_PACKETS (veth hands each packet to its peer
 *   net.backlog of B   NET_PACKETS  through netif_rx)
 *   drop counters      unchanged
 *
 * Under emulation (QEMU TCG) timers fire up to milliseconds late, and
 * netem's release of a packet is a timer: measured with a 1 ms delay, A's
 * median was 1.2-4.7 ms (with the host's load) and its p10 1.1-1.3 ms.
 * So the upper bounds are the one-way latency the receivers measure in
 * the same run, and a p10 within 1.6 times the delay.
 *
 * The phase runs with a 1 ms delay, then with 5 ms, to show that the tx
 * series follows the qdisc.  ip and tc must be iproute2's (busybox's lack
 * netns and netem); they are looked for in the usual folders.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "gpulat_hist.h"
#include "lib/gpulat_user.h"
#include "shell.h"
#include "vmtest.h"

NEEDS_FAMILY(GPULAT_FAM_NET);

#define NET_NS_A	"gpulat-net-a"
#define NET_NS_B	"gpulat-net-b"
#define NET_DEV_A	"glnet-a"
#define NET_DEV_B	"glnet-b"
#define NET_MAC_A	"02:00:00:00:6e:0a"
#define NET_MAC_B	"02:00:00:00:6e:0b"
#define NET_ADDR_A	"10.231.0.1"
#define NET_ADDR_B	"10.231.0.2"
#define NET_PORT	7777
#define NET_PACKETS	300
#define NET_PERIOD_US	2000
/* other packets the phase may see on these devices (none expected) */
#define NET_SLACK	5

#define NET_MS		1000000ULL

struct net_phase {
	struct gl_hist tx_a, tx_b, backlog_a, backlog_b;
	uint64_t oneway[2];		/* median A -> B, B -> A */
	uint64_t drops[GPULAT_NET_KEYS_FULL + 1];
};

static const char * const net_drop_names[] = {
	"no_start", "full", "expired", "negative", "keys_full",
};

/* net_find_tool - iproute2's @name (busybox has applets of the same name) */
static int net_find_tool(const char *name, char *out, size_t len)
{
	static const char * const dirs[] = {
		"/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin",
	};
	char cmd[160];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(out, len, "%s/%s", dirs[i], name);
		if (access(out, X_OK))
			continue;
		snprintf(cmd, sizeof(cmd), "%s -V 2>&1 | grep -q iproute2", out);
		if (!system(cmd))
			return 0;
	}
	return -ENOENT;
}

/* net_ns_open - a descriptor of the namespace `ip netns add` made */
static int net_ns_open(const char *ns)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	return fd;
}

/* net_ns_enter - move this process into @ns; 0 or -errno */
static int net_ns_enter(const char *ns)
{
	int fd = net_ns_open(ns), ret = 0;

	if (fd < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET))
		ret = -errno;
	close(fd);
	return ret;
}

static int net_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		ret = -EIO;
	close(fd);
	return ret;
}

/*
 * net_ns_prepare - in a child: IPv6 off for devices that enter @ns (no
 * router or neighbour solicitations), so only the test's packets flow
 */
static int net_ns_prepare(const char *ns)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		if (net_ns_enter(ns) ||
		    net_write_file("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1"))
			_exit(1);
		/* a kernel without IPv6 has nothing to switch off */
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * net_ns_key - the series key of device @dev in namespace @ns: its
 * ifindex, with the namespace's inode number in bits 32-63
 */
static int net_ns_key(const char *ns, const char *dev, uint64_t *key)
{
	int fd = net_ns_open(ns), self, ret = 0;
	unsigned int ifindex;
	struct stat st;

	if (fd < 0)
		return -errno;
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0 || fstat(fd, &st) || setns(fd, CLONE_NEWNET)) {
		ret = -errno;
		goto out;
	}
	ifindex = if_nametoindex(dev);
	if (setns(self, CLONE_NEWNET) || !ifindex)
		ret = -ENODEV;
	*key = (uint64_t)st.st_ino << 32 | ifindex;
out:
	if (self >= 0)
		close(self);
	close(fd);
	return ret;
}

static int net_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t net_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/*
 * net_receiver - in a child: the one-way latency of each datagram from the
 * peer (its send time travels in the payload), until @n arrived or none
 * for a second; writes the median to @res.  Every net.tx sample of the
 * peer's device lies inside one of these intervals.
 */
static void net_receiver(int s, int n, int res)
{
	struct timeval tmo = { .tv_sec = 1 };
	uint64_t *lat = calloc(n, sizeof(*lat)), sent, p50 = 0;
	int got = 0;

	if (!lat || setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)))
		_exit(20);
	while (got < n) {
		if (recv(s, &sent, sizeof(sent), 0) != sizeof(sent))
			break;
		lat[got++] = net_now_ns() - sent;
	}
	if (got) {
		qsort(lat, got, sizeof(*lat), net_cmp_u64);
		p50 = lat[(got - 1) / 2];
	}
	if (write(res, &p50, sizeof(p50)) != sizeof(p50))
		_exit(21);
	_exit(got == n ? 0 : 22);
}

/*
 * net_sender - in a child: from @from in @ns, @n datagrams to @to, one per
 * NET_PERIOD_US, after the parent says go (both sockets bound by then, so
 * no datagram meets a closed port and draws an ICMP error); a second child
 * receives the peer's datagrams on the same socket
 */
static void net_sender(const char *ns, const char *from, const char *to,
		       int n, int ready, int go, int res)
{
	struct sockaddr_in src = { .sin_family = AF_INET,
				   .sin_port = htons(NET_PORT) };
	struct sockaddr_in dst = src;
	uint64_t payload[8] = { 0 };
	struct timespec t;
	int s, i, status;
	pid_t rx;
	char c;

	if (net_ns_enter(ns))
		_exit(10);
	inet_pton(AF_INET, from, &src.sin_addr);
	inet_pton(AF_INET, to, &dst.sin_addr);
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&src, sizeof(src)))
		_exit(11);
	rx = fork();
	if (!rx)
		net_receiver(s, n, res);
	if (rx < 0 || write(ready, "r", 1) != 1 || read(go, &c, 1) < 0)
		_exit(12);
	clock_gettime(CLOCK_MONOTONIC, &t);
	for (i = 0; i < n; i++) {
		payload[0] = net_now_ns();
		if (sendto(s, payload, sizeof(payload), 0,
			   (struct sockaddr *)&dst, sizeof(dst)) != sizeof(payload))
			_exit(13);
		t.tv_nsec += NET_PERIOD_US * 1000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_nsec -= 1000000000L;
			t.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
	}
	/* the socket stays open until the peer's last datagram is in */
	if (waitpid(rx, &status, 0) != rx || !WIFEXITED(status))
		_exit(14);
	_exit(WEXITSTATUS(status));
}

/*
 * net_traffic - NET_PACKETS datagrams each way at once; 0 when all went
 * and came.  @oneway gets the median one-way latency A -> B and B -> A.
 */
static int net_traffic(uint64_t oneway[2])
{
	int ready[2], go[2], res[2][2], status, ret = 0, i;
	pid_t pid[2];
	char c;

	if (pipe(ready) || pipe(go) || pipe(res[0]) || pipe(res[1]))
		return -errno;
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i])
			continue;
		close(ready[0]);
		close(go[1]);
		/* A's receiver times B -> A, and B's times A -> B */
		if (!i)
			net_sender(NET_NS_A, NET_ADDR_A, NET_ADDR_B,
				   NET_PACKETS, ready[1], go[0], res[1][1]);
		net_sender(NET_NS_B, NET_ADDR_B, NET_ADDR_A, NET_PACKETS,
			   ready[1], go[0], res[0][1]);
	}
	close(ready[1]);
	close(go[0]);
	for (i = 0; i < 2; i++)
		if (read(ready[0], &c, 1) != 1)
			ret = -EIO;
	close(go[1]);		/* go: the senders read EOF */
	close(ready[0]);
	for (i = 0; i < 2; i++) {
		if (pid[i] < 0 || waitpid(pid[i], &status, 0) != pid[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "# sender %d failed (status %d)\n", i,
				pid[i] < 0 ? -1 : status);
			ret = -EIO;
		}
	}
	for (i = 0; i < 2; i++) {
		close(res[i][1]);
		if (read(res[i][0], &oneway[i], sizeof(oneway[i])) !=
		    sizeof(oneway[i]))
			ret = -EIO;
		close(res[i][0]);
	}
	return ret;
}

FIXTURE(veth) {
	int fd;
	char ip[64], tc[64];
	uint64_t key_a, key_b;
};

FIXTURE_SETUP(veth)
{
	struct gpulat_family_req req = {
		.size = sizeof(req), .family = GPULAT_FAM_NET, .enable = 1,
	};
	char err[256];

	self->fd = -1;
	if (net_find_tool("ip", self->ip, sizeof(self->ip)) ||
	    net_find_tool("tc", self->tc, sizeof(self->tc)))
		SKIP(return, "needs iproute2's ip and tc");
	if (system("modprobe veth 2>/dev/null; modprobe sch_netem 2>/dev/null"))
		TH_LOG("modprobe returned an error; trying anyway");
	self->fd = gl_open(err, sizeof(err));
	ASSERT_LE(0, self->fd) TH_LOG("%s", err);
	/* the family is on by default; switch it on should a load say 0 */
	ASSERT_EQ(0, ioctl(self->fd, GPULAT_IOC_FAMILY, &req))
		TH_LOG("net family: %s", strerror(errno));

	/* leftovers of an interrupted run */
	sh_loud("%s netns del " NET_NS_A " 2>/dev/null; %s netns del " NET_NS_B
	       " 2>/dev/null; true", self->ip, self->ip);
	ASSERT_EQ(0, sh_loud("%s netns add " NET_NS_A, self->ip));
	ASSERT_EQ(0, sh_loud("%s netns add " NET_NS_B, self->ip));
	ASSERT_EQ(0, net_ns_prepare(NET_NS_A));
	ASSERT_EQ(0, net_ns_prepare(NET_NS_B));
	ASSERT_EQ(0, sh_loud("%s link add " NET_DEV_A " address " NET_MAC_A
			    " type veth peer name " NET_DEV_B " address "
			    NET_MAC_B, self->ip));
	ASSERT_EQ(0, sh_loud("%s link set " NET_DEV_A " netns " NET_NS_A,
			    self->ip));
	ASSERT_EQ(0, sh_loud("%s link set " NET_DEV_B " netns " NET_NS_B,
			    self->ip));
	ASSERT_EQ(0, sh_loud("%s -n " NET_NS_A " addr add " NET_ADDR_A
			    "/24 dev " NET_DEV_A, self->ip));
	ASSERT_EQ(0, sh_loud("%s -n " NET_NS_B " addr add " NET_ADDR_B
			    "/24 dev " NET_DEV_B, self->ip));
	ASSERT_EQ(0, sh_loud("%s -n " NET_NS_A " neigh add " NET_ADDR_B
			    " lladdr " NET_MAC_B " dev " NET_DEV_A
			    " nud permanent", self->ip));
	ASSERT_EQ(0, sh_loud("%s -n " NET_NS_B " neigh add " NET_ADDR_A
			    " lladdr " NET_MAC_A " dev " NET_DEV_B
			    " nud permanent", self->ip));
	ASSERT_EQ(0, sh_loud("%s -n " NET_NS_A " qdisc add dev " NET_DEV_A
			    " root netem delay 1ms", self->tc));
	ASSERT_EQ(0, sh_loud("%s -n " NET_NS_A " link set " NET_DEV_A " up",
			    self->ip));
	ASSERT_EQ(0, sh_loud("%s -n " NET_NS_B " link set " NET_DEV_B " up",
			    self->ip));
	ASSERT_EQ(0, net_ns_key(NET_NS_A, NET_DEV_A, &self->key_a));
	ASSERT_EQ(0, net_ns_key(NET_NS_B, NET_DEV_B, &self->key_b));
	usleep(200000);		/* carrier up on both ends */
}

FIXTURE_TEARDOWN(veth)
{
	if (self->ip[0]) {
		sh_loud("%s netns del " NET_NS_A " 2>/dev/null; true", self->ip);
		sh_loud("%s netns del " NET_NS_B " 2>/dev/null; true", self->ip);
	}
	if (self->fd >= 0)
		close(self->fd);
}

/* net_phase_run - the traffic, and what the two devices' series saw */
static int net_phase_run(int fd, uint64_t key_a, uint64_t key_b,
			 struct net_phase *out)
{
	struct gl_snapshot *a = NULL, *b = NULL, *d = NULL;
	unsigned int i;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = gl_snapshot_take(fd, &a);
	if (!ret)
		ret = net_traffic(out->oneway);
	if (!ret)
		ret = gl_snapshot_take(fd, &b);
	if (!ret)
		ret = gl_snapshot_diff(a, b, &d);
	if (ret)
		goto out;
	gl_hist_merge_key(d, GPULAT_FAM_NET, GPULAT_NET_TX, key_a,
			  GPULAT_CPU_NONE, &out->tx_a);
	gl_hist_merge_key(d, GPULAT_FAM_NET, GPULAT_NET_TX, key_b,
			  GPULAT_CPU_NONE, &out->tx_b);
	gl_hist_merge_key(d, GPULAT_FAM_NET, GPULAT_NET_BACKLOG, key_a,
			  GPULAT_CPU_NONE, &out->backlog_a);
	gl_hist_merge_key(d, GPULAT_FAM_NET, GPULAT_NET_BACKLOG, key_b,
			  GPULAT_CPU_NONE, &out->backlog_b);
	for (i = 0; i <= GPULAT_NET_KEYS_FULL && !ret; i++)
		ret = gl_counter(d, GPULAT_FAM_NET, i, &out->drops[i]);
out:
	gl_snapshot_free(a);
	gl_snapshot_free(b);
	gl_snapshot_free(d);
	return ret;
}

static void net_phase_log(struct __test_metadata *_metadata,
			  const char *what, const struct net_phase *p)
{
	TH_LOG("%s: one-way p50 A->B %llu ns, B->A %llu ns",
	       what, (unsigned long long)p->oneway[0],
	       (unsigned long long)p->oneway[1]);
	TH_LOG("%s: tx A p1 %llu p10 %llu p50 %llu p90 %llu ns",
	       what, (unsigned long long)gl_hist_quantile(&p->tx_a, 10000),
	       (unsigned long long)gl_hist_quantile(&p->tx_a, 100000),
	       (unsigned long long)gl_hist_quantile(&p->tx_a, 500000),
	       (unsigned long long)gl_hist_quantile(&p->tx_a, 900000));
	TH_LOG("%s: p50 (samples): tx A %llu ns (%llu), tx B %llu ns (%llu)",
	       what,
	       (unsigned long long)gl_hist_quantile(&p->tx_a, 500000),
	       (unsigned long long)p->tx_a.count,
	       (unsigned long long)gl_hist_quantile(&p->tx_b, 500000),
	       (unsigned long long)p->tx_b.count);
	TH_LOG("%s: p50 (samples): backlog A %llu ns (%llu), backlog B %llu ns (%llu)",
	       what,
	       (unsigned long long)gl_hist_quantile(&p->backlog_a, 500000),
	       (unsigned long long)p->backlog_a.count,
	       (unsigned long long)gl_hist_quantile(&p->backlog_b, 500000),
	       (unsigned long long)p->backlog_b.count);
	TH_LOG("%s: drops: no_start %llu full %llu expired %llu negative %llu keys_full %llu",
	       what, (unsigned long long)p->drops[0],
	       (unsigned long long)p->drops[1], (unsigned long long)p->drops[2],
	       (unsigned long long)p->drops[3], (unsigned long long)p->drops[4]);
}

/*
 * net_phase_check - the known answer for a netem delay of @delay_ns
 *
 * Every datagram is held @delay_ns by netem, so A's p1 lies in the
 * delay's bucket or above.  Under emulation a timer fires late by up to
 * milliseconds, so A's median is bounded by what the datagrams took end to
 * end: each net.tx interval lies inside its datagram's one-way latency,
 * so the median does too (plus one bucket width, 1/8, for the
 * interpolation).  Still, a tenth of the datagrams must leave within 1.6
 * times the delay.  B has no qdisc: its median stays far below the delay.
 */
static void net_phase_check(struct __test_metadata *_metadata,
			    const struct net_phase *p, uint64_t delay_ns)
{
	uint64_t floor = gpulat_hist_lower(gpulat_hist_slot(delay_ns));
	uint64_t p50_a = gl_hist_quantile(&p->tx_a, 500000);
	uint64_t p50_b = gl_hist_quantile(&p->tx_b, 500000);
	unsigned int i;

	EXPECT_LE(NET_PACKETS, p->tx_a.count);
	EXPECT_GE(NET_PACKETS + NET_SLACK, p->tx_a.count);
	EXPECT_LE(NET_PACKETS, p->tx_b.count);
	EXPECT_GE(NET_PACKETS + NET_SLACK, p->tx_b.count);
	EXPECT_LE(NET_PACKETS, p->backlog_a.count);
	EXPECT_GE(NET_PACKETS + NET_SLACK, p->backlog_a.count);
	EXPECT_LE(NET_PACKETS, p->backlog_b.count);
	EXPECT_GE(NET_PACKETS + NET_SLACK, p->backlog_b.count);

	EXPECT_LE(floor, gl_hist_quantile(&p->tx_a, 10000));
	EXPECT_GE(delay_ns * 8 / 5, gl_hist_quantile(&p->tx_a, 100000));
	EXPECT_GE(p->oneway[0] + p->oneway[0] / 8, p50_a);
	EXPECT_LT(0, p50_b);
	EXPECT_GT(delay_ns / 4, p50_b);
	EXPECT_GE(p->oneway[1] + p->oneway[1] / 8, p50_b);
	/* the peer's backlog is drained when the softirq runs next */
	EXPECT_GT(NET_MS, gl_hist_quantile(&p->backlog_a, 500000));
	EXPECT_GT(NET_MS, gl_hist_quantile(&p->backlog_b, 500000));
	for (i = 0; i <= GPULAT_NET_KEYS_FULL; i++)
		EXPECT_EQ(0, p->drops[i]) TH_LOG("net.%s", net_drop_names[i]);
}

TEST_F(veth, tx_follows_netem_delay)
{
	struct net_phase p;

	ASSERT_EQ(0, net_phase_run(self->fd, self->key_a, self->key_b, &p));
	net_phase_log(_metadata, "netem 1ms", &p);
	net_phase_check(_metadata, &p, NET_MS);

	ASSERT_EQ(0, sh_loud("%s -n " NET_NS_A " qdisc change dev " NET_DEV_A
			    " root netem delay 5ms", self->tc));
	ASSERT_EQ(0, net_phase_run(self->fd, self->key_a, self->key_b, &p));
	net_phase_log(_metadata, "netem 5ms", &p);
	net_phase_check(_metadata, &p, 5 * NET_MS);
}

/* A device outside the initial namespace: ifindex plus namespace, named */
TEST_F(veth, key_is_namespace_and_ifindex)
{
	struct gl_snapshot *s = NULL;
	char want[2][GPULAT_NAME_LEN];
	unsigned int found = 0;
	struct net_phase p;
	size_t i;

	ASSERT_EQ(0, net_phase_run(self->fd, self->key_a, self->key_b, &p));
	snprintf(want[0], sizeof(want[0]), NET_DEV_A "/net:%u",
		 (unsigned int)(self->key_a >> 32));
	snprintf(want[1], sizeof(want[1]), NET_DEV_B "/net:%u",
		 (unsigned int)(self->key_b >> 32));
	EXPECT_NE(self->key_a >> 32, self->key_b >> 32);
	ASSERT_EQ(0, gl_snapshot_take(self->fd, &s));
	for (i = 0; i < gl_snapshot_nr_series(s); i++) {
		const struct gpulat_series *sr = gl_snapshot_series(s, i);

		if (sr->family != GPULAT_FAM_NET)
			continue;
		EXPECT_EQ(GPULAT_CPU_NONE, sr->cpu);
		if (sr->key == self->key_a) {
			EXPECT_STREQ(want[0], sr->key_name);
			found |= 1;
		} else if (sr->key == self->key_b) {
			EXPECT_STREQ(want[1], sr->key_name);
			found |= 2;
		}
	}
	EXPECT_EQ(3, found);
	gl_snapshot_free(s);
}

TEST(probes_attached)
{
	static const char * const tps[] = {
		"net_dev_queue", "net_dev_start_xmit", "net_dev_xmit",
		"netif_rx", "netif_receive_skb",
	};
	struct gl_snapshot *s = NULL;
	unsigned int found = 0;
	char err[256];
	size_t i, j;
	int fd;

	fd = gl_open(err, sizeof(err));
	ASSERT_LE(0, fd) TH_LOG("%s", err);
	ASSERT_EQ(0, gl_snapshot_take(fd, &s));
	for (i = 0; i < gl_snapshot_nr_probes(s); i++) {
		const struct gpulat_probe *pr = gl_snapshot_probe(s, i);

		if (pr->family != GPULAT_FAM_NET)
			continue;
		EXPECT_EQ(GPULAT_PROBE_ATTACHED, pr->state)
			TH_LOG("%s", pr->tracepoint);
		for (j = 0; j < ARRAY_SIZE(tps); j++)
			if (!strcmp(pr->tracepoint, tps[j]))
				found |= 1U << j;
	}
	EXPECT_EQ((1U << 5) - 1, found);
	gl_snapshot_free(s);
	close(fd);
}

VMTEST_HARNESS_MAIN
