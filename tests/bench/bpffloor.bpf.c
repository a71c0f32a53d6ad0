// SPDX-License-Identifier: GPL-2.0
/*
 * BPF floors of scripts/bench, the BPF counterparts of
 * tests/kmod/gpulat_floor_{ret,clock}.c: what calling any BPF program on
 * a tracepoint costs, typed (tp_btf) and untyped (raw_tp), and the least
 * a BPF latency probe does (the clock, one per-CPU counter).  Attached by
 * tests/bench/bpffloor.c.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} floor_hits SEC(".maps");

/* the target tracepoint is set at load (bpf_program__set_attach_target) */
SEC("tp_btf")
int floor_ret(void *ctx)
{
	return 0;
}

SEC("raw_tp")
int floor_raw(void *ctx)
{
	return 0;
}

/* the clock value is dropped: the call itself is the cost being measured */
SEC("tp_btf")
int floor_clock(void *ctx)
{
	__u32 key = 0;
	__u64 *c;

	bpf_ktime_get_ns();
	c = bpf_map_lookup_elem(&floor_hits, &key);
	if (c)
		(*c)++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
