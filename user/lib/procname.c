// SPDX-License-Identifier: GPL-2.0
/* libgpulat: comm and tgid of a pid, cached (procname.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/procname.h"

void procname_read(const char *proc, int32_t pid, int32_t *tgid,
		   char comm[GPULAT_COMM_LEN])
{
	char path[96], line[256];
	FILE *f;

	*tgid = -1;
	memset(comm, 0, GPULAT_COMM_LEN);
	snprintf(path, sizeof(path), "%s/%d/status", proc ? proc : "/proc",
		 pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Name:\t", 6)) {
			line[strcspn(line, "\n")] = '\0';
			memcpy(comm, line + 6,
			       strnlen(line + 6, GPULAT_COMM_LEN - 1));
		} else if (!strncmp(line, "Tgid:\t", 6)) {
			*tgid = atoi(line + 6);
			break;
		}
	}
	fclose(f);
}

/* pids are dense and small: a multiplicative hash spreads neighbours */
static unsigned int procname_slot(int32_t pid)
{
	return ((uint32_t)pid * 2654435761U) >> 24 & (PROCNAME_SLOTS - 1);
}

void procname_get(struct procname_cache *c, int32_t pid, uint64_t now_ns,
		  int32_t *tgid, char comm[GPULAT_COMM_LEN])
{
	struct procname_ent *e = &c->e[procname_slot(pid)];

	if (pid > 0 && e->pid == pid && now_ns >= e->at_ns &&
	    now_ns - e->at_ns < PROCNAME_TTL_NS) {
		c->hits++;
		*tgid = e->tgid;
		memcpy(comm, e->comm, GPULAT_COMM_LEN);
		return;
	}
	procname_read(c->proc, pid, tgid, comm);
	c->reads++;
	if (pid <= 0)
		return;
	e->pid = pid;
	e->tgid = *tgid;
	e->at_ns = now_ns;
	memcpy(e->comm, comm, GPULAT_COMM_LEN);
}

uint64_t procname_start(int32_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	unsigned int i;
	ssize_t n;
	int fd;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* after the comm, which may hold spaces and parentheses: state, ... */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return 0;
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &v) != 1)
		return 0;
	return v ? v : 1;
}
