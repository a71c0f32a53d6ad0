#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source pinned by gpulat attach: it counts between commands, every
# command under auto reads it and says so first (totals grow, reset
# starts again, disable stops a family's probes), --source bpf and the
# commands that change shared settings take their own, a second attach
# is refused, an attach/detach loop never shows a half-made folder, a
# stale folder is named and never read, detach removes it all.  An
# attach killed (SIGKILL) at each of its steps (GPULAT_ATTACH_PAUSE):
# the next status says what it removed, attach then works.
. "$(dirname "$0")/lib.sh"

PIN=/sys/fs/bpf/gpulat
if [[ -e $PIN ]]; then
	# only where run.sh's own bpffs is not (run by hand)
	ok "pinned source # SKIP $PIN exists (run through tests/bpf/run.sh)"
	t_done
	exit
fi
t_detach() { "$GPULAT" detach >/dev/null 2>&1; t_cleanup; }
trap t_detach EXIT

"$GPULAT" attach >"$T_TMP/a" 2>&1 && [[ -d $PIN/links ]] &&
	ok "attach pins maps, programs and links" ||
	not_ok "attach # $(cat "$T_TMP/a")"
rc=0
"$GPULAT" attach >/dev/null 2>"$T_TMP/a2" || rc=$?
[[ $rc -ne 0 ]] && grep -q "already pinned" "$T_TMP/a2" &&
	ok "a second attach is refused" || not_ok "a second attach # rc $rc"
"$GPULAT" status >"$T_TMP/st" 2>&1
grep -q '^source: *BPF, pinned' "$T_TMP/st" && ok "status names the pinned source" ||
	not_ok "status names the pinned source # $(head -3 "$T_TMP/st")"
head -1 "$T_TMP/st" | grep -q "^gpulat: source: BPF pinned in $PIN by gpulat attach (pid [0-9]*, uid 0, at " &&
	ok "auto says first which source it took, and who attached it" ||
	not_ok "auto's first line # $(head -1 "$T_TMP/st")"
"$GPULAT" --source bpf status >"$T_TMP/stb" 2>&1
grep -q '^source: *BPF, loaded for this command' "$T_TMP/stb" &&
	! grep -q pinned "$T_TMP/stb" &&
	ok "--source bpf never reads the pinned source" ||
	not_ok "--source bpf # $(head -3 "$T_TMP/stb")"
"$GPULAT" watch-cgroup / -i 0.5 -d 0.5 >/dev/null 2>"$T_TMP/wc"
! grep -q "pinned" "$T_TMP/wc" &&
	ok "watch-cgroup under auto takes a source of its own" ||
	not_ok "watch-cgroup under auto # $(head -2 "$T_TMP/wc")"

sleeper 0 0.002
sleep 1
"$GPULAT" snapshot -o "$T_TMP/s1" 2>"$T_TMP/e1"
sleep 1
"$GPULAT" snapshot -o "$T_TMP/s2"
! grep -q "loaded for this command" "$T_TMP/e1" &&
	ok "a pinned source needs no window" || not_ok "no window # $(cat "$T_TMP/e1")"
"$GPULAT" hist sched -j -i "$T_TMP/s1" >"$T_TMP/h1.json"
"$GPULAT" hist sched -j -i "$T_TMP/s2" >"$T_TMP/h2.json"
c1=$("$PY" -c "import json; print(sum(s['count'] for s in json.load(open('$T_TMP/h1.json'))['series'] if s['name'] == 'sched.wakeup'))")
c2=$("$PY" -c "import json; print(sum(s['count'] for s in json.load(open('$T_TMP/h2.json'))['series'] if s['name'] == 'sched.wakeup'))")
[[ $c1 -gt 100 && $c2 -gt $((c1 + 100)) ]] &&
	ok "it counts between commands ($c1, then $c2 wakeups)" ||
	not_ok "it counts between commands # $c1 then $c2"

"$GPULAT" reset >/dev/null
"$GPULAT" hist sched -j >"$T_TMP/h3.json"
check "reset: generation 1, counting again from zero" \
	"d['generation'] == 1 and sum(s['count'] for s in d['series']) < $c2" \
	"$T_TMP/h3.json"

