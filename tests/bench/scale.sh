#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/bench-scale (runs as /gpulat/run under
# scripts/vmrun --no-load): a host with many keys (disks, network devices,
# IRQ handlers, cgroups), then for each source what gpulat costs there:
# memory, snapshot time, gpulat serve's /metrics and its CPU time.
# Arguments are NAME=VALUE pairs:
#
#   bin=DIR        scaleload, scalesnap (static, tests/bench/)
#   irqmany=KO     gpulat_irqmany.ko built for this kernel
#   ip=PATH        iproute2's ip; curl=PATH gzip=PATH the host's
#   disks=N        null_blk disks (16)         veths=N   veth pairs (8)
#   irqs=N         IRQ handlers (256)          cgroups=N cgroups (100)
#   calls=N        snapshots timed (50)        cpu_s=S   serve's CPU window (60)
#   scrapes=N      /metrics scrapes timed (5)  sources="kmod bpf"
#   serve_args=".." more options for gpulat serve (e.g. --verdict 0)
#
# Output, one line each (the host's report parses them):
#   SCALE setup KEY VALUE                what was built, and how many
#   SCALE ref gzip_ns NS bytes N         the reference workload (below),
#                                        at the start and at the end
#   SCALE SOURCE mem KEY VALUE           memory, in bytes
#   SCALE SOURCE snap calls N median_ns M min_ns A max_ns B bytes S series K cpus C
#   SCALE SOURCE metrics KEY VALUE       bytes, gzip6_bytes, gzip_http_bytes
#                                        (0: the server does not compress),
#                                        series, scrape_ns (median), scrape_max_ns,
#                                        gzip_scrape_ns (one, Accept-Encoding: gzip)
#   SCALE SOURCE serve cpu_ticks T wall_s W hz H rss_kb R
#   SCALE skip SOURCE REASON...
#   SCALE done
#
# The reference workload: the host's gzip -6 on a fixed input (busybox
# seq 1 200000), timed in the guest as the host's scripts/bench-scale
# times it there, so that the report can say how much slower this guest
# runs user-space code than the host.
set -u

bin=/gpulat/bin irqmany="" ip=ip curl="" gzip="" disks=16 veths=8 irqs=256
cgroups=100 calls=50 cpu_s=60 scrapes=5 sources="kmod bpf" serve_args=""
for a in "$@"; do
	case $a in
	bin=* | irqmany=* | ip=* | curl=* | gzip=* | disks=* | veths=* | irqs=* | \
		cgroups=* | calls=* | cpu_s=* | scrapes=* | sources=* | serve_args=*)
		eval "${a%%=*}=\${a#*=}" ;;
	*) echo "scale: unknown argument $a"; exit 2 ;;
	esac
done

MODS=/gpulat/modules
DBG=/sys/kernel/debug/gpulat
GPULAT=/gpulat/bin/gpulat
HTTP_GPULAT=/gpulat/dyn/gpulat	# the dynamic build: HTTP (libmicrohttpd)
CG=/sys/fs/cgroup/scale
PORT=9464
FAMILIES="sched block net irq softirq nvidia mm cgroup"

fail() { echo "scale: $*"; exit 1; }
setup() { echo "SCALE setup $*"; }

# meminfo KEY: the kB of /proc/meminfo's line, in bytes
meminfo() { awk -v k="$1:" '$1 == k { print $2 * 1024 }' /proc/meminfo; }
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# --- the host -------------------------------------------------------------

setup cpus "$(grep -c ^processor /proc/cpuinfo)"
setup possible "$(cat /sys/devices/system/cpu/possible)"
setup kernel "$(uname -r)"
setup serve_args "${serve_args:-none}"

modprobe null_blk nr_devices="$disks" gb=1 bs=4096 ||
	fail "modprobe null_blk nr_devices=$disks failed"
n=0
for d in /dev/nullb*; do [ -b "$d" ] && n=$((n + 1)); done
setup disks $n

