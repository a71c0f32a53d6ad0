#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/bench (runs as /gpulat/run under scripts/vmrun
# --no-load).  Arguments are NAME=VALUE pairs:
#
#   mode=run|snap   run: the workloads under each configuration; snap: the
#                   time of GPULAT_IOC_SNAPSHOT with every family loaded
#   bin=DIR         the static workload programs (tests/bench/*.c)
#   reps=N          repetitions (run mode)
#   configs="..."   configurations to run, in this order before rotation
#   workloads="..." workloads to run: pp hb blk udp irq irqgen
#   pp= hb= blk= udp= irq= irqgen=   units of work per run of each workload
#   calls=N         snapshot calls to time (snap mode)
#   ip=PATH         iproute2's ip (busybox's lacks netns and veth)
#   nobpftrace=WHY  skip the bpftrace configuration, saying WHY
#
# Run mode: every repetition goes through the configurations in an order
# rotated by one each time; each configuration is set up and torn down
# around each workload it applies to (the floor modules hook the
# tracepoints of that workload's family).  Output, one line each:
#   BENCH tps FAMILY TP,TP,...          gpulat's tracepoints, per family
#   BENCH memory FAMILY PCPU SHARED     debugfs, every family on
#   BENCH bpf FAMILY STATE...           the BPF source's families (with a
#                                       bpf_* configuration): attached, or
#                                       not and why (gpulat status)
#   BENCH run REP WORKLOAD CONFIG units N ns T [hits H] [...]
#   BENCH skip CONFIG WORKLOAD REASON...   (WORKLOAD "-": every one)
#   BENCH done
# Snap mode:
#   BENCH memory FAMILY PCPU SHARED
#   BENCH snap calls N median_ns M min_ns A max_ns B bytes S cpus C
#   BENCH done
set -u

mode=run bin=/gpulat/bin reps=1 configs="none" workloads="pp" calls=50 ip=ip
nobpftrace=""
pp=2000 hb=20 blk=1000 udp=1000 irq=500 irqgen=2000
for a in "$@"; do
	case $a in
	mode=* | bin=* | reps=* | configs=* | workloads=* | calls=* | ip=* | nobpftrace=* | \
		pp=* | hb=* | blk=* | udp=* | irq=* | irqgen=*)
		eval "${a%%=*}=\${a#*=}" ;;
	*) echo "bench: unknown argument $a"; exit 2 ;;
	esac
done

MODS=/gpulat/modules
DBG=/sys/kernel/debug/gpulat
TR=/sys/kernel/tracing
FAMILIES="sched block net irq softirq nvidia mm"
BT_OUT=/tmp/bpftrace.out
GPULAT=/gpulat/bin/gpulat
BPF_PIN=/sys/fs/bpf/gpulat

skip() { echo "BENCH skip $*"; }
fail() { echo "bench: $*"; exit 1; }

# --- gpulat ------------------------------------------------------------------

# gpulat_load FAMILY|all: gpulat.ko with that family alone, or every one
gpulat_load() {
	p=""
	if [ "$1" != all ]; then
		for f in $FAMILIES; do
			if [ "$f" = "$1" ]; then p="$p $f=1"; else p="$p $f=0"; fi
		done
	fi
	# shellcheck disable=SC2086 # one word per parameter
	insmod "$MODS/gpulat.ko" $p || fail "insmod gpulat.ko$p failed"
}

# family_tps FAMILY: the tracepoints the family's probes use, comma-separated
family_tps() {
	sed -n '/^probes:/,$s/^  \([a-z0-9_]*\) .*/\1/p' "$DBG/$1" | tr '\n' , | sed 's/,$//'
}

# memory_lines: one BENCH memory line per family that is loaded
memory_lines() {
	for f in $FAMILIES; do
		m=$(sed -n 's/^memory: \([0-9]*\) bytes per CPU, \([0-9]*\) bytes shared$/\1 \2/p' "$DBG/$f")
		[ -n "$m" ] && echo "BENCH memory $f $m"
	done
}

