// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat serve's page for node_exporter's textfile collector, written
 * by a thread of its own: a slow or hung disk delays only the file,
 * never a snapshot.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/serve/serve.h"
#include "lib/outfile.h"

int serve_textfile(const char *dir, const char *buf, size_t len)
{
	char path[PATH_MAX], msg[PATH_MAX + 256];
	struct gl_out out;
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
			     SERVE_TEXTFILE_NAME) >= sizeof(path))
		return -ENAMETOOLONG;
	/*
	 * node_exporter reads *.prom only: the temporary's name is not one.
	 * 0644: node_exporter reads it as its own user, and it holds what
	 * /metrics tells anyone who can reach the port.
	 */
	ret = gl_out_open(&out, path, 0644, msg, sizeof(msg));
	if (ret)
		return ret;
	ret = gl_out_write(&out, buf, len);
	if (ret) {
		gl_out_abort(&out);
		return ret;
	}
	return gl_out_commit(&out, msg, sizeof(msg));
}

static void *serve_tf_thread(void *arg)
{
	struct serve_tf *t = arg;
	char *buf;
	size_t len;
	int ret;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		while (!t->buf && !t->stop)
			pthread_cond_wait(&t->wake, &t->lock);
		if (!t->buf)
			break;
		buf = t->buf;
		len = t->len;
		t->buf = NULL;
		pthread_mutex_unlock(&t->lock);
		ret = serve_textfile(t->dir, buf, len);
		free(buf);
		pthread_mutex_lock(&t->lock);
		/* said once, not every write */
		if (ret && !t->failed)
			fprintf(stderr, "gpulat: cannot write %s/%s: %s\n",
				t->dir, SERVE_TEXTFILE_NAME, strerror(-ret));
		t->failed = ret != 0;
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int serve_tf_start(struct serve_tf *t, const char *dir)
{
	int n, ret;

	t->dir = dir;
	n = gl_out_sweep(dir, NULL);
	if (n > 0)
		fprintf(stderr, "gpulat: removed %d unfinished %s from %s\n", n,
			SERVE_TEXTFILE_NAME, dir);
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	ret = pthread_create(&t->thread, NULL, serve_tf_thread, t);
	if (ret) {
		fprintf(stderr, "gpulat: cannot start the textfile writer: %s\n",
			strerror(ret));
		return -ret;
	}
	t->on = true;
	return 0;
}

/* serve_tf_hand - see serve.h */
void serve_tf_hand(struct serve_tf *t, const char *buf, size_t len)
{
	char *copy = malloc(len ? len : 1);

	if (!copy)
		return;
	memcpy(copy, buf, len);
	pthread_mutex_lock(&t->lock);
	if (t->buf) {
		free(t->buf);
		t->skipped++;
	}
	t->buf = copy;
	t->len = len;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
}

/* serve_tf_stop - see serve.h */
void serve_tf_stop(struct serve_tf *t)
{
	if (!t->on)
		return;
	struct timespec until;

	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	/* a hung disk does not hold the daemon's exit */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SERVE_TEXTFILE_STOP_S;
	if (pthread_timedjoin_np(t->thread, NULL, &until)) {
		fprintf(stderr, "gpulat: %s/%s: the write did not end in %d s; leaving it\n",
			t->dir, SERVE_TEXTFILE_NAME, SERVE_TEXTFILE_STOP_S);
		return;
	}
	free(t->buf);
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	t->on = false;
}
