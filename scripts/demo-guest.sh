#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the demo VM (scripts/demo boots it): a latency-inducing
# load, then what gpulat shows about it in short steps: the status, one
# line per busy series, the first outliers, the diagnosis last.  The full
# histograms go to the console between two lines that carry $1 (a nonce
# from scripts/demo, which moves them to a file).
#
# The load: two CPU hogs pinned to CPU 1; a background-priority sleeper
# on each CPU; 4 KiB direct reads from a disk that takes 50 ms per read,
# 2.5 times the 20 ms that gpulat diagnose takes as normal for a read.
set -u
NONCE=${1:-none}
SLOW_NS=50000000

step() {
	echo
	echo "== $*"
}

echo "== gpulat status   (first lines)"
gpulat status | awk 'NF == 0 { exit } { print }'

# The slow disk: null_blk completing every request after SLOW_NS.
modprobe null_blk nr_devices=0
D=/sys/kernel/config/nullb/slowdisk
mkdir "$D" && echo 2 >"$D/irqmode" && echo $SLOW_NS >"$D/completion_nsec" &&
	echo 1 >"$D/power" || echo "demo: cannot set up the slow disk"
# null_blk names a configfs device after its folder on recent kernels
DISK=/dev/slowdisk
[ -b "$DISK" ] || DISK=/dev/nullb0

# Scripts run by name, so that gpulat names them "hog" and "sleeper".
printf '#!/bin/sh\nwhile :; do :; done\n' >/tmp/hog
printf '#!/bin/sh\nwhile :; do usleep 2000; done\n' >/tmp/sleeper
chmod +x /tmp/hog /tmp/sleeper
pids=""
for _ in 1 2; do
	taskset -c 1 /tmp/hog &
	pids="$pids $!"
done
for c in 0 1; do
	taskset -c "$c" nice -n 19 /tmp/sleeper &
	pids="$pids $!"
done
# on CPU 0, so that the hogs do not slow the reads' submission
taskset -c 0 dd if="$DISK" of=/dev/null bs=4k count=1000000 iflag=direct \
	2>/dev/null &
pids="$pids $!"

step "load: two CPU hogs pinned to CPU 1 (hog); a nice-19 sleeper waking"
echo "   every 2 ms on CPU 0 and on CPU 1 (sleeper); 4 KiB reads (dd) from a"
echo "   disk that takes 50 ms per read (${DISK#/dev/})"

step "gpulat hist sched block -C -s 2 1   (one 2-second interval)"
gpulat hist sched block -C -s 2 1

step "gpulat trace -t sched=5ms -d 1   (outliers, who held the CPU; first 5)"
gpulat trace -t sched=5ms -d 1 2>/dev/null | head -n 5

step "gpulat diagnose -d 3   (which layer, the evidence, what to do)"
gpulat diagnose -d 3 2>/dev/null

# shellcheck disable=SC2086 # a list of pids
kill $pids 2>/dev/null
wait 2>/dev/null

# The full histograms, for scripts/demo to put in a file.
echo "GPULAT-DEMO-HIST-BEGIN-$NONCE"
echo "== gpulat hist --per-cpu   (every series, totals since load)"
gpulat hist --per-cpu
echo
echo "== gpulat hist block -D   (per disk)"
gpulat hist block -D
for f in /sys/kernel/debug/gpulat/*; do
	[ -f "$f" ] || continue
	echo
	echo "== $f"
	cat "$f"
done
echo "GPULAT-DEMO-HIST-END-$NONCE"