# --- the BPF source ---------------------------------------------------------

# The families the BPF source attaches on this kernel (a source loaded for
# one status command: every family's programs through the verifier), and
# for each other family why not: not in the BPF family table yet ("no
# tracepoints in this module"), tracepoints missing, a verifier refusal.
BPF_FAMS="" BPF_WHY=""
bpf_probe() {
	[ -x $GPULAT ] || { BPF_WHY="no gpulat tool in the guest (make guest-user builds build/guest/bin/gpulat)"; return; }
	[ -f /sys/kernel/btf/vmlinux ] || { BPF_WHY="kernel without BTF"; return; }
	st=$($GPULAT --source bpf status 2>&1) ||
		{ BPF_WHY="gpulat --source bpf status failed: $(echo "$st" | tail -1)"; return; }
	for f in $FAMILIES; do
		s=$(echo "$st" | sed -n "s/^family $f: //p")
		echo "BENCH bpf $f ${s:-not listed}"
		if [ "$s" = attached ]; then
			BPF_FAMS="$BPF_FAMS $f"
		else
			eval "BPF_WHY_$f=\"\${s:-not listed by gpulat status}\""
		fi
	done
}

# bpf_up FAMILY|all: pin the BPF source (gpulat attach), every family but
# FAMILY switched off; prints the -H argument (its hit counters)
bpf_up() {
	$GPULAT --source bpf attach >/dev/null || fail "gpulat --source bpf attach failed"
	off=""
	for f in $BPF_FAMS; do
		[ "$1" = all ] || [ "$f" = "$1" ] || off="$off $f"
	done
	# shellcheck disable=SC2086 # one word per family
	[ -z "$off" ] || $GPULAT --source pinned disable $off >/dev/null ||
		fail "gpulat --source pinned disable$off failed"
	echo $BPF_PIN/maps/gl_cnt
}

bpf_down() {
	$GPULAT --source bpf detach >/dev/null || fail "gpulat --source bpf detach failed"
	[ ! -e $BPF_PIN ] || fail "$BPF_PIN left after gpulat detach"
}

# The BPF floors (tests/bench/bpffloor*.c): links pinned in $BPF_FLOOR
BPF_FLOOR=/sys/fs/bpf/bench-floor
bpf_floor_up() {
	grep -q ' /sys/fs/bpf bpf ' /proc/mounts || mount -t bpf bpf /sys/fs/bpf ||
		fail "cannot mount bpffs"
	"$bin/bpffloor" "$bin/bpffloor.bpf.o" "$1" $BPF_FLOOR "$2" ||
		fail "bpffloor $1 $2 failed"
}

# --- workloads ---------------------------------------------------------------

NULLB="" NS_A=bench-a NS_B=bench-b ADDR_B=10.232.0.2 HAVE_VETH=0 HAVE_NIC=0
HAVE_IRQGEN=0

setup_blk() {
	modprobe null_blk nr_devices=1 irqmode=0 gb=1 bs=4096 \
		queue_mode=2 submit_queues=1 >/dev/null 2>&1 ||
		{ skip - blk "null_blk not loadable"; return; }
	[ -b /dev/nullb0 ] || { skip - blk "no /dev/nullb0"; return; }
	NULLB=/dev/nullb0
}

setup_udp() {
	[ -x "$ip" ] || { skip - udp "no iproute2 ip in the guest"; return; }
	modprobe veth 2>/dev/null
	# shellcheck disable=SC2015 # any failure: skip
	"$ip" netns add $NS_A && "$ip" netns add $NS_B &&
		"$ip" link add bench-a type veth peer name bench-b &&
		"$ip" link set bench-a netns $NS_A &&
		"$ip" link set bench-b netns $NS_B &&
		"$ip" -n $NS_A addr add 10.232.0.1/24 dev bench-a &&
		"$ip" -n $NS_B addr add $ADDR_B/24 dev bench-b &&
		"$ip" -n $NS_A link set bench-a up &&
		"$ip" -n $NS_B link set bench-b up &&
		"$ip" -n $NS_A link set lo up && "$ip" -n $NS_B link set lo up ||
		{ skip - udp "cannot set up a veth pair in two namespaces"; return; }
	# neighbour resolution and carrier, outside any timed run
	"$bin/udpflood" -w 0 -b 1 -S $NS_A -R $NS_B $ADDR_B 7000 16 >/dev/null ||
		{ skip - udp "no traffic over the veth pair"; return; }
	HAVE_VETH=1
}

