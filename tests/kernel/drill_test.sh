#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpulat drill in the VM, with the module: the cpu, disk and net drills
# pass; irq is skipped (exit 4) with its reason; with the family of its
# layer switched off a drill fails (exit 1) with "family X is off",
# before injecting anything; a drill interrupted by SIGINT fails and
# still removes what it made; bad usage exits 2.  After each drill
# nothing it made is left: no null_blk folder, no namespace, no veth, no
# child (gldrill-*), null_blk unloaded again, the threshold put back.
# Killed (SIGKILL) at each of its steps (GPULAT_DRILL_PAUSE) a drill
# leaves its record in /run/gpulat/drills: gpulat status names what is
# left (the module's lowered threshold included) with the command that
# removes it, and the next drill removes it all; killed at each step of
# the net and disk drills, drill clean leaves nothing.
# Needs vmrun --kmod null_blk --kmod veth --kmod sch_netem --add ip --add tc.
set -u
P=/sys/module/gpulat/parameters
OUT=/tmp/drill.out
n=0
fail=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n $1"; }
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
# drill ARGS...: run it as JSON into $OUT, its exit status in $rc
drill() {
	gpulat drill "$@" -j >$OUT 2>/tmp/drill.err
	rc=$?
	sed 's/^/# /' $OUT /tmp/drill.err
}
has() { grep -q "$1" $OUT; }
# in_time: the diagnosis so far was right within 5 s of the injection
# (the drill asks it every 0.5 s while the fault is in place)
in_time() {
	v=$(sed -n 's/.*"verdict_after_ns":\([0-9]*\).*/\1/p' $OUT)
	[ -n "$v" ] && [ "$v" -le 5000000000 ]
}

# left: what a drill may have left behind, listed
left() {
	ls -d /sys/kernel/config/nullb/gpulat-drill-* 2>/dev/null
	ls /run/netns 2>/dev/null | grep gpulat-drill
	ls /sys/class/net 2>/dev/null | grep '^gld'
	grep -l '^gldrill' /proc/[0-9]*/comm 2>/dev/null
}
clean() { test -z "$(left)"; }

echo "TAP version 13"
echo "1..29"
modprobe veth 2>/dev/null
modprobe sch_netem 2>/dev/null
thr0=$(cat $P/sched_threshold_us)

drill cpu -d 3
check "drill cpu passes (exit 0)" test "$rc" -eq 0
check "its JSON: version 1, verdict pass, the hog named" \
	sh -c "grep -q '\"version\":1,\"drill\":\"cpu\",\"verdict\":\"pass\"' $OUT &&
	       grep -q '\"culprit_named\":true' $OUT"
check "diagnose ranked the scheduler first" has '"top_layer":"scheduler"'
check "the verdict so far was right within 5 s" in_time
check "the sched threshold is back to $thr0 us" \
	test "$(cat $P/sched_threshold_us)" = "$thr0"
check "nothing left after drill cpu" clean

loaded=0
[ -d /sys/module/null_blk ] && loaded=1
drill disk -d 3
check "drill disk passes (exit 0)" test "$rc" -eq 0
check "diagnose ranked storage first, naming the drill's device" \
	sh -c "grep -q '\"top_layer\":\"storage\"' $OUT &&
	       grep -q '\"culprit_named\":true' $OUT"
check "the verdict so far was right within 5 s" in_time
check "nothing left after drill disk" clean
if [ $loaded = 0 ]; then
	check "null_blk, loaded by the drill, is unloaded again" \
		test ! -d /sys/module/null_blk
else
	check "null_blk, loaded before, stays" test -d /sys/module/null_blk
fi

drill net -d 3
check "drill net passes (exit 0)" test "$rc" -eq 0
check "diagnose ranked the network first, naming the drill's veth" \
	sh -c "grep -q '\"top_layer\":\"network\"' $OUT &&
	       grep -q '\"culprit\":\"gldA' $OUT &&
	       grep -q '\"culprit_named\":true' $OUT"
check "the verdict so far was right within 5 s" in_time
check "nothing left after drill net" clean

