// SPDX-License-Identifier: GPL-2.0
/*
 * bpffloor - attach one program of bpffloor.bpf.o to tracepoints and pin
 * the links, so that they stay attached after this exits (scripts/bench's
 * BPF floors; rm -r DIR detaches them):
 *
 *   bpffloor OBJ PROG DIR TP[,TP...]
 *
 * PROG floor_ret or floor_clock (tp_btf): loaded once per tracepoint, each
 * load bound to that tracepoint's BTF; floor_raw (raw_tp): loaded once and
 * attached to each.  The links are pinned as DIR/TP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bpf/libbpf.h>

static void __attribute__((noreturn)) fail(const char *what, const char *tp)
{
	fprintf(stderr, "bpffloor: %s %s: %s\n", what, tp, strerror(errno));
	exit(1);
}

/* floor_load - @obj with only @prog, bound to tracepoint @tp (NULL: raw_tp) */
static struct bpf_program *floor_load(const char *obj, const char *prog,
				      const char *tp)
{
	struct bpf_program *p, *q;
	struct bpf_object *o;

	o = bpf_object__open_file(obj, NULL);
	if (!o)
		fail("open", obj);
	p = bpf_object__find_program_by_name(o, prog);
	if (!p) {
		errno = ENOENT;
		fail("no program", prog);
	}
	bpf_object__for_each_program(q, o)
		bpf_program__set_autoload(q, q == p);
	if (tp && bpf_program__set_attach_target(p, 0, tp))
		fail("attach target", tp);
	if (bpf_object__load(o))
		fail("load for", tp ? tp : prog);
	return p;	/* the object stays open: its links hold it anyway */
}

int main(int argc, char **argv)
{
	struct bpf_program *p = NULL;
	struct bpf_link *l;
	char path[512], *tps, *tp;
	bool raw;

	if (argc != 5) {
		fprintf(stderr, "usage: bpffloor OBJ PROG DIR TP[,TP...]\n");
		return 2;
	}
	raw = !strcmp(argv[2], "floor_raw");
	if (mkdir(argv[3], 0700) && errno != EEXIST)
		fail("mkdir", argv[3]);
	tps = argv[4];
	while ((tp = strsep(&tps, ","))) {
		if (!*tp)
			continue;
		if (!raw || !p)
			p = floor_load(argv[1], argv[2], raw ? NULL : tp);
		l = raw ? bpf_program__attach_raw_tracepoint(p, tp) :
			  bpf_program__attach_trace(p);
		if (!l)
			fail("attach", tp);
		snprintf(path, sizeof(path), "%s/%s", argv[3], tp);
		if (bpf_link__pin(l, path))
			fail("pin", path);
	}
	return 0;
}
