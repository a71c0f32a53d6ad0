#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# (a) gpulat.ko loaded and unloaded CYCLES times (200; quick: 20) under
# every family's load, with the large tables of GL_PARAMS.  Each cycle:
# insmod; a `gpulat trace -t sched=100us` reader registers (debugfs
# readers 1); every debugfs file reads; `gpulat hist --json` parses;
# rmmod is refused while the reader holds /dev/gpulat; the reader stops
# on SIGINT with exit 0 and its summary; rmmod succeeds and removes
# /dev/gpulat.  Kernel memory (module unloaded) after WARM cycles and at
# the end must not grow beyond the bounds of lib.sh.
# shellcheck source=tests/stress/lib.sh
. /gpulat/stress/lib.sh

CYCLES=200 WARM=10
[ "$QUICK" = 1 ] && CYCLES=20 WARM=3

gl_loaded && gl_unload
check "every family's load started" load_start

bad="" refused=0 records=0
# seconds spent in each step, summed over the cycles
T_INS=0 T_REG=0 T_READ=0 T_STOP=0 T_RM=0
# lap VAR: add the seconds since the last lap to VAR
lap() {
	_t=$(now)
	eval "$1=\$(awk -v s=\"\$$1\" -v a=\"$_lt\" -v b=\"$_t\" 'BEGIN { print s + b - a }')"
	_lt=$_t
}
t0=$(now)
i=0
while [ $i -lt $CYCLES ]; do
	i=$((i + 1))
	_lt=$(now)
	gl_load || { bad="insmod failed in cycle $i"; break; }
	lap T_INS
	[ -c /dev/gpulat ] || { bad="no /dev/gpulat in cycle $i"; break; }
	reader_start cyc -t sched=100us
	# the reader holds the device once it is registered
	w=0
	while [ "$(trace_debugfs readers)" != 1 ] && [ $w -lt $((100 * SCALE)) ]; do
		sleep 0.1
		w=$((w + 1))
	done
	[ "$(trace_debugfs readers)" = 1 ] ||
		{ bad="reader not registered in cycle $i (debugfs readers $(trace_debugfs readers))"; break; }
	lap T_REG
	debugfs_all || { bad="debugfs read failed in cycle $i"; break; }
	hist_json_ok || { bad="gpulat hist --json failed in cycle $i"; break; }
	lap T_READ
	if rmmod gpulat 2>/dev/null; then
		bad="rmmod succeeded while a reader had /dev/gpulat open (cycle $i)"
		break
	fi
	refused=$((refused + 1))
	reader_stop cyc || { bad="trace reader failed in cycle $i"; break; }
	records=$((records + R_OUTLIERS + R_LOST))
	lap T_STOP
	gl_unload || { bad="rmmod failed in cycle $i"; break; }
	lap T_RM
	[ -e /dev/gpulat ] && { bad="/dev/gpulat left after rmmod in cycle $i"; break; }
	[ $i = $WARM ] && mem_snap $W/load.m0
	[ $((i % 25)) = 0 ] && diag "cycle $i of $CYCLES at $(elapsed "$t0")s"
done
secs=$(elapsed "$t0")
diag "$i cycles in ${secs}s: insmod ${T_INS}s, reader start ${T_REG}s," \
	"debugfs and hist ${T_READ}s, rmmod refused and reader stop ${T_STOP}s," \
	"rmmod ${T_RM}s"
if [ -z "$bad" ]; then
	ok "$CYCLES load/unload cycles under load: insmod, reader, debugfs, hist --json, rmmod"
else
	not_ok "load/unload cycles: $bad"
	dmesg | tail -n 20 | sed 's/^/#   /'
fi
if [ $refused = "$CYCLES" ]; then
	ok "rmmod refused in each of the $CYCLES cycles while a reader was open"
else
	not_ok "rmmod refused while a reader was open: $refused of $CYCLES cycles"
fi
if [ -z "$bad" ] && [ $records -gt 0 ]; then
	ok "trace readers got $records records (read + lost) over the cycles"
else
	not_ok "trace readers got $records records over the cycles"
fi
gl_loaded && gl_unload
load_stop
if [ -z "$bad" ]; then
	mem_snap $W/load.m1
	mem_check "load cycles $WARM..$CYCLES" $W/load.m0 $W/load.m1
fi
done_part
