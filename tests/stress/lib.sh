# SPDX-License-Identifier: GPL-2.0
# Shared by the stress parts (sourced; busybox sh in the guest).
#
# TAP:        ok DESC, not_ok DESC, check DESC CMD..., diag TEXT, results FILE,
#             done_part (prints the plan and exits)
# Module:     gl_load [PARAMS], gl_unload, gl_loaded; GL_PARAMS are the
#             per-load table sizes every part loads with
# Load:       env_setup (null_blk, veth + netem, eth0 + the fake nvidia
#             IRQ), load_start, load_stop: every family's load
# Memory:     mem_snap FILE, mem_check LABEL FILE0 FILE1 (Slab, SUnreclaim,
#             VmallocUsed, Percpu bounds)
# Tracing:    reader_start NAME ARGS... / reader_stop NAME (gpulat trace in
#             the background; its summary line is asserted on), trace_debugfs
#
# STRESS_QUICK=1 selects the short form (set by run.sh --quick).
set -u
MOD=/gpulat/modules
ST=/gpulat/stress
W=/tmp/stress
PATH=$ST:$PATH
mkdir -p $W
QUICK=${STRESS_QUICK:-0}
# factor on the parts' own waits, as on run.sh's limits (slow kernels)
SCALE=${GPULAT_TIMEOUT_SCALE:-1}

# Per-load tables large enough that one load's leak shows in /proc/meminfo
# (as debugfs "memory:" lines report them on 6.1, 4 possible CPUs):
#   sched   4 MiB shared (sched_slots=524288 stamps)
#   mm      4 MiB shared (mm_slots=262144, two kinds)
#   block  10.5 MiB shared (block_inflight=262144: 6 MiB; block_max_disks=256)
#   net     9.6 MiB shared (net_inflight=262144: 6 MiB; net_max_devs=1024)
#   irq     3.7 MiB shared (irq_max_handlers=2048)
#   nvidia  3.7 MiB shared (nvidia_max_keys=512)
#   per CPU about 38 KiB of histograms (softirq 27 KiB), and the outlier
#   rings once read: trace_ring=128 records of 192 bytes
# Each shared table is larger than the bounds of mem_check below.
GL_PARAMS="sched_slots=524288 mm_slots=262144 block_inflight=262144 \
net_inflight=262144 irq_max_handlers=2048 nvidia_max_keys=512 \
block_max_disks=256 net_max_devs=1024 trace_ring=128"

# Growth allowed between the warm-up and the end of a part, in kB.  One
# load's smallest shared table (net's devices, 3728 kB) leaked exceeds each
# of the first three, whichever of kmalloc and vmalloc kvmalloc took it
# from; the most growth seen without a leak was 1280 kB of Slab (hotplug:
# the kernel's own per-CPU caches).  Percpu counts populated per-CPU pages,
# so one leaked load may fit into pages already populated; a leak every
# cycle (at least 150 KiB: 38 KiB of histograms on each of 4 CPUs) passes
# 256 kB within a few cycles.
BOUND_SLAB=3072
BOUND_SUNRECLAIM=3072
BOUND_VMALLOC=2048
BOUND_PERCPU=256

n=0
fail=0
echo "TAP version 13"
ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n $*"; }
diag() { echo "# $*"; }
# check DESC CMD...: one result line for a command's status
check() {
	_check_desc=$1
	shift
	if "$@"; then ok "$_check_desc"; else not_ok "$_check_desc"; fi
}
# results FILE: a program's "ok - X" / "not ok - X" lines (stress.h)
# numbered into this part's TAP; other lines as they are
results() {
	while IFS= read -r _line; do
		case $_line in
		"ok - "*) ok "${_line#ok - }" ;;
		"not ok - "*) not_ok "${_line#not ok - }" ;;
		*) echo "$_line" ;;
		esac
	done <"$1"
}
# done_part: the plan (at the end: the count depends on where a part
# stopped) and the part's exit status
done_part() { echo "1..$n"; exit $fail; }

