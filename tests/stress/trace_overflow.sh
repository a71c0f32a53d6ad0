#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# (d) Trace rings overflowed under every family's load, with exact loss
# accounting (stress_trace.c states the assertions): 32 readers, every
# sample an outlier (threshold 1 ns, through the threshold ioctl), some
# readers slow and some not reading, for SECS (20; quick: 5) in each of
# ROUNDS loads of the module (5; quick: 2).  First the tool's own syntax:
# `gpulat trace -t sched=1ns` gets outliers and puts the module's
# threshold back when it exits.  Each round ends with rmmod; kernel
# memory (module unloaded) after WARM rounds and at the end stays within
# the bounds of lib.sh.
# shellcheck source=tests/stress/lib.sh
. /gpulat/stress/lib.sh

ROUNDS=5 SECS=20 WARM=1
[ "$QUICK" = 1 ] && ROUNDS=2 SECS=5 WARM=1

gl_loaded && gl_unload
check "every family's load started" load_start
check "insmod with the large tables" gl_load
before=$(stress_util threshold sched)
gpulat trace -t sched=1ns -d 2 >/dev/null 2>$W/t1ns.err
rc=$?
s=$(sed -n 's/^gpulat: \([0-9]*\) outliers, [0-9]* events, \([0-9]*\) records lost.*/\1 \2/p' $W/t1ns.err)
set -- $s 0 0
after=$(stress_util threshold sched)
diag "gpulat trace -t sched=1ns -d 2: exit $rc, $1 outliers, $2 lost; sched threshold $before ns before, $after ns after"
if [ $rc = 0 ] && [ $(($1 + $2)) -gt 0 ] && [ "$after" = "$before" ]; then
	ok "gpulat trace -t sched=1ns: outliers, then the threshold put back"
else
	not_ok "gpulat trace -t sched=1ns: outliers, then the threshold put back"
	sed 's/^/#   /' $W/t1ns.err
fi
check "rmmod" gl_unload

r=0 t0=$(now)
while [ $r -lt $ROUNDS ]; do
	r=$((r + 1))
	gl_load || { not_ok "insmod in round $r"; break; }
	diag "round $r of $ROUNDS: 32 readers, ${SECS}s"
	stress_trace -r 32 -d $SECS >$W/trace.out 2>&1
	rc=$?
	results $W/trace.out
	[ $rc = 0 ] || diag "stress_trace exited $rc"
	check "round $r: version ioctl answers after the overflow" version_ok
	check "round $r: rmmod after the overflow" gl_unload
	[ $r = $WARM ] && mem_snap $W/ov.m0
done
diag "$r rounds in $(elapsed "$t0")s"
load_stop
if [ -f $W/ov.m0 ] && [ $ROUNDS -gt $WARM ] && [ $fail = 0 ]; then
	mem_snap $W/ov.m1
	mem_check "overflow rounds $WARM..$ROUNDS" $W/ov.m0 $W/ov.m1
fi
done_part
