#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the demo VM: a latency-inducing workload (two CPU hogs on
# CPU 1, with a periodic background-priority sleeper there and another on
# the idle CPU 0; reads from a disk that takes 2 ms per request), then
# what gpulat shows about it: histograms, outliers, a diagnosis.
set -u
echo "== gpulat status"
gpulat status

# A slow disk: null_blk completing every request after 2 ms.
modprobe null_blk nr_devices=0
D=/sys/kernel/config/nullb/slow
mkdir "$D" && echo 2 >"$D/irqmode" && echo 2000000 >"$D/completion_nsec" &&
	echo 1 >"$D/power"

pids=""
for i in 1 2; do
	taskset -c 1 sh -c 'while :; do :; done' &
	pids="$pids $!"
done
for c in 0 1; do
	taskset -c "$c" nice -n 19 sh -c 'while :; do usleep 2000; done' &
	pids="$pids $!"
done
# null_blk names a configfs device after its folder on recent kernels
DISK=/dev/slow
[ -b "$DISK" ] || DISK=/dev/nullb0
dd if="$DISK" of=/dev/null bs=4k count=500 iflag=direct 2>/dev/null &

echo
echo "== gpulat hist sched --per-cpu 2 1   (one 2-second interval, under load)"
gpulat hist sched --per-cpu 2 1
echo
echo "== gpulat trace -t sched=5ms -d 1   (outliers and who held the CPU; first 6)"
gpulat trace -t sched=5ms -d 1 2>/dev/null | head -n 6
echo
echo "== gpulat diagnose -d 3   (which layer, the evidence, what to do)"
gpulat diagnose -d 3

kill $pids 2>/dev/null
wait 2>/dev/null
echo
echo "== gpulat hist block -D   (the 2 ms disk, since load)"
gpulat hist block -D
echo
echo "== gpulat hist sched --json (totals since load, first lines)"
gpulat hist sched --json | head -c 600
echo
echo
echo "== head of /sys/kernel/debug/gpulat/sched"
head -n 12 /sys/kernel/debug/gpulat/sched
