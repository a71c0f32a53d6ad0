// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat serve over HTTP, through libmicrohttpd: no HTTP parsing of our
 * own.  One thread polls every connection (epoll), so a slow client
 * delays nobody; connections, their time and their memory are bounded
 * (serve.h).  A scrape is answered from the page the loop last rendered,
 * shared by every connection (MHD counts its users): its cost does not
 * grow with scrapes, and no scrape takes a snapshot.
 *
 * MHD's own timeout counts from a connection's last activity: a client
 * that sends a header byte every few seconds (slowloris) would keep its
 * connection for good, and SERVE_HTTP_CONNS / SERVE_HTTP_PER_IP addresses
 * all of them.  So each request has a deadline too, SERVE_HTTP_TIMEOUT_S
 * from the connection's start or from the end of its previous request:
 * a thread of ours shuts down the socket of one that is not answered by
 * then, and MHD closes it.
 *
 * The bound per peer is ours, not MHD's: MHD's is per address, and a
 * local user has a whole /8 of loopback addresses.  A connection from
 * this host is told by asking the kernel for the client's socket
 * (sock_diag, one exact lookup): found, its peer is the socket's owner.
 * A connection over a bound is shut down as it starts, and counted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "engine/serve/prom.h"
#include "engine/serve/serve.h"

#ifdef GPULAT_HTTP
#include <microhttpd.h>

#define SERVE_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

/* A connection open now, for the deadline (its MHD socket context). */
struct serve_conn {
	struct serve_conn *prev, *next;
	int fd;
	uint64_t deadline_ns;		/* CLOCK_MONOTONIC */
	bool cut;			/* shut down: MHD is closing it */
	bool counted;			/* holds a slot of its peer */
	char peer[64];			/* "uid N" or the remote address */
};

struct serve_http {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	struct MHD_Response *metrics;	/* NULL until the first page */
	struct MHD_Response *index, *missing, *method, *early;
	/* the connections and the thread that holds them to the deadline */
	pthread_mutex_t conn_lock;
	pthread_cond_t wake;
	struct serve_conn *conns;
	size_t nr_conns;		/* holding a slot */
	pthread_t reaper;
	bool reaper_on, stopping;
	uint64_t refused[PROM_NR_REFUSES];	/* under conn_lock */
	/* the page gzipped, made at the first scrape that asks for it */
	struct MHD_Response *metrics_gz;
	const char *page;
	size_t page_len;
	bool gz_tried;
	int listen_family;
	char host[INET6_ADDRSTRLEN];
};

static uint64_t serve_http_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#define SERVE_HTTP_TIMEOUT_NS	((uint64_t)SERVE_HTTP_TIMEOUT_S * 1000000000ULL)

/*
 * serve_admit - whether @e may hold a slot (under conn_lock): its peer
 * under SERVE_HTTP_PER_IP, every peer under SERVE_HTTP_CONNS; counted
 * when not
 */
static bool serve_admit(struct serve_http *h, struct serve_conn *e)
{
	struct serve_conn *o;
	size_t same = 0;

	for (o = h->conns; o; o = o->next)
		if (o->counted && !strcmp(o->peer, e->peer))
			same++;
	if (same >= SERVE_HTTP_PER_IP) {
		h->refused[PROM_REFUSE_PER_IP]++;
		return false;
	}
	if (h->nr_conns >= SERVE_HTTP_CONNS) {
		h->refused[PROM_REFUSE_FULL]++;
		return false;
	}
	return true;
}

/* serve_on_connection - MHD's: a connection starts or is closed */
static void serve_on_connection(void *cls, struct MHD_Connection *c,
				void **socket_context,
				enum MHD_ConnectionNotificationCode toe)
{
	struct serve_http *h = cls;
	const union MHD_ConnectionInfo *ci;
	struct serve_conn *e;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(c,
					     MHD_CONNECTION_INFO_CONNECTION_FD);
		e = ci ? calloc(1, sizeof(*e)) : NULL;
		if (!e)
			return;	/* MHD's idle timeout alone bounds it */
		e->fd = ci->connect_fd;
		e->deadline_ns = serve_http_now_ns() + SERVE_HTTP_TIMEOUT_NS;
		serve_peer(e->fd, e->peer, sizeof(e->peer));
		pthread_mutex_lock(&h->conn_lock);
		if (serve_admit(h, e)) {
			e->counted = true;
			h->nr_conns++;
		} else {
			/* over its bound: MHD sees it end, and closes it */
			shutdown(e->fd, SHUT_RDWR);
			e->cut = true;
		}
		e->next = h->conns;
		if (h->conns)
			h->conns->prev = e;
		h->conns = e;
		pthread_mutex_unlock(&h->conn_lock);
		*socket_context = e;
		return;
	}
	/* closed: MHD closes the socket after this, never before */
	e = *socket_context;
	if (!e)
		return;
	pthread_mutex_lock(&h->conn_lock);
	if (e->prev)
		e->prev->next = e->next;
	else
		h->conns = e->next;
	if (e->next)
		e->next->prev = e->prev;
	if (e->counted)
		h->nr_conns--;
	pthread_mutex_unlock(&h->conn_lock);
	free(e);
	*socket_context = NULL;
}

