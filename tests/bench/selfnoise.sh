#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpulat's own latency: the kernel's timerlat tracer (a timer per CPU,
# its IRQ and thread latency) runs while a loop of gpulat's control
# operations (reset, disable/enable, snapshot, a trace reader opened and
# closed) runs, first without gpulat (the same commands fail at once),
# then with each module given as NAME:PATH.  The first argument says
# the loop: "all" (every operation), or one of them alone: "reset",
# "switch" (disable and enable), "snapshot", "trace" (open and close).  Prints per phase the
# worst and the 99.9th percentile IRQ and thread latency over all CPUs.
set -u
OPS=$1 SECS=$2
shift 2
T=/sys/kernel/tracing

grep -qw timerlat $T/available_tracers || {
	echo "selfnoise: no timerlat tracer in this kernel"
	exit 2
}
echo 16384 >$T/buffer_size_kb

loop() {
	end=$(($(date +%s) + SECS)) i=0
	while [ "$(date +%s)" -lt $end ]; do
		case $OPS in all | reset) gpulat reset >/dev/null 2>&1 ;; esac
		case $OPS in all | switch)
			gpulat disable sched irq >/dev/null 2>&1
			gpulat enable sched irq >/dev/null 2>&1 ;;
		esac
		case $OPS in all | snapshot) gpulat hist --json >/dev/null 2>&1 ;; esac
		case $OPS in all | trace) gpulat trace -d 0.1 >/dev/null 2>&1 ;; esac
		i=$((i + 1))
	done
	echo "$i"
}

# phase NAME: timerlat around one run of the loop
phase() {
	echo >$T/trace
	echo timerlat >$T/current_tracer
	echo 1 >$T/tracing_on
	iters=$(loop)
	echo 0 >$T/tracing_on
	awk -v name="$1" -v iters="$iters" '
	/timer_latency/ {
		for (i = 1; i <= NF; i++)
			if ($i == "context") ctx = $(i + 1)
			else if ($i == "timer_latency") v = $(i + 1)
		n[ctx]++; s[ctx, n[ctx]] = v
		if (v > max[ctx]) max[ctx] = v
	}
	function q(ctx, p,   i, k, lo, hi, mid, c) {
		# the order statistic by bisection on the value
		k = int(n[ctx] * p); if (k < 1) k = 1
		lo = 0; hi = max[ctx]
		while (hi - lo > 1) {
			mid = int((lo + hi) / 2); c = 0
			for (i = 1; i <= n[ctx]; i++) if (s[ctx, i] > mid) c++
			if (c > n[ctx] - k) lo = mid; else hi = mid
		}
		return hi
	}
	END {
		printf "selfnoise %-10s iterations %4d  irq: n %6d p99.9 %8d ns max %8d ns  thread: n %6d p99.9 %8d ns max %8d ns\n",
		       name, iters, n["irq"], q("irq", 0.999), max["irq"],
		       n["thread"], q("thread", 0.999), max["thread"]
	}' $T/trace
	echo nop >$T/current_tracer
}

# A nice-19 hog per CPU keeps every CPU busy: an idle vCPU wakes late
# under emulation (a halted vCPU's timer is the host's to deliver), which
# would look like latency whenever an operation waits (an RCU grace
# period).  The timerlat threads are SCHED_FIFO and preempt the hogs.
hogs=""
for c in $(seq 0 $(($(nproc) - 1))); do
	nice -n 19 taskset -c "$c" sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
phase without
for arg in "$@"; do
	insmod "${arg#*:}" || { echo "selfnoise: cannot load ${arg#*:}"; exit 1; }
	phase "${arg%%:*}"
	rmmod gpulat
done
kill $hogs
