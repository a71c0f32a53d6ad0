#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fleet monitoring files: the Prometheus rules (promtool check and
# test), the hand-made exposition fixture (promtool check metrics), and
# scripts/fleet/check-dashboard on the Grafana dashboard, the rules and
# on broken copies of them.  TAP; promtool's and jq's checks are skipped,
# with the reason, where they are missing.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
PROM=$top/scripts/fleet/prometheus
RULES=$PROM/gpulat.rules.yml
RTEST=$PROM/gpulat.rules.test.yml
DASH=$top/scripts/fleet/grafana/gpulat.json
CHECK=$top/scripts/fleet/check-dashboard
EXPO=$top/tests/scripts/fixtures/gpulat-exposition.prom
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
. "$(dirname "$0")/tap.sh"
# what a failed check printed, as TAP comments
show() { sed 's/^/# /' "$d/out"; }

have_promtool=1 have_jq=1
command -v promtool >/dev/null || have_promtool=0
command -v jq >/dev/null || have_jq=0
nopt="promtool not installed (Debian: prometheus; scripts/setup-host)"
nojq="jq not installed (scripts/setup-host)"

# promtool NAME CMD... - a promtool check that must pass
promtool_ok() {
	local name=$1
	local cmd=("${@:2}")
	if ((!have_promtool)); then skip "$name" "$nopt"; return; fi
	check "$name" '"${cmd[@]}" >"$d/out" 2>&1 || { show; false; }'
}
# dash_fails NAME FILE PATTERN - check-dashboard fails on FILE, saying PATTERN
dash_fails() {
	local name=$1 file=$2 pat=$3
	local opts=("${@:4}")
	if ((!have_jq)); then skip "$name" "$nojq"; return; fi
	check "$name" '! "$CHECK" ${opts[@]+"${opts[@]}"} "$file" "$EXPO" >"$d/out" 2>&1 &&
		grep -qF -- "$pat" "$d/out" || { show; false; }'
}

echo "TAP version 13"
echo "1..18"
promtool_ok "promtool check rules" promtool check rules "$RULES"
promtool_ok "promtool test rules" promtool test rules "$RTEST"
promtool_ok "promtool check metrics on the exposition fixture" \
	sh -c 'out=$(promtool check metrics <"$1" 2>&1); rc=$?; printf "%s" "$out"; [ $rc = 0 ] && [ -z "$out" ]' \
	sh "$EXPO"

# every alert has a test that fires it and one that expects it silent
alerts=$(sed -n 's/^ *- alert: *//p' "$RULES")
check "the rules have alerts" '[[ $(wc -w <<<"$alerts") -ge 10 ]]'
missing=
for a in $alerts; do
	awk -v a="$a" '
		$0 ~ "alertname: " a "$" { in_a = 1; next }
		/alertname:/ { in_a = 0 }
		in_a && /exp_alerts: \[\]/ { silent = 1 }
		in_a && /- exp_labels:/ { fires = 1 }
		END { exit !(silent && fires) }' "$RTEST" || missing+=" $a"
done
check "every alert is tested firing and silent${missing:+ (not:$missing)}" \
	'[[ -z $missing ]]'

# the fixture has every metric family of the spec
families="gpulat_runqueue_latency_seconds gpulat_block_latency_seconds
	gpulat_net_latency_seconds gpulat_irq_handler_seconds
	gpulat_softirq_latency_seconds gpulat_nvidia_irq_latency_seconds
	gpulat_nvidia_kthread_wake_latency_seconds gpulat_mm_stall_seconds
	gpulat_dropped_total gpulat_nvidia_xid_total gpulat_trace_lost_total
	gpulat_flight_bundles_total gpulat_flight_triggers_total
	gpulat_flight_suppressed_total gpulat_exporter_snapshot_errors_total
	gpulat_flight_bundles_failed_total gpulat_flight_folder_bytes
	gpulat_http_refused_total
	gpulat_build_info gpulat_probe_up gpulat_exporter_other_keys
	gpulat_exporter_last_snapshot_timestamp_seconds
	gpulat_verdict_first gpulat_verdict_score_ratio
	gpulat_verdict_window_seconds gpulat_verdicts_total
	gpulat_verdict_cpu_seconds_total"
absent=
for f in $families; do
	grep -q "^# TYPE $f " "$EXPO" || absent+=" $f"
done
check "the fixture declares every metric family${absent:+ (not:$absent)}" \
	'[[ -z $absent ]]'