# The interrupt-heavy workload: UDP broadcast out of the emulated e1000
# NIC (QEMU's user-mode network drops it: no reply, no host socket).  The
# sender spins rather than sleeps when the queue is full, so that icount
# time stays instructions; every transmit completion is a hard IRQ.
setup_irq() {
	ip link show eth0 >/dev/null 2>&1 || { skip - irq "no NIC (scripts/bench passes --net)"; return; }
	ip addr add 10.0.2.15/24 dev eth0 2>/dev/null
	ip link set eth0 up
	i=0
	while ! ip link show eth0 | grep -q LOWER_UP; do
		i=$((i + 1))
		[ $i -gt 50 ] && { skip - irq "eth0 has no carrier"; return; }
		sleep 0.1
	done
	"$bin/udpflood" -o -w 0 10.0.2.255 9 16 >/dev/null ||
		{ skip - irq "cannot send through eth0"; return; }
	HAVE_NIC=1
}

# Interrupts with a known count: tests/kmod/gpulat_irqgen.ko raises one
# hard IRQ of its own (handler "gpulat_irqgen") per unit with
# generic_handle_irq(), no device and no softirq behind it: the same count
# costs the same instructions every time.  Loaded for the whole run.
setup_irqgen() {
	[ -f "$MODS/gpulat_irqgen.ko" ] ||
		{ skip - irqgen "test module not built (scripts/build-module builds tests/kmod/ with GPULAT_TEST_MODULES=y)"; return; }
	insmod "$MODS/gpulat_irqgen.ko" || { skip - irqgen "insmod gpulat_irqgen failed"; return; }
	"$bin/irqgen" -w 0 16 >/dev/null || { skip - irqgen "gpulat_irqgen raises no interrupts"; return; }
	HAVE_IRQGEN=1
}

# wl_family WORKLOAD: the family whose events the workload is made of
wl_family() {
	case $1 in
	pp | hb) echo sched ;;
	blk) echo block ;;
	udp) echo net ;;
	irq | irqgen) echo irq ;;
	esac
}

# wl_ready WORKLOAD: whether its setup worked
wl_ready() {
	case $1 in
	pp | hb) return 0 ;;
	blk) [ -n "$NULLB" ] ;;
	udp) [ $HAVE_VETH = 1 ] ;;
	irq) [ $HAVE_NIC = 1 ] ;;
	irqgen) [ $HAVE_IRQGEN = 1 ] ;;
	*) return 1 ;;
	esac
}

# wl_run WORKLOAD [HITS]: one timed run; prints the workload's line
wl_run() {
	h=""
	[ -n "${2:-}" ] && h="-H $2"
	# shellcheck disable=SC2086 # h is empty or two words
	case $1 in
	pp) "$bin/pingpong" $h "$pp" ;;
	hb) "$bin/hackbench" $h "$hb" ;;
	blk) "$bin/blkread" $h "$NULLB" "$blk" ;;
	udp) "$bin/udpflood" $h -S $NS_A -R $NS_B $ADDR_B 7000 "$udp" ;;
	irq) "$bin/udpflood" $h -o 10.0.2.255 9 "$irq" ;;
	irqgen) "$bin/irqgen" $h "$irqgen" ;;
	esac
}

# --- configurations ----------------------------------------------------------

