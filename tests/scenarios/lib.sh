# SPDX-License-Identifier: GPL-2.0
# Shared by the scenario incidents (tests/scenarios/s_*.sh), sourced.
# An incident sets up a fault whose answer is known, runs gpulat diagnose
# while it lasts (the BPF source, a source of its own), and judges:
#
#   EXPECT_LAYER    the layer ranked first (driver, network, storage,
#                   scheduler, memory; none: nothing abnormal); for two
#                   faults at once, both ("network scheduler"): each
#                   abnormal, ranked first and second in either order
#   EXPECT_CULPRIT  an extended regex one of those layers' culprits',
#                   affected tasks' or I/O users' names (comm) must match
#                   ("": none)
#   EXPECT_PIDS     pids one advice of those layers must all name
#   EXPECT_ADVICE   an extended regex one of their advice must match;
#                   for two faults, one per layer, separated by " ;; "
#                   in EXPECT_LAYER's order
#   FORBID_ADVICE   an extended regex no advice of any layer may match
#                   (a precondition false on this host)
#
# Every incident also holds the advice to the preconditions the
# diagnosis itself measured: the queue advice only where the storage
# layer's time in the queue exceeds its time in the device.
#
# It prints one line for the runner, "result NAME EXPECTED GOT layer=ok
# culprit=ok advice=ok" (ok, miss, or - when not asked), then exits 0
# when all held, 1 when one did not, 4 when it cannot run here (SKIP
# line with the reason).
#
#   GPULAT       the tool (default build/user/gpulat)
#   SC_SECONDS   how long diagnose watches (default 10)

