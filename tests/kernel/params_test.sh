#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Module parameters that size a table (kmod/sized.h): a value the machine
# cannot hold is refused at load, quietly.  For each such parameter:
#
# - 4294967295 (over every bound) fails with EINVAL;
# - the bound itself loads, or, where its tables need more than 1/8 of
#   RAM, fails with ENOMEM; it must fail where it surely needs more (on
#   a 1 GiB guest: block_max_disks=65535 needs 1.2 GB, more than RAM);
#
# and every failed load leaves no module and, in the kernel log since
# the attempt, exactly one line of the module, "PARAM=VALUE refused: ..."
# with the bytes needed and the machine's RAM (as MemTotal says), and no
# call trace, WARNING, or allocation-failure report.  trace_ring is
# clamped to 8..128, as documented: 4294967295 loads with rings of 128
# and the first reader gets them.  A normal load works afterwards.
set -u
MOD=/gpulat/modules/gpulat.ko
P=/sys/module/gpulat/parameters
U32_MAX=4294967295
KEY_MAX=65535
ENTRIES_MAX=4194304
n=0
fail=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n $1"; }

# PARAM BOUND LEAST: LEAST is a lower bound, in MB (10^6 bytes), of what
# the tables take at BOUND (kmod/: 1,832-byte histograms, 48-byte key
# records, 24-byte in-flight entries and block's 24-byte cgroup entries
# beside them; 8-byte stamps, 3 per pid in mm): where it exceeds 1/8 of
# RAM the bound must be refused
PARAMS="
block_max_disks $KEY_MAX 1200
net_max_devs $KEY_MAX 240
irq_max_handlers $KEY_MAX 120
nvidia_max_keys $KEY_MAX 480
cgroup_max_keys $KEY_MAX 480
block_inflight $ENTRIES_MAX 200
net_inflight $ENTRIES_MAX 100
sched_slots $ENTRIES_MAX 33
mm_slots $ENTRIES_MAX 100
"

ram_kb=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
ram=$((ram_kb * 1024))
share=$((ram / 8))

echo "TAP version 13"
echo "1..$(($(echo "$PARAMS" | grep -c .) * 2 + 3))"
echo "# RAM $ram bytes (MemTotal), a parameter's tables may take $share"

# gpulat.ko out of the way, and back at the end as it was
loaded=""
if lsmod | grep -q "^gpulat "; then
	rmmod gpulat && loaded=1
fi

# since_mark: the kernel log after the last mark
mark=0
set_mark() {
	mark=$((mark + 1))
	echo "params_test: mark $mark" >/dev/kmsg
}
since_mark() { dmesg | sed -n "/params_test: mark $mark\$/,\$p" | sed 1d; }

# The kernel's own lines of a stack dump or an allocation report.
SPLAT='Call Trace|WARNING|cut here|vmalloc error|allocation failure|page allocation|percpu: allocation failed|oom-killer|Out of memory|Hardware name:|BUG:|Oops'

# quiet_refusal WHAT ERRNO_RE LINE_RE OUT: the insmod failed (its output
# OUT) with ERRNO_RE, no module left, the log since the mark clean and
# with one line of the module, matching LINE_RE; 0 if so, else why in $why.
# busybox insmod tries finit_module(), then, on any error, init_module()
# with the file read into memory: the module's init runs twice and says
# its one line each time, so two equal lines are one per attempt.
quiet_refusal() {
	log=$(since_mark)
	all=$(echo "$log" | grep 'gpulat: ' | grep -v 'taint' |
		sed 's/^\[[^]]*\] *//')
	own=$(echo "$all" | sort -u)
	why=""
	if lsmod | grep -q "^gpulat "; then
		why="the module is loaded"
		rmmod gpulat
	elif ! echo "$4" | grep -qiE "$2"; then
		why="insmod said: $4"
	elif echo "$log" | grep -qE "$SPLAT"; then
		why="kernel log: $(echo "$log" | grep -E "$SPLAT" | head -n 1)"
	elif [ "$(echo "$own" | grep -c .)" != 1 ] ||
	     [ "$(echo "$all" | grep -c .)" -gt 2 ]; then
		why="$(echo "$all" | grep -c .) lines of the module: $all"
	elif ! echo "$own" | grep -qE "$3"; then
		why="its line: $own"
	fi
	[ -n "$why" ] && return 1
	echo "# $own"
	return 0
}