# applies CONFIG WORKLOAD: whether the configuration is measured there
applies() {
	case $1 in
	none | floor_ret | floor_clock | all | bpf_all | bpf_floor_*) return 0 ;;
	bpf_*) applies "${1#bpf_}" "$2" ;;
	sched | mm) [ "$2" = pp ] || { [ "$1" = sched ] && [ "$2" = hb ]; } ;;
	sched_trace) [ "$2" = pp ] || [ "$2" = hb ] ;;
	nvidia) [ "$2" = pp ] || [ "$2" = irqgen ] ;;
	block) [ "$2" = blk ] ;;
	net) [ "$2" = udp ] ;;
	irq) [ "$2" = irq ] || [ "$2" = irqgen ] ;;
	softirq) [ "$2" = udp ] || [ "$2" = irq ] ;;
	bpftrace) [ "$2" = pp ] || [ "$2" = hb ] || [ "$2" = blk ] ;;
	ftrace) [ "$2" = pp ] || [ "$2" = hb ] ;;
	*) return 1 ;;
	esac
}

# runqlat.bt and biolatency.bt in one program: wakeup -> switch-in per pid,
# block_rq_issue -> block_rq_complete per (dev, sector), log2 histograms.
# shellcheck disable=SC2016 # bpftrace's variables, not the shell's
BT_PROG='
tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new
{ @qtime[args->pid] = nsecs; }
tracepoint:sched:sched_switch
{
	if (args->prev_state == 0) { @qtime[args->prev_pid] = nsecs; }
	$ns = @qtime[args->next_pid];
	if ($ns) { @usecs = hist((nsecs - $ns) / 1000); }
	delete(@qtime[args->next_pid]);
}
tracepoint:block:block_rq_issue
{ @start[args->dev, args->sector] = nsecs; }
tracepoint:block:block_rq_complete
/@start[args->dev, args->sector]/
{
	@bio_usecs = hist((nsecs - @start[args->dev, args->sector]) / 1000);
	delete(@start[args->dev, args->sector]);
}'

BT_PID=""
bpftrace_up() {
	bpftrace -e "$BT_PROG" >$BT_OUT 2>&1 &
	BT_PID=$!
	i=0
	# "Attaching N probes..." comes before the attach: wait a moment more
	while ! grep -q '^Attaching' $BT_OUT 2>/dev/null; do
		kill -0 $BT_PID 2>/dev/null || { cat $BT_OUT; fail "bpftrace exited"; }
		i=$((i + 1))
		[ $i -gt 1200 ] && fail "bpftrace did not attach in 600 s"
		sleep 0.5
	done
	sleep 2
}

# bpftrace_down: SIGINT, then up to 120 s to print its maps and exit (once
# seen hanging there under TCG with 2 vCPUs: then fail, not hang the boot)
bpftrace_down() {
	kill -INT "$BT_PID"
	i=0
	while kill -0 "$BT_PID" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 240 ]; then
			kill -KILL "$BT_PID"
			fail "bpftrace did not exit within 120 s of SIGINT"
		fi
		sleep 0.5
	done
	wait "$BT_PID"
	grep -q '^@usecs' $BT_OUT || { cat $BT_OUT; fail "bpftrace printed no histogram"; }
	BT_PID=""
}

FT_SYNTH='wakeup_latency u64 lat; pid_t pid'
FT_WAKING='hist:keys=pid:ts0=common_timestamp.usecs'
# shellcheck disable=SC2016 # ftrace's variables, not the shell's
FT_SWITCH='hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid)'
FT_LAT='hist:keys=lat.log2'

ftrace_up() {
	# shellcheck disable=SC2015 # any failure: give up
	echo "$FT_SYNTH" >>$TR/synthetic_events &&
		echo "$FT_WAKING" >>$TR/events/sched/sched_waking/trigger &&
		echo "$FT_SWITCH" >>$TR/events/sched/sched_switch/trigger &&
		echo "$FT_LAT" >>$TR/events/synthetic/wakeup_latency/trigger ||
		fail "cannot set up the ftrace histogram"
}

