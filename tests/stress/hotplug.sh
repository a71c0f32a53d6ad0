#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# (b) CPU hotplug with the module loaded, under every family's load: CYCLES
# (200; quick: 20) times a CPU goes offline and online again (every fourth
# cycle two CPUs at once), through /sys/devices/system/cpu/cpuN/online.
# Meanwhile two `gpulat trace` readers read (sched=100us, and every other
# family at 1ms) and a loop takes snapshots (`gpulat snapshot`, read back
# with `gpulat hist -i --json`); one more snapshot is taken in each cycle
# while the CPUs are offline.  Asserted: every online write succeeds and
# reads back; every snapshot parses; both readers are alive at the end and
# stop with exit 0 and a summary; each CPU files sched samples after the
# cycles (its probes fire after it came back); rmmod succeeds; kernel
# memory (module loaded) after WARM cycles and at the end stays within
# the bounds of lib.sh.  Needs --smp 3 or more.
# shellcheck source=tests/stress/lib.sh
. /gpulat/stress/lib.sh

CYCLES=200 WARM=10
[ "$QUICK" = 1 ] && CYCLES=20 WARM=6
CPU=/sys/devices/system/cpu

plug=""
for f in $CPU/cpu[0-9]*/online; do
	c=${f#$CPU/cpu}
	plug="$plug ${c%/online}"
done
set -- $plug
if [ $# -lt 2 ]; then
	echo "1..0 # SKIP needs two CPUs that can go offline (--smp 3 or more; have:$plug)"
	exit 4
fi
nplug=$#
diag "CPUs that can go offline:$plug"

gl_loaded && gl_unload
check "every family's load started" load_start
check "insmod with the large tables" gl_load

reader_start hp1 -t sched=100us
reader_start hp2 -t block=1ms -t net=1ms -t irq=1ms \
	-t softirq=1ms -t nvidia=1ms -t mm=1ms
rm -f $W/snap.stop $W/snap.fail
: >$W/snap.count
( while [ ! -e $W/snap.stop ]; do
	if gpulat snapshot -o $W/bg.bin 2>>$W/snap.fail &&
	   gpulat hist -i $W/bg.bin --json 2>>$W/snap.fail |
	   stress_util json >/dev/null; then
		echo >>$W/snap.count
	else
		echo "snapshot failed" >>$W/snap.fail
	fi
  done ) &
snapper=$!

# nth K WORDS...: the K-th word
nth() { shift "$1"; echo "$1"; }

# cpu_set C 0|1: write and read back
cpu_set() {
	echo "$2" >$CPU/cpu$1/online || { echo "# write $2 to cpu$1/online failed"; return 1; }
	[ "$(cat $CPU/cpu$1/online)" = "$2" ] ||
		{ echo "# cpu$1/online reads $(cat $CPU/cpu$1/online) after $2"; return 1; }
}

bad="" snaps=0
t0=$(now)
i=0
while [ $i -lt $CYCLES ]; do
	i=$((i + 1))
	k=$(( (i - 1) % nplug + 1 ))
	a=$(nth $k $plug)
	b=""
	[ $((i % 4)) = 0 ] && b=$(nth $(( k % nplug + 1 )) $plug)
	cpu_set "$a" 0 || { bad="cpu$a offline in cycle $i"; break; }
	if [ -n "$b" ]; then
		cpu_set "$b" 0 || { bad="cpu$b offline in cycle $i"; cpu_set "$a" 1; break; }
	fi
	stress_util snap >$W/snap.out || { bad="snapshot with cpu$a $b offline in cycle $i"; break; }
	snaps=$((snaps + 1))
	[ -n "$b" ] && { cpu_set "$b" 1 || { bad="cpu$b online in cycle $i"; break; }; }
	cpu_set "$a" 1 || { bad="cpu$a online in cycle $i"; break; }
	[ $i = $WARM ] && mem_snap $W/hp.m0
	[ $((i % 50)) = 0 ] && diag "cycle $i of $CYCLES at $(elapsed "$t0")s"
done
diag "$i cycles in $(elapsed "$t0")s; last snapshot: $(cat $W/snap.out)"
# whatever failed: every CPU back online
for c in $plug; do
	[ "$(cat $CPU/cpu$c/online)" = 1 ] || echo 1 >$CPU/cpu$c/online
done
if [ -z "$bad" ]; then
	ok "$CYCLES hotplug cycles, a snapshot with CPUs offline in each ($snaps)"
else
	not_ok "hotplug cycles: $bad"
fi

touch $W/snap.stop
wait $snapper
bg=$(wc -l <$W/snap.count)
if [ -s $W/snap.fail ] || [ "$bg" -lt 1 ]; then
	not_ok "background snapshots: $bg parsed, failures:"
	sed 's/^/#   /' $W/snap.fail | head
else
	ok "background snapshots during the cycles: $bg, each parsed by hist -i --json"
fi

# every CPU files samples again: per CPU, sched.wakeup + sched.preempt grow
sleep 1
for c in $(online_cpus); do
	echo "$(stress_util count sched.wakeup $c) $(stress_util count sched.preempt $c)" >$W/cnt0.$c
done
sleep 2
quiet=""
for c in $(online_cpus); do
	set -- $(cat $W/cnt0.$c) $(stress_util count sched.wakeup $c) $(stress_util count sched.preempt $c)
	d=$(( $3 + $4 - $1 - $2 ))
	diag "cpu$c: $d sched samples in 2 s after the cycles"
	[ $d -gt 0 ] || quiet="$quiet cpu$c"
done
if [ -z "$quiet" ]; then
	ok "each CPU files sched samples after the hotplug cycles"
else
	not_ok "no sched samples after the cycles on:$quiet"
fi

for r in hp1 hp2; do
	if reader_stop $r; then
		diag "reader $r: $R_OUTLIERS outliers, $R_LOST records lost"
		if [ $((R_OUTLIERS + R_LOST)) -gt 0 ]; then
			ok "trace reader $r read through the cycles and stopped cleanly"
		else
			not_ok "trace reader $r got no records through the cycles"
		fi
	else
		not_ok "trace reader $r read through the cycles and stopped cleanly"
	fi
done
check "gpulat hist --json parses after the cycles" hist_json_ok
if [ -z "$bad" ]; then
	mem_snap $W/hp.m1
	mem_check "hotplug cycles $WARM..$CYCLES (loaded)" $W/hp.m0 $W/hp.m1
fi
load_stop
check "rmmod after the hotplug cycles" gl_unload
done_part
