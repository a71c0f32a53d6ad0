#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# (c) Random ioctls from 4 threads (stress_ioctl.c says what is random and
# what is asserted) while trace readers read and families are switched on
# and off, under every family's load: CALLS in all (1000000; quick: 50000)
# over ROUNDS loads of the module.  Beside the program's own results,
# each round: a `gpulat trace` reader stays alive and stops cleanly, the
# version ioctl answers, `gpulat hist --json` parses, rmmod succeeds.
# Kernel memory (module unloaded) after WARM rounds and at the end stays
# within the bounds of lib.sh.
# shellcheck source=tests/stress/lib.sh
. /gpulat/stress/lib.sh

CALLS=1000000 ROUNDS=10 WARM=2
[ "$QUICK" = 1 ] && CALLS=50000 ROUNDS=3 WARM=1
PER=$((CALLS / ROUNDS))

gl_loaded && gl_unload
check "every family's load started" load_start
r=0 t0=$(now)
while [ $r -lt $ROUNDS ]; do
	r=$((r + 1))
	diag "round $r of $ROUNDS: $PER calls"
	gl_load || { not_ok "insmod in round $r"; break; }
	reader_start fz -t sched=1ms
	stress_ioctl -n $PER -t 4 >$W/ioctl.out 2>&1
	rc=$?
	results $W/ioctl.out
	[ $rc = 0 ] || diag "stress_ioctl exited $rc"
	check "round $r: version ioctl answers after the fuzz" version_ok
	check "round $r: gpulat hist --json parses after the fuzz" hist_json_ok
	if reader_stop fz; then
		ok "round $r: trace reader survived the fuzz ($R_OUTLIERS outliers, $R_LOST lost)"
	else
		not_ok "round $r: trace reader survived the fuzz"
	fi
	check "round $r: rmmod after the fuzz" gl_unload
	[ $r = $WARM ] && mem_snap $W/fz.m0
done
diag "$r rounds in $(elapsed "$t0")s"
load_stop
if [ -f $W/fz.m0 ] && [ $fail = 0 ]; then
	mem_snap $W/fz.m1
	mem_check "ioctl rounds $WARM..$ROUNDS" $W/fz.m0 $W/fz.m1
fi
done_part
