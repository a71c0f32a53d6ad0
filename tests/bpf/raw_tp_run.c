// SPDX-License-Identifier: GPL-2.0
/*
 * raw_tp_run - run a loaded raw_tp program once per line of standard
 * input, each line its tracepoint's arguments (integers), as if the
 * tracepoint fired (BPF_PROG_TEST_RUN).  For the host tests of programs
 * whose tracepoint this host lacks (a driver's).
 *
 *   raw_tp_run PROG-ID < args    e.g. "0 79": nvidia_dev_xid(NULL, 79)
 *
 * A line may start with @CPU: that run runs on that CPU.
 *
 * Exit status: 0 when every run ran, 1 otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#define RT_MAX_ARGS	12

int main(int argc, char **argv)
{
	unsigned long long args[RT_MAX_ARGS];
	char line[512], *p, *end;
	unsigned int n;
	int fd, runs = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: raw_tp_run PROG-ID < args\n");
		return 1;
	}
	fd = bpf_prog_get_fd_by_id(atoi(argv[1]));
	if (fd < 0) {
		fprintf(stderr, "raw_tp_run: program %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		LIBBPF_OPTS(bpf_test_run_opts, o);

		p = line + strspn(line, " \t");
		if (*p == '@') {
			o.flags = BPF_F_TEST_RUN_ON_CPU;
			o.cpu = strtoul(p + 1, &end, 0);
			p = end;
		}
		for (n = 0; n < RT_MAX_ARGS; n++, p = end) {
			args[n] = strtoull(p, &end, 0);
			if (end == p)
				break;
		}
		o.ctx_in = args;
		o.ctx_size_in = n * sizeof(args[0]);
		if (bpf_prog_test_run_opts(fd, &o)) {
			fprintf(stderr, "raw_tp_run: run %d: %s\n", runs,
				strerror(errno));
			return 1;
		}
		runs++;
	}
	close(fd);
	return 0;
}
