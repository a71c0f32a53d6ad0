#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# gpulat's files and daemon as shared services on a production host, on
# the BPF source in this test's own bpffs and mount namespace:
#  - an output path that is a device, a FIFO or a folder is refused and
#    left as it was; files are 0600 (--mode otherwise); a full disk
#    leaves the old file whole and no temporary;
#  - a report or a serve killed with kill -9 leaves what the next one
#    sweeps, and nothing that runs on;
#  - serve: a bad port is refused; a hanging NVML library and a full
#    flight folder never make a snapshot older than 2 s; every lost
#    bundle and every refused connection is counted; a local user's
#    slowloris from 16 loopback addresses holds its own slots only; gzip.
. "$(dirname "$0")/lib.sh"

SAFE="$PY $(dirname "$0")/serve_safety.py"
PROBE="$PY $(dirname "$0")/serve_probe.py"
NVML_DOUBLE=${GPULAT_NVML_DOUBLE:-build/unit/nvml/libnvidia-ml.so.1}
FRESH_MAX_S=2		# the issue's bound on a snapshot's age
SERVE_PID=
ATTACHED=
KEEP=

safety_cleanup() {
	stop "$SERVE_PID"
	[[ -n $KEEP ]] && kill "$KEEP" 2>/dev/null
	[[ -n $ATTACHED ]] && "$GPULAT" detach >/dev/null 2>&1
	umount "$T_TMP/full" "$T_TMP/flight" 2>/dev/null
	t_cleanup
}
trap safety_cleanup EXIT
trap 'exit 1' INT TERM HUP

