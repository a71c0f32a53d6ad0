#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source, block family: O_DIRECT reads and writes of a loop device
# over a file on tmpfs (else of null_blk's nullb0, where the kernel has
# it) are requests to that disk, one per 4 KiB block:
# its series (key: dev_t as MAJOR << 20 | MINOR, named after the disk)
# count them.  Reads with no I/O scheduler go straight to the driver
# (device time only); writes through mq-deadline are timed in the queue
# too.  `hist -D` and `trace` name the disk.
. "$(dirname "$0")/lib.sh"

N=1000
SLACK=10		# other requests to the disk (a udev probe) at most
IMG=
LOOP=

blk_cleanup() {
	[[ -n $LOOP ]] && losetup -d "$LOOP" 2>/dev/null
	[[ -n $IMG ]] && rm -f "$IMG"
}
trap 'blk_cleanup; t_cleanup' EXIT

# note JSON SERIES...: the counts read, as a TAP comment
note() {
	local f=$1
	shift
	"$PY" - "$f" "$disk" "$@" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
c = {s["name"]: s["count"] for s in d["series"] if s["key_name"] == sys.argv[2]}
print("# " + sys.argv[2] + ": " +
      ", ".join("%s %s" % (n, c.get(n, 0)) for n in sys.argv[3:]) +
      "; drops " + ", ".join("%s %d" % (k[6:], v) for k, v in d["drops"].items()))
PYEOF
}

# io DELAY ARGS...: dd of N 4 KiB blocks after DELAY seconds, in the
# background (inside the interval of the command that follows)
io() {
	local delay=$1
	shift
	spawn sh -c "sleep $delay; exec dd bs=4k count=$N $*"
	IO_PID=$!
}

# span ARGS...: seconds for an interval that holds one such dd, from a
# run of it now (not measured): 1 s before it, three times its time after
span() {
	local t0 t1
	t0=$(date +%s%N)
	dd bs=4k count=$N "$@" 2>/dev/null
	t1=$(date +%s%N)
	echo $(((t1 - t0) * 3 / 1000000000 + 3))
}

# io_done WHAT: the dd of the interval ended inside it
io_done() {
	if kill -0 "$IO_PID" 2>/dev/null; then
		not_ok "$1 ended inside the interval (the machine is too busy)"
		return 1
	fi
}

dir=/dev/shm
[[ -d $dir && -w $dir ]] || dir=$T_TMP
IMG=$(mktemp "$dir/gpulat-blk.XXXXXX")
truncate -s 64M "$IMG"
if LOOP=$(losetup -f --show "$IMG" 2>/dev/null); then
	dev=$LOOP
elif [[ -b /dev/nullb0 ]]; then
	LOOP=
	dev=/dev/nullb0		# null_blk (a test VM loads it)
else
	LOOP=
	echo "ok 1 # SKIP no loop device (losetup failed) and no null_blk"
	t_done
	exit
fi
disk=$(basename "$dev")
IFS=: read -r major minor <"/sys/block/$disk/dev"
key=$(((major << 20) | minor))
sched=/sys/block/$disk/queue/scheduler
echo "# $dev ($major:$minor, key $key)${LOOP:+ over $IMG}"

# --- reads, no scheduler: device time only ------------------------------
echo none >"$sched" 2>/dev/null
# also what a new disk gets read once (partition scan, udev) is over then
secs=$(span if="$dev" of=/dev/null iflag=direct)
sleep 0.5
io 1 if="$dev" of=/dev/null iflag=direct
bpf_hist block "$secs" -D >"$T_TMP/r.json" || not_ok "hist ran (reads)"
io_done "the reads"
note "$T_TMP/r.json" block.read.device block.read.queue
rd="series('block.read.device', key_name='$disk')"
check "block.read.device of $disk counts the $N reads" \
	"$N <= $rd['count'] <= $N + $SLACK" "$T_TMP/r.json"