now() { cut -d' ' -f1 /proc/uptime; }
# elapsed T0: seconds since uptime T0, one decimal
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# On any exit: the load stopped, readers gone, every CPU online, so that
# the next part starts from a clean guest.
cleanup() {
	load_stop
	for _pf in $W/*.pid; do
		[ -f "$_pf" ] && kill -KILL "$(cat "$_pf")" 2>/dev/null
		rm -f "$_pf"
	done
	for _f in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$_f")" = 1 ] || echo 1 >"$_f"
	done
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# --- The module --------------------------------------------------------------

gl_loaded() { [ -d /sys/module/gpulat ]; }

# gl_load [PARAMS...]: insmod with the large tables (and PARAMS)
gl_load() {
	insmod $MOD/gpulat.ko $GL_PARAMS "$@"
}

# gl_unload: rmmod; retried for up to 10 s times SCALE (said so: every
# user of the device has exited by then, so a retry is worth a look)
gl_unload() {
	_i=0
	while ! rmmod gpulat 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -ge $((20 * SCALE)) ] && { rmmod gpulat; return 1; }
		sleep 0.5
	done
	[ $_i = 0 ] || echo "# rmmod succeeded after $_i retries"
	! gl_loaded
}

# --- Memory ------------------------------------------------------------------

# mem_snap FILE: Slab SUnreclaim VmallocUsed Percpu (kB) once the kernel
# has freed what RCU and the reclaimable caches hold
mem_snap() {
	sleep 1
	sync
	echo 2 >/proc/sys/vm/drop_caches
	sleep 0.5
	awk '/^(Slab|SUnreclaim|VmallocUsed|Percpu):/ { v[$1] = $2 }
	     END { print v["Slab:"], v["SUnreclaim:"], v["VmallocUsed:"], v["Percpu:"] }' \
		/proc/meminfo >"$1"
}

# kasan: whether the kernel has KASAN, whose quarantine keeps freed slab
# objects allocated for a while (up to 1/32 of memory): Slab and SUnreclaim
# then grow without a leak, and kmemleak (which vmrun runs on such debug
# kernels after the script) is the leak check there
kasan() {
	[ -f $W/kasan ] || { grep -qw kasan_report /proc/kallsyms && echo 1 || echo 0; } >$W/kasan
	[ "$(cat $W/kasan)" = 1 ]
}

# mem_check LABEL FILE0 FILE1: one result per figure, both printed
mem_check() {
	set -- "$1" $(cat "$2") $(cat "$3")
	_l=$1
	shift
	_mc() {
		_g=$(($3 - $2))
		if [ "$1" != VmallocUsed ] && [ "$1" != Percpu ] && kasan; then
			ok "$_l: $1 ${2} kB after warm-up, ${3} kB at the end (grew $_g kB) # SKIP KASAN quarantine; kmemleak checks leaks here"
		elif [ $_g -le $4 ]; then
			ok "$_l: $1 ${2} kB after warm-up, ${3} kB at the end (grew $_g kB, bound $4 kB)"
		else
			not_ok "$_l: $1 ${2} kB after warm-up, ${3} kB at the end (grew $_g kB, bound $4 kB)"
		fi
	}
	_mc Slab "$1" "$5" $BOUND_SLAB
	_mc SUnreclaim "$2" "$6" $BOUND_SUNRECLAIM
	_mc VmallocUsed "$3" "$7" $BOUND_VMALLOC
	_mc Percpu "$4" "$8" $BOUND_PERCPU
}

# --- Processes ---------------------------------------------------------------

# descendants PID: its children, grandchildren, ...
descendants() {
	for _s in /proc/[0-9]*/stat; do
		read -r _p _ _ _pp _ 2>/dev/null <"$_s" || continue
		[ "$_pp" = "$1" ] && { echo "$_p"; descendants "$_p"; }
	done
}

# kill_tree PID...: the processes and everything they started
kill_tree() {
	for _k in "$@"; do
		_kids=$(descendants "$_k")
		kill -KILL "$_k" $_kids 2>/dev/null
	done
	for _k in "$@"; do wait "$_k" 2>/dev/null; done
	return 0
}

# --- Every family's load -----------------------------------------------------

NS_A=gls-a
NS_B=gls-b
ADDR_A=10.232.0.1
ADDR_B=10.232.0.2

# find_iproute NAME: iproute2's ip or tc (busybox has applets of the names)
find_iproute() {
	for _d in /usr/sbin /usr/bin /sbin /bin; do
		[ -x "$_d/$1" ] && "$_d/$1" -V 2>&1 | grep -q iproute2 &&
			{ echo "$_d/$1"; return 0; }
	done
	return 1
}

