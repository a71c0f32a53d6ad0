#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpulat report in the VM: the archive unpacks with busybox tar and holds
# every section listed in its MANIFEST; its snapshots read back with
# gpulat hist; the nvidia IRQ of gpulat_fake_nvidia.ko (sharing eth0's
# line, so run with --net) shows with the affinity /proc/irq gives; an
# NVRM line written to /dev/kmsg is in the kernel log section; sources
# this guest lacks (NVIDIA driver, NVML: the tool here is static) are
# stated as absent; without gpulat.ko the archive still comes, with the
# host facts.  NVML itself is tested through a stand-in library, which a
# static binary cannot load: on the host (tests/unit/test_report.c) and
# here with the dynamic tool (nvml_test.sh).  The static tool's files
# take the gpulat group from /etc/group.
set -u
MOD=/gpulat/modules
n=0
fail=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n $1"; }
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }
# check DESC COMMAND...: one result line for a command's status
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

echo "TAP version 13"
echo "1..17"

# An IRQ with an action named nvidia, as the driver's.
irq=$(awk '/eth0/ { sub(":", "", $1); print $1; exit }' /proc/interrupts)
fake=0
if [ -n "$irq" ] && insmod $MOD/gpulat_fake_nvidia.ko irq="$irq"; then
	fake=1
fi
# A test double: marked so that no reader of this log takes it for a GPU
# fault (report's scan matches NVRM anywhere in a line).
XID="[gpulat test double] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=report_test, GPU has fallen off the bus."
echo "$XID" >/dev/kmsg

rm -rf /tmp/r /tmp/r.tar.gz /tmp/gpulat-report.*
# Two CPU hogs: waits for a CPU pass 1 ms, so the trace has records.
(while :; do :; done) &
hog1=$!
(while :; do :; done) &
hog2=$!
gpulat report -d 3 --interval 1 -t sched=1ms -o /tmp/r.tar.gz >/tmp/report.out 2>&1
rc=$?
kill $hog1 $hog2
wait $hog1 $hog2 2>/dev/null
sed 's/^/# /' /tmp/report.out
check "gpulat report exits 0 and says what it wrote" \
	grep -q "^wrote /tmp/r.tar.gz (" /tmp/report.out

mkdir -p /tmp/r
check "the archive unpacks with busybox tar -xzf" tar -xzf /tmp/r.tar.gz -C /tmp/r
top=$(ls -d /tmp/r/gpulat-report-*-*-* 2>/dev/null)
check "one top folder gpulat-report-HOST-YYYYMMDD-HHMMSS" \
	test "$rc" -eq 0 -a -n "$top" -a "$(echo "$top" | wc -l)" -eq 1
check "MANIFEST at the top" test -f "$top/MANIFEST"

FILES="snapshots/start.bin snapshots/end.bin snapshots/interval-001.bin
snapshots/interval-002.bin snapshots/window.txt snapshots/intervals.txt
trace.txt trace.jsonl diagnosis.txt diagnosis.json
host/irq.txt host/irqbalance.txt host/interrupts-start.txt
host/interrupts-end.txt host/softirqs-start.txt host/softirqs-end.txt
host/vmstat-start.txt host/vmstat-end.txt host/cpu.txt host/thp.txt
host/pcie.txt host/driver.txt host/kernel-log.txt host/kernel.txt
host/gpulat-params.txt host/nvml.txt host/kernel-log-all.txt
host/modules.txt host/cpuinfo.txt host/meminfo.txt host/pressure.txt
host/numa.txt host/processes.txt host/cgroups.txt"
missing=""
for f in $FILES; do
	[ -s "$top/$f" ] && grep -q "^  $f  " "$top/MANIFEST" || missing="$missing $f"
done
check "every section is in the archive and in the MANIFEST${missing:+ (missing:$missing)}" \
	test -z "$missing"

cd "$top" || exit 1
check "the whole kernel log, the modules, the cgroup mounts" \
	sh -c 'grep -q "^[0-9]* kernel log lines" host/kernel-log-all.txt &&
	       grep -q "^gpulat " host/modules.txt &&
	       grep -q " - cgroup" host/cgroups.txt'
gpulat hist -i snapshots/end.bin -f snapshots/start.bin >/tmp/h.out 2>&1
check "gpulat hist -i snapshots/end.bin -f snapshots/start.bin" \
	grep -q "^sched.wakeup" /tmp/h.out