/* serve_on_completed - MHD's: a request is over; the next one's deadline */
static void serve_on_completed(void *cls, struct MHD_Connection *c,
			       void **con_cls,
			       enum MHD_RequestTerminationCode toe)
{
	struct serve_http *h = cls;
	const union MHD_ConnectionInfo *ci;
	struct serve_conn *e;

	(void)con_cls;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	e = ci ? ci->socket_context : NULL;
	if (!e)
		return;
	pthread_mutex_lock(&h->conn_lock);
	/* cut by the deadline: counted there */
	if (!e->cut && (toe == MHD_REQUEST_TERMINATED_WITH_ERROR ||
			toe == MHD_REQUEST_TERMINATED_READ_ERROR))
		h->refused[PROM_REFUSE_ERROR]++;
	if (!e->cut)
		e->deadline_ns = serve_http_now_ns() + SERVE_HTTP_TIMEOUT_NS;
	pthread_mutex_unlock(&h->conn_lock);
}

/*
 * serve_reaper - shut down the socket of every connection past its
 * deadline (MHD sees it end and closes it); wakes at the next deadline,
 * or in a second (a new connection's is SERVE_HTTP_TIMEOUT_S away)
 */
static void *serve_reaper(void *arg)
{
	struct serve_http *h = arg;
	struct serve_conn *e;
	struct timespec ts;
	uint64_t now, wake;

	pthread_mutex_lock(&h->conn_lock);
	while (!h->stopping) {
		now = serve_http_now_ns();
		wake = now + 1000000000ULL;
		for (e = h->conns; e; e = e->next) {
			if (e->cut)
				continue;
			if (now >= e->deadline_ns) {
				shutdown(e->fd, SHUT_RDWR);
				e->cut = true;
				h->refused[PROM_REFUSE_TIMEOUT]++;
			} else if (e->deadline_ns < wake) {
				wake = e->deadline_ns;
			}
		}
		ts.tv_sec = wake / 1000000000ULL;
		ts.tv_nsec = wake % 1000000000ULL;
		pthread_cond_timedwait(&h->wake, &h->conn_lock, &ts);
	}
	pthread_mutex_unlock(&h->conn_lock);
	return NULL;
}

/*
 * serve_log - MHD's messages: past even MHD's own connection bound
 * (SERVE_HTTP_CONNS + 16 sockets, ours shut down but not yet closed) a
 * connection is closed unanswered by MHD, and counted here; the rest say
 * what a client did wrong, not news for the daemon's log
 */
static void serve_log(void *cls, const char *fmt, va_list ap)
{
	struct serve_http *h = cls;

	(void)ap;
	if (!strstr(fmt, "limit"))
		return;
	pthread_mutex_lock(&h->conn_lock);
	h->refused[PROM_REFUSE_FULL]++;
	pthread_mutex_unlock(&h->conn_lock);
}

static struct MHD_Response *serve_static(const char *text)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text,
					    MHD_RESPMEM_PERSISTENT);
	if (r)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					"text/plain; charset=utf-8");
	return r;
}

/* serve_wants_gzip - whether the request accepts gzip (q=0 refuses it) */
static bool serve_wants_gzip(struct MHD_Connection *c)
{
	const char *ae = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_ACCEPT_ENCODING);
	const char *p;

	if (!ae)
		return false;
	for (p = strcasestr(ae, "gzip"); p; p = strcasestr(p + 4, "gzip")) {
		p += 4;
		while (*p == ' ')
			p++;
		if (*p != ';')
			return true;
		p = strcasestr(p, "q=");
		if (!p || strtod(p + 2, NULL) > 0)
			return true;
	}
	return false;
}

