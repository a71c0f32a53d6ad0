#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpulat serve in the VM, on the module, with the static tool (no HTTP
# here: the textfile is the exposition read).
#
# The flight recorder: a run-queue spike (a hog pinned to CPU 1, where a
# nice-19 reader is woken every 2 ms through a FIFO) with a fake Xid in
# its middle writes one bundle, --flight-after seconds later, holding the
# window before and after the Xid: its MANIFEST names the trigger, its
# trace the Xid and the spike's sched outliers (within the window), its
# snapshots read back with gpulat hist.  A second Xid within the gap is
# counted, not written.  An Xid fired before the daemon started is not
# counted.
#
# The exposition against gpulat hist: after O_DIRECT reads of a null_blk
# disk, the textfile's block read device histogram of the disk equals the
# module's totals exactly: _count, +Inf, and the cumulative count at the
# le of each bucket that has samples (le = upper bound - 1 ns).
#
# SIGTERM: exit 0, the threshold given with -t back, no temporary folder.
# SIGUSR1 with a --flight-window longer than the time since boot: a
# bundle from the daemon's first snapshot, counted as cause "signal".
# An Xid whose trace record is lost (the daemon stopped, the ring
# overwritten) still triggers, once, from the snapshot's events.
set -u
MOD=/gpulat/modules
P=/sys/module/gpulat/parameters
T=/tmp/serve-text
F=/tmp/serve-flight
X=/tmp/serve-x
TF=$T/gpulat.prom
LOG=/tmp/serve.log
# The recorder's settings, and the intervals a bundle holds: its window
# runs from the newest snapshot at or before WINDOW s ahead of the
# trigger to the first at or after AFTER s past it, the 10 s of 1 s
# ticks around WINDOW + AFTER = 9 s: 11 snapshots, start.bin, end.bin
# and 9 intervals; fewer where a loaded host made ticks late (each is
# 1 s after the one before at the least), one more for jitter.
WINDOW=6
AFTER=3
GAP=60
MIN_INTERVALS=7
MAX_INTERVALS=10
FIRE=/sys/module/gpulat_fake_xid/parameters/fire
PCI=0000:3b:00.0
n=0
fail=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n $1"; }
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
# wait_for SECS COMMAND...: poll COMMAND every 0.2 s for at most SECS
wait_for() {
	_end=$(($(cut -d. -f1 /proc/uptime) + $1))
	shift
	while ! "$@"; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt $_end ] || return 1
		sleep 0.2
	done
}
# metric LINE-START: the value of the textfile's line starting so
metric() {
	awk -v k="$1" 'substr($0, 1, length(k)) == k &&
		substr($0, length(k) + 1, 1) == " " { print $2; exit }' "$TF"
}
bundles() {
	_c=0
	for _f in "$F"/gpulat-flight-*.tar.gz; do [ -e "$_f" ] && _c=$((_c + 1)); done
	echo $_c
}
has_bundle() { [ "$(bundles)" -ge 1 ]; }
metric_is() { [ "$(metric "$1")" = "$2" ]; }

echo "TAP version 13"
if [ "$(nproc)" -lt 2 ]; then
	echo "1..0 # SKIP needs 2 CPUs (the spike's CPU 1)"
	exit 4
fi
if [ ! -f $MOD/gpulat_fake_xid.ko ]; then
	echo "1..0 # SKIP no gpulat_fake_xid.ko"
	exit 4
fi
echo "1..31"
# Rings of 128 records per CPU (the most, for 32): on a loaded host the
# guest's wakeups come late in bursts, all outliers at 2 ms, and a
# ring overwritten before the daemon reads it loses the Xid's record.
# The provider of the Xid tracepoint loads after gpulat, as the driver.
rmmod gpulat_fake_xid 2>/dev/null
rmmod gpulat
if ! insmod $MOD/gpulat.ko trace_ring=128 || ! insmod $MOD/gpulat_fake_xid.ko; then
	echo "Bail out! cannot load gpulat.ko trace_ring=128 and gpulat_fake_xid.ko"
	rmmod gpulat_fake_xid gpulat 2>/dev/null
	insmod $MOD/gpulat.ko
	exit 1
fi
rm -rf $T $F $X /tmp/gpulat-report.*
mkdir -p $T $F $X
old_thr=$(cat $P/sched_threshold_us)
# before the daemon: in the module's ring of events, not in its counter
echo "79 $PCI" >$FIRE