check "its key is the dev_t, MAJOR << 20 | MINOR" \
	"$rd['key'] == $key" "$T_TMP/r.json"
check "p50 plausible for a tmpfs loop device (1us..50ms)" \
	"1000 <= $rd['p50_ns'] <= 50000000" "$T_TMP/r.json"
check "no queue time without a scheduler, beyond a few requests" \
	"(series('block.read.queue', key_name='$disk') or {'count': 0})['count'] <= $SLACK" \
	"$T_TMP/r.json"
check "no drops: full, negative, keys_full" \
	"d['drops']['block.full'] == d['drops']['block.negative'] == d['drops']['block.keys_full'] == 0" \
	"$T_TMP/r.json"
check "every histogram's buckets sum to its count" \
	"buckets_sum_ok()" "$T_TMP/r.json"

# --- writes through mq-deadline: queue and device time -----------------
if grep -qw mq-deadline "$sched" 2>/dev/null &&
   echo mq-deadline >"$sched" 2>/dev/null; then
	secs=$(span if=/dev/zero of="$dev" oflag=direct conv=notrunc)
	io 1 if=/dev/zero of="$dev" oflag=direct conv=notrunc
	bpf_hist block "$secs" -D >"$T_TMP/w.json" || not_ok "hist ran (writes)"
	io_done "the writes"
	note "$T_TMP/w.json" block.write.queue block.write.device
	wq="series('block.write.queue', key_name='$disk')"
	wd="series('block.write.device', key_name='$disk')"
	check "block.write.device of $disk counts the $N writes" \
		"$N <= $wd['count'] <= $N + $SLACK" "$T_TMP/w.json"
	check "block.write.queue counts them through the scheduler" \
		"$N <= $wq['count'] <= $N + $SLACK" "$T_TMP/w.json"
	check "queue p50 plausible (under 50ms)" \
		"0 < $wq['p50_ns'] <= 50000000" "$T_TMP/w.json"
	check "buckets sum to counts (writes)" "buckets_sum_ok()" \
		"$T_TMP/w.json"
	echo none >"$sched" 2>/dev/null
else
	echo "ok $((T_N + 1)) # SKIP no mq-deadline for $disk"
	T_N=$((T_N + 1))
fi

# --- stale stamps (older than the module's 60 s) swept as expired -------
if command -v bpftool >/dev/null; then
	"$GPULAT" --source bpf hist block --json 3 1 >"$T_TMP/s.json" &
	gp=$!
	put=$(bpf_stale "$gp" block_flight 5)
	wait "$gp" || not_ok "hist ran (stale)"
	check "5 stale stamps swept at the snapshot count as block.expired ($put put)" \
		"$put == 5 and 5 <= d['drops']['block.expired'] <= 5 + $SLACK" \
		"$T_TMP/s.json"
else
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP no bpftool to put stale stamps in"
fi

# --- the text output and the trace name the disk -----------------------
secs=$(span if="$dev" of=/dev/null iflag=direct)
io 1 if="$dev" of=/dev/null iflag=direct
"$GPULAT" --source bpf hist block -D "$secs" 1 >"$T_TMP/h.txt" 2>&1
if grep -Eq "^block\.read\.device +$disk " "$T_TMP/h.txt"; then
	ok "hist block -D names $disk"
else
	not_ok "hist block -D names $disk # $(head -c 300 "$T_TMP/h.txt")"
fi

io 1 if="$dev" of=/dev/null iflag=direct
"$GPULAT" --source bpf trace -t sched=off -t block=1us -d "$secs" \
	>"$T_TMP/t.txt" 2>"$T_TMP/t.err"
io_done "the reads (trace)"
named=$(grep -Ec "block\.read\.device .* disk $disk( |\$)" "$T_TMP/t.txt")
if ((named == N)); then
	ok "trace names $disk ($named of $N reads)"
else
	not_ok "trace names $disk # $named lines: $(head -c 300 "$T_TMP/t.txt") $(head -c 200 "$T_TMP/t.err")"
fi
t_done
