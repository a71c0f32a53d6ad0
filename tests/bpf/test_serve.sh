#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# gpulat serve under a real Prometheus (Debian's), on the pinned BPF
# source, loopback only: the exposition passes promtool; what Prometheus
# stored of a window with a known workload (N O_DIRECT reads of a loop
# device, a CPU with two hogs and a sleeper) agrees with gpulat hist of
# two snapshots around it: the disk's count exactly, p99s within one
# gpulat bucket, the run queue's count within a stated tolerance; the
# HTTP side keeps serving root's scrapes under slowloris, a connection
# flood and a 1 MiB header (each from a user of its own: a local user's
# connections are bounded together, whatever its addresses), with bounded
# memory, and closes the abusers itself; the
# fleet's dashboard and rules (scripts/fleet), when there, check against
# the real scrape and evaluate without errors.
#
#   GPULAT_FLEET_DIR   where check-dashboard, grafana/ and prometheus/ are
#                      (default scripts/fleet)
. "$(dirname "$0")/lib.sh"

PIN=/sys/fs/bpf/gpulat
N=1000			# reads of the loop device in the window
SCHED_TOL=0.05		# relative, the run queue's count (see there)
ABUSE_S=12		# seconds of abuse, past the server's 10 s timeout
RSS_MAX_KB=16384	# the daemon's growth over the abuse
SCRAPE_MAX_S=1		# one scrape's time under abuse
HTTP_TIMEOUT_S=10	# SERVE_HTTP_TIMEOUT_S, user/engine/serve/serve.h
FLEET=${GPULAT_FLEET_DIR:-scripts/fleet}
PROBE="$PY $(dirname "$0")/serve_probe.py"

SERVE_PID=
PROM_PID=
ATTACHED=
IMG=
LOOP=

serve_cleanup() {
	stop "$PROM_PID"
	stop "$SERVE_PID"
	[[ -n $ATTACHED ]] && "$GPULAT" detach >/dev/null 2>&1
	[[ -n $LOOP ]] && losetup -d "$LOOP" 2>/dev/null
	[[ -n $IMG ]] && rm -f "$IMG"
	t_cleanup
}
trap serve_cleanup EXIT
trap 'exit 1' INT TERM HUP	# through the EXIT trap: nothing left behind

skip() { T_N=$((T_N + 1)); echo "ok $T_N $1 # SKIP $2"; }
# bail WHAT: a failure the rest cannot run after
bail() { not_ok "$1"; t_done; exit 1; }
# py EXPR JSONFILE: print EXPR (Python) with d = the JSON
py() { "$PY" -c "import json, sys; d = json.load(open(sys.argv[1])); print($1)" "$2"; }
# pyx EXPR: print EXPR (Python, math imported)
pyx() { "$PY" -c "import math; print($1)"; }

for c in prometheus curl; do
	if ! command -v $c >/dev/null; then
		skip "gpulat serve under Prometheus" "no $c (scripts/setup-host installs it)"
		t_done
		exit
	fi
done
if [[ -e $PIN ]]; then
	skip "gpulat serve on the pinned source" "$PIN exists already (someone's gpulat attach)"
	t_done
	exit
fi

# --- the disk: a loop device over tmpfs --------------------------------
# dm-delay would not make it a slow disk for gpulat: the block family
# times requests (block_rq_issue -> _complete), and dm-delay holds bios
# before they become requests of the disk below it; a dm device has no
# requests of its own.  So the loop device, whose device time is short.
if [[ -e /sys/module/dm_delay ]] || dmsetup targets 2>/dev/null | grep -qw delay; then
	echo "# dm-delay is usable here, but delays bios ahead of the requests timed: a plain loop device"
else
	echo "# dm-delay is not usable here (no dm_delay, no device-mapper): a plain loop device"