drill irq
check "drill irq is skipped (exit 4) with its reason" \
	sh -c "test $rc -eq 4 && grep -q '\"reason\":\"no safe way' $OUT"

# the failure case: the layer's family off
gpulat disable sched >/dev/null
drill cpu -d 2
check "sched off: drill cpu fails (exit 1)" test "$rc" -eq 1
check "with the reason 'family sched is off', nothing injected" \
	sh -c "grep -q '\"reason\":\"family sched is off\"' $OUT &&
	       grep -q '\"injected\":false' $OUT"
gpulat enable sched >/dev/null
check "sched on again" sh -c "gpulat status | grep -q '^family sched: attached'"
check "nothing left after the failed drill" clean

# SIGINT in the middle: a failed drill, everything removed
gpulat drill net -d 30 -j >$OUT 2>/dev/null &
pid=$!
sleep 3
kill -INT $pid
wait $pid
rc=$?
sed 's/^/# /' $OUT
check "drill net interrupted by SIGINT fails (exit 1)" \
	sh -c "test $rc -eq 1 && grep -q 'interrupted' $OUT"
check "and leaves nothing" clean

# kill_at KIND STEP: drill KIND stopped at STEP and killed; pid in $kp
kill_at() {
	GPULAT_DRILL_PAUSE=$2 gpulat drill "$1" -d 3 >/dev/null 2>/tmp/kill.err &
	kp=$!
	i=0
	while [ $i -lt 200 ] && ! grep -q "paused at step $2" /tmp/kill.err; do
		sleep 0.05
		i=$((i + 1))
	done
	grep -q "paused at step $2" /tmp/kill.err || return 1
	kill -9 $kp
	wait $kp 2>/dev/null
	return 0
}
# the module outlives the drill: killed with the fault in place (step
# 4: threshold, victim, hog, in place), sched stays lowered
if kill_at cpu 4; then
	ok "drill cpu stopped at its step 4 and killed"
else
	not_ok "drill cpu stopped at its step 4 and killed"
fi
gpulat status >/tmp/st.out 2>&1
sed 's/^/# /' /tmp/st.out | tail -8
check "status names the killed drill and the lowered sched threshold" \
	sh -c "grep -q 'drill cpu (pid $kp, .*killed before it cleaned up' /tmp/st.out &&
	       grep -q 'sched trace threshold lowered to 1 ms' /tmp/st.out"
check "and the command that removes them" \
	grep -q 'remove with: gpulat drill clean' /tmp/st.out
drill cpu -d 2
check "the next drill passes and says what it removed" \
	sh -c "test $rc -eq 0 && grep -q '\"swept\":\[{\"pid\":$kp,' $OUT"
check "the sched threshold is back to $thr0 us" \
	test "$(cat $P/sched_threshold_us)" = "$thr0"
# kill_each KIND MAX: drill KIND killed at each step up to MAX, drill
# clean after each; what it left over counted in $bad, the steps that
# paused in $steps
kill_each() {
	bad=0
	steps=0
	for s in $(seq "$2"); do
		kill_at "$1" $s || break
		steps=$s
		gpulat drill clean >/tmp/clean.out 2>&1 || bad=$((bad + 1))
		sed 's/^/# /' /tmp/clean.out
		clean || bad=$((bad + 1))
		ls /run/gpulat/drills | grep -q . && bad=$((bad + 1))
	done
}
# each step of the net drill: drill clean removes what it left
kill_each net 6
check "drill net killed at each step: drill clean leaves nothing ($bad failures)" \
	test $bad -eq 0
# each step of the disk drill (null_blk, its cgroup, its readers): the
# same, and a drill that never paused fails
kill_each disk 9
check "drill disk killed at each of its $steps steps: drill clean leaves nothing ($bad failures)" \
	sh -c "test $bad -eq 0 && test $steps -ge 3"

gpulat drill gpu >/dev/null 2>&1
rc=$?
check "an unknown drill is a usage error (exit 2)" test "$rc" -eq 2
left | sed 's/^/# left: /'
exit $fail