ftrace_down() {
	grep -q '^{ lat: ' $TR/events/synthetic/wakeup_latency/hist ||
		{ cat $TR/events/synthetic/wakeup_latency/hist; fail "the ftrace histogram is empty"; }
	echo "!$FT_LAT" >>$TR/events/synthetic/wakeup_latency/trigger
	echo "!$FT_SWITCH" >>$TR/events/sched/sched_switch/trigger
	echo "!$FT_WAKING" >>$TR/events/sched/sched_waking/trigger
	echo "!$FT_SYNTH" >>$TR/synthetic_events
}

# config_ok CONFIG: whether it can run here; prints a skip line if not
config_ok() {
	case $1 in
	none) return 0 ;;
	floor_ret | floor_clock)
		[ -f "$MODS/gpulat_$1.ko" ] ||
			{ skip "$1" - "test module not built (scripts/build-module builds tests/kmod/ with GPULAT_TEST_MODULES=y)"; return 1; } ;;
	bpftrace)
		[ -z "$nobpftrace" ] || { skip bpftrace - "$nobpftrace"; return 1; }
		command -v bpftrace >/dev/null ||
			{ skip bpftrace - "bpftrace not in the guest (host lacks it: apt-get install bpftrace)"; return 1; }
		[ -f /sys/kernel/btf/vmlinux ] ||
			{ skip bpftrace - "kernel without BTF"; return 1; } ;;
	ftrace)
		[ -f $TR/synthetic_events ] ||
			{ skip ftrace - "kernel without synthetic events (CONFIG_SYNTH_EVENTS)"; return 1; } ;;
	all | sched_trace) return 0 ;;
	bpf_sched_trace) config_ok bpf_sched ;;
	bpf_floor_ret | bpf_floor_raw | bpf_floor_clock)
		# shellcheck disable=SC2015 # either missing: skip
		[ -x "$bin/bpffloor" ] && [ -f "$bin/bpffloor.bpf.o" ] ||
			{ skip "$1" - "BPF floors not built (clang, libbpf-dev on the host)"; return 1; }
		[ -f /sys/kernel/btf/vmlinux ] || { skip "$1" - "kernel without BTF"; return 1; } ;;
	bpf_all)
		[ -n "$BPF_FAMS" ] || { skip bpf_all - "BPF source: ${BPF_WHY:-no family attaches}"; return 1; } ;;
	bpf_*)
		f=${1#bpf_}
		[ -z "$BPF_WHY" ] || { skip "$1" - "BPF source: $BPF_WHY"; return 1; }
		for b in $BPF_FAMS; do
			[ "$b" = "$f" ] && return 0
		done
		eval "why=\${BPF_WHY_$f:-unknown family}"
		case $why in
		*"no tracepoints in this module"*)
			why="family not in the BPF source on this branch (gpulat status: $why)" ;;
		*) why="BPF source: $f $why" ;;
		esac
		skip "$1" - "$why"
		return 1 ;;
	*)
		for f in $FAMILIES; do
			[ "$f" = "$1" ] && return 0
		done
		skip "$1" - "unknown configuration"
		return 1 ;;
	esac
}

# trace_up SOURCE: a trace reader of the sched family's outliers over 5 ms
# (the switch history and the holders' totals kept meanwhile); its pid
# in a file, as config_up runs in a subshell
TRACE_PIDF=/tmp/bench-trace.pid
trace_up() {
	$GPULAT --source "$1" trace -t sched=5ms >/dev/null 2>&1 &
	echo $! >$TRACE_PIDF
	sleep 1
	kill -0 "$(cat $TRACE_PIDF)" 2>/dev/null || fail "gpulat trace did not start"
}

trace_down() {
	kill "$(cat $TRACE_PIDF)" 2>/dev/null
	while kill -0 "$(cat $TRACE_PIDF)" 2>/dev/null; do sleep 0.1; done
	rm -f $TRACE_PIDF
}