# is NAME COND: ok or not ok
is() {
	local name=$1
	shift
	if eval "$@"; then ok "$name"; else not_ok "$name"; fi
}
metric() { curl -s --max-time 3 "http://127.0.0.1:$PORT/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
mode() { stat -c %a "$1"; }

if ! command -v curl >/dev/null; then
	echo "ok 1 gpulat serve's safety # SKIP no curl (scripts/setup-host installs it)"
	exit 0
fi
"$GPULAT" attach >"$T_TMP/attach" 2>&1 || { not_ok "gpulat attach # $(cat "$T_TMP/attach")"; t_done; exit 1; }
ATTACHED=1

# --- files ---------------------------------------------------------------
mkfifo "$T_TMP/fifo"
mkdir "$T_TMP/folder"
for t in /dev/null "$T_TMP/fifo" "$T_TMP/folder"; do
	kind=$(stat -c %F "$t")
	timeout 20 "$GPULAT" snapshot -o "$t" 2>"$T_TMP/err"
	rc=$?
	is "snapshot -o $t ($kind): refused, left as it was # rc $rc: $(head -c 200 "$T_TMP/err")" \
		'((rc == 1)) && grep -q "not replaced" "$T_TMP/err" && [[ $(stat -c %F "$t") == "$kind" ]]'
	timeout 20 "$GPULAT" report -d 1 -o "$t" 2>"$T_TMP/err"
	rc=$?
	is "report -o $t ($kind): refused before watching, left as it was # rc $rc" \
		'((rc == 1)) && grep -q "not replaced" "$T_TMP/err" && [[ $(stat -c %F "$t") == "$kind" ]]'
done
"$GPULAT" snapshot -o - >"$T_TMP/stdout.bin" 2>"$T_TMP/err"
is "snapshot -o -: standard output, a snapshot hist reads" \
	'"$GPULAT" hist -i "$T_TMP/stdout.bin" --summary >/dev/null 2>&1'
"$GPULAT" snapshot -o "$T_TMP/s.bin" 2>/dev/null
"$GPULAT" snapshot --mode 0644 -o "$T_TMP/s644.bin" 2>/dev/null
is "snapshot: 0600, and 0644 with --mode 0644; no temporary beside # $(mode "$T_TMP/s.bin") $(mode "$T_TMP/s644.bin")" \
	'[[ $(mode "$T_TMP/s.bin") == 600 && $(mode "$T_TMP/s644.bin") == 644 ]] &&
	 ! ls -A "$T_TMP" | grep -q gpulat-tmp'
mkdir "$T_TMP/full"
if mount -t tmpfs -o size=16k gpulat-full "$T_TMP/full" 2>/dev/null; then
	echo old >"$T_TMP/full/keep"
	dd if=/dev/zero of="$T_TMP/full/fill" bs=1k count=64 2>/dev/null
	"$GPULAT" snapshot -o "$T_TMP/full/keep" 2>"$T_TMP/err"
	rc=$?
	is "snapshot on a full disk: fails, the old file whole, no temporary # rc $rc: $(head -c 200 "$T_TMP/err")" \
		'((rc == 1)) && [[ $(cat "$T_TMP/full/keep") == old ]] &&
		 [[ $(ls -A "$T_TMP/full" | wc -l) == 2 ]]'
	rm -f "$T_TMP/full/fill"
else
	echo "ok $((T_N += 1)) snapshot on a full disk # SKIP no tmpfs mount here"
fi

# --- report killed with kill -9 ------------------------------------------
mkdir "$T_TMP/tmp"
TMPDIR=$T_TMP/tmp "$GPULAT" report -d 60 --gpu-interval 0 -o "$T_TMP/r1.tgz" >/dev/null 2>&1 &
rp=$!
for ((i = 0; i < 50; i++)); do
	ls "$T_TMP/tmp" | grep -q "^gpulat-report\.$rp\." && break
	sleep 0.1
done
kill -9 $rp
wait $rp 2>/dev/null
left=$(ls "$T_TMP/tmp" | grep -c "^gpulat-report\.$rp\.")
TMPDIR=$T_TMP/tmp "$GPULAT" report -d 1 --gpu-interval 0 -o "$T_TMP/r2.tgz" >/dev/null 2>"$T_TMP/err"
is "a report killed -9 left its folder ($left); the next report removes it and writes 0600" \
	'((left == 1)) && ! ls "$T_TMP/tmp" | grep -q "^gpulat-report\." &&
	 grep -q "left by a report that died" "$T_TMP/err" && [[ $(mode "$T_TMP/r2.tgz") == 600 ]] &&
	 [[ ! -e $T_TMP/r1.tgz ]]'

# --- serve: the port -----------------------------------------------------
timeout 10 "$GPULAT" serve --listen 127.0.0.1:99999 2>"$T_TMP/err"
rc=$?
is "serve --listen 127.0.0.1:99999: refused, the range said # rc $rc: $(cat "$T_TMP/err")" \
	'((rc == 1)) && grep -q "1 to 65535" "$T_TMP/err"'

# --- serve: NVML hangs, the disk is full, kill -9 ------------------------
if [[ ! -e $NVML_DOUBLE ]]; then
	make -s "$NVML_DOUBLE" >/dev/null 2>&1
fi
PORT=$($PROBE port)
# the flight folder on a disk of its own, 1 MiB, filled later
FL=$T_TMP/flight
mkdir -p "$FL" "$T_TMP/tf"
mount -t tmpfs -o size=1m gpulat-flight "$FL" 2>/dev/null
# what a writer killed with its daemon left, and a live writer's file
sleep 600 &
KEEP=$!
dead=$(sh -c 'echo $$')
: >"$FL/.gpulat-flight-x.tar.gz.gpulat-tmp.$dead.AbCdEf"
: >"$FL/.gpulat-flight-y.tar.gz.gpulat-tmp.$KEEP.AbCdEf"
mkdir "$T_TMP/tmp/gpulat-report.$dead.XyZwVu"
start_serve() {
	TMPDIR=$T_TMP/tmp GPULAT_NVML_LIB=$(realpath "$NVML_DOUBLE") FAKE_NVML_INIT_HANG=1 \
		"$GPULAT" serve --listen "127.0.0.1:$PORT" --flight "$FL" \
		--flight-window 1 --flight-after 1 --flight-gap 0 \
		--textfile "$T_TMP/tf" >>"$T_TMP/serve.log" 2>&1 &
	SERVE_PID=$!
	for ((i = 0; i < 100; i++)); do
		[[ -n $(metric gpulat_exporter_last_snapshot_timestamp_seconds) ]] && return 0
		sleep 0.1
	done
	return 1
}
if ! start_serve; then
	not_ok "gpulat serve starts # $(tail -c 300 "$T_TMP/serve.log")"
	t_done
	exit 1
fi
is "a restart sweeps what a dead writer left, not a live one's" \
	'[[ ! -e $FL/.gpulat-flight-x.tar.gz.gpulat-tmp.$dead.AbCdEf &&
	   -e $FL/.gpulat-flight-y.tar.gz.gpulat-tmp.$KEEP.AbCdEf &&
	   ! -e $T_TMP/tmp/gpulat-report.$dead.XyZwVu ]]'
rm -f "$FL/.gpulat-flight-y.tar.gz.gpulat-tmp.$KEEP.AbCdEf"

if [[ -e $NVML_DOUBLE ]]; then
	# the writer waits on NVML (its child's timeout), the loop does not
	$SAFE fresh "$PORT" 14 >"$T_TMP/fresh" &
	fp=$!
	sleep 1
	kill -USR1 "$SERVE_PID"
	wait $fp
	read -r n age <"$T_TMP/fresh"
	is "NVML hangs in a bundle's writer: $n scrapes, the oldest snapshot $age s (at most $FRESH_MAX_S)" \
		'((n >= 30)) && $PY -c "import sys; sys.exit(not $age <= $FRESH_MAX_S)"'
	for ((i = 0; i < 300; i++)); do
		[[ $(metric gpulat_flight_bundles_total) == 1 ]] && break
		sleep 0.1
	done
	b=$(ls "$FL" | grep -c '^gpulat-flight-.*\.tar\.gz$')
	is "the bundle written once NVML timed out: 1 counted, 1 in the folder, 0600" \
		'[[ $(metric gpulat_flight_bundles_total) == 1 ]] && ((b == 1)) &&
		 [[ $(mode "$FL"/gpulat-flight-*.tar.gz) == 600 ]]'
	# kill -9 while a writer hangs: nothing of it runs on
	kill -USR1 "$SERVE_PID"
	sleep 4
	kids=$(pgrep -P "$SERVE_PID")
	grand=$(for k in $kids; do pgrep -P "$k"; done)
	kill -9 "$SERVE_PID"
	wait "$SERVE_PID" 2>/dev/null
	SERVE_PID=
	sleep 1
	alive=
	# a zombie is dead: its new parent has not reaped it yet
	for p in $kids $grand; do
		[[ -e /proc/$p ]] && awk '{ exit $3 == "Z" }' "/proc/$p/stat" && alive+=" $p"
	done
	is "serve killed -9 with a writer in NVML: its writer ($kids) and NVML's child ($grand) die with it" \
		'[[ -n $kids && -z $alive ]]'
	left=$(ls "$T_TMP/tmp" | grep -c '^gpulat-report\.')
	start_serve
	is "the restart removes the dead writer's folder ($left left)" \
		'((left >= 1)) && ! ls "$T_TMP/tmp" | grep -q "^gpulat-report\." &&
		 ! ls -A "$FL" | grep -q gpulat-tmp'