"$GPULAT" disable sched >/dev/null
"$GPULAT" status -j >"$T_TMP/d1.json"
sleep 0.5
"$GPULAT" status -j >"$T_TMP/d2.json"
check "disable: the family's probes are disabled" \
	"all(p['state'] == 'disabled' for f in d['families'] if f['family'] == 'sched' for p in f['probes'])" \
	"$T_TMP/d2.json"
h1=$("$PY" -c "import json; print(sum(p['hits'] for f in json.load(open('$T_TMP/d1.json'))['families'] if f['family'] == 'sched' for p in f['probes']))")
h2=$("$PY" -c "import json; print(sum(p['hits'] for f in json.load(open('$T_TMP/d2.json'))['families'] if f['family'] == 'sched' for p in f['probes']))")
[[ $h1 -eq $h2 ]] && ok "disabled, its probes do not run ($h1 hits, then $h2)" ||
	not_ok "disabled probes do not run # $h1 then $h2"
"$GPULAT" enable sched >/dev/null
sleep 0.3
"$GPULAT" status -j >"$T_TMP/d3.json"
check "enable: attached again" \
	"all(p['state'] == 'attached' for f in d['families'] if f['family'] == 'sched' for p in f['probes'])" \
	"$T_TMP/d3.json"

hog 1
hog 1
sleeper 1 0.005
timeout 10 "$GPULAT" trace -t sched=2ms -d 2 >"$T_TMP/tr" 2>&1
grep -q 'held by' "$T_TMP/tr" && ok "trace on the pinned source names culprits" ||
	not_ok "trace on the pinned source # $(head -3 "$T_TMP/tr")"

# switched back on, a family forgets the stamps from before it was off:
# with the hogs preempting each other, no wait as long as the 2 s off
"$GPULAT" --source pinned disable sched >/dev/null
sleep 2
"$GPULAT" --source pinned reset >/dev/null
"$GPULAT" --source pinned enable sched >/dev/null
sleep 1
"$GPULAT" --source pinned hist sched -j >"$T_TMP/h4.json" 2>/dev/null
check "switched on again, no wait from before it was off (max < 1 s)" \
	"max(s['max_ns'] for s in d['series']) < 10**9" "$T_TMP/h4.json"

# a reader killed (SIGKILL) leaves its slot and the gates open: the next
# command frees them.  The settings (struct gl_bpf_conf, first in .data)
# read with bpftool: the gates, a u64 per family id (GPULAT_FAM_MAX, read
# from the ABI) at 0, then keep_history and nr_readers (bpf_source.c
# asserts that layout).
FAM_MAX=$(awk '/^enum gpulat_family_id/ { on = 1 } on && /GPULAT_FAM_/ \
	{ n++ } on && /^};/ { print n; exit }' kmod/uapi/gpulat.h)
conf() {
	bpftool -j map dump pinned "$PIN/maps/gpulat_b_data" |
		"$PY" -c "import json,struct,sys
n = $FAM_MAX
v = bytes(int(x, 16) for x in json.load(sys.stdin)[0]['value'])
print(struct.unpack_from('<I', v, 8 * n + 4)[0], min(struct.unpack_from('<%dQ' % n, v, 0)[1:]))"
}
"$GPULAT" trace -d 30 >/dev/null 2>&1 &
tp=$!
sleep 1
c1=$(conf)
kill -9 $tp
wait $tp 2>/dev/null
"$GPULAT" status >/dev/null 2>&1
c2=$(conf)
[[ ${c1%% *} -eq 1 && $c2 == "0 18446744073709551615" ]] &&
	ok "a killed reader's open gates are closed by the next command" ||
	not_ok "a killed reader's gates # reader $tp: before '$c1', after '$c2'"

# attach and detach in a loop beside commands under auto: none ever
# finds the folder half made (each takes the source, or one of its own)
"$GPULAT" detach >/dev/null
setsid bash -c 'while :; do "$0" attach; "$0" detach; done' "$GPULAT" \
	>/dev/null 2>&1 &
