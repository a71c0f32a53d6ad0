/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat serve, the engine: a loop that takes a snapshot every second,
 * renders it for Prometheus (prom.c), serves it over HTTP
 * (serve_http.c), writes it for node_exporter's textfile collector and
 * feeds the flight recorder (flight.c) with it and the outlier trace.
 */
#ifndef _GPULAT_USER_SERVE_H
#define _GPULAT_USER_SERVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/serve/flight.h"
#include "engine/serve/prom.h"
#include "lib/gpulat_user.h"

/* The port Prometheus' list of exporters gives gpulat, and its default. */
#define SERVE_PORT		"9464"
#define SERVE_LISTEN_DEFAULT	":" SERVE_PORT
/* Seconds between two snapshots, and between two textfile writes. */
#define SERVE_TICK_S		1.0
#define SERVE_TEXTFILE_S	5.0
#define SERVE_TEXTFILE_NAME	"gpulat.prom"
/* How long the daemon's exit waits for the textfile's last write. */
#define SERVE_TEXTFILE_STOP_S	5

/*
 * The HTTP side's bounds: a slow or abusive client holds one
 * connection for at most SERVE_HTTP_TIMEOUT_S per request (counted from
 * the connection's start or its previous answer, however slowly it
 * keeps sending: serve_http.c), one peer at most SERVE_HTTP_PER_IP of
 * SERVE_HTTP_CONNS, and a request's headers at most SERVE_HTTP_MEMORY
 * bytes; every scrape shares one rendered page.  A peer is a remote
 * address, or, for a connection from this host (any of its addresses,
 * loopback or not), the user that owns the client's socket: a local
 * user holds at most SERVE_HTTP_PER_IP slots from any number of
 * loopback addresses, and another user's scraper keeps its own.
 */
#define SERVE_HTTP_CONNS	64
#define SERVE_HTTP_PER_IP	8
#define SERVE_HTTP_TIMEOUT_S	10
#define SERVE_HTTP_MEMORY	(32 * 1024)

struct serve_http;

/*
 * serve_http_start - listen on @addr ("HOST:PORT", "[V6]:PORT",
 * ":PORT"); NULL after a message on stderr
 */
struct serve_http *serve_http_start(const char *addr);
/* serve_http_publish - the page scrapes get from now on (@buf is taken) */
int serve_http_publish(struct serve_http *h, char *buf, size_t len);
/* serve_http_stop - close every connection and free @h (NULL: nothing) */
void serve_http_stop(struct serve_http *h);
/*
 * serve_http_counts - the connections refused or cut so far, by enum
 * prom_refuse, into @refused (PROM_NR_REFUSES)
 */
void serve_http_counts(struct serve_http *h, uint64_t *refused);
/* serve_http_where - "HOST:PORT" it listens on, the port as bound */
const char *serve_http_where(struct serve_http *h, char *buf, size_t len);
/*
 * serve_peer - who holds the slots of connection @fd: "uid N" for a
 * client on this host (the owner of its socket), else its address
 */
void serve_peer(int fd, char *buf, size_t len);
/* serve_http_available - whether this build has HTTP (libmicrohttpd) */
bool serve_http_available(void);

/* serve_textfile - write @buf to DIR/gpulat.prom atomically; 0 or -errno */
int serve_textfile(const char *dir, const char *buf, size_t len);

/*
 * The textfile's writer thread: it writes the newest page it was handed;
 * a page replaced before it was written is not written (the next one is
 * newer), and counted.
 */
struct serve_tf {
	const char *dir;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	char *buf;			/* the next page, NULL: none */
	size_t len;
	bool stop, on, failed;
	uint64_t skipped;		/* pages replaced unwritten */
};

/*
 * serve_tf_start - sweep @dir of what a killed writer left, start the
 * thread; 0 or -errno after a message
 */
int serve_tf_start(struct serve_tf *t, const char *dir);
/* serve_tf_hand - a copy of @buf for the thread to write */
void serve_tf_hand(struct serve_tf *t, const char *buf, size_t len);
/* serve_tf_stop - the last page written (SERVE_TEXTFILE_STOP_S at most) */
void serve_tf_stop(struct serve_tf *t);

/* serve_malloc_setup - snapshots' memory kept for reuse (serve.c says why) */
void serve_malloc_setup(void);
/*
 * What the command asks of the daemon: gpulat serve's options, made into
 * the engine's terms, and how to open the source it names.
 */
struct serve_conf {
	const char *listen;		/* HTTP address; NULL: none */
	const char *textfile;		/* the textfile's folder; NULL: none */
	unsigned int buckets;		/* per power of two; 0: the default */
	unsigned int max_keys;		/* keys per family; 0: the default */
	bool per_cpu, all_buckets;
	struct flight_opts flight;	/* .dir NULL: no flight recorder */
	double verdict_s;		/* rolling verdict's window; 0: none */
	uint64_t thresholds[GPULAT_FAM_MAX];	/* ns, by family, 0: off */
	uint64_t thresholds_set;	/* bit per family given */
	const char *version;		/* the tool's, for the exposition */
	const char *kernel;		/* uname -r, or NULL */
	/* open the source; 0 or -errno, after the reason on stderr */
	int (*open)(const void *ctx, struct gl_source **src, uint32_t *major,
		    uint32_t *minor);
	const void *open_ctx;
};

/*
 * serve_loop - run until SIGINT or SIGTERM; 0, or -errno after a message
 * on stderr.  *@open_failed says whether the error was the source's.
 */
int serve_loop(const struct serve_conf *c, bool *open_failed);

#endif /* _GPULAT_USER_SERVE_H */