fi
dir=/dev/shm
[[ -d $dir && -w $dir ]] || dir=$T_TMP
IMG=$(mktemp "$dir/gpulat-serve.XXXXXX")
truncate -s 64M "$IMG"
if ! LOOP=$(losetup -f --show "$IMG" 2>/dev/null); then
	LOOP=
	skip "gpulat serve under Prometheus" "no loop device (losetup failed)"
	t_done
	exit
fi
disk=$(basename "$LOOP")
echo none >"/sys/block/$disk/queue/scheduler" 2>/dev/null
echo "# $LOOP over $IMG"

# --- gpulat attach, gpulat serve, Prometheus ---------------------------
"$GPULAT" attach >"$T_TMP/attach" 2>&1 || bail "gpulat attach # $(cat "$T_TMP/attach")"
ATTACHED=1
P1=$($PROBE port)
P2=$($PROBE port)
while [[ $P2 == "$P1" ]]; do P2=$($PROBE port); done
URL=http://127.0.0.1:$P1/metrics
PROM=127.0.0.1:$P2
"$GPULAT" serve --listen "127.0.0.1:$P1" >"$T_TMP/serve.log" 2>&1 &
SERVE_PID=$!
for ((i = 0; i < 100; i++)); do
	curl -sf --max-time 3 -o "$T_TMP/first.prom" "$URL" && break
	kill -0 "$SERVE_PID" 2>/dev/null || break
	sleep 0.1
done
[[ -s $T_TMP/first.prom ]] && ok "gpulat serve answers on 127.0.0.1:$P1 ($((i * 100)) ms)" ||
	bail "gpulat serve answers # $(head -c 300 "$T_TMP/serve.log")"

RULES=$FLEET/prometheus/gpulat.rules.yml
rules=
if [[ -f $RULES ]]; then
	rules="rule_files: [\"$(realpath "$RULES")\"]"