# loads_cleanly: insmod, the module answers, rmmod, log clean
loads_cleanly() {
	why=""
	set_mark
	if ! out=$(insmod $MOD 2>&1); then
		why="insmod failed: $out"
		return 1
	fi
	gpulat status >/dev/null 2>&1 || why="the module does not answer"
	rmmod gpulat || why="${why:-rmmod failed}"
	log=$(since_mark)
	if echo "$log" | grep -qE "$SPLAT"; then
		why="${why:-kernel log: $(echo "$log" | grep -E "$SPLAT" | head -n 1)}"
	fi
	[ -z "$why" ]
}

echo "$PARAMS" | grep . >/tmp/params_test.list
while read -r p bound least; do
	# over the bound: EINVAL, one line naming the bound
	set_mark
	if out=$(insmod $MOD "$p=$U32_MAX" 2>&1); then
		rmmod gpulat
		not_ok "$p=$U32_MAX loaded"
	elif quiet_refusal "$p" 'invalid argument' \
		"$p=$U32_MAX refused: over its bound of $bound \(its tables would need [0-9]+ bytes; this machine has $ram bytes of RAM\)" \
		"$out"; then
		ok "$p=$U32_MAX refused (EINVAL), one line, no splat"
	else
		not_ok "$p=$U32_MAX: $why"
	fi

	# the bound: over 1/8 of RAM refused (ENOMEM), else it loads
	must=0
	[ $((least * 1000000)) -gt $share ] && must=1
	set_mark
	if out=$(insmod $MOD "$p=$bound" 2>&1); then
		why=""
		gpulat status >/dev/null 2>&1 || why="the module does not answer"
		rmmod gpulat || why="${why:-rmmod failed}"
		log=$(since_mark)
		if [ $must = 1 ]; then
			not_ok "$p=$bound loaded, though it needs more than $least MB"
		elif echo "$log" | grep -qE "$SPLAT"; then
			not_ok "$p=$bound: kernel log: $(echo "$log" | grep -E "$SPLAT" | head -n 1)"
		elif [ -n "$why" ]; then
			not_ok "$p=$bound: $why"
		else
			ok "$p=$bound loads and unloads (its tables fit 1/8 of RAM)"
		fi
	elif quiet_refusal "$p" 'memory' \
		"$p=$bound refused: its tables need [0-9]+ bytes \([0-9]+ MiB\), over 1/8 of this machine's $ram bytes of RAM|$p=$bound: cannot allocate its tables, [0-9]+ bytes" \
		"$out"; then
		need=$(echo "$own" | sed -n 's/.*tables need \([0-9]*\) bytes.*/\1/p')
		if [ -z "$need" ] && [ $must = 0 ]; then
			# fits the share, yet the memory was not there: said so
			ok "$p=$bound did not allocate, one line, no splat"
		elif [ -n "$need" ] && [ "$need" -gt $share ]; then
			ok "$p=$bound refused (ENOMEM), one line, no splat"
		else
			not_ok "$p=$bound: ${need:-?} bytes, 1/8 of RAM $share: $own"
		fi
	else
		not_ok "$p=$bound: $why"
	fi
done </tmp/params_test.list

# a family off at load may be switched on later: its tables are checked too
set_mark
if out=$(insmod $MOD block=0 "block_max_disks=$U32_MAX" 2>&1); then
	rmmod gpulat
	not_ok "block=0 block_max_disks=$U32_MAX loaded"
elif quiet_refusal block_max_disks 'invalid argument' \
	"block_max_disks=$U32_MAX refused" "$out"; then
	ok "block=0 block_max_disks=$U32_MAX refused too"
else
	not_ok "block=0 block_max_disks=$U32_MAX: $why"
fi

# trace_ring: clamped, never refused; the first reader gets its rings
set_mark
if insmod $MOD "trace_ring=$U32_MAX"; then
	rings=$(sed -n 's/^records per CPU ring //p' /sys/kernel/debug/gpulat/trace)
	echo 0.001 >$P/sched_threshold_us
	dd if=/dev/gpulat of=/dev/null bs=4096 count=1 2>/dev/null
	rc=$?
	rmmod gpulat
	log=$(since_mark)
	if [ "$rings" = 128 ] && [ $rc -eq 0 ] &&
	   ! echo "$log" | grep -qE "$SPLAT"; then
		ok "trace_ring=$U32_MAX loads with rings of 128, read once"
	else
		not_ok "trace_ring=$U32_MAX: rings of $rings, read $rc, log: $(echo "$log" | grep -E "$SPLAT" | head -n 1)"
	fi
else
	not_ok "trace_ring=$U32_MAX: no load"
fi

# a normal load after all of it
if loads_cleanly; then
	ok "a normal load works afterwards"
else
	not_ok "normal load: $why"
fi

rm -f /tmp/params_test.list
[ -z "$loaded" ] || insmod $MOD || fail=1
exit $fail