GPULAT=${GPULAT:-build/user/gpulat}
PY=${GPULAT_PYTHON:-python3}
SC_SECONDS=${SC_SECONDS:-10}
SC_NAME=$(basename "$0" .sh)
SC_NAME=${SC_NAME#s_}
SC_PIDS=()
SC_UNDO=()
SC_TMP=$(mktemp -d /tmp/gpulat-scenario.XXXXXX)
EXPECT_LAYER= EXPECT_CULPRIT= EXPECT_PIDS= EXPECT_ADVICE= FORBID_ADVICE=

sc_cleanup() {
	local p i
	for p in "${SC_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for p in "${SC_PIDS[@]}"; do
		while kill -0 "$p" 2>/dev/null; do sleep 0.05; done
	done
	for ((i = ${#SC_UNDO[@]} - 1; i >= 0; i--)); do
		eval "${SC_UNDO[i]}" 2>/dev/null
	done
	[[ -n ${SC_KEEP:-} ]] && cp "$SC_TMP/d.json" "$SC_KEEP" 2>/dev/null
	rm -rf "$SC_TMP"
}
trap sc_cleanup EXIT

# sc_skip WHY: this incident cannot be set up here
sc_skip() {
	echo "result $SC_NAME ${EXPECT_LAYER:-?} - SKIP $*"
	exit 4
}

# sc_undo CMD: run CMD (a string) at exit, last registered first
sc_undo() { SC_UNDO+=("$1"); }

# sc_py NAME CPU CODE [NICE]: Python CODE in the background on CPU, as a
# process named NAME (its comm, as the kernel and gpulat see it: set by
# the process itself, since exec names it after the program), at nice
# NICE (default 0), killed at exit; its pid in SC_LAST
sc_py() {
	nice -n "${4:-0}" taskset -c "$2" "$PY" -c "import ctypes
ctypes.CDLL(None).prctl(15, b'$1')
$3" >/dev/null 2>&1 &
	SC_LAST=$!
	SC_PIDS+=("$SC_LAST")
	disown "$SC_LAST"	# killed at exit without a word from the shell
}

# sc_spin NAME CPU: a busy loop named NAME pinned to CPU
sc_spin() { sc_py "$1" "$2" 'while True: pass'; }

# sc_threads NAME CPU: one process of four threads spinning on CPU (a
# thread pool: OpenMP, a data loader, a miner), its pid in SC_LAST
sc_threads() {
	sc_py "$1" "$2" 'import threading
def spin():
    while True: pass
for _ in range(3):
    threading.Thread(target=spin, daemon=True).start()
spin()'
}

# sc_bigfile: a 512 MiB file in /var/tmp (on a disk), removed at exit,
# its path in SC_FILE; skips the incident when it cannot be written
sc_bigfile() {
	SC_FILE=$(mktemp /var/tmp/gpulat-sc-disk.XXXXXX)
	sc_undo "rm -f '$SC_FILE'"
	head -c $((512 << 20)) /dev/zero >"$SC_FILE" && sync "$SC_FILE" ||
		sc_skip "cannot write a 512 MiB file in /var/tmp"
}

# sc_disk_reader NAME FILE INFLIGHT: O_DIRECT reads of 1 MiB at random
# places of FILE, INFLIGHT at a time (one process, as many threads)
sc_disk_reader() {
	sc_py "$1" 0-$(sc_last_cpu) "import os, mmap, random, threading
fd = os.open('$2', os.O_RDONLY | os.O_DIRECT)
n = os.fstat(fd).st_size >> 20
def w():
    b = mmap.mmap(-1, 1 << 20)
    r = random.Random()
    while True:
        os.preadv(fd, [b], r.randrange(n) << 20)
for _ in range($(($3 - 1))):
    threading.Thread(target=w, daemon=True).start()
w()"
}

# sc_ticker NAME CPU PERIOD_S: a nice 19 loop that sleeps PERIOD_S on CPU:
# woken, it waits behind whatever holds the CPU
sc_ticker() {
	sc_py "$1" "$2" "import time
while True: time.sleep($3)" 19
}

# sc_memcg NAME BYTES: a memory cgroup of its own limited to BYTES, as
# this host has them (v1 memory hierarchy, or cgroup2 memory.max),
# removed at exit; its folder in SC_CG, the file taking pids in SC_PROCS
sc_memcg() {
	local v1=/sys/fs/cgroup/memory v2
	v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	if [[ -d $v1 && -w $v1 ]]; then
		SC_CG=$v1/$1.$$
		mkdir "$SC_CG" && echo "$2" >"$SC_CG/memory.limit_in_bytes" ||
			return 1
	elif [[ -n $v2 && -f $v2/cgroup.controllers ]] &&
	     grep -qw memory "$v2/cgroup.subtree_control"; then
		SC_CG=$v2/$1.$$
		mkdir "$SC_CG" && echo "$2" >"$SC_CG/memory.max" || return 1
	else
		return 1
	fi
	SC_PROCS=$SC_CG/cgroup.procs
	sc_undo "rmdir '$SC_CG'"
}

# sc_cgroup NAME: a container's cgroup, as a runtime makes one: in the
# cgroup2 mount (pure, or the unified one of a hybrid host) and, on a
# hybrid host, in the v1 cpu hierarchy too; removed at exit.  The files
# taking its pids in SC_CG_PROCS (space-separated), its cgroup2 folder
# in SC_CG2, its v1 cpu folder (or none) in SC_CG1
sc_cgroup() {
	local v2 v1=/sys/fs/cgroup/cpu
	v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	[[ -n $v2 && -w $v2 ]] || return 1
	SC_CG2=$v2/$1.$$ SC_CG1=
	mkdir "$SC_CG2" || return 1
	sc_undo "rmdir '$SC_CG2'"
	SC_CG_PROCS=$SC_CG2/cgroup.procs
	if [[ -f $v1/cpu.shares && -w $v1 ]]; then
		SC_CG1=$v1/$1.$$
		mkdir "$SC_CG1" || return 1
		sc_undo "rmdir '$SC_CG1'"
		SC_CG_PROCS+=" $SC_CG1/cgroup.procs"
	fi
}

# sc_py_join: Python that puts its own process into every SC_CG_PROCS
sc_py_join() {
	local f out=
	for f in $SC_CG_PROCS; do
		out+="open('$f', 'w').write(str(__import__('os').getpid()))
"
	done
	printf '%s' "$out"
}

# sc_shaped_net: a veth pair into a network namespace of its own, its
# host end shaped to 2 Mbit/s (tbf), and a job (netjob) sending 48
# Mbit/s of UDP through it; removed at exit.  The shaped device in
# SC_DEV, the job's pid in SC_LAST
sc_shaped_net() {
	local ns=gl-sc-$$ b=glsc$$b
	command -v ip >/dev/null && command -v tc >/dev/null ||
		sc_skip "no ip or tc (iproute2)"
	SC_DEV=glsc$$a
	ip netns add "$ns" 2>/dev/null || sc_skip "cannot make a network namespace"
	sc_undo "ip netns del $ns"
	ip link add "$SC_DEV" type veth peer name "$b" 2>/dev/null ||
		sc_skip "no veth"
	sc_undo "ip link del $SC_DEV"
	ip link set "$b" netns "$ns" &&
		ip addr add 10.213.7.1/30 dev "$SC_DEV" &&
		ip link set "$SC_DEV" up &&
		ip -n "$ns" addr add 10.213.7.2/30 dev "$b" &&
		ip -n "$ns" link set "$b" up ||
		sc_skip "cannot set up the veth pair"
	tc qdisc add dev "$SC_DEV" root tbf rate 2mbit burst 16kb latency 100ms ||
		sc_skip "no tbf"
	sc_py netjob 0-$(sc_last_cpu) "import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
buf = b'x' * 1200
while True:
    for _ in range(50):
        try:
            s.sendto(buf, ('10.213.7.2', 9))
        except OSError:
            pass
    time.sleep(0.01)"
}

# sc_last_cpu: the highest online CPU
sc_last_cpu() { echo $(($(nproc) - 1)); }

# sc_diagnose: gpulat diagnose over the incident, JSON and text kept
sc_diagnose() {
	"$GPULAT" --source bpf diagnose -d "$SC_SECONDS" -j \
		>"$SC_TMP/d.json" 2>"$SC_TMP/d.err" ||
		{ echo "# diagnose failed: $(tail -c 300 "$SC_TMP/d.err")"; return 1; }
}

# sc_judge: compare the diagnosis with the EXPECT_* answers, print the
# result line, exit with its status
sc_judge() {
	"$PY" - "$SC_TMP/d.json" "$SC_NAME" "$EXPECT_LAYER" "$EXPECT_CULPRIT" \
		"$EXPECT_PIDS" "$EXPECT_ADVICE" "$FORBID_ADVICE" <<'PYEOF'
import json, re, sys
path, name, layer, culprit, pids, advice, forbid = sys.argv[1:8]
d = json.load(open(path))
got = d.get("verdict") or "none"
want = layer.split()
by = {l["layer"]: l for l in d["layers"]}
top = [l["layer"] for l in d["layers"] if l["abnormal"]][:len(want)]
ok_layer = got in want and (len(want) == 1 or
                            (sorted(top) == sorted(want)))
res = {"layer": "ok" if ok_layer else "miss"}
# the matrix's row: the layer found first when it was one of the answers
layer = got if ok_layer else want[0]
mine = [by[w] for w in want if w in by]
names, adv = [], []
for l in mine:
    names += [c["comm"] for c in l.get("culprits", [])] + \
             [a["comm"] for a in l.get("affected", [])] + \
             [a["comm"] for a in l.get("io_users", [])]
    adv += l.get("advice", [])
if culprit:
    res["culprit"] = "ok" if any(re.search(culprit, n) for n in names) else "miss"
else:
    res["culprit"] = "-"
ok_adv = True
if advice:
    each = advice.split(" ;; ")
    ok_adv = all(any(re.search(e, a) for a in
                     (by[w].get("advice", []) if len(each) > 1 and w in by
                      else adv))
                 for e, w in zip(each, want if len(each) > 1 else [None]))
if pids:
    ok_adv = ok_adv and any(all(re.search(r"\b%s\b" % p, a) for p in pids.split())
                            for a in adv)
every = [a for l in d["layers"] for a in l.get("advice", [])]
bad = [a for a in every if forbid and re.search(forbid, a)]
for l in d["layers"]:
    if l["layer"] != "storage":
        continue
    ex = {s: sum(e["excess_ns"] for e in l["evidence"]
                 if e["series"].endswith("." + s)) for s in ("queue", "device")}
    if ex["queue"] <= ex["device"]:
        bad += [a for a in l.get("advice", [])
                if a.startswith("Requests wait in the I/O scheduler")]
res["advice"] = "-" if not (advice or pids or forbid) else \
                ("ok" if ok_adv and not bad else "miss")
print("result %s %s %s %s" % (name, layer, got,
      " ".join("%s=%s" % kv for kv in res.items())))
for l in d["layers"]:
    if l["abnormal"]:
        print("#   %s %.1f ms/s; culprits %s; advice[0] %s" % (
              l["layer"], l["score_ms_per_s"],
              [(c["comm"], c["pid"]) for c in l.get("culprits", [])][:3],
              (l.get("advice") or [""])[0][:160]))
for a in bad:
    print("#   forbidden advice: " + a[:200])
sys.exit(0 if all(v in ("ok", "-") for v in res.values()) else 1)
PYEOF
}
