#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/bench (runs as /gpulat/run under scripts/vmrun
# --icount --no-load):
#
#   guest.sh PINGPONG ROUNDS REPS
#
# Runs PINGPONG ROUNDS under each configuration, REPS times, the order of
# the configurations rotated by one each repetition so that no configuration
# always runs first or after the same one.  Prints for every run
#   BENCH run REP CONFIG rounds N ns T [hits H] preempted P
# and once, from gpulat's debugfs view,
#   BENCH memory PCPU_BYTES SHARED_BYTES
# A configuration whose module is missing is reported as
#   BENCH skip CONFIG
set -u

PP=$1 ROUNDS=$2 REPS=$3
MODS=/gpulat/modules
DBG=/sys/kernel/debug/gpulat/sched
CONFIGS="none floor_ret floor_clock gpulat"

module_of() {
	case $1 in
	none) echo "" ;;
	gpulat) echo gpulat ;;
	*) echo "gpulat_$1" ;;
	esac
}

avail=""
for c in $CONFIGS; do
	m=$(module_of "$c")
	if [ -n "$m" ] && [ ! -f "$MODS/$m.ko" ]; then
		echo "BENCH skip $c"
		continue
	fi
	avail="$avail $c"
done
# shellcheck disable=SC2086 # split on purpose: one argument per config
set -- $avail
n=$#

run_one() {
	rep=$1 c=$2
	m=$(module_of "$c")
	if [ -n "$m" ]; then
		insmod "$MODS/$m.ko" || { echo "bench: insmod $m failed"; exit 1; }
	fi
	if [ "$c" = gpulat ]; then
		if [ "$memory_done" = 0 ]; then
			mem=$(sed -n 's/^memory: \([0-9]*\) bytes per CPU, \([0-9]*\) bytes shared$/\1 \2/p' "$DBG")
			echo "BENCH memory ${mem:-? ?}"
			memory_done=1
		fi
		out=$("$PP" -H "$DBG" "$ROUNDS") || exit 1
	else
		out=$("$PP" "$ROUNDS") || exit 1
	fi
	echo "BENCH run $rep $c $out"
	if [ -n "$m" ]; then
		rmmod "$m" || { echo "bench: rmmod $m failed"; exit 1; }
	fi
}

# Let boot-time background work finish (idle time passes at wall-clock
# pace under icount sleep=on), then one discarded run.
sleep 2
"$PP" "$ROUNDS" >/dev/null || exit 1

memory_done=0
rep=1
while [ "$rep" -le "$REPS" ]; do
	# rotate: repetition r starts with configuration (r - 1) mod n
	i=0 order=""
	while [ "$i" -lt "$n" ]; do
		k=$(( (rep - 1 + i) % n + 1 ))
		eval "order=\"\$order \${$k}\""
		i=$((i + 1))
	done
	for c in $order; do
		run_one "$rep" "$c"
	done
	rep=$((rep + 1))
done
echo "BENCH done"