else
	echo "ok $((T_N += 1)) NVML hangs # SKIP no NVML double ($NVML_DOUBLE)"
fi

# the folder's disk full: every bundle lost is counted, none left half
if mountpoint -q "$FL"; then
	dd if=/dev/zero of="$FL/fill" bs=1k count=2048 2>/dev/null
	f0=$(metric 'gpulat_flight_bundles_failed_total{reason="no_space"}')
	$SAFE fresh "$PORT" 14 >"$T_TMP/fresh" &
	fp=$!
	for k in 1 2 3; do
		kill -USR1 "$SERVE_PID"
		# the window (1 s + 1 s after), and the writer: NVML times out
		for ((i = 0; i < 150; i++)); do
			[[ $(metric 'gpulat_flight_bundles_failed_total{reason="no_space"}') == $((f0 + k)) ]] && break
			sleep 0.1
		done
	done
	wait $fp
	read -r n age <"$T_TMP/fresh"
	f1=$(metric 'gpulat_flight_bundles_failed_total{reason="no_space"}')
	is "a full flight folder: 3 bundles lost, 3 counted no_space ($f0 -> $f1), no temporary left, snapshots fresh ($age s)" \
		'((f1 - f0 == 3)) && ! ls -A "$FL" | grep -q gpulat-tmp &&
		 $PY -c "import sys; sys.exit(not $age <= $FRESH_MAX_S)"'
	rm -f "$FL/fill"
else
	echo "ok $((T_N += 1)) a full flight folder # SKIP no tmpfs mount here"
fi

# --- serve: connections ---------------------------------------------------
r0=$(curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^gpulat_http_refused_total/ { s += $2 } END { print s + 0 }')
read -r early open < <($SAFE hold "$PORT" 200 3)
r1=$(curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^gpulat_http_refused_total/ { s += $2 } END { print s + 0 }')
is "200 idle connections from one address: 8 held, 192 closed at once, 192 counted ($early closed, $open open, $((r1 - r0)) counted)" \
	'((early == 192 && open == 8 && r1 - r0 == 192))'
# slowloris from 16 loopback addresses as root; nobody scrapes meanwhile
$SAFE loris "$PORT" 16 4 12 >"$T_TMP/loris" &
lp=$!
sleep 1
# curl, not Python: the other user may not read this user's Python
ok=0 n=16 worst=0
for ((i = 0; i < n; i++)); do
	t=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		curl -s --max-time 5 -o /dev/null -w '%{http_code} %{time_total}' \
		"http://127.0.0.1:$PORT/metrics")
	[[ ${t%% *} == 200 ]] && ok=$((ok + 1))
	worst=$($PY -c "print(max($worst, ${t##* }))")
	sleep 0.5
done
wait $lp
read -r early open <"$T_TMP/loris"
is "slowloris from 16 loopback addresses x 4 as one user: 56 refused at once ($early); another user's 16 scrapes all answered ($ok of $n, worst $worst s)" \
	'((early == 56 && ok == n)) && $PY -c "import sys; sys.exit(not $worst < 1)"'
per=$(metric 'gpulat_http_refused_total{reason="per_address"}')
to=$(metric 'gpulat_http_refused_total{reason="timeout"}')
is "counted: per peer $per (>= 248), cut at the deadline $to (>= 8)" '((per >= 248 && to >= 8))'

# --- serve: gzip ----------------------------------------------------------
curl -s -D "$T_TMP/h" -H 'Accept-Encoding: gzip' -o "$T_TMP/m.gz" "http://127.0.0.1:$PORT/metrics"
curl -s -o "$T_TMP/m.txt" "http://127.0.0.1:$PORT/metrics"
is "gzip when asked: Content-Encoding gzip, the same families, $(stat -c %s "$T_TMP/m.gz") of $(stat -c %s "$T_TMP/m.txt") bytes" \
	'grep -qi "^Content-Encoding: gzip" "$T_TMP/h" &&
	 diff <(gunzip <"$T_TMP/m.gz" | grep "^# TYPE") <(grep "^# TYPE" "$T_TMP/m.txt") >/dev/null'
t_done
