#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The outlier trace must not feed itself.  At a 1 ns sched threshold on
# an idle guest, every wakeup is an outlier, the reader's own included:
# if a record about the reader's wakeup (or, on PREEMPT_RT, about the
# irq_work thread that wakes it) were traced, each record would make the
# next.  The trace leaves them out (and counts them), so the record rate
# stays bounded, the reader stays killable, and the threshold goes back.
set -u
P=/sys/module/gpulat/parameters
D=/sys/kernel/debug/gpulat/trace
SECS=3
# records per second allowed on an idle 2-vCPU guest: the genuine
# wakeups (timers, kworkers, RCU); a self-feeding trace makes 10-50k
MAX_RATE=3000
n=0
fail=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n $1"; }
field() { sed -n "s/^$1 //p" $D; }

echo "TAP version 13"
echo "1..4"
rt=no
grep -q PREEMPT_RT /proc/version 2>/dev/null && rt=yes
uname -v | grep -q PREEMPT_RT && rt=yes
echo "# PREEMPT_RT: $rt"

old=$(cat $P/sched_threshold_us)
echo 0.001 >$P/sched_threshold_us
w0=$(field "records written")
s0=$(field "records about the trace's own readers, left out")
# blocking reads into a file: the reader sleeps and is woken per record
dd if=/dev/gpulat of=/tmp/trace_self.bin bs=65536 2>/dev/null &
rd=$!
sleep $SECS
w1=$(field "records written")
s1=$(field "records about the trace's own readers, left out")
rate=$(((w1 - w0) / SECS))
echo "# $((w1 - w0)) records in ${SECS} s ($rate/s), $((s1 - s0)) about the trace's own tasks left out"
[ $rate -le $MAX_RATE ] && ok "bounded record rate at 1 ns: $rate/s (at most $MAX_RATE)" ||
	not_ok "record rate at 1 ns: $rate/s, over $MAX_RATE: the trace feeds itself"
[ $((s1 - s0)) -gt 0 ] && ok "records about the reader were left out and counted" ||
	not_ok "no record about the reader was left out"

kill -9 $rd
gone=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	[ -d /proc/$rd ] || { gone=1; break; }
	sleep 0.1
done
wait $rd 2>/dev/null
[ -n "$gone" ] && ok "the reader dies at once on SIGKILL" ||
	{ not_ok "the reader survives SIGKILL"; cat /proc/$rd/stack 2>/dev/null; }

echo "$old" >$P/sched_threshold_us
[ "$(cat $P/sched_threshold_us)" = "$old" ] && ok "threshold back to $old us" ||
	not_ok "threshold not restored"
exit $fail