if ((have_jq)); then
	check "check-dashboard passes the dashboard and the rules" \
		'"$CHECK" --rules "$RULES" "$DASH" "$EXPO" >"$d/out" 2>&1 || { show; false; }'
	# every histogram of the fixture has a heatmap
	nohm=
	for h in $(awk '$2 == "TYPE" && $4 == "histogram" { print $3 }' "$EXPO"); do
		jq -e --arg m "${h}_bucket" '[.. | objects | select(.type? == "heatmap")
			| .targets[]?.expr | select(contains($m))] | length > 0' \
			"$DASH" >/dev/null || nohm+=" $h"
	done
	check "every histogram has a heatmap${nohm:+ (not:$nohm)}" '[[ -z $nohm ]]'
	check "the dashboard's datasource and instance variables" \
		'jq -e "[.templating.list[] | {(.name): .type}] | add
			| .datasource == \"datasource\" and .instance == \"query\"" \
			"$DASH" >/dev/null'
else
	skip "check-dashboard passes the dashboard and the rules" "$nojq"
	skip "every histogram has a heatmap" "$nojq"
	skip "the dashboard's datasource and instance variables" "$nojq"
fi

# broken copies
if ((have_jq)); then
	sed 's/gpulat_net_latency_seconds_bucket/gpulat_net_latncy_seconds_bucket/' \
		"$DASH" >"$d/misspelled.json"
	# the same inside a collapsed row, which holds its panels
	jq '(.panels | map(select(.type != "row"))) as $p
		| .panels = [{type: "row", id: 1000, title: "all", collapsed: true,
			      gridPos: {h: 1, w: 24, x: 0, y: 0}, panels: $p}]' \
		"$d/misspelled.json" >"$d/collapsed.json"
	jq '.panels[2].id = .panels[1].id' "$DASH" >"$d/dupid.json"
	jq '(.panels[] | select(.type == "heatmap")) |= (del(.datasource)
		| del(.targets[].datasource))' "$DASH" >"$d/nods.json"
	jq '.templating.list |= map(select(.name != "datasource"))' \
		"$DASH" >"$d/novar.json"
	head -c 2000 "$DASH" >"$d/truncated.json"
	sed 's/gpulat_nvidia_xid_total\[5m\]/gpulat_nvidia_xids_total[5m]/' \
		"$RULES" >"$d/rules.yml"
	jq '(.panels[] | select(.type == "heatmap") | .targets[0].expr) |=
		sub("_bucket"; "")' "$DASH" >"$d/hist.json"
fi
dash_fails "check-dashboard names a misspelled metric" "$d/misspelled.json" \
	'"net.tx: queue to transmit": unknown metric gpulat_net_latncy_seconds_bucket'
dash_fails "check-dashboard finds it in a collapsed row" "$d/collapsed.json" \
	'unknown metric gpulat_net_latncy_seconds_bucket'
dash_fails "check-dashboard names a duplicate panel id" "$d/dupid.json" \
	'is used by 2 panels'
dash_fails "check-dashboard names a panel without a datasource" "$d/nods.json" \
	'"sched.wakeup: wakeup to run" has no datasource'
dash_fails "check-dashboard names a datasource variable that is not defined" \
	"$d/novar.json" 'datasource ${datasource} names no template variable'
dash_fails "check-dashboard fails on JSON that does not parse" \
	"$d/truncated.json" 'not valid JSON'
dash_fails "check-dashboard names a histogram without _bucket" "$d/hist.json" \
	'gpulat_runqueue_latency_seconds is a histogram'
dash_fails "check-dashboard --rules names a rule's misspelled metric" "$DASH" \
	'alert GpulatNvidiaXid' --rules "$d/rules.yml"

# a rule test expecting a wrong value fails
if ((have_promtool)); then
	cp "$RULES" "$d/gpulat.rules.yml"
	sed 's/value: 0\.0002490358$/value: 0.0002490359/' "$RTEST" >"$d/wrong.test.yml"
	check "promtool test rules fails on a wrong expected value" \
		'! cmp -s "$RTEST" "$d/wrong.test.yml" &&
		 ! promtool test rules "$d/wrong.test.yml" >"$d/out" 2>&1 &&
		 grep -q "exp: .* 2.490359E-04" "$d/out" || { show; false; }'
else
	skip "promtool test rules fails on a wrong expected value" "$nopt"
fi
((n == 18)) || { echo "# planned 18 checks, ran $n"; fail=1; }
exit $fail
