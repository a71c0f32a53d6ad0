#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpulat.ko load/unload under scheduler load, module parameters, and the
# device pinning the module.  vmrun fails the run on any kernel splat, so
# a probe that outlives its module shows up here.
set -u
MOD=/gpulat/modules/gpulat.ko
CYCLES=20
n=0
fail=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n $1"; }

echo "TAP version 13"
echo "1..6"

# Load: a hog per CPU and a sleeper storm, so probes fire during attach
# and detach.
pids=""
for c in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$c" sh -c 'while :; do :; done' &
	pids="$pids $!"
done
sh -c 'while :; do usleep 200; done' &
pids="$pids $!"

bad=""
for i in $(seq "$CYCLES"); do
	rmmod gpulat 2>/dev/null
	insmod "$MOD" || { bad="insmod $i"; break; }
	[ -c /dev/gpulat ] || { bad="no /dev/gpulat $i"; break; }
	grep -q "^count" /sys/kernel/debug/gpulat/sched || { bad="debugfs $i"; break; }
	gpulat hist --json sched >/dev/null || { bad="gpulat hist $i"; break; }
	rmmod gpulat || { bad="rmmod $i"; break; }
done
[ -z "$bad" ] && ok "$CYCLES load/unload cycles under load" || not_ok "load/unload: $bad"

insmod "$MOD"
exec 3</dev/gpulat
if rmmod gpulat 2>/dev/null; then
	not_ok "rmmod refused while /dev/gpulat is open"
	insmod "$MOD"
else
	ok "rmmod refused while /dev/gpulat is open"
fi
exec 3<&-
rmmod gpulat && ok "rmmod once the device is closed" || not_ok "rmmod once the device is closed"

# sched=0: the family is off, said so, and nothing breaks.
insmod "$MOD" sched=0
if grep -q "family is off" /sys/kernel/debug/gpulat/sched &&
   gpulat status | grep -q "disabled"; then
	ok "sched=0 leaves the family off and says so"
else
	not_ok "sched=0 leaves the family off and says so"
	gpulat status
fi
rmmod gpulat

# Installed as make install does (updates/, then depmod): the tool's
# "not loaded" message says modprobe, and modprobe loads it.  The
# module's source asked for: the guest runs the BPF source, which the
# default (auto) takes when the module is not loaded.
UPD=/lib/modules/$(uname -r)/updates
mkdir -p "$UPD" && cp "$MOD" "$UPD/" && depmod
hint=$(gpulat --source kmod status 2>&1)
if echo "$hint" | grep -q "not loaded.*load it with 'modprobe gpulat'"; then
	ok "not loaded: the message says modprobe once installed"
else
	not_ok "not loaded: the message says modprobe once installed"
	echo "# $hint"
fi
if modprobe gpulat && [ -c /dev/gpulat ] && gpulat status >/dev/null; then
	ok "modprobe gpulat after an install to updates/"
else
	not_ok "modprobe gpulat after an install to updates/"
fi
rmmod gpulat
rm -f "$UPD/gpulat.ko" && depmod
insmod "$MOD"

kill $pids 2>/dev/null
wait 2>/dev/null
exit $fail