# eth_irq: eth0's IRQ line from /proc/interrupts
eth_irq() {
	awk '/eth0/ { sub(":", "", $1); print $1; exit }' /proc/interrupts
}

# env_setup: the devices the load needs, once per boot
env_setup() {
	[ -f $W/env.done ] && return 0
	_e=0
	if ! [ -b /dev/nullb0 ]; then
		modprobe null_blk nr_devices=2 gb=4 irqmode=2 \
			completion_nsec=100000 hw_queue_depth=64 || _e=1
	fi
	IP=$(find_iproute ip) && TC=$(find_iproute tc) || {
		echo "# no iproute2 ip/tc (vmrun --add them)"; _e=1; }
	if [ $_e = 0 ]; then
		modprobe veth && modprobe sch_netem || _e=1
		$IP netns add $NS_A && $IP netns add $NS_B &&
		$IP link add gls-va type veth peer name gls-vb &&
		$IP link set gls-va netns $NS_A && $IP link set gls-vb netns $NS_B &&
		$IP -n $NS_A addr add $ADDR_A/24 dev gls-va &&
		$IP -n $NS_B addr add $ADDR_B/24 dev gls-vb &&
		$IP -n $NS_A link set gls-va up && $IP -n $NS_B link set gls-vb up &&
		$IP -n $NS_A link set lo up && $IP -n $NS_B link set lo up &&
		$TC -n $NS_A qdisc add dev gls-va root netem delay 1ms limit 10000 ||
			{ echo "# veth/netem setup failed"; _e=1; }
	fi
	if ip link show eth0 >/dev/null 2>&1; then
		udhcpc -i eth0 -n -q -t 20 -T 1 >/dev/null 2>&1 ||
			{ echo "# udhcpc on eth0 failed"; _e=1; }
		_irq=$(eth_irq)
		if [ -n "$_irq" ] && [ -f $MOD/gpulat_fake_nvidia.ko ]; then
			insmod $MOD/gpulat_fake_nvidia.ko irq="$_irq" ||
				{ echo "# fake nvidia module failed"; _e=1; }
		else
			echo "# no eth0 IRQ or no gpulat_fake_nvidia.ko"; _e=1
		fi
	else
		echo "# no eth0 (vmrun --net)"; _e=1
	fi
	[ $_e = 0 ] && touch $W/env.done
	return $_e
}

# Hogs spin HOG_SPIN_US, then sleep HOG_PAUSE_US (99% busy): a vCPU that
# never idles holds QEMU's one TCG thread for its whole 100 ms slice, and
# every IPI of a tracepoint (un)registration waits for the slices of all
# busy vCPUs; the short pause lets them through (HOG_PAUSE_US=0: no pause).
HOG_SPIN_US=${HOG_SPIN_US:-10000}
HOG_PAUSE_US=${HOG_PAUSE_US:-100}
# The load runs at this nice level: it keeps every CPU busy and every
# probe firing, while the part's own commands (insmod, rmmod, gpulat) still
# get a CPU in reasonable time under emulation.
LOAD_NICE=${LOAD_NICE:-19}

# load_start: a hog per online CPU and a sleeper storm (sched), O_DIRECT
# IO on a null_blk disk (block), UDP over veth through netem (net, softirq),
# ping over eth0 whose IRQ the fake nvidia handler shares (irq, nvidia),
# buffered reads of a second null_blk disk beside an anonymous toucher and
# background compaction (mm)
load_start() {
	env_setup || return 1
	rm -f $W/load.stop
	LOAD_PIDS=""
	for _c in $(online_cpus); do
		taskset -c "$_c" nice -n $LOAD_NICE stress_load hog $HOG_SPIN_US $HOG_PAUSE_US &
		LOAD_PIDS="$LOAD_PIDS $!"
	done
	nice -n $LOAD_NICE stress_load sleepers 8 500 &
	LOAD_PIDS="$LOAD_PIDS $!"
	nice -n $LOAD_NICE stress_load blk /dev/nullb0 &
	LOAD_PIDS="$LOAD_PIDS $!"
	nice -n $LOAD_NICE stress_load udp /run/netns/$NS_A $ADDR_B 9 2000 &
	LOAD_PIDS="$LOAD_PIDS $!"
	nice -n $LOAD_NICE ping -q -i 0.02 10.0.2.2 >/dev/null 2>&1 &
	LOAD_PIDS="$LOAD_PIDS $!"
	nice -n $LOAD_NICE stress_load mem 96 &
	LOAD_PIDS="$LOAD_PIDS $!"
	( while [ ! -e $W/load.stop ]; do
		nice -n $LOAD_NICE dd if=/dev/nullb1 of=/dev/null bs=1M count=512 2>/dev/null
	  done ) &
	LOAD_PIDS="$LOAD_PIDS $!"
	( while [ ! -e $W/load.stop ]; do
		sleep 5
		echo 1 >/proc/sys/vm/compact_memory
	  done ) &
	LOAD_PIDS="$LOAD_PIDS $!"
	echo "$LOAD_PIDS" >$W/load.pids
	return 0
}

