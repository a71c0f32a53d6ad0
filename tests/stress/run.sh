#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs the stress parts in the guest and prints KTAP: each part's TAP
# nested and indented, then its result line.  Exits 1 if any part failed.
# Each part runs under its own time limit (below, by form): one that
# overruns is killed and reported as "not ok N PART # TIMEOUT", with the
# state, wait channel and kernel stack of its tasks.
#
# usage: run.sh [--quick] [PART...]      run the parts (in the guest)
#        run.sh --budget [--quick] [PART...]
#                                        print the seconds a run may take
#                                        (on the host, for vmrun --timeout)
# PART: load_cycles hotplug ioctl_fuzz trace_overflow params oom (the
# default: all, in this order; oom last, as it empties memory).
# GPULAT_TIMEOUT_SCALE: factor on every limit, for slower kernels (KASAN,
# lockdep); vmrun --append GPULAT_TIMEOUT_SCALE=N puts it in init's
# environment, as for tests/kernel/run.sh.
# vmrun runs a copy of this file as /gpulat/run: the parts are here
DIR=${STRESS_DIR:-/gpulat/stress}
BUDGET=0 QUICK=0
while [ $# -gt 0 ]; do
	case $1 in
	--budget) BUDGET=1 ;;
	--quick) QUICK=1 ;;
	*) break ;;
	esac
	shift
done
PARTS=${*:-load_cycles hotplug ioctl_fuzz trace_overflow params oom}
KSFT_SKIP=4

# limit PART: its time limit in seconds, about three times what it took
# on an idle 2-core host (quick / long form; see scripts/stress), times
# GPULAT_TIMEOUT_SCALE
limit() {
	echo $(( $(limit1 "$1") * ${GPULAT_TIMEOUT_SCALE:-1} ))
}
limit1() {
	case $QUICK:$1 in
	1:load_cycles) echo 360 ;;
	1:hotplug) echo 240 ;;
	1:ioctl_fuzz) echo 300 ;;
	1:trace_overflow) echo 240 ;;
	1:params) echo 300 ;;
	1:oom) echo 360 ;;
	0:load_cycles) echo 3600 ;;
	0:hotplug) echo 1200 ;;
	0:ioctl_fuzz) echo 2400 ;;
	0:trace_overflow) echo 900 ;;
	0:params) echo 1200 ;;
	0:oom) echo 900 ;;
	*) echo 600 ;;
	esac
}

if [ $BUDGET = 1 ]; then
	sum=0
	for p in $PARTS; do sum=$((sum + $(limit "$p"))); done
	echo "$sum"
	exit 0
fi

export STRESS_QUICK=$QUICK
# the watchdog: run_limited, now (tests/lib/watchdog.sh)
. "${GPULAT_LIB:-/gpulat/lib}/watchdog.sh" || exit 1

set -- $PARTS
echo "TAP version 13"
echo "1..$#"
echo "# stress, $( [ $QUICK = 1 ] && echo quick || echo long ) form, $(uname -r), $(nproc) CPUs"
n=0 fail=0 pass=0 skip=0
T0=$(now)
for t in $PARTS; do
	n=$((n + 1))
	if [ ! -x "$DIR/$t.sh" ]; then
		echo "not ok $n $t # no such part"
		fail=$((fail + 1))
		continue
	fi
	lim=$(limit "$t")
	t0=$(now)
	rm -f /tmp/stress.fifo
	echo "# $t: started at ${t0}s, limit ${lim}s"
	# the part's output as it comes, indented (a hang shows where it was)
	mkfifo /tmp/stress.fifo
	# line by line, unbuffered: killed below, it has printed every line
	( while IFS= read -r l; do echo "  $l"; done ) </tmp/stress.fifo &
	sedpid=$!
	run_limited "$lim" /tmp/stress.fifo "$DIR/$t.sh"
	rc=$RL_RC secs=$RL_SECS
	# a process the part left behind may hold the fifo open
	( sleep 5; kill $sedpid 2>/dev/null ) &
	sw=$!
	wait $sedpid
	kill $sw 2>/dev/null
	wait $sw 2>/dev/null
	if [ -n "$RL_TIMEOUT" ]; then
		echo "  # TIMEOUT: $t ran past its limit of ${lim}s"
		sed 's/^/  /' "$RL_TIMEOUT"
		echo "not ok $n $t # TIMEOUT ${lim}s"; fail=$((fail + 1))
	elif [ "$rc" -eq 0 ]; then
		echo "ok $n $t # time ${secs}s"; pass=$((pass + 1))
	elif [ "$rc" -eq $KSFT_SKIP ]; then
		echo "ok $n $t # SKIP"; skip=$((skip + 1))
	else
		echo "not ok $n $t # exit=$rc, time ${secs}s"; fail=$((fail + 1))
	fi
done
# Leave nothing of ours behind: at power-off the e1000 goes away, and a
# handler the fake nvidia module still has on its line makes the kernel
# warn (remove_proc_entry of a non-empty irq folder)
rmmod gpulat 2>/dev/null
rmmod gpulat_fake_nvidia 2>/dev/null
total=$(awk -v a="$T0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
echo "# stress on $(uname -r): $pass passed, $fail failed, $skip skipped in ${total}s"
[ $fail -eq 0 ]
