// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat report: NVML asked in a child process, and the protocol between
 * the two (nvml_child.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/nvml/nvml.h"

/*
 * NVML is asked in a child process.  nvmlInit and the queries can block
 * for a long time on a GPU that fell off the bus (exactly when a report
 * is wanted), or crash inside the vendor library; the child gets
 * NVML_CHILD_SECONDS ($GPULAT_NVML_TIMEOUT) to answer, then is killed.
 */
#define NVML_CHILD_MAGIC	0x4e564d4cU	/* "NVML" */

/* What the child sends: this, then @len bytes of nvml.txt. */
struct nvml_child_head {
	uint32_t magic;
	uint32_t present;
	uint32_t len;
	char absent[512];
};

/* nvml_child_timeout - see nvml_child.h */
double nvml_child_timeout(void)
{
	const char *s = getenv("GPULAT_NVML_TIMEOUT");
	char *end;
	double v;

	if (!s || !s[0])
		return NVML_CHILD_SECONDS;
	v = strtod(s, &end);
	if (*end || !(v > 0) || v > 3600)
		return NVML_CHILD_SECONDS;
	return v;
}

static double nvml_child_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* nvml_child_write_all - all of @buf to @fd; 0 or -errno */
static int nvml_child_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

/* nvml_close_fds - see nvml_child.h */
void nvml_close_fds(int keep)
{
	struct dirent *e;
	DIR *d;

	d = opendir("/proc/self/fd");
	while (d && (e = readdir(d))) {
		int o = atoi(e->d_name);

		if (o > 2 && o != keep && o != dirfd(d))
			close(o);
	}
	if (d)
		closedir(d);
}

/*
 * nvml_child - in the child: ask NVML and send the answer on @fd.
 * The descriptors of the report (the device, its files) are closed first,
 * so a child stuck in the driver holds none of them.
 */
static void __attribute__((noreturn)) nvml_child(int fd)
{
	struct nvml_child_head h;
	struct nvml_info *n;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	nvml_close_fds(fd);
	n = calloc(1, sizeof(*n));
	if (!n)
		_exit(3);
	nvml_collect(n);
	f = open_memstream(&text, &len);
	if (!f)
		_exit(3);
	nvml_print_text(f, n);
	if (fclose(f) || len > UINT32_MAX)
		_exit(3);
	memset(&h, 0, sizeof(h));
	h.magic = NVML_CHILD_MAGIC;
	h.present = n->present;
	h.len = (uint32_t)len;
	snprintf(h.absent, sizeof(h.absent), "%s", n->absent);
	if (nvml_child_write_all(fd, &h, sizeof(h)) ||
	    nvml_child_write_all(fd, text, len))
		_exit(4);
	close(fd);
	/* Answered: a hang or a crash in nvmlShutdown costs nothing now. */
	nvml_close(n);
	_exit(0);
}

/*
 * nvml_child_reap - wait for child @pid for at most @wait_s; true when it
 * ended (its status in *@status).  A process stuck in the kernel does
 * not die even of SIGKILL: it is left behind rather than waited for.
 */
static bool nvml_child_reap(pid_t pid, int *status, double wait_s)
{
	double until = nvml_child_now() + wait_s;
	struct timespec step = { 0, 10 * 1000 * 1000 };
	pid_t ret;

	for (;;) {
		ret = waitpid(pid, status, WNOHANG);
		if (ret == pid)
			return true;
		if (ret < 0 && errno != EINTR)
			return false;
		if (nvml_child_now() >= until)
			return false;
		nanosleep(&step, NULL);
	}
}

/* nvml_child_ask - see nvml_child.h */
int nvml_child_ask(double timeout_s, struct nvml_answer *a, char *why,
		   size_t whylen)
{
	struct nvml_child_head head_buf = { 0 }, *h = &head_buf;
	double until = nvml_child_now() + timeout_s;
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0, need = sizeof(*h);
	bool head = false, done = false, eof = false, timed_out = false;
	bool reaped;
	int pfd[2], status = 0, ret = -EIO;
	pid_t pid, parent = getpid();

	memset(a, 0, sizeof(*a));
	if (pipe2(pfd, O_CLOEXEC)) {
		ret = -errno;
		snprintf(why, whylen, "cannot ask NVML: pipe: %s",
			 strerror(-ret));
		return ret;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		snprintf(why, whylen, "cannot ask NVML: fork: %s",
			 strerror(-ret));
		close(pfd[0]);
		close(pfd[1]);
		return ret;
	}
	if (!pid) {
		/* a hung NVML call dies with whoever asked (kill -9 too) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		close(pfd[0]);
		nvml_child(pfd[1]);
	}
	close(pfd[1]);
	while (!done && !eof) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		double left = until - nvml_child_now();
		ssize_t n;
		int pr;

		if (left <= 0) {
			timed_out = true;
			break;
		}
		pr = poll(&p, 1, (int)(left * 1000) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0) {
			ret = -errno;
			snprintf(why, whylen, "cannot ask NVML: poll: %s",
				 strerror(-ret));
			break;
		}
		if (!pr)
			continue;	/* the deadline is checked above */
		if (len == cap) {
			cap = cap ? 2 * cap : 16384;
			nb = realloc(buf, cap);
			if (!nb) {
				ret = -ENOMEM;
				snprintf(why, whylen, "out of memory");
				break;
			}
			buf = nb;
		}
		n = read(pfd[0], buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			eof = true;
			break;
		}
		len += n;
		if (!head && len >= sizeof(*h)) {
			memcpy(h, buf, sizeof(*h));
			if (h->magic != NVML_CHILD_MAGIC) {
				ret = -EPROTO;
				snprintf(why, whylen,
					 "the process asking NVML sent garbage");
				break;
			}
			head = true;
			need += h->len;
		}
		done = head && len >= need;
	}
	close(pfd[0]);
	if (done) {
		/* The answer is in: give the child what is left to finish. */
		reaped = nvml_child_reap(pid, &status, until - nvml_child_now());
		if (!reaped) {
			kill(pid, SIGKILL);
			nvml_child_reap(pid, &status, 1);
		}
		a->text = malloc(h->len + 1);
		if (a->text) {
			memcpy(a->text, buf + sizeof(*h), h->len);
			a->text[h->len] = '\0';
			a->present = h->present;
			memcpy(a->absent, h->absent, sizeof(a->absent));
			a->absent[sizeof(a->absent) - 1] = '\0';
			ret = 0;
		} else {
			ret = -ENOMEM;
			snprintf(why, whylen, "out of memory");
		}
		free(buf);
		return ret;
	}
	free(buf);
	if (!eof) {
		/* Timed out, or gave up reading: stop the child. */
		kill(pid, SIGKILL);
		reaped = nvml_child_reap(pid, &status, 1);
		if (timed_out) {
			ret = -ETIMEDOUT;
			snprintf(why, whylen,
				 "NVML did not answer within %g s (the process asking it, pid %d, was killed%s)",
				 timeout_s, (int)pid,
				 reaped ? "" : "; it is stuck in the kernel");
		}
		return ret;
	}
	/* The pipe closed without a whole answer: the child ended. */
	reaped = nvml_child_reap(pid, &status, until - nvml_child_now() > 1 ?
			     until - nvml_child_now() : 1);
	if (!reaped) {
		kill(pid, SIGKILL);
		reaped = nvml_child_reap(pid, &status, 1);
	}
	if (reaped && WIFSIGNALED(status))
		snprintf(why, whylen,
			 "NVML crashed the process asking it: signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (reaped && WIFEXITED(status) && WEXITSTATUS(status))
		snprintf(why, whylen,
			 "the process asking NVML ended with status %d before answering",
			 WEXITSTATUS(status));
	else
		snprintf(why, whylen,
			 "the process asking NVML ended before answering");
	return -EIO;
}