check "gpulat hist -i interval-002.bin -f interval-001.bin" \
	sh -c 'gpulat hist -i snapshots/interval-002.bin \
		-f snapshots/interval-001.bin -j | grep -q "\"interval_s\":0\.[89]\|\"interval_s\":1\."'
check "the window as text, the module's ABI in the MANIFEST" \
	sh -c 'grep -q "^sched.wakeup" snapshots/window.txt &&
	       grep -q "^module:    ABI 1\." MANIFEST &&
	       grep -q "^# thresholds:.* sched=1" trace.txt &&
	       grep -q "^Verdict: " diagnosis.txt'

if [ $fake -eq 1 ]; then
	aff=$(cat /proc/irq/$irq/smp_affinity_list)
	if grep -q "^irq $irq .*nvidia" host/irq.txt &&
	   grep -q "^  smp_affinity_list:   $aff\$" host/irq.txt &&
	   grep -q "^  in the window:  " host/irq.txt; then
		ok "irq.txt: IRQ $irq (nvidia) with smp_affinity_list $aff"
	else
		not_ok "irq.txt: IRQ $irq (nvidia) with smp_affinity_list $aff"
		sed 's/^/# /' host/irq.txt
	fi
else
	skip "irq.txt: the nvidia IRQ" "no eth0 IRQ or gpulat_fake_nvidia.ko (run with --net)"
fi
check "kernel-log.txt holds the NVRM line written to /dev/kmsg" \
	grep -qF "$XID" host/kernel-log.txt
params=$(ls /sys/module/gpulat/parameters | head -1)
check "gpulat-params.txt lists the module's parameters ($params)" \
	grep -q "^$params = " host/gpulat-params.txt
check "absent sources stated: NVIDIA driver, NVML (static tool)" \
	sh -c 'grep -q "^  absent: host/driver.txt: /proc/driver/nvidia/version: no such file" MANIFEST &&
	       grep -q "^absent: this gpulat is a static build" host/nvml.txt &&
	       grep -q "^  absent: host/nvml.txt: " MANIFEST'
cd /
check "the temporary folder is removed" sh -c '! ls -d /tmp/gpulat-report.* 2>/dev/null'

# Without the module: host facts only, the rest stated absent (the
# module's source asked for: auto would take the guest's BPF source).
[ $fake -eq 1 ] && rmmod gpulat_fake_nvidia
rmmod gpulat
rm -rf /tmp/r /tmp/r2.tar.gz
mkdir -p /tmp/r
if gpulat --source kmod report -d 1 -o /tmp/r2.tar.gz >/tmp/report.out 2>&1 &&
   tar -xzf /tmp/r2.tar.gz -C /tmp/r &&
   grep -q "^module:    absent: " /tmp/r/gpulat-report-*/MANIFEST &&
   grep -q "^  absent: snapshots/window.txt: " /tmp/r/gpulat-report-*/MANIFEST &&
   test -s /tmp/r/gpulat-report-*/host/interrupts-end.txt; then
	ok "without gpulat.ko: host facts only, the rest stated absent"
else
	not_ok "without gpulat.ko: host facts only, the rest stated absent"
	sed 's/^/# /' /tmp/report.out
fi
insmod $MOD/gpulat.ko

# the static tool finds the gpulat group in /etc/group itself (it has no
# NSS modules): a snapshot is 0640 with that group, 0600 without
if [ -f /etc/group ]; then cp /etc/group /tmp/group.orig; else : >/tmp/group.orig; fi
echo "gpulat:x:4321:" >>/etc/group
rm -f /tmp/m.snap
gpulat snapshot -o /tmp/m.snap >/dev/null 2>&1
check "with a gpulat group in /etc/group: a snapshot is 0640, that group's" \
	sh -c "test \"\$(stat -c '%a %g' /tmp/m.snap)\" = '640 4321'"
cp /tmp/group.orig /etc/group
rm -f /tmp/m.snap
gpulat snapshot -o /tmp/m.snap >/dev/null 2>&1
check "without it: 0600" sh -c "test \"\$(stat -c %a /tmp/m.snap)\" = 600"
rm -f /tmp/m.snap
exit $fail