fi
# Prometheus 3 stores a classic histogram as one native histogram with
# custom buckets (NHCB) when a scrape job says so; 3.0 to 3.7 also need
# the native-histograms feature flag (Documentation/fleet.rst)
PROM_VER=$(prometheus --version 2>&1 | sed -n 's/^prometheus, version \([0-9]*\.[0-9]*\).*/\1/p')
nhcb=
pflags=()
if [[ ${PROM_VER%%.*} -ge 3 ]]; then
	nhcb="  - job_name: gpulat_nhcb
    convert_classic_histograms_to_nhcb: true
    static_configs:
      - targets: [\"127.0.0.1:$P1\"]
    metric_relabel_configs:
      - source_labels: [__name__]
        regex: \"gpulat_.*_seconds\"
        action: keep"
	[[ ${PROM_VER%%.*} -eq 3 && ${PROM_VER#*.} -lt 8 ]] &&
		pflags+=(--enable-feature=native-histograms)
fi
cat >"$T_TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
$rules
scrape_configs:
  - job_name: gpulat
    static_configs:
      - targets: ["127.0.0.1:$P1"]
$nhcb
EOF
prometheus "${pflags[@]}" --config.file="$T_TMP/prometheus.yml" \
	--storage.tsdb.path="$T_TMP/tsdb" --web.listen-address="$PROM" \
	--log.level=warn >"$T_TMP/prom.log" 2>&1 &
PROM_PID=$!
PROM_T0=$(date +%s)
up=
for ((i = 0; i < 120; i++)); do
	read -r up dur _ < <($PROBE targets "$PROM" gpulat 2>/dev/null)
	[[ $up == up ]] && break
	kill -0 "$PROM_PID" 2>/dev/null || break
	sleep 0.5
done
[[ $up == up ]] && ok "Prometheus scrapes the target: up ($((i / 2)) s; scrape ${dur}s)" ||
	bail "Prometheus target up # $up; $(tail -c 400 "$T_TMP/prom.log")"

# --- the exposition ------------------------------------------------------
curl -sf --max-time 3 -o "$T_TMP/scrape.prom" "$URL"
if ! command -v promtool >/dev/null; then
	skip "promtool check metrics" "no promtool (scripts/setup-host installs it)"
elif promtool check metrics <"$T_TMP/scrape.prom" >"$T_TMP/promtool" 2>&1; then
	ok "promtool check metrics: a scrape of $(wc -l <"$T_TMP/scrape.prom") lines passes"
else
	not_ok "promtool check metrics # $(head -c 400 "$T_TMP/promtool")"
fi
# what a scrape costs: series and bytes, and the buckets it left out (a
# histogram has 225 finite buckets at the default 8 per octave)
read -r nser nhist nbk < <(awk '!/^#/ { n++ } /^[a-z_]+_count[{ ]/ { h++ }
	/^[a-z_]+_bucket\{/ { b++ } END { print n, h, b }' "$T_TMP/scrape.prom")
nfull=$((nser - nbk + nhist * 226))
echo "# a scrape: $nser series, $(wc -c <"$T_TMP/scrape.prom") bytes; $nhist histograms, $nbk buckets written (+Inf included) of $((nhist * 226)): every bucket would be $nfull series"
((nbk < nhist * 226)) &&
	ok "the scrape leaves empty buckets out ($nser series, $nfull with every bucket)" ||
	not_ok "empty buckets left out # $nbk buckets of $nhist histograms"

# --- a window with a known workload --------------------------------------
# The window is two of gpulat's snapshots, A and B, and two scrape
# instants t1 and t2 of Prometheus: the scrapes whose page (serve renders
# one per second; a scrape gets the newest) was snapshotted nearest to A
# and B.  A and B are timed to land on serve's ticks (its pages say when
# they were taken: gpulat_exporter_last_snapshot_timestamp_seconds).
# The disk is quiet but for the N reads: t1..t2 and A..B hold the same
# requests, exactly.

# window_edge OUT: snapshot OUT on a tick of serve; prints
# "SNAP_UNIX SCRAPE_TS PAGE_TS": the Prometheus scrape (its timestamp)
# whose page is nearest the snapshot; up to 3 tries for one within 0.1 s
window_edge() {
	local out=$1 try page snap took best i ts pg
	local lead=0.03
	for ((try = 0; try < 3; try++)); do
		page=$(curl -sf --max-time 3 "$URL" |
			awk '$1 == "gpulat_exporter_last_snapshot_timestamp_seconds" { print $2 }')
		[[ -n $page ]] || continue
		read -r snap took < <($PROBE snap "$GPULAT" "$out" "$page" "$lead")
		[[ -n $snap ]] || continue
		lead=$took
		# the page after the snapshot's has been scraped: its page too
		best=
		for ((i = 0; i < 40; i++)); do
			best=$($PROBE pages "$PROM" 30 | "$PY" -c "
import sys
snap = float(sys.argv[1])
p = [tuple(map(float, l.split())) for l in sys.stdin]
if p and max(pg for _, pg in p) > snap + 0.5:
    ts, pg = min(p, key=lambda x: (abs(x[1] - snap), x[0]))
    print('%.3f %.3f' % (ts, pg))" "$snap")
			[[ -n $best ]] && break
			sleep 0.25
		done
		[[ -n $best ]] || continue
		read -r ts pg <<<"$best"
		if [[ $(pyx "abs($pg - $snap) <= 0.1") == True || $try -eq 2 ]]; then
			echo "$snap $ts $pg"
			return 0
		fi
	done
	return 1
}

# settle the new disk (what a new disk gets read once), then stay quiet;
# reads as in the window once before it, so that the window's land in
# buckets written already (the range is steady: Documentation/fleet.rst)
dd if="$LOOP" of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null
taskset -c 0 dd if="$LOOP" of=/dev/null bs=4k count=$N iflag=direct 2>/dev/null
sleep 1
read -r snapA t1 pageA < <(window_edge "$T_TMP/A") ||
	bail "snapshot A and scrape t1 # $(tail -c 300 "$T_TMP/serve.log")"
last=$(($(nproc) - 1))
hog "$last"
h1=$!
hog "$last"
h2=$!
sleeper "$last" 0.005
s1=$!
w0=$(date +%s.%N)
taskset -c 0 dd if="$LOOP" of=/dev/null bs=4k count=$N iflag=direct 2>"$T_TMP/dd" ||
	not_ok "the $N reads # $(cat "$T_TMP/dd")"
sleep 4
# the rolling verdict names the hogs' layer while they run (its window
# is 10 s: the hogs' waits, about a second of them per second, dominate)
curl -sf --max-time 3 -o "$T_TMP/hog.prom" "$URL"
kill "$h1" "$h2" "$s1" 2>/dev/null
wait "$h1" "$h2" "$s1" 2>/dev/null
w1=$(date +%s.%N)
# (who it names first is the CPU's busiest holder, on a shared host not
# always a hog: any, but one)
grep -q '^gpulat_verdict_first{layer="scheduler",culprit="[^"]' "$T_TMP/hog.prom" &&
	ok "the rolling verdict: the scheduler first, a holder named" ||
	not_ok "the rolling verdict # $(grep '^gpulat_verdict_\(first\|score\)' "$T_TMP/hog.prom" | tr '\n' ' ')"
sleep 2.5		# two scrapes at least after it
read -r snapB t2 pageB < <(window_edge "$T_TMP/B") ||
	bail "snapshot B and scrape t2 # $(tail -c 300 "$T_TMP/serve.log")"
echo "# window: A $snapA (page $pageA, scrape t1 $t1), workload $w0..$w1, B $snapB (page $pageB, scrape t2 $t2)"
curl -sf --max-time 3 -o "$T_TMP/after.prom" "$URL"
# per disk (-D): the disk's own series; the run queue's is one either way
"$GPULAT" hist -D -i "$T_TMP/B" -f "$T_TMP/A" --json >"$T_TMP/d.json" ||
	not_ok "gpulat hist -D -i B -f A"

# count SELECTOR: Prometheus' count between t1 and t2
count() {
	$PROBE q "$PROM" "sum($1 @ $t2) - sum($1 @ $t1)"
}
# p99 SELECTOR: Prometheus' p99 between t1 and t2, in ns
p99() {
	local s
	s=$($PROBE q "$PROM" "histogram_quantile(0.99, sum by (le) ($1 @ $t2 - $1 @ $t1))")
	pyx "round($s * 1e9)"
}
# slot NS: gpulat's bucket of a value in ns
slot() { $PROBE slot "$(pyx "$1 / 1e9")"; }

blk='{device="'$disk'",op="read",stage="device"}'
pc=$(count "gpulat_block_latency_seconds_count$blk")
gs="[s for s in d['series'] if s['name'] == 'block.read.device' and s['key_name'] == '$disk']"
gc=$(py "sum(s['count'] for s in $gs)" "$T_TMP/d.json")
pp=$(p99 "gpulat_block_latency_seconds_bucket$blk")
gp=$(py "${gs}[0]['p99_ns'] if $gs else 0" "$T_TMP/d.json")
echo "# $disk reads: Prometheus $pc, gpulat hist $gc (of $N); p99 Prometheus $pp ns (bucket $(slot "$pp")), gpulat $gp ns (bucket $(slot "$gp"))"
[[ $pc == "$N" && $gc == "$N" ]] &&
	ok "$disk read device count t1..t2 = gpulat hist B-A = $N" ||
	not_ok "$disk read device count # Prometheus $pc, gpulat $gc, of $N"
# within one bucket; where the disk's range of buckets grew in the window
# (reads reached buckets never written before: their series begin in
# it), within the octave whose bounds were written all along
sel="gpulat_block_latency_seconds_bucket$blk"
n1=$($PROBE q "$PROM" "count($sel @ $t1)")
n2=$($PROBE q "$PROM" "count($sel @ $t2)")
tol=1 within="one gpulat bucket"
if [[ $n1 != "$n2" ]]; then
	tol=8 within="an octave (its range grew, $n1 to $n2 buckets)"
fi
[[ $pp =~ ^[0-9]+$ && $gp -gt 0 ]] &&
	(($(slot "$pp") - $(slot "$gp") <= tol && $(slot "$gp") - $(slot "$pp") <= tol)) &&
	ok "$disk read p99 within $within ($pp ns, $gp ns)" ||
	not_ok "$disk read p99 within $within # Prometheus $pp, gpulat $gp"

# The disk's trimmed buckets: Prometheus' quantiles are the ones over
# every bucket.  Of an instant: what Prometheus stored at t2 against
# promql's bucketQuantile (serve_probe.py) over all 226 buckets of
# gpulat hist of B (the disk was quiet around both), to the bit.
"$GPULAT" hist -D -i "$T_TMP/B" --json >"$T_TMP/b.json" ||
	not_ok "gpulat hist -D -i B"
read -r same of diff < <($PROBE quantiles "$PROM" \
	"histogram_quantile({q}, $sel @ $t2)" "$T_TMP/b.json" \
	block.read.device "$disk")
[[ $same == "$of" && $of -gt 0 ]] &&
	ok "histogram_quantile() of $disk's $n2 buckets stored at t2 = over every bucket of gpulat hist B, to the bit ($of quantiles)" ||
	not_ok "quantiles of the trimmed buckets at t2 # $same of $of the same: $diff"
# Of the window t1..t2: the same while its range of buckets held (a new
# bucket's series has no value at t1: its reads are out of the sum)
read -r same of diff < <($PROBE quantiles "$PROM" \
	"histogram_quantile({q}, sum by (le) ($sel @ $t2 - $sel @ $t1))" \
	"$T_TMP/d.json" block.read.device "$disk")
if [[ $n1 == "$n2" ]]; then
	[[ $same == "$of" && $of -gt 0 ]] &&
		ok "histogram_quantile() of $disk's buckets t1..t2 = over every bucket of gpulat hist B-A, to the bit ($of quantiles, $n1 buckets)" ||
		not_ok "quantiles of the trimmed buckets t1..t2 # $same of $of the same: $diff"
else
	skip "quantiles of the trimmed buckets t1..t2" "the range grew in the window, $n1 to $n2 buckets (the reads reached new buckets): $same of $of the same"
fi
# Stored as native histograms with custom buckets (Prometheus 3): the
# same quantiles, as far as its arithmetic goes
if [[ -z $nhcb ]]; then
	skip "native histograms with custom buckets (convert_classic_histograms_to_nhcb)" "Prometheus ${PROM_VER:-unknown} here; the option needs 3.0 or later"
else
	nsel="gpulat_block_latency_seconds{job=\"gpulat_nhcb\",device=\"$disk\",op=\"read\",stage=\"device\"}"
	read -r same of diff < <($PROBE quantiles "$PROM" \
		"histogram_quantile({q}, $nsel @ $t2)" "$T_TMP/b.json" \
		block.read.device "$disk" 1e-9)
	[[ $same == "$of" && $of -gt 0 ]] &&
		ok "Prometheus $PROM_VER stores the histograms as NHCB: histogram_quantile() at t2 = over every bucket of gpulat hist B ($of quantiles)" ||
		not_ok "NHCB quantiles at t2 # Prometheus $PROM_VER: $same of $of within 1e-9: $diff"
fi

# The run queue: every task of the host wakes up, all the time (here,
# thousands a second while a build runs beside the test); A and B are
# taken on serve's ticks but not at the same instant as its snapshots
# (a few ms apart, printed), and what wakes in between is in one count
# and not the other.  A cpu label (--per-cpu) does not help: the hogged
# CPU runs other tasks' wakeups too.  So: within SCHED_TOL, relative
# (measured: 0.01 to 0.4 %, the edges 0 to 50 ms apart, at 630 to 2,600
# wakeups a second with builds running beside the test).
rq='{kind="wakeup"}'
pc=$(count "gpulat_runqueue_latency_seconds_count$rq")
gs="[s for s in d['series'] if s['name'] == 'sched.wakeup' and s['cpu'] is None]"
gc=$(py "sum(s['count'] for s in $gs)" "$T_TMP/d.json")
pp=$(p99 "gpulat_runqueue_latency_seconds_bucket$rq")
gp=$(py "${gs}[0]['p99_ns'] if $gs else 0" "$T_TMP/d.json")
rate=$(pyx "round($gc / ($snapB - $snapA))")
echo "# wakeups: Prometheus $pc, gpulat hist $gc ($rate/s; edges $(pyx "round(($pageA - $snapA) * 1000, 1)") ms, $(pyx "round(($pageB - $snapB) * 1000, 1)") ms apart; differ by $(pyx "round(abs($pc - $gc) / max($gc, 1) * 100, 2)") %); p99 Prometheus $pp ns (bucket $(slot "$pp")), gpulat $gp ns (bucket $(slot "$gp"))"
[[ $pc =~ ^[0-9]+$ && $gc -gt 0 && $(pyx "abs($pc - $gc) <= $SCHED_TOL * $gc") == True ]] &&
	ok "wakeup count t1..t2 within $(pyx "$SCHED_TOL * 100") % of gpulat hist B-A ($pc, $gc)" ||
	not_ok "wakeup count within $SCHED_TOL # Prometheus $pc, gpulat $gc"
[[ $pp =~ ^[0-9]+$ && $gp -gt 0 ]] &&
	(($(slot "$pp") - $(slot "$gp") <= 1 && $(slot "$gp") - $(slot "$pp") <= 1)) &&
	ok "wakeup p99 within one gpulat bucket ($pp ns, $gp ns)" ||
	not_ok "wakeup p99 within one bucket # Prometheus $pp, gpulat $gp"

# --- the HTTP side under abuse --------------------------------------------
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$@"; }
c1=$(code -X POST "$URL")
c2=$(code "http://127.0.0.1:$P1/nothing")
c3=$(code -X DELETE "http://127.0.0.1:$P1/")
[[ $c1 == 405 && $c3 == 405 ]] && ok "a non-GET method: 405 (POST $c1, DELETE $c3)" ||
	not_ok "non-GET: 405 # POST $c1, DELETE $c3"
[[ $c2 == 404 ]] && ok "an unknown path: 404" || not_ok "unknown path: 404 # $c2"

rss() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$SERVE_PID/status"; }
# established NET: connections to the port from 127.0.0.NET, the server's
established() {
	ss -Htn state established "( sport = :$P1 )" 2>/dev/null |
		awk -v a="127.0.0.$1:" 'index($4, a) == 1' | wc -l
}
rss0=$(rss)
rss_max=$rss0
$PROBE abuse "$P1" "$ABUSE_S" 20 "$T_TMP/abuse.json" &
abuser=$!
T_PIDS+=("$abuser")
a0=$(date +%s.%N)
scrapes=0
bad=0
worst=0
est2=0
est3=0
sleep 0.5
end_us=$(($(date +%s%N) / 1000 + ABUSE_S * 1000000))
while (($(date +%s%N) / 1000 < end_us)); do
	r=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 3 "$URL")
	scrapes=$((scrapes + 1))
	[[ ${r% *} == 200 ]] || bad=$((bad + 1))
	# awk, not Python: each check of the loop costs a scrape's interval
	awk -v a="${r#* }" -v b="$worst" 'BEGIN { exit !(a > b) }' && worst=${r#* }
	k=$(rss)
	((k > rss_max)) && rss_max=$k
	k=$(established 2)
	((k > est2)) && est2=$k
	k=$(established 3)
	((k > est3)) && est3=$k
	sleep 0.5
done
a1=$(date +%s.%N)
read -r upmin upn smax < <(
	$PROBE q "$PROM" "min_over_time(up{job=\"gpulat\"}[${ABUSE_S}s])" "$a1" | tr '\n' ' '
	$PROBE q "$PROM" "count_over_time(up{job=\"gpulat\"}[${ABUSE_S}s])" "$a1" | tr '\n' ' '
	$PROBE q "$PROM" "max_over_time(scrape_duration_seconds{job=\"gpulat\"}[${ABUSE_S}s])" "$a1")
# the server closes what is left (idle now) by its timeout
gone=
for ((i = 0; i < 200; i++)); do
	if (($(established 2) + $(established 3) + $(established 4) == 0)); then
		gone=$(pyx "round($(date +%s.%N) - $a1, 1)")
		break
	fi
	sleep 0.1
done
wait "$abuser"
rss1=$(rss)
echo "# abuse $ABUSE_S s: $scrapes scrapes from 127.0.0.1, $bad failed, slowest ${worst} s; Prometheus: up min $upmin over $upn scrapes, slowest ${smax} s"
echo "# established at most: $est2 from 127.0.0.2 (slowloris), $est3 from 127.0.0.3 (100 opened); none left $gone s after the abuse"
echo "# VmRSS $rss0 kB before, $rss_max kB at most, $rss1 kB after ($((rss_max - rss0)) kB growth)"
"$PY" - "$T_TMP/abuse.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
life = lambda rows: [round(c - o, 1) for o, c in rows if c is not None]
cut = life(d["slow_cut"])
held = [x for x in cut if x >= 1]
after = lambda rows: [round(c - d["seconds"], 1) for o, c in rows
                      if c is not None and c >= d["seconds"]]
print("# slowloris: %d cut while sending, after %s..%s s (%d refused at once); "
      "the last 8 closed %s s after the abuse" %
      (len(held), min(held, default="-"), max(held, default="-"),
       len(cut) - len(held), sorted(set(after(d["slow_left"])))))
m = life(d["many"])
print("# flood: %d of %d closed within 1 s, the rest after %s s; errors %s" %
      (sum(x < 1 for x in m), len(d["many"]),
       sorted(set(x for x in m if x >= 1)), d["many_errors"]))
print("# 1 MiB headers: %s" % ", ".join("%s in %s s" % (
    (b["status"] or "no answer").split(" ", 1)[-1], b["took"]) for b in d["big"]))
PYEOF

# a scrape every 0.5 s, each with its measurements: 2 s apart at most
((bad == 0 && scrapes >= ABUSE_S / 2)) &&
	[[ $(pyx "$worst < $SCRAPE_MAX_S") == True ]] &&
	ok "under abuse, $scrapes scrapes from 127.0.0.1 all succeed, each < ${SCRAPE_MAX_S} s (slowest $worst s)" ||
	not_ok "scrapes under abuse # $scrapes, $bad failed, slowest $worst s"
[[ $upmin == 1 && $upn =~ ^[0-9]+$ ]] && ((upn >= ABUSE_S - 3)) &&
	ok "Prometheus' target stays up under abuse ($upn scrapes, slowest $smax s)" ||
	not_ok "target up under abuse # min $upmin over $upn"
((rss_max - rss0 < RSS_MAX_KB)) &&
	ok "the daemon's VmRSS grows by less than $((RSS_MAX_KB / 1024)) MiB ($((rss_max - rss0)) kB)" ||
	not_ok "VmRSS growth # $rss0 -> $rss_max kB"
((est2 <= 8 && est3 <= 8)) &&
	ok "at most 8 connections per peer, each abuser a user of its own ($est2 slowloris, $est3 of 100)" ||
	not_ok "per-peer bound # $est2, $est3"
check "the flood's connections over the bound are closed at once (>= 92 of 100 within 1 s)" \
	"len(d['many']) == 100 and sum(1 for o, c in d['many'] if c is not None and c - o < 1) >= 92" \
	"$T_TMP/abuse.json"
check "every 1 MiB header is refused (431), none answered 200, each within 2 s" \
	"d['big'] and all(b['status'] and ' 431 ' in b['status'] and b['took'] < 2 for b in d['big'])" \
	"$T_TMP/abuse.json"
# MHD's timeout alone counts from the last byte: a slowloris would keep
# its connections as long as it sends; the request's deadline cuts them
check "slowloris, a byte a second, is cut off by the server's $HTTP_TIMEOUT_S s deadline (by $((HTTP_TIMEOUT_S + 2)) s)" \
	"sum(1 for o, c in d['slow_cut'] if c - o >= $HTTP_TIMEOUT_S - 1) >= 8 and all(c - o <= $HTTP_TIMEOUT_S + 2 for o, c in d['slow_cut'])" \
	"$T_TMP/abuse.json"
[[ -n $gone ]] && [[ $(pyx "$gone <= 15") == True ]] &&
	ok "no abuser's connection left established $gone s after the abuse (by the server's timeout)" ||
	not_ok "abusers' connections closed # $(established 2) $(established 3) $(established 4) left after 20 s"
check "and every one of them was closed by the server" \
	"all(c is not None for o, c in d['slow_left'] + d['many'])" "$T_TMP/abuse.json"
kill -0 "$SERVE_PID" 2>/dev/null && [[ $(code "$URL") == 200 ]] &&
	ok "gpulat serve still serves after the abuse" ||
	not_ok "gpulat serve after the abuse # $(tail -c 300 "$T_TMP/serve.log")"

# --- the fleet's dashboard and rules -------------------------------------
CHECK=$FLEET/check-dashboard
DASH=$FLEET/grafana/gpulat.json
if [[ -x $CHECK && -f $DASH ]] && ! command -v jq >/dev/null; then
	skip "check-dashboard against the real scrape" "no jq, which it needs (scripts/setup-host installs it)"
elif [[ -x $CHECK && -f $DASH ]]; then
	# options first: check-dashboard [--rules RULES.yml]... DASHBOARD EXPOSITION
	args=()
	[[ -f $RULES ]] && args+=(--rules "$RULES")
	args+=("$DASH" "$T_TMP/after.prom")
	if "$CHECK" "${args[@]}" >"$T_TMP/cd" 2>&1; then
		ok "check-dashboard ${args[*]##*/} against the real scrape"
	else
		not_ok "check-dashboard # $(tail -c 400 "$T_TMP/cd")"
	fi
else
	skip "check-dashboard against the real scrape" "no $CHECK or $DASH in this tree yet"
fi
if [[ -f $RULES ]]; then
	if command -v promtool >/dev/null; then
		promtool check rules "$RULES" >"$T_TMP/cr" 2>&1 &&
			ok "promtool check rules $RULES" ||
			not_ok "promtool check rules # $(tail -c 400 "$T_TMP/cr")"
	fi
	# a few evaluations (1 s apart), every rule evaluated
	while (($(date +%s) < PROM_T0 + 5)); do sleep 0.5; done
	for ((i = 0; i < 30; i++)); do
		read -r rok rn rerr < <($PROBE rules "$PROM")
		[[ -n $rn && $rok == "$rn" ]] && break
		[[ $rerr == *"not evaluated"* ]] || break
		sleep 0.5
	done
	[[ -n $rn && $rn -gt 0 && $rok == "$rn" ]] &&
		ok "Prometheus evaluates the $rn rules of $RULES without errors" ||
		not_ok "rules evaluate # $rok of $rn ok: $rerr"
else
	skip "the fleet's rules evaluate in Prometheus" "no $RULES in this tree yet"
fi
t_done