loop=$!
bad=0 pinned=0
for i in $(seq 20); do
	if "$GPULAT" status >"$T_TMP/l.out" 2>"$T_TMP/l.err"; then
		grep -q '^source: *BPF, pinned' "$T_TMP/l.out" && pinned=$((pinned + 1))
	else
		bad=$((bad + 1))
		sed 's/^/# /' "$T_TMP/l.err" | head -3
	fi
	grep -q "half made\|another build" "$T_TMP/l.err" && bad=$((bad + 1))
done
# killed at any step, an attach or a detach leaves a temporary at most,
# which the next command sweeps
kill -9 -- -$loop
wait $loop 2>/dev/null
# SIGKILL takes effect when the process leaves the kernel (an attach may
# be in the verifier): until then it is alive and its temporary its own
for i in $(seq 200); do
	pgrep -g "$loop" >/dev/null || break
	sleep 0.05
done
[[ $bad -eq 0 ]] &&
	ok "beside an attach/detach loop every status ran ($pinned of 20 on the pinned source)" ||
	not_ok "beside an attach/detach loop # $bad of 20 failed or saw a half-made folder"
"$GPULAT" status >/dev/null 2>&1
ls -d /sys/fs/bpf/gpulat_* 2>/dev/null | grep -q . &&
	not_ok "a killed attach's temporaries swept # $(ls -d /sys/fs/bpf/gpulat_*)" ||
	ok "a killed attach's temporaries swept by the next command"
"$GPULAT" detach >/dev/null 2>&1

# a folder that is not a whole source (a killed attach of an older
# gpulat, pins removed by hand) is named and never read
mkdir -p "$PIN/maps"
rc=0
"$GPULAT" --source pinned status >/dev/null 2>"$T_TMP/sp" || rc=$?
[[ $rc -ne 0 ]] && grep -q "$PIN is half made, not a BPF source: maps/.*gpulat detach removes it, gpulat attach replaces it" "$T_TMP/sp" &&
	ok "--source pinned names a stale folder and fails (exit $rc)" ||
	not_ok "--source pinned on a stale folder # rc $rc: $(cat "$T_TMP/sp")"
"$GPULAT" status >"$T_TMP/sa" 2>&1 &&
	head -1 "$T_TMP/sa" | grep -q "not read: $PIN is half made" &&
	grep -q '^source: *BPF, loaded for this command' "$T_TMP/sa" &&
	ok "auto names a stale folder and loads its own" ||
	not_ok "auto on a stale folder # $(head -2 "$T_TMP/sa")"
"$GPULAT" attach >/dev/null 2>"$T_TMP/as" &&
	ok "attach takes the place of a stale folder" ||
	not_ok "attach over a stale folder # $(cat "$T_TMP/as")"
# another build's map of the same key and value size but another type
# (gl_pcpu as a per-CPU array): refused, never mapped and misread
if command -v bpftool >/dev/null; then
	vs=$(bpftool -j map show pinned "$PIN/maps/gl_pcpu" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["bytes_value"])')
	rm -f "$PIN/maps/gl_pcpu"
	bpftool map create "$PIN/maps/gl_pcpu" type percpu_array key 4 \
		value "$vs" entries 26 name gl_pcpu 2>"$T_TMP/mc"
	rc=0
	"$GPULAT" --source pinned status >/dev/null 2>"$T_TMP/ob" || rc=$?
	[[ $rc -ne 0 ]] && grep -q "$PIN is another build's: maps/gl_pcpu has another layout" "$T_TMP/ob" &&
		ok "a pinned map of another type is another build's (exit $rc)" ||
		not_ok "a pinned map of another type # rc $rc: $(cat "$T_TMP/mc" "$T_TMP/ob")"
else
	ok "a pinned map of another type # SKIP no bpftool"
fi
"$GPULAT" detach >/dev/null && [[ ! -e $PIN ]] &&
	ok "detach removes the pins" || not_ok "detach"