load_stop() {
	touch $W/load.stop
	[ -f $W/load.pids ] && kill_tree $(cat $W/load.pids)
	rm -f $W/load.pids
}

online_cpus() {
	for _f in /sys/devices/system/cpu/cpu[0-9]*; do
		_c=${_f##*cpu}
		if [ ! -f "$_f/online" ] || [ "$(cat "$_f/online")" = 1 ]; then
			echo "$_c"
		fi
	done
}

# --- gpulat trace readers ----------------------------------------------------

# reader_start NAME ARGS...: gpulat trace ARGS in the background (text to
# /dev/null, its summary to $W/NAME.err)
reader_start() {
	_r=$1
	shift
	gpulat trace "$@" >/dev/null 2>$W/$_r.err &
	echo $! >$W/$_r.pid
}

# reader_stop NAME: SIGINT, then its summary into R_OUTLIERS and R_LOST;
# fails if it had died, did not exit 0 or printed no summary (run it in
# this shell, not in $(...): only this shell can wait for the reader)
reader_stop() {
	_rn=$1
	_p=$(cat $W/$_rn.pid)
	rm -f $W/$_rn.pid
	R_OUTLIERS=0 R_LOST=0
	if ! kill -0 "$_p" 2>/dev/null; then
		echo "# reader $_rn died early:"
		sed 's/^/#   /' $W/$_rn.err
		wait "$_p"
		return 1
	fi
	kill -INT "$_p"
	wait "$_p"
	_rc=$?
	_s=$(sed -n 's/^gpulat: \([0-9]*\) outliers, [0-9]* events, \([0-9]*\) records lost.*/\1 \2/p' $W/$_rn.err)
	if [ $_rc != 0 ] || [ -z "$_s" ]; then
		echo "# reader $_rn: exit $_rc:"
		sed 's/^/#   /' $W/$_rn.err
		return 1
	fi
	set -- $_s
	R_OUTLIERS=$1 R_LOST=$2
}

# trace_debugfs FIELD: "written", "lost" or "readers" from debugfs
trace_debugfs() {
	case $1 in
	written) sed -n 's/^records written //p' /sys/kernel/debug/gpulat/trace ;;
	lost) sed -n 's/^records lost by readers //p' /sys/kernel/debug/gpulat/trace ;;
	readers) sed -n 's/^readers \([0-9][0-9]*\)$/\1/p' /sys/kernel/debug/gpulat/trace ;;
	esac
}

# debugfs_all: read every file of the module's debugfs folder
debugfs_all() {
	for _f in /sys/kernel/debug/gpulat/*; do
		cat "$_f" >/dev/null || return 1
	done
	grep -q '^count' /sys/kernel/debug/gpulat/sched
}

# version_ok: the version ioctl answers with our major (printed as a comment)
version_ok() {
	_v=$(stress_util version) || { echo "# version ioctl: ${_v:-failed}"; return 1; }
	echo "# version ioctl: $_v"
}

# hist_json_ok: a snapshot parses through gpulat hist --json
hist_json_ok() {
	gpulat hist --json >$W/hist.json 2>$W/hist.err || { cat $W/hist.err; return 1; }
	stress_util json <$W/hist.json >$W/json.out || { cat $W/json.out; return 1; }
}