modprobe veth 2>/dev/null
i=0
# shellcheck disable=SC2015 # any step failing fails the run
while [ $i -lt "$veths" ]; do
	"$ip" netns add scale$i &&
		"$ip" link add scale-a$i type veth peer name scale-b$i &&
		"$ip" link set scale-b$i netns scale$i &&
		"$ip" addr add 10.240.$i.1/24 dev scale-a$i &&
		"$ip" -n scale$i addr add 10.240.$i.2/24 dev scale-b$i &&
		"$ip" link set scale-a$i up &&
		"$ip" -n scale$i link set scale-b$i up &&
		"$ip" -n scale$i link set lo up || fail "veth pair $i"
	i=$((i + 1))
done
setup veth_pairs "$veths"
# the root namespace's devices, and the other end of each pair
setup netdevs "$(($(ls /sys/class/net | wc -l) + veths))"

if [ -n "$irqmany" ] && insmod "$irqmany" count="$irqs"; then
	setup irq_handlers_added "$irqs"
else
	echo "SCALE skip irqmany no gpulat_irqmany.ko (or it failed to load)"
fi
setup irq_actions "$(awk 'NR > 1 && $1 ~ /^[0-9]+:$/' /proc/interrupts | wc -l)"

# The cgroups, each with one process doing a little I/O, network and CPU
# every second: disk i % disks, veth pair i % veths.
mkdir -p $CG || fail "no cgroup2 at /sys/fs/cgroup"
i=0
while [ $i -lt "$cgroups" ]; do
	c=$CG/cg$i
	mkdir -p $c
	sh -c "echo \$\$ >$c/cgroup.procs && exec $bin/scaleload \
		/dev/nullb$((i % disks)) 10.240.$((i % veths)).2 1000 200" &
	i=$((i + 1))
done
sleep 3
setup cgroups "$(ls -d $CG/cg[0-9]* | wc -l)"
setup cgroup_procs "$(cat $CG/cg*/cgroup.procs | wc -l)"

# The reference workload (see above), at the start and at the end: the
# host's other load changes the emulator's pace meanwhile.
ref() {
	[ -n "$gzip" ] || return 0
	seq 1 200000 >/tmp/ref.txt
	# 3 blocks of 5 runs, the fastest block (/proc/uptime: 10 ms ticks)
	best=""
	for _ in 1 2 3; do
		t0=$(uptime_ms)
		for r in 1 2 3 4 5; do
			"$gzip" -6 -c /tmp/ref.txt >/tmp/ref.gz
		done
		t=$((($(uptime_ms) - t0) * 1000000 / 5))
		{ [ -z "$best" ] || [ "$t" -lt "$best" ]; } && best=$t
	done
	echo "SCALE ref gzip_ns $best bytes $(wc -c </tmp/ref.gz)"
	rm -f /tmp/ref.txt /tmp/ref.gz
}
ref

# --- one source -------------------------------------------------------------

# fire: every IRQ handler of irqmany twice, so that each has a key
fire() {
	p=/sys/module/gpulat_irqmany/parameters/fire
	[ -w $p ] && echo 2 >$p
}

