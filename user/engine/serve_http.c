// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat serve over HTTP, through libmicrohttpd: no HTTP parsing of our
 * own.  One thread polls every connection (epoll), so a slow client
 * delays nobody; connections, their time and their memory are bounded
 * (serve.h).  A scrape is answered from the page the loop last rendered,
 * shared by every connection (MHD counts its users): its cost does not
 * grow with scrapes, and no scrape takes a snapshot.
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "serve.h"

#ifdef GPULAT_HTTP
#include <microhttpd.h>

#define SERVE_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

struct serve_http {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	struct MHD_Response *metrics;	/* NULL until the first page */
	struct MHD_Response *index, *missing, *method, *early;
};

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
	if (h->metrics)
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
	struct serve_http *h;
	unsigned int flags;
	socklen_t len;

	if (serve_addr(addr, &ss, &len)) {
		fprintf(stderr, "gpulat: bad --listen '%s': ADDRESS:PORT, [IPV6]:PORT or :PORT, numeric\n",
			addr);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	pthread_mutex_init(&h->lock, NULL);
	h->index = serve_static("gpulat exporter: the series are at /metrics\n");
	h->missing = serve_static("not found: the series are at /metrics\n");
	h->method = serve_static("only GET and HEAD\n");
	h->early = serve_static("no snapshot yet: try again in a second\n");
	if (!h->index || !h->missing || !h->method || !h->early)
		goto fail;
	MHD_add_response_header(h->method, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, serve_request, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT,
				(unsigned int)SERVE_HTTP_CONNS,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				(unsigned int)SERVE_HTTP_PER_IP,
				MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned int)SERVE_HTTP_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				(size_t)SERVE_HTTP_MEMORY,
				MHD_OPTION_END);
	if (!h->d) {
		fprintf(stderr, "gpulat: cannot listen on %s: %s\n", addr,
			errno ? strerror(errno) : "address in use or not here");
		goto fail;
	}
	(void)len;
	return h;
fail:
	serve_http_stop(h);
	return NULL;
}

int serve_http_publish(struct serve_http *h, char *buf, size_t len)
{
	struct MHD_Response *r, *old;

	r = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(buf);
		return -ENOMEM;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				SERVE_CONTENT_TYPE);
	pthread_mutex_lock(&h->lock);
	old = h->metrics;
	h->metrics = r;
	pthread_mutex_unlock(&h->lock);
	/* a scrape still sending the old page keeps it until done */
	if (old)
		MHD_destroy_response(old);
	return 0;
}

void serve_http_stop(struct serve_http *h)
{
	struct MHD_Response **r[] = { &h->metrics, &h->index, &h->missing,
				      &h->method, &h->early };
	size_t i;

	if (!h)
		return;
	if (h->d)
		MHD_stop_daemon(h->d);
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (*r[i])
			MHD_destroy_response(*r[i]);
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

bool serve_http_available(void)
{
	return false;
}
#endif