/*
 * serve_gzip - the page gzipped, made once per page under h->lock (level
 * 6, as gzip's default); false when it cannot be (plain then)
 */
static bool serve_gzip(struct serve_http *h)
{
	z_stream z = { 0 };
	struct MHD_Response *r;
	unsigned char *out;
	size_t cap;

	if (h->metrics_gz)
		return true;
	if (h->gz_tried)
		return false;
	h->gz_tried = true;
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return false;
	cap = deflateBound(&z, h->page_len) + 32;
	out = malloc(cap);
	if (!out) {
		deflateEnd(&z);
		return false;
	}
	z.next_in = (unsigned char *)h->page;
	z.avail_in = h->page_len;
	z.next_out = out;
	z.avail_out = cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(out);
		return false;
	}
	r = MHD_create_response_from_buffer(z.total_out, out,
					    MHD_RESPMEM_MUST_FREE);
	deflateEnd(&z);
	if (!r) {
		free(out);
		return false;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				SERVE_CONTENT_TYPE);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	h->metrics_gz = r;
	return true;
}

static enum MHD_Result serve_request(void *cls, struct MHD_Connection *c,
				     const char *url, const char *method,
				     const char *version,
				     const char *upload_data,
				     size_t *upload_data_size, void **con_cls)
{
	struct serve_http *h = cls;
	enum MHD_Result ret;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED,
					  h->method);
	if (!strcmp(url, "/"))
		return MHD_queue_response(c, MHD_HTTP_OK, h->index);
	if (strcmp(url, "/metrics"))
		return MHD_queue_response(c, MHD_HTTP_NOT_FOUND, h->missing);
	pthread_mutex_lock(&h->lock);
	if (h->metrics && serve_wants_gzip(c) && serve_gzip(h))
		ret = MHD_queue_response(c, MHD_HTTP_OK, h->metrics_gz);
	else if (h->metrics)
		ret = MHD_queue_response(c, MHD_HTTP_OK, h->metrics);
	else
		ret = MHD_queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE,
					 h->early);
	pthread_mutex_unlock(&h->lock);
	return ret;
}

/* serve_addr - parse "HOST:PORT", "[V6]:PORT" or ":PORT" */
static int serve_addr(const char *s, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST |
					      AI_NUMERICSERV | AI_PASSIVE };
	char host[128];
	const char *colon, *h0 = s, *h1;
	struct addrinfo *ai;
	int ret;

	if (s[0] == '[') {
		h0 = s + 1;
		h1 = strchr(s, ']');
		if (!h1 || h1[1] != ':')
			return -EINVAL;
		colon = h1 + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -EINVAL;
		h1 = colon;
	}
	if ((size_t)(h1 - h0) >= sizeof(host) || !colon[1])
		return -EINVAL;
	/* getaddrinfo takes 99999 and listens on 99999 mod 65536 */
	if (strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    strlen(colon + 1) > 5 || atoi(colon + 1) < 1 ||
	    atoi(colon + 1) > 65535)
		return -ERANGE;
	memcpy(host, h0, h1 - h0);
	host[h1 - h0] = '\0';
	ret = getaddrinfo(host[0] ? host : NULL, colon + 1, &hints, &ai);
	if (ret)
		return -EINVAL;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

struct serve_http *serve_http_start(const char *addr)
{
	struct sockaddr_storage ss;
	pthread_condattr_t ca;
	struct serve_http *h;
	unsigned int flags;
	socklen_t len;
	int ret;

