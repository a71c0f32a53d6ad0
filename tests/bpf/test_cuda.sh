#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source, cuda family: a GPU job's waits in the CUDA driver library,
# on the libcuda.so.1 double (tests/cuda/fake_cuda.c, $GPULAT_LIBCUDA)
# and the job (tests/cuda/job.c), which dlopen()s it by its soname:
#  0. without the library the family is held back and says why, and the
#     rest of the source runs; asked for by name, it attaches and says it
#     times nothing; refused by the verifier, it alone is left out;
#  1. a source pinned without the library places the uprobes at its next
#     open once the library is there (its refresh): a return and an entry
#     per function the double exports, pinned; further opens place none
#     twice; the nvidia family on beside it;
#  2. 50 cuStreamSynchronize of 3 ms asleep (a futex the double's timer
#     thread wakes: not the driver's): 50 calls in the job's key (its
#     tgid, named "job"), split into on CPU, preempted and other, the
#     GPU's parts empty, other ~ call;
#  3. spinning 1 ms: on CPU, other nothing;
#  4. cuMemcpyDtoH, which tail-calls cuMemcpyDtoH_v2 through the PLT:
#     50 calls, 50 nested;
#  5. two jobs at once: a key each;
#  6. the driver's path stood in for: this host's busiest disk IRQ taken
#     for the driver's handler and the job's threads for its kthreads (the
#     job renamed nv_queue, with GPULAT_BPF_NVIDIA_TEST_USER_TASKS), so
#     that the timer thread's wakeup is the driver's: the calls split into
#     gpu, driver, runq, preempted and return, and a reader at 1 us traces
#     their parts;
#  7. disable takes the uprobes off; enable without the library places
#     none, a later open that finds it places them;
#  8. detach leaves none;
#  9. a source loaded for one command times the calls, and leaves no
#     uprobe when it exits.
# Every call's parts add up to it to the nanosecond (sum_ns).
. "$(dirname "$0")/lib.sh"

PIN=/sys/fs/bpf/gpulat
DOUBLE=build/unit/cuda/libcuda.so.1
JOB=build/guest/dyn/cuda/job
NONE=$T_TMP/none/libcuda.so.1
FNS="cuStreamSynchronize cuEventSynchronize cuCtxSynchronize cuMemcpyDtoH
cuMemcpyDtoH_v2 cuMemcpyHtoD cuMemcpyHtoD_v2 cuStreamSynchronize_ptsz
cuMemcpyDtoH_v2_ptds cuMemcpyHtoD_v2_ptds"

if [[ ! -r $DOUBLE || ! -x $JOB ]]; then
	ok "the cuda family # SKIP no $DOUBLE or $JOB (make bpftest builds them)"
	t_done
	exit
