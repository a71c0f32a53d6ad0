#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# (f) Memory pressure to the OOM killer, ROUNDS times (3; quick: 1), with
# the module loaded, a `gpulat trace -t mm=1ms -t sched=1ms` reader
# reading and every family's load running.  A process (oom_score_adj
# 1000) allocates and touches memory until the OOM killer kills it; this
# script and the reader are exempt (-1000).  Asserted each round: the
# process dies of SIGKILL within LIMIT seconds, the kernel log says the OOM
# killer killed that pid; afterwards the version ioctl answers, `gpulat
# hist --json` parses, mm.direct_reclaim has new samples (when the mm
# family is attached), the reader is alive and stops cleanly, rmmod
# succeeds.  Kernel memory (module unloaded) after a warm-up load cycle
# and at the end stays within the bounds of lib.sh.
#
# The OOM report prints a stack ("Call Trace:") on the console, which
# vmrun takes for a splat: scripts/stress exempts exactly the one that
# follows each "invoked oom-killer" line and checks every other itself.
# shellcheck source=tests/stress/lib.sh
. /gpulat/stress/lib.sh

ROUNDS=3 LIMIT=240
[ "$QUICK" = 1 ] && ROUNDS=1 LIMIT=180
LIMIT=$((LIMIT * SCALE))

gl_loaded && gl_unload
echo -1000 >/proc/self/oom_score_adj
check "every family's load started" load_start
check "warm-up load cycle" eval 'gl_load && gl_unload'
mem_snap $W/oom.m0

r=0 t0=$(now)
while [ $r -lt $ROUNDS ]; do
	r=$((r + 1))
	gl_load || { not_ok "insmod in round $r"; break; }
	reader_start oo -t mm=1ms -t sched=1ms
	echo -1000 >/proc/$(cat $W/oo.pid)/oom_score_adj
	mm=$(stress_util state mm)
	dr0=$(stress_util count mm.direct_reclaim)
	mark="gpulat-stress: oom round $r $(now)"
	echo "$mark" >/dev/kmsg
	sh -c 'echo 1000 >/proc/self/oom_score_adj; exec stress_load oom' >$W/oom.out 2>&1 &
	hog=$!
	rm -f $W/oom.timeout
	( sleep $LIMIT; kill -0 $hog 2>/dev/null && touch $W/oom.timeout && kill -KILL $hog ) &
	wd=$!
	t1=$(now)
	wait $hog 2>/dev/null
	rc=$?
	kill_tree $wd 2>/dev/null
	diag "round $r: the allocator reached $(tail -n 1 $W/oom.out) and ended with status $rc after $(elapsed "$t1")s"
	if [ $rc = 137 ] && [ ! -e $W/oom.timeout ]; then
		ok "round $r: the allocating process was killed by SIGKILL"
	else
		not_ok "round $r: the allocating process ended with status $rc$([ -e $W/oom.timeout ] && echo ", killed by the test after ${LIMIT}s")"
	fi
	dmesg | sed -n "/$mark/,\$p" >$W/oom.log
	if grep -q "Killed process $hog " $W/oom.log; then
		ok "round $r: the kernel log has the OOM kill of pid $hog"
		# (not the report's first line: scripts/stress matches it)
		grep "Killed process $hog " $W/oom.log | sed 's/^/#   /' | head -2
	else
		not_ok "round $r: no OOM kill of pid $hog in the kernel log"
		tail -n 20 $W/oom.log | sed 's/^/#   /'
	fi
	check "round $r: version ioctl answers after the OOM kill" version_ok
	check "round $r: gpulat hist --json parses after the OOM kill" hist_json_ok
	if [ "$mm" = attached ]; then
		dr1=$(stress_util count mm.direct_reclaim)
		if [ "$dr1" -gt "$dr0" ]; then
			ok "round $r: mm.direct_reclaim filed $((dr1 - dr0)) stalls on the way"
		else
			not_ok "round $r: mm.direct_reclaim filed no stall on the way ($dr0 -> $dr1)"
		fi
	else
		ok "round $r: mm.direct_reclaim # SKIP mm family $mm"
	fi
	if reader_stop oo; then
		ok "round $r: trace reader survived the OOM kill ($R_OUTLIERS outliers, $R_LOST lost)"
	else
		not_ok "round $r: trace reader survived the OOM kill"
	fi
	check "round $r: rmmod after the OOM kill" gl_unload
done
diag "$r rounds in $(elapsed "$t0")s"
load_stop
if [ $fail = 0 ]; then
	mem_snap $W/oom.m1
	mem_check "OOM rounds 1..$ROUNDS" $W/oom.m0 $W/oom.m1
fi
done_part
