#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source pinned by gpulat attach: it counts between commands, every
# command reads it (totals grow, reset starts again, disable stops a
# family's probes), a second attach is refused, detach removes it all.
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

# a reader killed (SIGKILL) leaves its slot and the gates open: the next
# command frees them.  The settings (struct gl_bpf_conf, first in .data)
# read with bpftool: nr_readers at byte 76, the gates, 9 x u64, at 0.
conf() {
	bpftool -j map dump pinned "$PIN/maps/gpulat_b_data" |
		"$PY" -c "import json,struct,sys
v = bytes(int(x, 16) for x in json.load(sys.stdin)[0]['value'])
print(struct.unpack_from('<I', v, 76)[0], min(struct.unpack_from('<9Q', v, 0)[1:]))"
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

"$GPULAT" detach >/dev/null && [[ ! -e $PIN ]] &&
	ok "detach removes the pins" || not_ok "detach"
"$GPULAT" --source bpf status >"$T_TMP/st2" 2>&1
grep -q 'loaded for this command' "$T_TMP/st2" &&
	ok "after detach a command loads its own" || not_ok "after detach # $(head -3 "$T_TMP/st2")"
t_done
