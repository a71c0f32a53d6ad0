// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: where the running kernel keeps each CPU's softirq pending
 * mask, for the softirq family's BPF programs (bpf/softirq.bpf.h), as an
 * offset from the CPU's struct rq.  Both are static per-CPU variables,
 * laid out alike in every CPU's area, so the distance between them is
 * their distance in the kernel's per-CPU section, on every CPU: from the
 * section's variables in the kernel's BTF, or, where the BTF has none
 * (5.10), from their addresses in kallsyms.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include <bpf/btf.h>

#include "lib/bpf_percpu.h"

/* x86, newest first: the variable, its type, the mask's member */
static const struct {
	const char *var, *type, *member;
	int kind;
} bp_where[] = {
	/* 6.15: a per-CPU u16 of its own */
	{ "__softirq_pending", NULL, NULL, 0 },
	/* 6.2: a member of pcpu_hot, in an anonymous struct */
	{ "pcpu_hot", "pcpu_hot", "softirq_pending", BTF_KIND_STRUCT },
	/* up to 6.1 */
	{ "irq_stat", "irq_cpustat_t", "__softirq_pending", BTF_KIND_TYPEDEF },
};

/* bp_member - byte offset of @name in type @id, anonymous members too */
static long bp_member(const struct btf *btf, int id, const char *name,
		      int depth)
{
	const struct btf_type *t;
	const struct btf_member *m;
	long off;
	int i;

	id = btf__resolve_type(btf, id);
	t = id < 0 ? NULL : btf__type_by_id(btf, id);
	if (!t || !btf_is_composite(t) || depth > 4)
		return -1;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && !strcmp(n, name))
			return btf_member_bit_offset(t, i) / 8;
		if (n && *n)
			continue;
		off = bp_member(btf, m->type, name, depth + 1);
		if (off >= 0)
			return btf_member_bit_offset(t, i) / 8 + off;
	}
	return -1;
}

/* bp_btf_var - offset of per-CPU variable @name in its section, or -1 */
static long long bp_btf_var(const struct btf *btf, const char *name)
{
	const struct btf_var_secinfo *v;
	const struct btf_type *t;
	int id, n = btf__type_cnt(btf), i;

	for (id = 1; id < n; id++) {
		t = btf__type_by_id(btf, id);
		if (!btf_is_datasec(t) ||
		    strcmp(btf__name_by_offset(btf, t->name_off),
			   ".data..percpu"))
			continue;
		v = btf_var_secinfos(t);
		for (i = 0; i < btf_vlen(t); i++, v++) {
			const struct btf_type *var = btf__type_by_id(btf, v->type);

			if (!strcmp(btf__name_by_offset(btf, var->name_off), name))
				return v->offset;
		}
	}
	return -1;
}

/*
 * bp_kallsyms - the addresses of @n symbols of the kernel proper (not a
 * module's: those lines end in "[module]"); 0 where not listed
 */
static void bp_kallsyms(const char *const *names, unsigned long long *addr,
			int n)
{
	char line[512], sym[256], mod[8];
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");
	char type;
	int i, got;

	int found = 0;

	memset(addr, 0, n * sizeof(*addr));
	if (!f)
		return;
	/* the file is long (100k lines): stop once every name is found */
	while (found < n && fgets(line, sizeof(line), f)) {
		got = sscanf(line, "%llx %c %255s %7s", &a, &type, sym, mod);
		if (got != 3)
			continue;
		for (i = 0; i < n; i++)
			if (!addr[i] && !strcmp(sym, names[i])) {
				addr[i] = a;
				found++;
			}
	}
	fclose(f);
}

/* bp_member_of - where the mask is inside bp_where[@w]'s variable */
static long bp_member_of(const struct btf *btf, unsigned int w)
{
	int id;

	if (!bp_where[w].type)
		return 0;
	id = btf__find_by_name_kind(btf, bp_where[w].type, bp_where[w].kind);
	return id > 0 ? bp_member(btf, id, bp_where[w].member, 0) : -1;
}

int gl_bpf_sirq_pending_off(const struct btf *btf, int64_t *off)
{
	const char *names[1 + sizeof(bp_where) / sizeof(bp_where[0])];
	unsigned long long addr[1 + sizeof(bp_where) / sizeof(bp_where[0])];
	unsigned int w, nw = sizeof(bp_where) / sizeof(bp_where[0]);
	long long rq, var;
	long m;

	*off = 0;
	if (!btf)
		return -ENOENT;
	rq = bp_btf_var(btf, "runqueues");
	if (rq >= 0) {
		for (w = 0; w < nw; w++) {
			var = bp_btf_var(btf, bp_where[w].var);
			m = var < 0 ? -1 : bp_member_of(btf, w);
			if (m >= 0) {
				*off = var + m - rq;
				return 0;
			}
		}
		return -ENOENT;
	}
	/* no variables in the BTF: their addresses, if kallsyms has them */
	names[0] = "runqueues";
	for (w = 0; w < nw; w++)
		names[w + 1] = bp_where[w].var;
	bp_kallsyms(names, addr, nw + 1);
	for (w = 0; addr[0] && w < nw; w++) {
		m = addr[w + 1] ? bp_member_of(btf, w) : -1;
		if (m >= 0) {
			*off = (int64_t)(addr[w + 1] + m - addr[0]);
			return 0;
		}
	}
	return -ENOENT;
}

/* bp_cmdline_has - whether the kernel's command line has word @w */
static bool bp_cmdline_has(const char *w)
{
	char line[4096], *tok, *save;
	FILE *f = fopen("/proc/cmdline", "r");
	bool has = false;

	if (!f)
		return false;
	if (fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \n", &save); tok && !has;
		     tok = strtok_r(NULL, " \n", &save))
			has = !strcmp(tok, w);
	fclose(f);
	return has;
}

/* gl_bpf_has_ktimers - see bpf_percpu.h */
bool gl_bpf_has_ktimers(const struct btf *btf)
{
	const char *name = "pending_timer_softirq";
	unsigned long long addr = 0;
	struct utsname u;

	/* in use when interrupts are threaded: PREEMPT_RT, or threadirqs */
	if (uname(&u) || (!strstr(u.version, "PREEMPT_RT") &&
			  !bp_cmdline_has("threadirqs")))
		return false;
	/* a BTF with per-CPU variables says; else kallsyms (5.10) */
	if (btf && bp_btf_var(btf, "runqueues") >= 0)
		return bp_btf_var(btf, name) >= 0;
	bp_kallsyms(&name, &addr, 1);
	return addr != 0;
}

int gl_bpf_init_net(const struct btf *btf, uint64_t *addr)
{
	static const char *const name[] = { "init_net" };
	const struct btf_enum *e;
	const struct btf_type *t;
	unsigned long long a;
	int id, i;

	*addr = 0;
	/* 6.18 and later: its namespaces have fixed inode numbers */
	id = btf ? btf__find_by_name_kind(btf, "init_ns_ino", BTF_KIND_ENUM) :
		   -ENOENT;
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (i = 0, e = t ? btf_enum(t) : NULL; t && i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off),
			    "NET_NS_INIT_INO"))
			return 0;
	bp_kallsyms(name, &a, 1);
	*addr = a;
	return a ? 0 : -ENOENT;
}