rc=0
"$GPULAT" --source pinned status >/dev/null 2>"$T_TMP/np" || rc=$?
[[ $rc -ne 0 ]] && grep -q "no BPF source is pinned" "$T_TMP/np" &&
	ok "--source pinned without one says so (exit $rc)" ||
	not_ok "--source pinned without one # rc $rc: $(cat "$T_TMP/np")"

# attach killed at each step: the half-made temporary is named and
# removed by the next status (whatever its source), attach then works
steps=0 bad=0
for step in 1 2 3 4 5 6; do
	GPULAT_ATTACH_PAUSE=$step "$GPULAT" attach >/dev/null 2>"$T_TMP/k.err" &
	kp=$!
	for i in $(seq 300); do
		grep -q "attach paused at step $step" "$T_TMP/k.err" && break
		kill -0 $kp 2>/dev/null || break
		sleep 0.05
	done
	if ! grep -q "attach paused at step $step" "$T_TMP/k.err"; then
		bad=$((bad + 1))
		echo "# attach never paused at step $step: $(cat "$T_TMP/k.err")"
		wait $kp
		"$GPULAT" detach >/dev/null 2>&1
		continue
	fi
	steps=$step
	kill -9 $kp
	wait $kp 2>/dev/null
	"$GPULAT" --source bpf status >"$T_TMP/ks" 2>&1
	if ((step < 6)); then
		grep -q "^gpulat: removed /sys/fs/bpf/gpulat_tmp_${kp}_[0-9]*, the half-made pin folder of gpulat attach (pid $kp), killed before it finished" "$T_TMP/ks" ||
			{ bad=$((bad + 1)); echo "# step $step: status: $(head -2 "$T_TMP/ks")"; }
	fi
	ls -d /sys/fs/bpf/gpulat_* 2>/dev/null | grep -q . &&
		{ bad=$((bad + 1)); echo "# step $step: left $(ls -d /sys/fs/bpf/gpulat_*)"; }
	"$GPULAT" status >"$T_TMP/ks2" 2>&1 ||
		{ bad=$((bad + 1)); echo "# step $step: status after: $(head -2 "$T_TMP/ks2")"; }
	grep -q "half made\|stale" "$T_TMP/ks2" &&
		{ bad=$((bad + 1)); echo "# step $step: status after: $(head -2 "$T_TMP/ks2")"; }
	# killed once in place (step 6) it is whole: detach it first
	((step == 6)) && "$GPULAT" detach >/dev/null
	"$GPULAT" attach >/dev/null 2>"$T_TMP/ka" && [[ -d $PIN/maps ]] ||
		{ bad=$((bad + 1)); echo "# step $step: attach after: $(cat "$T_TMP/ka")"; }
	"$GPULAT" detach >/dev/null 2>&1
done
((steps == 6 && !bad)) &&
	ok "attach killed at each of its 6 steps: status names and removes what it left, attach works after" ||
	not_ok "attach killed at each step # $steps steps, $bad failures"
# a killed detach: the next attach says what it removed
"$GPULAT" attach >/dev/null 2>&1
GPULAT_ATTACH_PAUSE=1 "$GPULAT" detach >/dev/null 2>"$T_TMP/kd.err" &
kp=$!
for i in $(seq 300); do
	grep -q "detach paused at step 1" "$T_TMP/kd.err" && break
	sleep 0.05
done
kill -9 $kp
wait $kp 2>/dev/null
"$GPULAT" attach >/dev/null 2>"$T_TMP/ka"
rc=$?
((rc == 0)) && grep -q "^gpulat: removed /sys/fs/bpf/gpulat_old_${kp}_[0-9]*, the half-removed pin folder of gpulat detach (pid $kp)" "$T_TMP/ka" &&
	ok "a killed detach: the next attach removes what it left, says so, and works" ||
	not_ok "a killed detach, then attach # rc $rc: $(cat "$T_TMP/ka")"
"$GPULAT" detach >/dev/null 2>&1

"$GPULAT" --source bpf status >"$T_TMP/st2" 2>&1
grep -q 'loaded for this command' "$T_TMP/st2" &&
	ok "after detach a command loads its own" || not_ok "after detach # $(head -3 "$T_TMP/st2")"
t_done