fi
DOUBLE=$(realpath "$DOUBLE")
JOB=$(realpath "$JOB")
export LD_LIBRARY_PATH=${DOUBLE%/*}
# the functions of gpulat_cuda.h the double exports: a uprobe pair each
nfn=$(nm -D --defined-only "$DOUBLE" 2>/dev/null |
	awk -v fns="$FNS" 'BEGIN { n = split(fns, f); for (i = 1; i <= n; i++) w[f[i]] = 1 }
		($3 in w) { c++ } END { print c + 0 }')
((nfn)) || nfn=7	# the double's seven, without nm
nup=$((2 * nfn))

# fam_of IN OUT NAME: family NAME of a status JSON, with its attached
# tracepoints and every family's state
fam_of() {
	"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["families"] if f["family"] == sys.argv[3]][0]
f["attached"] = [p["tracepoint"] for p in f["probes"] if p["state"] == "attached"]
f["states"] = {x["family"]: x["state"] for x in d["families"]}
json.dump(f, open(sys.argv[2], "w"))' "$1" "$2" "$3"
}

# pins: the cuda family's uprobe links pinned
pins() {
	ls "$PIN/links" 2>/dev/null | grep -cE '^gl_cuda_(entry|return)_'
}

# up_links: the kernel's BPF links of the programs $UP_IDS (their ids),
# else of any named gl_cuda_entry or gl_cuda_return, whoever holds them
# (bpftool); -1 without bpftool.  up_ids: the pinned source's two.
up_links() {
	command -v bpftool >/dev/null || { echo -1; return; }
	"$PY" - $UP_IDS <<'PYEOF'
import json, subprocess, sys
def get(*a):
    r = subprocess.run(["bpftool", "-j"] + list(a), capture_output=True,
                       text=True)
    return json.loads(r.stdout or "[]")
ids = {int(i) for i in sys.argv[1:]} or \
      {p["id"] for p in get("prog", "show")
       if p.get("name") in ("gl_cuda_entry", "gl_cuda_return")}
print(sum(1 for l in get("link", "show") if l.get("prog_id") in ids))
PYEOF
}
up_ids() {
	local p
	for p in gl_cuda_entry gl_cuda_return; do
		bpftool -j prog show pinned "$PIN/progs/$p" 2>/dev/null |
			"$PY" -c 'import json, sys; print(json.load(sys.stdin)["id"])'
	done
}

# wait_links N: until up_links says N (a link unpinned is released
# later, one grace period each), 20 s at most; prints the last count
wait_links() {
	local i n
	for ((i = 0; i < 100; i++)); do
		n=$(up_links)
		[[ $n == "$1" || $n == -1 ]] && break
		sleep 0.2
	done
	echo "$n"
}

# job OUT [VAR=VALUE...] FUNCTION COUNT: run the job, its JSON in OUT, its
# pid (the key of its series) in OUT.pid
job() {
	local out=$1
	shift
	env "${@:1:$#-2}" "$JOB" "${@: -2}" >"$out" 2>"$out.err" &
	echo $! >"$out.pid"
	wait $!
}

# cuda_check NAME EXPR FILE KEY: EXPR (Python) with d = the hist JSON in
# FILE, s(part) the series cuda.PART of KEY ({} counts 0 when absent),
# drop(name) the counter cuda.NAME, parts_add_up() whether the parts'
# sums make the calls'
cuda_check() {
	local name=$1 expr=$2 file=$3 key=$4 out
	if out=$("$PY" - "$file" "$expr" "$key" <<'PYEOF' 2>&1
import json, sys
d = {"series": [], "drops": {}}
for line in open(sys.argv[1]):
    if line.strip():
        j = json.loads(line)
        d["series"] += j["series"]
        for k, v in j["drops"].items():
            d["drops"][k] = d["drops"].get(k, 0) + v
key = int(sys.argv[3])
def s(part):
    r = {"count": 0, "sum_ns": 0, "p50_ns": 0, "p99_ns": 0,
         "key_name": None}
    for x in d["series"]:
        if x["name"] == "cuda." + part and x["key"] == key:
            for f in ("count", "sum_ns"):
                r[f] += x[f]
            for f in ("p50_ns", "p99_ns", "key_name"):
                r[f] = x[f] if x["count"] else r[f]
    return r
def drop(name):
    return d["drops"].get("cuda." + name, 0)
PARTS = ("gpu", "driver", "runq", "preempted", "return", "oncpu", "other")
def parts_add_up():
    return s("call")["sum_ns"] == sum(s(p)["sum_ns"] for p in PARTS)
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

# summary FILE KEY: the split of KEY's calls (count, mean), a comment
summary() {
	"$PY" - "$1" "$2" <<'PYEOF'
import json, sys
key, n, ns = int(sys.argv[2]), {}, {}
for line in open(sys.argv[1]):
    for x in json.loads(line)["series"] if line.strip() else []:
        if x["family"] == "cuda" and x["key"] == key:
            part = x["name"][5:]
            n[part] = n.get(part, 0) + x["count"]
            ns[part] = ns.get(part, 0) + x["sum_ns"]
print("# " + ", ".join("%s %d mean %.0fus" % (p, n[p], ns[p] / n[p] / 1e3)
                       for p in n if n[p]))
PYEOF
}

# hist_pinned OUT: the pinned source's cuda series since its reset
hist_pinned() {
	"$GPULAT" --source pinned hist cuda -D --json >"$1" 2>"$1.err" ||
		not_ok "hist ran: $(cat "$1.err")"
}

reset() {
	"$GPULAT" --source pinned reset >/dev/null 2>&1 || not_ok "reset ran"
}

# --- 0. no library; refused -------------------------------------------------
GPULAT_LIBCUDA=$NONE "$GPULAT" --source bpf status --json \
	>"$T_TMP/st0.json" 2>"$T_TMP/st0.err"
rc=$?
fam_of "$T_TMP/st0.json" "$T_TMP/c0.json" cuda
check "no library: the source runs (exit 0), sched attached" \
	"$rc == 0 and d['states']['sched'] == 'attached'" "$T_TMP/c0.json"
check "no library: cuda held back, and says why" \
	"d['state'] == 'off' and d['reason'].startswith('held back until a CUDA driver library is found: GPULAT_LIBCUDA=$NONE') and not d['attached']" \
	"$T_TMP/c0.json"
GPULAT_LIBCUDA=$DOUBLE GPULAT_BPF_TEST_REJECT=cuda "$GPULAT" --source bpf \
	status --json >"$T_TMP/st0r.json" 2>"$T_TMP/st0r.err"
rc=$?
fam_of "$T_TMP/st0r.json" "$T_TMP/c0r.json" cuda
check "refused by the verifier: cuda alone left out, failed" \
	"$rc == 0 and d['state'] == 'unavailable' and d['reason'] == 'registration failed' and d['states']['sched'] == 'attached'" \
	"$T_TMP/c0r.json"

GPULAT_LIBCUDA=$NONE "$GPULAT" --source bpf hist cuda 0.1 1 \
	>/dev/null 2>"$T_TMP/h0.err"
rc=$?
if [[ $rc -eq 0 ]] &&
   grep -q "the cuda family times nothing: GPULAT_LIBCUDA=$NONE" "$T_TMP/h0.err"; then
	ok "asked for by name without the library: attached, and says it times nothing"
else
	not_ok "asked for by name without the library # rc $rc: $(cat "$T_TMP/h0.err")"
fi

# --- 1. pinned without the library, then with it ----------------------------
GPULAT_LIBCUDA=$NONE "$GPULAT" attach >"$T_TMP/att.log" 2>&1 ||
	not_ok "attach ran: $(cat "$T_TMP/att.log")"
GPULAT_LIBCUDA=$NONE "$GPULAT" --source pinned status --json \
	>"$T_TMP/st1.json" 2>&1
fam_of "$T_TMP/st1.json" "$T_TMP/c1.json" cuda
check "pinned without the library: cuda held back, says why" \
	"d['state'] == 'off' and d['reason'].startswith('held back until a CUDA driver library is found: GPULAT_LIBCUDA=$NONE')" \
	"$T_TMP/c1.json"
n=$(pins)
[[ $n -eq 0 ]] && ok "no uprobe pinned" || not_ok "no uprobe pinned # $n"

export GPULAT_LIBCUDA=$DOUBLE
command -v bpftool >/dev/null && UP_IDS=$(up_ids)
"$GPULAT" --source pinned status --json >"$T_TMP/st2.json" 2>"$T_TMP/st2.err"
fam_of "$T_TMP/st2.json" "$T_TMP/c2.json" cuda
check "the library there: the next open attaches cuda" \
	"d['state'] == 'attached' and d['attached'] == ['sched_process_exit', 'sched_switch', 'sched_waking']" \
	"$T_TMP/c2.json"
n=$(pins)
[[ $n -eq $nup ]] && ok "a return and an entry pinned per function ($nup)" ||
	not_ok "a return and an entry pinned per function # $n of $nup: $(cat "$T_TMP/st2.err")"
"$GPULAT" --source pinned status >/dev/null 2>&1
"$GPULAT" --source pinned hist cuda >/dev/null 2>&1
n=$(pins)
m=$(up_links)
if [[ $n -eq $nup && ($m -eq $nup || $m -eq -1) ]]; then
	ok "more opens place none twice ($n pinned, $m links)"
else
	not_ok "more opens place none twice # $n pinned, $m links, of $nup"
fi
# the nvidia family on by hand (no driver here): this host's busiest disk
# IRQ taken for the driver's handler, and user tasks named like its
# kthreads followed as them (step 6); the jobs of steps 2 to 5, "job",
# are none of its: the cuda programs take its path at every wakeup and
# find nothing the driver's
read -r irq name < <(busy_irq)
GPULAT_BPF_NVIDIA_TEST_USER_TASKS=1 GPULAT_BPF_NVIDIA_PATTERN=$name \
	"$GPULAT" --source pinned enable nvidia >/dev/null 2>&1 ||
	not_ok "enable nvidia ran"
"$GPULAT" --source pinned status --json >"$T_TMP/st3.json" 2>&1
fam_of "$T_TMP/st3.json" "$T_TMP/c3.json" nvidia
check "the nvidia family on beside it" "d['state'] == 'attached'" \
	"$T_TMP/c3.json"

# --- 2. asleep, woken by the double's thread: not the driver's -------------
reset
job "$T_TMP/j2" FAKE_CUDA_GPU_US=3000 cuStreamSynchronize 50 ||
	not_ok "job ran: $(cat "$T_TMP/j2.err")"
hist_pinned "$T_TMP/h2.json"
k=$(cat "$T_TMP/j2.pid")
summary "$T_TMP/h2.json" "$k"
cuda_check "asleep: 50 calls in the job's key, named job" \
	"s('call')['count'] == 50 and s('call')['key_name'] == 'job'" \
	"$T_TMP/h2.json" "$k"
cuda_check "asleep: each on CPU, preempted and other; no GPU part" \
	"all(s(p)['count'] == 50 for p in ('oncpu', 'preempted', 'other')) and all(s(p)['count'] == 0 for p in ('gpu', 'driver', 'runq', 'return'))" \
	"$T_TMP/h2.json" "$k"
cuda_check "asleep: call p50 >= 3 ms, other p50 >= 2.5 ms" \
	"s('call')['p50_ns'] >= 3000000 and s('other')['p50_ns'] >= 2500000" \
	"$T_TMP/h2.json" "$k"
cuda_check "asleep: the parts add up to the calls" "parts_add_up()" \
	"$T_TMP/h2.json" "$k"
cuda_check "asleep: no drops" "not any(d['drops'].values())" \
	"$T_TMP/h2.json" "$k"

# --- 3. spinning -------------------------------------------------------------
reset
job "$T_TMP/j3" FAKE_CUDA_SPIN=1 FAKE_CUDA_GPU_US=1000 cuStreamSynchronize 50 ||
	not_ok "job ran: $(cat "$T_TMP/j3.err")"
hist_pinned "$T_TMP/h3.json"
k=$(cat "$T_TMP/j3.pid")
summary "$T_TMP/h3.json" "$k"
cuda_check "spinning: 50 calls, on CPU p50 >= 0.9 ms" \
	"s('call')['count'] == 50 and s('oncpu')['count'] == 50 and s('oncpu')['p50_ns'] >= 900000" \
	"$T_TMP/h3.json" "$k"
cuda_check "spinning: other small (p50 < 0.1 ms)" \
	"s('other')['count'] == 50 and s('other')['p50_ns'] < 100000" \
	"$T_TMP/h3.json" "$k"
cuda_check "spinning: the parts add up to the calls" "parts_add_up()" \
	"$T_TMP/h3.json" "$k"

# --- 4. a call inside a call ---------------------------------------------------
reset
job "$T_TMP/j4" FAKE_CUDA_GPU_US=1000 cuMemcpyDtoH 50 ||
	not_ok "job ran: $(cat "$T_TMP/j4.err")"
hist_pinned "$T_TMP/h4.json"
k=$(cat "$T_TMP/j4.pid")
summary "$T_TMP/h4.json" "$k"
cuda_check "cuMemcpyDtoH -> cuMemcpyDtoH_v2: 50 calls, not 100; 50 nested" \
	"s('call')['count'] == 50 and drop('nested') == 50 and drop('no_entry') == 0" \
	"$T_TMP/h4.json" "$k"
cuda_check "nested: the parts add up to the calls" "parts_add_up()" \
	"$T_TMP/h4.json" "$k"

# --- 5. two processes -----------------------------------------------------------
reset
job "$T_TMP/j5a" FAKE_CUDA_GPU_US=2000 cuEventSynchronize 50 &
job "$T_TMP/j5b" FAKE_CUDA_GPU_US=2000 cuCtxSynchronize 50 &
wait
hist_pinned "$T_TMP/h5.json"
ka=$(cat "$T_TMP/j5a.pid")
kb=$(cat "$T_TMP/j5b.pid")
cuda_check "two jobs: the first's key has its 50 calls" \
	"s('call')['count'] == 50 and s('call')['key_name'] == 'job'" \
	"$T_TMP/h5.json" "$ka"
cuda_check "two jobs: the second's key has its 50 calls" \
	"s('call')['count'] == 50 and s('call')['key_name'] == 'job' and $ka != $kb" \
	"$T_TMP/h5.json" "$kb"

# --- 6. the driver's path, stood in for, and traced ------------------------
# the job renamed nv_queue: its threads are followed as the driver's
# kthreads, so the double's timer thread's wakeup is the driver's, behind
# the disk IRQ's last interrupt; a reader traces every part of a call
# whose host share reaches 1 us
if [[ -z $irq ]]; then
	ok "the driver's path # SKIP no IRQ line with one handler fires under disk I/O"
else
	cp "$JOB" "$T_TMP/nv_queue"
	reset
	"$GPULAT" --source pinned trace -j -t cuda=1us -t sched=off \
		-t block=off -t net=off -t irq=off -t softirq=off \
		-t nvidia=off -t mm=off -d 5 >"$T_TMP/tr6" 2>"$T_TMP/tr6.err" &
	tp=$!
	T_PIDS+=($tp)
	(while :; do
		dd if=/dev/zero of="$T_TMP/io" bs=4k count=200 oflag=direct 2>/dev/null
	 done) &
	io=$!
	T_PIDS+=($io)
	sleep 1		# the reader has its slot
	JOB=$T_TMP/nv_queue job "$T_TMP/j6" FAKE_CUDA_GPU_US=3000 \
		cuStreamSynchronize 50 || not_ok "job ran: $(cat "$T_TMP/j6.err")"
	kill "$io"
	wait "$io" 2>/dev/null
	hist_pinned "$T_TMP/h6.json"
	wait "$tp" || not_ok "trace ran: $(cat "$T_TMP/tr6.err")"
	k=$(cat "$T_TMP/j6.pid")
	echo "# $name/$irq for the driver's handler"
	summary "$T_TMP/h6.json" "$k"
	cuda_check "driver's path: 50 calls, each split once" \
		"s('call')['count'] == 50 and s('gpu')['count'] + s('oncpu')['count'] == 50" \
		"$T_TMP/h6.json" "$k"
	cuda_check "driver's path: calls the stand-in driver woke split on it" \
		"s('gpu')['count'] >= 1 and all(s(p)['count'] == s('gpu')['count'] for p in ('driver', 'runq', 'return'))" \
		"$T_TMP/h6.json" "$k"
	cuda_check "driver's path: the parts add up to the calls" \
		"parts_add_up()" "$T_TMP/h6.json" "$k"
	cuda_check "driver's path: no drops" "not any(d['drops'].values())" \
		"$T_TMP/h6.json" "$k"
	# each call the driver woke has a host share >= 1 us (its driver
	# part alone), so its parts are traced, the GPU's at the interrupt
	"$PY" - "$T_TMP/tr6" "$k" >"$T_TMP/tr6.sum" <<'PYEOF'
import json, sys
n = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "sample" and r["family"] == "cuda" and \
       r.get("key") == int(sys.argv[2]):
        n[r["series"]] = n.get(r["series"], 0) + 1
print(json.dumps(n))
PYEOF
	echo "# traced: $(cat "$T_TMP/tr6.sum")"
	cuda_check "traced: a GPU part for each call the driver woke, a call record each" \
		"(lambda t: t.get('cuda.gpu', 0) == s('gpu')['count'] and t.get('cuda.call', 0) >= s('gpu')['count'])(json.load(open('$T_TMP/tr6.sum')))" \
		"$T_TMP/h6.json" "$k"
fi

# --- 7. disable, enable ------------------------------------------------------
"$GPULAT" --source pinned disable cuda >/dev/null 2>&1 || not_ok "disable ran"
n=$(pins)
m=$(wait_links 0)
[[ $n -eq 0 && ($m -eq 0 || $m -eq -1) ]] &&
	ok "disable: no uprobe left ($n pinned, $m links)" ||
	not_ok "disable: no uprobe left # $n pinned, $m links"
reset
job "$T_TMP/j7" FAKE_CUDA_GPU_US=500 cuStreamSynchronize 10
hist_pinned "$T_TMP/h7.json"
cuda_check "disabled: a job's calls not timed" "s('call')['count'] == 0" \
	"$T_TMP/h7.json" "$(cat "$T_TMP/j7.pid")"
# by hand without the library: attached, nothing placed, until a later
# user finds it (the refresh of every open)
GPULAT_LIBCUDA=$NONE "$GPULAT" --source pinned enable cuda >/dev/null \
	2>"$T_TMP/en.err" || not_ok "enable ran: $(cat "$T_TMP/en.err")"
GPULAT_LIBCUDA=$NONE "$GPULAT" --source pinned status --json \
	>"$T_TMP/st7.json" 2>&1
fam_of "$T_TMP/st7.json" "$T_TMP/c7.json" cuda
n=$(pins)
check "enabled without the library: attached, no uprobe ($n pinned)" \
	"d['state'] == 'attached' and $n == 0" "$T_TMP/c7.json"
"$GPULAT" --source pinned status >/dev/null 2>&1
n=$(pins)
m=$(up_links)
[[ $n -eq $nup && ($m -eq $nup || $m -eq -1) ]] &&
	ok "then the library found: the uprobes placed again ($n pinned, $m links)" ||
	not_ok "then the library found: the uprobes placed again # $n pinned, $m links, of $nup"
job "$T_TMP/j7b" FAKE_CUDA_GPU_US=500 cuStreamSynchronize 10
hist_pinned "$T_TMP/h7b.json"
cuda_check "enabled: a job's calls timed again" "s('call')['count'] == 10" \
	"$T_TMP/h7b.json" "$(cat "$T_TMP/j7b.pid")"

# --- 8. detach ---------------------------------------------------------------
"$GPULAT" detach >/dev/null 2>&1 || not_ok "detach ran"
m=$(wait_links 0)
[[ $m -eq 0 ]] && ok "detach: no uprobe left" ||
	{ [[ $m -eq -1 ]] && ok "detach: no uprobe left # SKIP no bpftool" ||
	  not_ok "detach: no uprobe left # $m links"; }

# --- 9. a source of one command ----------------------------------------------
UP_IDS=
base=$(up_links)
"$GPULAT" --source bpf hist cuda -D --json 1 6 >"$T_TMP/h9.json" \
	2>"$T_TMP/h9.err" &
hp=$!
T_PIDS+=($hp)
m=$(wait_links $((base + nup)))
sleep 0.5	# its first snapshot follows the placement at once
job "$T_TMP/j9" FAKE_CUDA_GPU_US=2000 cuStreamSynchronize 50 ||
	not_ok "job ran: $(cat "$T_TMP/j9.err")"
wait "$hp" || not_ok "hist ran: $(cat "$T_TMP/h9.err")"
cuda_check "loaded for one command: 50 calls ($m links while it ran)" \
	"s('call')['count'] == 50 and parts_add_up()" "$T_TMP/h9.json" \
	"$(cat "$T_TMP/j9.pid")"
m=$(wait_links "$base")
[[ $m -eq $base ]] && ok "its uprobes gone with it" ||
	not_ok "its uprobes gone with it # $m links, $base before"

t_done
