#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# (e) Module parameters changed under every family's load, with a trace
# reader open, in each of ROUNDS loads (10; quick: 2):
# - every writable parameter (mode 0644 in /sys/module/gpulat/parameters:
#   the FAMILY_threshold_us ones, microseconds with up to 3 decimals)
#   takes 0, 1, 100, 4294967295, 1.5 (reads 1.500), 0.001 and 2.25 (2.250)
#   and reads each back, and refuses abc, -1, 4294967296, an empty line,
#   99999999999999999999, "5 5", 1.2345, "1.", .5, 1.x and 0x10 with a
#   write error, keeping its value;
# - any other writable parameter refuses "abc%%", keeping its value;
# - every read-only parameter refuses a write, keeping its value;
# - all thresholds 0: no record is written in 1.5 s (records written
#   holds still); sched_threshold_us=1: records are written;
# - two writers for DURATION (6 s; quick 3 s), one of good values, one of
#   bad ones (none of which may succeed); then each family's threshold in
#   sysfs, in debugfs and through the ioctl agree;
# Before the rounds: insmod with bad values (sched_slots=abc,
# trace_ring=-1, sched=maybe, sched_threshold_us=abc,
# block_max_disks=99999999999) fails and leaves no module; trace_ring=3
# and trace_ring=200 load with rings of 8 and 128.  rmmod ends each round;
# kernel memory (module unloaded) after WARM rounds and at the end stays
# within the bounds of lib.sh.
# shellcheck source=tests/stress/lib.sh
. /gpulat/stress/lib.sh

ROUNDS=10 WARM=2 DURATION=6
[ "$QUICK" = 1 ] && ROUNDS=2 WARM=1 DURATION=3
P=/sys/module/gpulat/parameters
FAMS="sched block net irq softirq nvidia mm"

gl_loaded && gl_unload
check "every family's load started" load_start

bad=""
for v in sched_slots=abc trace_ring=-1 sched=maybe sched_threshold_us=abc \
	 block_max_disks=99999999999; do
	if gl_load "$v" 2>/dev/null; then
		bad="$bad $v(loaded)"
		gl_unload
	elif gl_loaded; then
		bad="$bad $v(module left)"
	fi
done
[ -z "$bad" ] && ok "insmod refuses bad parameter values and leaves no module" ||
	not_ok "insmod with bad parameter values:$bad"
for v in 3:8 200:128; do
	gl_load trace_ring=${v%:*} || { not_ok "insmod trace_ring=${v%:*}"; continue; }
	got=$(sed -n 's/^records per CPU ring //p' /sys/kernel/debug/gpulat/trace)
	gl_unload
	[ "$got" = "${v#*:}" ] && ok "trace_ring=${v%:*} loads with rings of $got" ||
		not_ok "trace_ring=${v%:*} loads with rings of $got, want ${v#*:}"
done

# try_write FILE VALUE: 0 if the write succeeded
try_write() { printf '%s\n' "$2" 2>/dev/null >"$1"; }

# rd FILE: its first line into _rv (a builtin: no process per read)
rd() { _rv=""; read -r _rv <"$1"; }

# writable_checks: good and bad values on every 0644 parameter
writable_checks() {
	_bad=""
	_nw=0
	for _f in $P/*; do
		_m=$(stat -c %a "$_f")
		rd "$_f"
		_o=$_rv
		case $_m in
		*[2367]??) ;;
		*)
			# read-only: refused, unchanged
			if try_write "$_f" 1; then
				_bad="$_bad ${_f##*/}(read-only, accepted)"
			fi
			rd "$_f"
			[ "$_rv" = "$_o" ] || _bad="$_bad ${_f##*/}(read-only, changed)"
			continue ;;
		esac
		case ${_f##*/} in
		*_threshold_us) ;;
		*)
			# another writable one: garbage refused, value kept
			try_write "$_f" "abc%%" && _bad="$_bad ${_f##*/}=abc%%(accepted)"
			rd "$_f"
			[ "$_rv" = "$_o" ] || _bad="$_bad ${_f##*/}=abc%%(changed to $_rv)"
			continue ;;
		esac
		_nw=$((_nw + 1))
		for _v in 0 1 100 4294967295 1.5:1.500 0.001 2.25:2.250; do
			_want=${_v#*:}
			try_write "$_f" "${_v%:*}" || { _bad="$_bad ${_f##*/}=${_v%:*}(refused)"; continue; }
			rd "$_f"
			[ "$_rv" = "$_want" ] || _bad="$_bad ${_f##*/}=${_v%:*}(reads $_rv)"
		done
		try_write "$_f" 7
		for _v in abc -1 4294967296 "" 99999999999999999999 "5 5" 1.2345 \
			  1. .5 1.x 0x10; do
			try_write "$_f" "$_v" && _bad="$_bad ${_f##*/}='$_v'(accepted)"
			rd "$_f"
			[ "$_rv" = 7 ] || _bad="$_bad ${_f##*/}='$_v'(changed to $_rv)"
		done
		try_write "$_f" "$_o"
	done
	[ -z "$_bad" ] && [ $_nw -ge 7 ] && return 0
	echo "# $_nw writable parameters; wrong:$_bad"
	return 1
}