	ret = serve_addr(addr, &ss, &len);
	if (ret) {
		fprintf(stderr, "gpulat: bad --listen '%s': %s\n", addr,
			ret == -ERANGE ? "the port is a number from 1 to 65535" :
			"ADDRESS:PORT, [IPV6]:PORT or :PORT, numeric");
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->listen_family = ss.ss_family;
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr,
			  h->host, sizeof(h->host));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr,
			  h->host, sizeof(h->host));
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->conn_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->wake, &ca);
	pthread_condattr_destroy(&ca);
	h->index = serve_static("gpulat exporter: the series are at /metrics\n");
	h->missing = serve_static("not found: the series are at /metrics\n");
	h->method = serve_static("only GET and HEAD\n");
	h->early = serve_static("no snapshot yet: try again in a second\n");
	if (!h->index || !h->missing || !h->method || !h->early)
		goto fail;
	MHD_add_response_header(h->method, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
		MHD_USE_ERROR_LOG;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, serve_request, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				/* ours are counted: MHD's only past them */
				MHD_OPTION_CONNECTION_LIMIT,
				(unsigned int)SERVE_HTTP_CONNS + 16,
				MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned int)SERVE_HTTP_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				(size_t)SERVE_HTTP_MEMORY,
				MHD_OPTION_NOTIFY_CONNECTION,
				serve_on_connection, h,
				MHD_OPTION_NOTIFY_COMPLETED,
				serve_on_completed, h,
				MHD_OPTION_EXTERNAL_LOGGER, serve_log, h,
				MHD_OPTION_END);
	if (!h->d) {
		fprintf(stderr, "gpulat: cannot listen on %s: %s\n", addr,
			errno ? strerror(errno) : "address in use or not here");
		goto fail;
	}
	errno = pthread_create(&h->reaper, NULL, serve_reaper, h);
	if (errno) {
		fprintf(stderr, "gpulat: cannot start the HTTP deadline thread: %s\n",
			strerror(errno));
		goto fail;
	}
	h->reaper_on = true;
	(void)len;
	return h;
fail:
	serve_http_stop(h);
	return NULL;
}

int serve_http_publish(struct serve_http *h, char *buf, size_t len)
{
	struct MHD_Response *r, *old, *old_gz;

	r = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(buf);
		return -ENOMEM;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				SERVE_CONTENT_TYPE);
	pthread_mutex_lock(&h->lock);
	old = h->metrics;
	old_gz = h->metrics_gz;
	h->metrics = r;
	h->metrics_gz = NULL;
	h->gz_tried = false;
	h->page = buf;		/* MHD frees it with r, not before */
	h->page_len = len;
	pthread_mutex_unlock(&h->lock);
	/* a scrape still sending the old page keeps it until done */
	if (old)
		MHD_destroy_response(old);
	if (old_gz)
		MHD_destroy_response(old_gz);
	return 0;
}

void serve_http_counts(struct serve_http *h, uint64_t *refused)
{
	pthread_mutex_lock(&h->conn_lock);
	memcpy(refused, h->refused, sizeof(h->refused));
	pthread_mutex_unlock(&h->conn_lock);
}

const char *serve_http_where(struct serve_http *h, char *buf, size_t len)
{
	const union MHD_DaemonInfo *di;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	unsigned int port = 0;

	di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_LISTEN_FD);
	if (di && !getsockname(di->listen_fd, (struct sockaddr *)&ss, &sl))
		port = ntohs(ss.ss_family == AF_INET ?
			     ((struct sockaddr_in *)&ss)->sin_port :
			     ((struct sockaddr_in6 *)&ss)->sin6_port);
	snprintf(buf, len, h->listen_family == AF_INET6 ? "[%s]:%u" :
		 "%s:%u", h->host, port);
	return buf;
}

void serve_http_stop(struct serve_http *h)
{
	struct MHD_Response **r[6];
	size_t i;

	if (!h)
		return;
	r[0] = &h->metrics;
	r[1] = &h->metrics_gz;
	r[2] = &h->index;
	r[3] = &h->missing;
	r[4] = &h->method;
	r[5] = &h->early;
	if (h->reaper_on) {
		pthread_mutex_lock(&h->conn_lock);
		h->stopping = true;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->conn_lock);
		pthread_join(h->reaper, NULL);
	}
	/* closes every connection: each is taken off the list */
	if (h->d)
		MHD_stop_daemon(h->d);
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (*r[i])
			MHD_destroy_response(*r[i]);
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->conn_lock);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

bool serve_http_available(void)
{
	return true;
}

#else /* !GPULAT_HTTP: the static guest tool, built without libmicrohttpd */

struct serve_http *serve_http_start(const char *addr)
{
	fprintf(stderr, "gpulat: cannot listen on %s: this gpulat is built without HTTP (libmicrohttpd); use --textfile, or the dynamic build\n",
		addr);
	return NULL;
}

int serve_http_publish(struct serve_http *h, char *buf, size_t len)
{
	(void)h;
	(void)len;
	free(buf);
	return -EOPNOTSUPP;
}

void serve_http_stop(struct serve_http *h)
{
	(void)h;
}

void serve_http_counts(struct serve_http *h, uint64_t *refused)
{
	(void)h;
	(void)refused;
}

const char *serve_http_where(struct serve_http *h, char *buf, size_t len)
{
	(void)h;
	snprintf(buf, len, "?");
	return buf;
}

bool serve_http_available(void)
{
	return false;
}
#endif