# The daemon, the test and the FIFO's writer on CPU 0; the spike on 1.
taskset -p -c 0 $$ >/dev/null
taskset -c 0 gpulat serve --textfile $T --flight $F \
	--flight-window $WINDOW --flight-after $AFTER --flight-gap $GAP \
	-t sched=2ms >$LOG 2>&1 &
srv=$!
check "gpulat serve writes $TF at its start" wait_for 30 test -s $TF
check "-t sched=2ms sets the module's threshold while it runs" \
	test "$(cat $P/sched_threshold_us)" = 2000
# more than the window before the trigger
sleep $((WINDOW + 1))

# The spike.
mkfifo /tmp/serve.fifo
nice -n 19 taskset -c 1 sh -c 'while read -r x; do :; done' </tmp/serve.fifo &
sleeper=$!
taskset -c 0 sh -c 'while :; do echo; usleep 2000; done' >/tmp/serve.fifo &
waker=$!
taskset -c 1 sh -c 'while :; do :; done' &
hog=$!
sleep 2
echo "79 $PCI" >$FIRE
sleep 2
kill $hog $waker $sleeper
wait $hog $waker $sleeper 2>/dev/null
rm -f /tmp/serve.fifo

check "one bundle within $((AFTER + 40)) s of the Xid" wait_for $((AFTER + 40)) has_bundle
# within the gap: counted as a trigger, suppressed
echo "79 $PCI" >$FIRE
check "the textfile counts the second Xid as suppressed" \
	wait_for 30 metric_is gpulat_flight_suppressed_total 1
sed -n '/^gpulat: /s/^/# /p' $LOG

check "exactly one bundle in $F ($(bundles); $(ls $F | tr '\n' ' '))" \
	test "$(bundles)" -eq 1 -a "$(ls $F | wc -l)" -eq 1
b=$(ls $F/gpulat-flight-*.tar.gz 2>/dev/null | head -n 1)
check "the bundle unpacks with busybox tar -xzf" tar -xzf "$b" -C $X
top=$(ls -d $X/gpulat-flight-*-*-* 2>/dev/null)
[ -n "$top" ] && [ -d "$top" ] || top=$X/none
check "its one top folder is named as the file" \
	test "$X/$(basename "$b" .tar.gz)" = "$top"
grep -s "^trigger:\|^window:\|^trace:" "$top/MANIFEST" | sed 's/^/# /'
check "MANIFEST: trigger:   Xid 79 on $PCI" \
	grep -q "^trigger:   Xid 79 on $PCI\( \|\$\)" "$top/MANIFEST"

FILES="snapshots/start.bin snapshots/end.bin snapshots/window.txt
snapshots/intervals.txt trace.txt trace.jsonl diagnosis.txt diagnosis.json
host/interrupts-start.txt host/interrupts-end.txt host/kernel.txt"
missing=""
for f in $FILES; do
	[ -s "$top/$f" ] && grep -q "^  $f  " "$top/MANIFEST" || missing="$missing $f"
done
check "the report's sections are in the bundle and its MANIFEST${missing:+ (missing:$missing)}" \
	test -z "$missing"

# the window: start.bin's and end.bin's time
cd "$top" 2>/dev/null || cd $X || exit 1
t0=$(gpulat hist -i snapshots/start.bin -j 2>/dev/null |
	sed -n 's/.*"time_ns":\([0-9]*\).*/\1/p')
t1=$(gpulat hist -i snapshots/end.bin -j 2>/dev/null |
	sed -n 's/.*"time_ns":\([0-9]*\).*/\1/p')
iv=$(ls snapshots/interval-*.bin 2>/dev/null | wc -l)
last=$(printf "snapshots/interval-%03d.bin" "$iv")
echo "# window ${t0:-?} .. ${t1:-?} ns, $iv intervals"
check "interval-001.bin .. interval-$(printf %03d "$iv").bin: $MIN_INTERVALS to $MAX_INTERVALS of them (window $WINDOW s + after $AFTER s)" \
	test "$iv" -ge $MIN_INTERVALS -a "$iv" -le $MAX_INTERVALS -a -s "$last"
