# SPDX-License-Identifier: GPL-2.0
# Shared by the BPF source's host tests (tests/bpf/test_*.sh), sourced.
# TAP output; each test's workloads are killed on exit, whatever happens.
#
#   GPULAT   the tool (default build/user/gpulat)
#
# bpf_hist FAMILY SECONDS [ARGS...]: one interval of the BPF source as
# JSON on stdout (loaded for that command: totals since it started).
# check NAME PYTHON-EXPR: "ok"/"not ok" NAME, the expression evaluated
# with d = the last JSON read by load_json FILE.

GPULAT=${GPULAT:-build/user/gpulat}
PY=${GPULAT_PYTHON:-python3}
T_N=0
T_FAIL=0
T_PIDS=()
T_TMP=$(mktemp -d /tmp/gpulat-bpftest.XXXXXX)

t_cleanup() {
	local p
	for p in "${T_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T_TMP"
}
trap t_cleanup EXIT

ok() { T_N=$((T_N + 1)); echo "ok $T_N $*"; }
not_ok() { T_N=$((T_N + 1)); T_FAIL=$((T_FAIL + 1)); echo "not ok $T_N $*"; }

# stop PID: SIGTERM, 10 s to go, then SIGKILL; reaped
stop() {
	local p=$1 i
	[[ -n $p ]] || return 0
	kill "$p" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
}

# spawn CMD...: run in the background, killed at exit
spawn() {
	"$@" >/dev/null 2>&1 &
	T_PIDS+=($!)
}

# hog CPU: a busy loop pinned to CPU
hog() {
	spawn taskset -c "$1" sh -c 'while :; do :; done'
}

# sleeper CPU PERIOD_S: a background-priority (nice 19) Python loop
# pinned to CPU that sleeps PERIOD_S: woken, it cannot preempt a hog
sleeper() {
	spawn nice -n 19 taskset -c "$1" "$PY" -c "import time
while True: time.sleep($2)"
}

bpf_hist() {
	local fam=$1 secs=$2
	shift 2
	"$GPULAT" --source bpf hist "$fam" --json "$@" "$secs" 1
}

# busy_irq - "IRQ NAME" of the line with one handler (chip, type, name
# after the counts) that 1000 O_DIRECT writes of 4 KiB fire most, over
# 100 times; nothing when none does
busy_irq() {
	local irqs='$1 ~ /^[0-9]+:$/ { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print $1, s, $NF, NF - i }'

	awk "$irqs" /proc/interrupts >"$T_TMP/busy_i0"
	dd if=/dev/zero of="$T_TMP/busy_io" bs=4k count=1000 oflag=direct 2>/dev/null
	awk "$irqs" /proc/interrupts >"$T_TMP/busy_i1"
	awk 'NR == FNR { n[$1] = $2; next }
		($1 in n) && $4 == 2 { print $2 - n[$1], $1, $3 }' \
		"$T_TMP/busy_i0" "$T_TMP/busy_i1" | sort -rn |
		awk '$1 > 100 { sub(":", "", $2); print $2, $3; exit }'
}

# check NAME EXPR JSONFILE: evaluate EXPR (Python) with d = the JSON
check() {
	local name=$1 expr=$2 file=$3 out
	if out=$("$PY" - "$file" "$expr" <<'PYEOF' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
def series(name, cpu=None, key_name=None):
    for s in d["series"]:
        if s["name"] == name and (cpu is None or s["cpu"] == cpu) and \
           (key_name is None or s["key_name"] == key_name):
            return s
    return None
def buckets_sum_ok():
    return all(sum(b[2] for b in s["buckets"]) == s["count"]
               for s in d["series"])
v = eval(sys.argv[2])
print(v)
sys.exit(0 if v else 1)
PYEOF
	); then
		ok "$name"
	else
		not_ok "$name # $expr -> $out"
	fi
}

# bpf_stale PID MAP N: put N stale stamps (ts 1 ns, at addresses 1..N, no
# object's) in the in-flight map MAP of the gpulat process PID, once it
# has loaded its programs and taken its first snapshot (1 s after its
# maps appear; 3 s at most for them); prints how many went in
bpf_stale() {
	"$PY" - "$@" <<'PYEOF'
import glob, json, re, subprocess, sys, time
pid, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def find():
    for f in glob.glob("/proc/%s/fdinfo/*" % pid):
        try:
            m = re.search(r"^map_id:\s*(\d+)", open(f).read(), re.M)
        except OSError:
            continue
        if m:
            out = subprocess.run(["bpftool", "-j", "map", "show", "id",
                                  m.group(1)], capture_output=True, text=True)
            if out.returncode == 0 and json.loads(out.stdout)["name"] == name:
                return m.group(1)
    return None
for _ in range(30):
    mid = find()
    if mid:
        break
    time.sleep(0.1)
# the maps exist before the programs load and the interval's first
# snapshot is taken: a stamp put in before it is swept before the
# interval, not in it
time.sleep(1.0)
put = 0
le = lambda v, k: " ".join("%02x" % b for b in v.to_bytes(k, "little"))
for a in range(1, n + 1) if mid else []:
    # struct gl_bpf_flight: ts 1, the rest 0
    if subprocess.run(["bpftool", "map", "update", "id", mid, "key", "hex"] +
                      le(a, 8).split() + ["value", "hex"] +
                      (le(1, 8) + " " + le(0, 32)).split(),
                      capture_output=True).returncode == 0:
        put += 1
print(put)
PYEOF
}

# t_done: the plan and the status (1 when any test failed)
t_done() {
	echo "1..$T_N"
	[[ $T_FAIL -eq 0 ]]
}