# config_up CONFIG WORKLOAD / config_down CONFIG WORKLOAD; config_up prints
# the -H argument for the workload (gpulat's debugfs folder) if any
config_up() {
	case $1 in
	none) ;;
	floor_ret | floor_clock)
		insmod "$MODS/gpulat_$1.ko" "tps=$(eval "echo \$TPS_$(wl_family "$2")")" ||
			fail "insmod gpulat_$1 failed" ;;
	bpftrace) ;;	# started by the caller: it must not run in a subshell
	ftrace) ftrace_up ;;
	bpf_floor_*)
		bpf_floor_up "${1#bpf_}" "$(eval "echo \$TPS_$(wl_family "$2")")" ;;
	bpf_sched_trace) bpf_up sched; trace_up pinned ;;
	bpf_*) bpf_up "${1#bpf_}" ;;
	sched_trace) gpulat_load sched; trace_up kmod; echo $DBG ;;
	*) gpulat_load "$1"; echo $DBG ;;
	esac
}

config_down() {
	case $1 in
	none) ;;
	floor_ret | floor_clock) rmmod "gpulat_$1" || fail "rmmod gpulat_$1 failed" ;;
	bpftrace) ;;	# stopped after the last workload of the configuration
	ftrace) ftrace_down ;;
	bpf_floor_*) rm -r $BPF_FLOOR || fail "cannot remove $BPF_FLOOR" ;;
	bpf_sched_trace) trace_down; bpf_down ;;
	bpf_*) bpf_down ;;
	sched_trace) trace_down; rmmod gpulat || fail "rmmod gpulat failed" ;;
	*) rmmod gpulat || fail "rmmod gpulat failed" ;;
	esac
}

# --- main --------------------------------------------------------------------

# Boot-time background work ends first (idle time passes at wall-clock
# pace under icount sleep=on).
sleep 2

# gpulat's tracepoints and memory, every family on
gpulat_load all
for f in $FAMILIES; do
	t=$(family_tps "$f")
	eval "TPS_$f=\$t"
	echo "BENCH tps $f $t"
done
memory_lines

if [ "$mode" = snap ]; then
	# every family gets data first, so that every series is in the blob
	"$bin/pingpong" -w 100 500 >/dev/null
	"$bin/hackbench" 5 >/dev/null
	echo "BENCH snap $("$bin/snapbench" -n "$calls")" || fail "snapbench failed"
	# outlier -> a trace reader: a hog and a sleeper on CPU 1, reader on 0
	if [ "$(grep -c ^processor /proc/cpuinfo)" -ge 2 ]; then
		"$bin/trace_delay" 3 || fail "trace_delay failed"
	fi
	rmmod gpulat
	echo "BENCH done"
	exit 0
fi
rmmod gpulat || fail "rmmod gpulat failed"

for w in $workloads; do
	case $w in
	blk) setup_blk ;;
	udp) setup_udp ;;
	irq) setup_irq ;;
	irqgen) setup_irqgen ;;
	esac
done
wl=""
for w in $workloads; do
	wl_ready "$w" && wl="$wl $w"
done

case " $configs" in
*" bpf_"*) bpf_probe ;;
esac
cl=""
for c in $configs; do
	config_ok "$c" && cl="$cl $c"
done
# shellcheck disable=SC2086 # one positional parameter per configuration
set -- $cl
n=$#

# one discarded run of each workload: caches, slab, first-touch
for w in $wl; do
	wl_run "$w" >/dev/null || fail "workload $w failed"
done

rep=1
while [ "$rep" -le "$reps" ]; do
	i=0 order=""
	while [ "$i" -lt "$n" ]; do
		k=$(((rep - 1 + i) % n + 1))
		eval "order=\"\$order \${$k}\""
		i=$((i + 1))
	done
	for c in $order; do
		for w in $wl; do
			applies "$c" "$w" || continue
			h=$(config_up "$c" "$w") || exit 1
			[ "$c" = bpftrace ] && [ -z "$BT_PID" ] && bpftrace_up
			out=$(wl_run "$w" "$h") || fail "workload $w under $c failed"
			echo "BENCH run $rep $w $c $out"
			config_down "$c" "$w"
		done
		[ "$c" = bpftrace ] && [ -n "$BT_PID" ] && bpftrace_down
	done
	rep=$((rep + 1))
done
echo "BENCH done"