txid=$(sed -n 's/.*"type":"xid","time_ns":\([0-9]*\),.*/\1/p' trace.jsonl | head -n 1)
echo "# the Xid at ${txid:-?} ns: $(((${txid:-0} - ${t0:-0}) / 1000000)) ms after start.bin, $(((${t1:-0} - ${txid:-0}) / 1000000)) ms before end.bin"
# the trigger (the Xid read from the trace, within ms) is WINDOW s or
# more past start.bin, end.bin AFTER s or more past the trigger
check "the window holds $WINDOW s before the Xid and $AFTER s after it" \
	test -n "$txid" -a -n "$t0" -a -n "$t1" -a \
	     $(((${txid:-0} - ${t0:-0}) / 1000000)) -ge $((WINDOW * 1000 - 500)) -a \
	     $(((${t1:-0} - ${txid:-0}) / 1000000)) -ge $((AFTER * 1000))
check "gpulat hist -i snapshots/end.bin -f snapshots/start.bin --json" \
	sh -c 'gpulat hist -i snapshots/end.bin -f snapshots/start.bin --json |
		grep -q "\"family\":\"sched\""'

# the trace: the Xid, the spike's outliers, all within the window
xids=$(grep -c "^[0-9.]* cpu[0-9]* Xid 79 on $PCI\$" trace.txt)
check "trace.txt holds the Xid ($xids)" test "$xids" -eq 1
check "trace.jsonl holds the Xid" \
	grep -q "\"type\":\"xid\",.*\"xid\":79,\"device\":\"$PCI\"" trace.jsonl
