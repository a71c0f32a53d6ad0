#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every fallible step of gpulat.ko fails once: gpulat_fault.ko is the same
# sources with fault injection (kmod/fault.h).  For each operation the
# test writes fault_nth = 1, 2, ... on a freshly loaded module and runs
# the operation until it passes with nothing injected.  After each
# injected fault: the operation failed with ENOMEM, the module answers,
# the operation works again without injection, and rmmod works.  The
# module itself WARNs (a splat: the run fails) when it unloads, or fails
# to load, holding an allocation.
set -u
MOD=/gpulat/modules/gpulat_fault.ko
P=/sys/module/gpulat_fault/parameters
ALL_OFF="sched=0 block=0 net=0 irq=0 softirq=0 nvidia=0 mm=0 cgroup=0"
MAX=200
n=0
fail=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n $1"; }
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

echo "TAP version 13"
if [ ! -f "$MOD" ]; then
	echo "1..0 # SKIP no $MOD (scripts/build-module builds it)"
	exit 0
fi
echo "1..15"

# gpulat.ko holds /dev/gpulat: out of the way, and back at the end
loaded=""
if lsmod | grep -q "^gpulat "; then
	rmmod gpulat && loaded=1
fi

vm0=$(meminfo VmallocUsed) pc0=$(meminfo Percpu) su0=$(meminfo SUnreclaim)

# walk NAME PARAMS CMD [MIN]: fail each step of CMD (run after loading
# with PARAMS) in turn; at least MIN steps must be fallible
walk() {
	name=$1 params=$2 cmd=$3 min=${4:-1}
	step=1 bad=""
	while [ $step -le $MAX ]; do
		insmod "$MOD" $params || { bad="insmod $params"; break; }
		echo $step >$P/fault_nth
		out=$(sh -c "$cmd" 2>&1)
		rc=$?
		site=$(cat $P/fault_injected)
		echo 0 >$P/fault_nth
		if [ -z "$site" ]; then
			[ $rc -eq 0 ] || bad="fails with nothing injected: $out"
			rmmod gpulat_fault || bad="${bad:-rmmod after the last step}"
			break
		fi
		echo "# $name: step $step, $site: $(echo "$out" | tail -n 1)"
		if [ $rc -eq 0 ]; then
			bad="step $step ($site) failed, yet the operation passed"
		elif ! echo "$out" | grep -qi "memory"; then
			bad="step $step ($site): no out-of-memory error: $out"
		elif ! gpulat status >/dev/null 2>&1; then
			bad="step $step ($site): the module does not answer"
		elif ! sh -c "$cmd" >/dev/null 2>&1; then
			bad="step $step ($site): fails again without injection"
		fi
		rmmod gpulat_fault || bad="${bad:-step $step: rmmod}"
		[ -z "$bad" ] || break
		step=$((step + 1))
	done
	lsmod | grep -q gpulat_fault && { rmmod gpulat_fault; bad="${bad:-left loaded}"; }
	steps=$((step - 1))
	if [ -z "$bad" ] && [ $steps -ge "$min" ]; then
		ok "$name: $steps fallible steps, each failed once and recovered"
	else
		not_ok "$name: ${bad:-only $steps fallible steps, expected $min or more}"
	fi
}

# Load: every family on, each allocation and registration of the setup.
step=1 bad="" tolerated=0
while [ $step -le $MAX ]; do
	out=$(insmod "$MOD" fault_nth=$step 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		site=$(cat $P/fault_injected)
		if [ -z "$site" ]; then
			rmmod gpulat_fault || bad="rmmod after the last step"
			break
		fi
		# only the debugfs view is optional: the module loads without it
		case $site in
		gpulat_debugfs_init*) tolerated=$((tolerated + 1)) ;;
		*) bad="step $step ($site) failed, yet the module loaded" ;;
		esac
		[ -c /dev/gpulat ] || bad="step $step: loaded without /dev/gpulat"
		rmmod gpulat_fault || bad="${bad:-step $step: rmmod}"
	else
		echo "# load: step $step: $(dmesg | grep 'fault injected' | tail -n 1 | sed 's/.*fault/fault/')"
		lsmod | grep -q gpulat_fault && bad="step $step: failed load left the module"
		echo "$out" | grep -qi "memory" || bad="step $step: not ENOMEM: $out"
		if insmod "$MOD"; then
			rmmod gpulat_fault || bad="${bad:-step $step: rmmod}"
		else
			bad="step $step: no load without injection"
		fi
	fi
	[ -z "$bad" ] || break
	step=$((step + 1))
done
if [ -z "$bad" ] && [ $step -gt 20 ]; then
	ok "load: $((step - 1)) fallible steps failed in turn ($tolerated tolerated: debugfs)"
else
	not_ok "load: ${bad:-only $((step - 1)) fallible steps}"
fi

# Run-time enable of each family, from a module loaded with all off.
for fam in sched block net irq softirq nvidia mm cgroup; do
	walk "enable $fam" "$ALL_OFF" "gpulat enable $fam" 2
done

# The first trace reader (rings, histories, the reader's state): a plain
# read(), which the tool would retry; every sample an outlier, so that
# the read returns at once.
walk "first trace reader" "" \
	"echo 0.001 >$P/sched_threshold_us && dd if=/dev/gpulat of=/dev/null bs=4096 count=1 2>&1" 3
# reset: the baselines, taken at the first reset
walk "reset" "" "gpulat reset" 2
# a debugfs read (its scratch histograms)
walk "debugfs read" "" "cat /sys/kernel/debug/gpulat/sched >/dev/null" 1
# the cgroup watch set: the set, then a reference on each cgroup (the VM
# mounts cgroup2 at /sys/fs/cgroup)
CG=/sys/fs/cgroup
if [ -x /gpulat/tests/cgroup_test ] && mkdir -p $CG/gl_fault_a $CG/gl_fault_b; then
	walk "cgroup watch" "" \
		"/gpulat/tests/cgroup_test --watch $CG/gl_fault_a $CG/gl_fault_b" 3
	rmdir $CG/gl_fault_a $CG/gl_fault_b
else
	ok "cgroup watch # SKIP no cgroup_test or no cgroup2 at $CG"
fi

# A snapshot allocates nothing: no step of it can fail.
insmod "$MOD"
echo 1000000 >$P/fault_nth
gpulat hist --json >/dev/null
steps=$(cat $P/fault_steps)
echo 0 >$P/fault_nth
rmmod gpulat_fault
[ "$steps" = 0 ] && ok "a snapshot has no fallible step (no allocation)" ||
	not_ok "a snapshot took $steps fallible steps"

# Nothing left behind: the kernel's figures after every walk, module gone.
vm1=$(meminfo VmallocUsed) pc1=$(meminfo Percpu) su1=$(meminfo SUnreclaim)
echo "# kB before/after: VmallocUsed $vm0/$vm1 Percpu $pc0/$pc1 SUnreclaim $su0/$su1"
if [ $((vm1 - vm0)) -lt 1024 ] && [ $((pc1 - pc0)) -lt 512 ] &&
   [ $((su1 - su0)) -lt 4096 ]; then
	ok "no kernel memory left behind (vmalloc < 1 MiB, percpu < 512 KiB, slab < 4 MiB)"
else
	not_ok "kernel memory grew over the walks"
fi
[ -z "$loaded" ] || insmod /gpulat/modules/gpulat.ko || fail=1
exit $fail