# thresholds_agree: sysfs (us) = debugfs (ns) / 1000 = ioctl (ns) / 1000
thresholds_agree() {
	_bad=""
	for _fam in $FAMS; do
		_s=$(cat $P/${_fam}_threshold_us)
		_d=$(awk -v f="$_fam" '$1 == f && $3 == "ns" { print $2 }' /sys/kernel/debug/gpulat/trace)
		_i=$(stress_util threshold $_fam)
		_sn=$(awk -v v="$_s" 'BEGIN { printf "%.0f", v * 1000 }')
		[ "$_sn" = "$_d" ] && [ "$_d" = "$_i" ] ||
			_bad="$_bad $_fam(sysfs ${_s}us debugfs ${_d}ns ioctl ${_i}ns)"
	done
	[ -z "$_bad" ] && return 0
	echo "# disagree:$_bad"
	return 1
}

# writers_run SECS: random good values and bad values at once
writers_run() {
	rm -f $W/pw.stop $W/pw.bad
	( i=0
	  while [ ! -e $W/pw.stop ]; do
		i=$((i + 1))
		for _fam in $FAMS; do
			try_write $P/${_fam}_threshold_us $(( (i * 7919 + ${#_fam} * 104729) % 20000 ))
		done
	  done ) &
	_g=$!
	( while [ ! -e $W/pw.stop ]; do
		for _fam in $FAMS; do
			for _v in x -5 4294967296 ""; do
				try_write $P/${_fam}_threshold_us "$_v" &&
					echo "${_fam}_threshold_us='$_v'" >>$W/pw.bad
			done
		done
	  done ) &
	_b=$!
	sleep "$1"
	touch $W/pw.stop
	wait $_g $_b
	[ ! -s $W/pw.bad ] && return 0
	echo "# bad values accepted: $(sort -u $W/pw.bad | tr '\n' ' ')"
	return 1
}

r=0 t0=$(now)
while [ $r -lt $ROUNDS ]; do
	r=$((r + 1))
	gl_load || { not_ok "insmod in round $r"; break; }
	reader_start pr
	sleep 0.5
	check "round $r: writable parameters take good values and refuse bad ones; read-only ones refuse writes" \
		writable_checks
	for fam in $FAMS; do try_write $P/${fam}_threshold_us 0; done
	sleep 0.5
	w0=$(trace_debugfs written)
	sleep 1.5
	w1=$(trace_debugfs written)
	if [ "$w0" = "$w1" ]; then
		ok "round $r: every threshold 0: no record written in 1.5 s ($w0)"
	else
		not_ok "round $r: every threshold 0, yet records written went $w0 -> $w1"
	fi
	try_write $P/sched_threshold_us 1
	sleep 1.5
	w2=$(trace_debugfs written)
	if [ "$w2" -gt "$w1" ]; then
		ok "round $r: sched_threshold_us=1: $((w2 - w1)) records written in 1.5 s"
	else
		not_ok "round $r: sched_threshold_us=1: no record written ($w1 -> $w2)"
	fi
	check "round $r: concurrent writers of good and bad values for ${DURATION}s" \
		writers_run $DURATION
	check "round $r: thresholds agree in sysfs, debugfs and the ioctl" thresholds_agree
	if reader_stop pr; then
		ok "round $r: trace reader survived the parameter changes ($R_OUTLIERS outliers, $R_LOST lost)"
	else
		not_ok "round $r: trace reader survived the parameter changes"
	fi
	check "round $r: rmmod" gl_unload
	[ $r = $WARM ] && mem_snap $W/pa.m0
done
diag "$r rounds in $(elapsed "$t0")s"
load_stop
if [ -f $W/pa.m0 ] && [ $fail = 0 ]; then
	mem_snap $W/pa.m1
	mem_check "parameter rounds $WARM..$ROUNDS" $W/pa.m0 $W/pa.m1
fi
done_part