nsched=$(grep -c '"family":"sched"' trace.jsonl)
nhog=$(grep '"family":"sched"' trace.jsonl | grep -c "\"culprits\":\[{\"pid\":$hog,")
out=$(awk -v a="${t0:-0}" -v b="${t1:-0}" '
	{ if (!match($0, /"time_ns":[0-9]*/)) next
	  t = substr($0, RSTART + 10, RLENGTH - 10) + 0
	  if (t < a || t > b) n++ }
	END { print n + 0 }' trace.jsonl)
echo "# trace.jsonl: $(wc -l <trace.jsonl) records, $nsched sched, $nhog held by the hog ($hog), $out outside the window"
grep '"family":"sched"' trace.jsonl | head -n 2 | sed 's/^/# /'
check "sched outliers of the spike in the trace ($nsched, $nhog held by the hog)" \
	test "$nsched" -gt 0 -a "$nhog" -gt 0 -a "$(grep -c ' sched\.' trace.txt)" -eq "$nsched"
check "every record's time within start.bin .. end.bin" \
	test -n "$t0" -a -n "$t1" -a "$out" -eq 0
cd /

check "gpulat_nvidia_xid_total{gpu=\"$PCI\",xid=\"79\"} 2 (not the one before the start)" \
	metric_is "gpulat_nvidia_xid_total{gpu=\"$PCI\",xid=\"79\"}" 2
check "gpulat_flight_bundles_total 1" metric_is gpulat_flight_bundles_total 1
check "gpulat_flight_triggers_total{cause=\"xid\"} 2" \
	metric_is 'gpulat_flight_triggers_total{cause="xid"}' 2
grep "^gpulat_nvidia_xid\|^gpulat_flight" $TF | sed 's/^/# /'
rm -rf $X

# --- the exposition against gpulat hist: a null_blk disk ---
READS=200
dev="" made=""
if [ -e /sys/block/nullb0 ]; then
	dev=nullb0
elif { [ -d /sys/kernel/config/nullb ] ||
       modprobe null_blk nr_devices=0 >/dev/null 2>&1; } &&
     mkdir /sys/kernel/config/nullb/nullb0 2>/dev/null; then
	made=1
	c=/sys/kernel/config/nullb/nullb0
	echo 64 >$c/size
	echo 2 >$c/irqmode
	echo 100000 >$c/completion_nsec
	echo 1 >$c/power
	# newer kernels name the disk after the folder, older nullb<index>
	if [ -e /sys/block/nullb0 ]; then dev=nullb0
	else dev=nullb$(cat $c/index); fi
fi
# series: the block.read.device histogram of $dev as gpulat hist -j has it
series() {
	gpulat hist block -D --json |
		awk '{ gsub(/[{]"family"/, "\n{\"family\""); print }' |
		grep '"name":"block.read.device"' |
		grep -F "\"key_name\":\"$dev\""
}
count_of() { sed -n 's/.*"count":\([0-9]*\).*/\1/p'; }
if [ -n "$dev" ] && [ -b /dev/$dev ]; then
	c0=$(series | count_of)
	dd if=/dev/$dev of=/dev/null bs=4096 count=$READS iflag=direct 2>/tmp/serve.dd
	rc=$?
	c1=$(series | count_of)
	check "$READS O_DIRECT reads of /dev/$dev counted by the module (${c0:-?} -> ${c1:-?})" \
		test $rc -eq 0 -a -n "$c0" -a -n "$c1" -a "$((c1 - c0))" -eq $READS
	# a textfile from a snapshot taken after the reads
	sleep 1
	since=$(($(date +%s) + 1))
	newer() {
		s=$(metric gpulat_exporter_last_snapshot_timestamp_seconds)
		[ "${s%.*}" -ge $since ] 2>/dev/null
	}
	wait_for 30 newer
	h=$(series)
	L="op=\"read\",stage=\"device\",device=\"$dev\""
	tcount=$(metric "gpulat_block_latency_seconds_count{$L}")
	tinf=$(metric "gpulat_block_latency_seconds_bucket{$L,le=\"+Inf\"}")
	hcount=$(echo "$h" | count_of)
	echo "# textfile: _count $tcount, +Inf $tinf; gpulat hist: count $hcount"
	check "the textfile's _count equals gpulat hist's count, +Inf too" \
		test -n "$hcount" -a "$tcount" = "$hcount" -a "$tinf" = "$hcount"
	# every bucket of gpulat hist with samples: the cumulative count at
	# its le; the textfile's buckets never decrease
	echo "$h" | sed -n 's/.*"buckets":\[\(.*\)\]}.*/\1/p' |
		tr -d '[' | tr ']' '\n' | sed 's/^,//' | grep . >/tmp/serve.buckets
	grep "^gpulat_block_latency_seconds_bucket{$L,le=" $TF |
		sed 's/.*le="\([^"]*\)"} \([0-9]*\)$/\1 \2/' >/tmp/serve.le
	bad=$(awk -F, '
		NR == FNR { le[$1] = $2; next }
		{ cum += $3
		  if ($2 == "null") next
		  ns = $2 - 1
		  s = sprintf("%d.%09d", int(ns / 1e9), ns % 1e9)
		  sub(/0+$/, "", s); sub(/\.$/, "", s)
		  if (le[s] != cum) { printf "le=%s: %s, want %d; ", s, le[s], cum }
		  k++ }
		END { if (!k) print "no bucket" }' FS=' ' /tmp/serve.le FS=, /tmp/serve.buckets)
	echo "# $(wc -l </tmp/serve.buckets) buckets with samples: $(tr '\n' ' ' </tmp/serve.buckets)"
	check "each bucket's cumulative count at its exact le${bad:+ ($bad)}" test -z "$bad"
	check "the cumulative buckets never decrease" \
		awk '$2 < p { exit 1 } { p = $2 }' /tmp/serve.le
else
	skip "O_DIRECT reads counted" "no null_blk disk"
	skip "_count and +Inf" "no null_blk disk"
	skip "buckets at their le" "no null_blk disk"
	skip "cumulative buckets" "no null_blk disk"
fi

# --- SIGTERM ---
# stop: SIGTERM to the daemon; its status in rc, or 124 when it was
# still there after 20 s (then killed)
gone() { [ ! -e /proc/$srv ] || awk '{ exit $3 != "Z" }' /proc/$srv/stat; }
stop() {
	kill -TERM $srv
	if wait_for 20 gone; then
		wait $srv
		rc=$?
	else
		kill -KILL $srv
		wait $srv
		rc=124
	fi
}
stop
sed 's/^/# /' $LOG | tail -n 5
check "SIGTERM: it exits 0 within 20 s ($rc), the threshold back ($(cat $P/sched_threshold_us) us)" \
	test $rc -eq 0 -a "$(cat $P/sched_threshold_us)" = "$old_thr"
check "no temporary folder left (/tmp/gpulat-report.*)" \
	sh -c '! ls -d /tmp/gpulat-report.* 2>/dev/null'
if [ -n "$made" ]; then
	echo 0 >/sys/kernel/config/nullb/nullb0/power
	rmdir /sys/kernel/config/nullb/nullb0
fi

# --- SIGUSR1, a window longer than the time since boot ---
# (CLOCK_MONOTONIC, the snapshots' clock, starts at boot: the window's
# start before it is the daemon's first snapshot)
rm -rf $T $F $X
mkdir -p $T $F $X
taskset -c 0 gpulat serve --textfile $T --flight $F --flight-window 3600 \
	--flight-after 1 --flight-gap 0 >$LOG 2>&1 &
srv=$!
wait_for 30 test -s $TF
sleep 3
up=$(cut -d' ' -f1 /proc/uptime)
kill -USR1 $srv
check "SIGUSR1 $up s after boot, --flight-window 3600: a bundle" \
	wait_for 40 has_bundle
b1=$(ls $F/gpulat-flight-*.tar.gz 2>/dev/null | head -n 1)
check "its MANIFEST: trigger:   SIGUSR1, the verdict then; start.bin, end.bin" \
	sh -c "tar -xzf '$b1' -C $X &&
	       grep -q '^trigger:   SIGUSR1\$' $X/*/MANIFEST &&
	       grep -q '^verdict:   ' $X/*/MANIFEST &&
	       gpulat hist -i $X/*/snapshots/end.bin \
			-f $X/*/snapshots/start.bin >/dev/null"
rm -rf $X
mkdir -p $X

# --- an Xid whose trace record is lost ---
# The daemon stopped, its ring on CPU 0 (128 records) overwritten after
# the Xid by the outliers of a sleeper storm there at a 1 ns threshold
# (600 records written on both CPUs, CPU 1 idle): the
# Xid shows in the next snapshot's events only, and triggers from there.
D=/sys/kernel/debug/gpulat/trace
written() { sed -n 's/^records written //p' $D; }
kill -STOP $srv
echo 0.001 >$P/sched_threshold_us
echo "13 0000:86:00.0" >$FIRE
w0=$(written)
taskset -c 0 sh -c 'while :; do usleep 1; done' &
storm=$!
more() { [ $(($(written) - w0)) -ge 600 ]; }
wait_for 60 more
kill $storm
wait $storm 2>/dev/null
echo "$old_thr" >$P/sched_threshold_us
echo "# $(($(written) - w0)) records written after the Xid, the daemon stopped"
kill -CONT $srv
two() { [ "$(bundles)" -ge 2 ]; }
check "the Xid whose record was lost: a second bundle (--flight-gap 0)" \
	wait_for 40 two
b2=""
for f in "$F"/gpulat-flight-*.tar.gz; do [ "$f" = "$b1" ] || b2=$f; done
tar -xzf "$b2" -C $X 2>/dev/null
grep -s "^trigger:" $X/*/MANIFEST | sed 's/^/# /'
check "its MANIFEST: trigger:   Xid 13 on 0000:86:00.0 (CPU 0; seen in a snapshot, its trace record lost)" \
	grep -qxF "trigger:   Xid 13 on 0000:86:00.0 (CPU 0; seen in a snapshot, its trace record lost)" $X/*/MANIFEST
check "triggers: signal 1, xid 1; bundles 2, none suppressed; records lost counted" \
	wait_for 30 sh -c "grep -qx 'gpulat_flight_triggers_total{cause=\"signal\"} 1' $TF &&
			   grep -qx 'gpulat_flight_triggers_total{cause=\"xid\"} 1' $TF &&
			   grep -qx 'gpulat_flight_bundles_total 2' $TF &&
			   grep -qx 'gpulat_flight_suppressed_total 0' $TF &&
			   ! grep -qx 'gpulat_trace_lost_total 0' $TF"
grep "^gpulat_flight\|^gpulat_trace_lost" $TF | sed 's/^/# /'
stop
sed -n '/^gpulat: /s/^/# /p' $LOG
check "SIGTERM: it exits 0 within 20 s ($rc); no temporary folder left" \
	sh -c "[ $rc -eq 0 ] && ! ls -d /tmp/gpulat-report.* 2>/dev/null"
# the module as the other tests have it
rmmod gpulat_fake_xid
rmmod gpulat
insmod $MOD/gpulat.ko
rm -rf $T $F $X
exit $fail