# serve_measure SRC KIND: serve on --source KIND, /metrics, its CPU time
serve_measure() {
	src=$1 kind=$2
	if [ ! -x $HTTP_GPULAT ] || [ -z "$curl" ]; then
		echo "SCALE skip $src no HTTP tool or curl in the guest (make guest-dyn)"
		return
	fi
	# shellcheck disable=SC2086 # one word per option
	$HTTP_GPULAT --source "$kind" serve --listen 127.0.0.1:$PORT $serve_args \
		>/tmp/serve.log 2>&1 &
	srv=$!
	i=0
	while ! "$curl" -sf -o /dev/null http://127.0.0.1:$PORT/metrics; do
		i=$((i + 1))
		[ $i -gt 300 ] && { cat /tmp/serve.log; fail "serve answered no /metrics in 60 s"; }
		kill -0 $srv 2>/dev/null || { cat /tmp/serve.log; fail "serve exited"; }
		sleep 0.2
	done
	# a few ticks, so that the page holds intervals, not the first snapshot
	sleep 5
	fire
	sleep 2
	times=""
	r=0
	while [ $r -lt "$scrapes" ]; do
		t=$("$curl" -s -o /tmp/metrics.txt -w '%{time_total}' http://127.0.0.1:$PORT/metrics) ||
			fail "scrape failed"
		times="$times $t"
		r=$((r + 1))
	done
	# shellcheck disable=SC2086 # one word per scrape
	set -- $times
	med=$(printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { printf "%d", a[int((NR + 1) / 2)] * 1e9 }')
	max=$(printf '%s\n' "$@" | sort -n | awk 'END { printf "%d", $1 * 1e9 }')
	# the first scrape of this page that asks for gzip: its compression
	gz_t=$("$curl" -s -H 'Accept-Encoding: gzip' -D /tmp/metrics.hdr -o /tmp/metrics.body \
		-w '%{time_total}' http://127.0.0.1:$PORT/metrics) || fail "gzip scrape failed"
	if grep -qi '^content-encoding: *gzip' /tmp/metrics.hdr; then
		gz_http=$(wc -c </tmp/metrics.body)
	else
		gz_http=0
	fi
	echo "SCALE $src metrics bytes $(wc -c </tmp/metrics.txt)"
	echo "SCALE $src metrics gzip6_bytes $("$gzip" -6 -c /tmp/metrics.txt | wc -c)"
	echo "SCALE $src metrics gzip_http_bytes $gz_http"
	echo "SCALE $src metrics gzip_scrape_ns $(echo "$gz_t" | awk '{ printf "%d", $1 * 1e9 }')"
	echo "SCALE $src metrics series $(grep -vc '^#' /tmp/metrics.txt)"
	echo "SCALE $src metrics families $(grep -c '^# TYPE' /tmp/metrics.txt)"
	echo "SCALE $src metrics scrape_ns $med"
	echo "SCALE $src metrics scrape_max_ns $max"
	# the largest metrics by series, for the reader
	grep -v '^#' /tmp/metrics.txt | sed 's/[{ ].*//; s/_bucket$//; s/_sum$//; s/_count$//' |
		sort | uniq -c | sort -rn | head -8 |
		while read -r c m; do echo "SCALE $src metrics top $m $c"; done
	# BPF: the maps' memory, from serve's file descriptors
	if [ "$kind" = pinned ]; then
		for f in "/proc/$srv/fdinfo"/*; do
			awk '$1 == "map_id:" { id = $2 } $1 == "memlock:" { m = $2 }
			     END { if (id != "") print id, m }' "$f"
		done | sort -u -k1,1n | awk '{ s += $2; n++ } END { printf "%d %d\n", s, n }' >/tmp/memlock
		read -r ml nmaps </tmp/memlock
		echo "SCALE $src mem bpf_memlock $ml"
		echo "SCALE $src mem bpf_maps $nmaps"
	fi
	# CPU over cpu_s seconds at serve's 1 Hz
	c0=$(awk '{ print $14 + $15 }' /proc/$srv/stat)
	w0=$(uptime_ms)
	sleep "$cpu_s"
	c1=$(awk '{ print $14 + $15 }' /proc/$srv/stat)
	w1=$(uptime_ms)
	rss=$(awk '$1 == "VmRSS:" { print $2 }' /proc/$srv/status)
	echo "SCALE $src serve cpu_ticks $((c1 - c0)) wall_ms $((w1 - w0)) hz $(getconf CLK_TCK 2>/dev/null || echo 100) rss_kb $rss"
	kill $srv
	wait $srv 2>/dev/null
}

measure_kmod() {
	p0=$(meminfo Percpu) s0=$(meminfo Slab) v0=$(meminfo VmallocUsed)
	insmod $MODS/gpulat.ko || fail "insmod gpulat.ko failed"
	p1=$(meminfo Percpu) s1=$(meminfo Slab) v1=$(meminfo VmallocUsed)
	echo "SCALE kmod mem module_size $(awk '$1 == "gpulat" { print $2 }' /proc/modules)"
	echo "SCALE kmod mem percpu_delta $((p1 - p0))"
	echo "SCALE kmod mem slab_delta $((s1 - s0))"
	echo "SCALE kmod mem vmalloc_delta $((v1 - v0))"
	echo "SCALE kmod mem vmallocinfo $(awk '/\[gpulat\]/ { s += $2 } END { print s + 0 }' /proc/vmallocinfo)"
	pc=0 sh=0
	for f in $FAMILIES; do
		m=$(sed -n 's/^memory: \([0-9]*\) bytes per CPU, \([0-9]*\) bytes shared$/\1 \2/p' "$DBG/$f" 2>/dev/null)
		[ -n "$m" ] || continue
		# shellcheck disable=SC2086 # two numbers
		set -- $m
		echo "SCALE kmod mem family_$f $1 $2"
		pc=$((pc + $1)) sh=$((sh + $2))
	done
	echo "SCALE kmod mem debugfs_per_cpu $pc"
	echo "SCALE kmod mem debugfs_shared $sh"
	$GPULAT --source kmod watch-cgroup $CG -i 86400 >/dev/null 2>&1 &
	wc=$!
	fire
	sleep 3
	echo "SCALE kmod snap $("$bin/scalesnap" -n "$calls" kmod)" || fail "scalesnap kmod failed"
	serve_measure kmod kmod
	# after the run: what the keyed series took meanwhile
	sh=0
	for f in $FAMILIES; do
		m=$(sed -n 's/^memory: [0-9]* bytes per CPU, \([0-9]*\) bytes shared$/\1/p' "$DBG/$f" 2>/dev/null)
		[ -n "$m" ] && sh=$((sh + m))
	done
	echo "SCALE kmod mem debugfs_shared_end $sh"
	echo "SCALE kmod mem vmallocinfo_end $(awk '/\[gpulat\]/ { s += $2 } END { print s + 0 }' /proc/vmallocinfo)"
	echo "SCALE kmod mem percpu_delta_end $(($(meminfo Percpu) - p0))"
	kill $wc
	wait $wc 2>/dev/null
	rmmod gpulat || fail "rmmod gpulat failed"
}

measure_bpf() {
	[ -f /sys/kernel/btf/vmlinux ] || { echo "SCALE skip bpf kernel without BTF"; return; }
	p0=$(meminfo Percpu) v0=$(meminfo VmallocUsed)
	$GPULAT --source bpf attach >/tmp/attach.log 2>&1 ||
		{ echo "SCALE skip bpf gpulat attach failed: $(tail -1 /tmp/attach.log)"; return; }
	echo "SCALE bpf mem percpu_delta $(($(meminfo Percpu) - p0))"
	echo "SCALE bpf mem vmalloc_delta $(($(meminfo VmallocUsed) - v0))"
	$GPULAT --source pinned status 2>&1 | sed -n 's/^family \([a-z]*\): \(.*\)/SCALE bpf family \1 \2/p'
	$GPULAT --source pinned watch-cgroup $CG -i 86400 >/dev/null 2>&1 &
	wc=$!
	fire
	sleep 3
	echo "SCALE bpf snap $("$bin/scalesnap" -n "$calls" pinned)" || fail "scalesnap pinned failed"
	serve_measure bpf pinned
	kill $wc
	wait $wc 2>/dev/null
	$GPULAT --source bpf detach >/dev/null || fail "gpulat detach failed"
}

for s in $sources; do
	case $s in
	kmod) measure_kmod ;;
	bpf) measure_bpf ;;
	*) fail "unknown source $s" ;;
	esac
done
ref
echo "SCALE done"
