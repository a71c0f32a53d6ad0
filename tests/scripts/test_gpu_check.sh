#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/gpu-check and its workload on a machine without a GPU.  The
# workload, tests/cuda/gpu_job.c, runs against the libcuda.so.1 double
# (tests/cuda/fake_cuda.c, by its soname through LD_LIBRARY_PATH), whose
# "GPU" runs each launched kernel for the time it asks: in each mode the
# calls are made, each lasts at least that time, and a spinning context
# spins.  The bundle (gpu-check --bundle) holds what a GPU machine needs
# and stays small; gpu-check there says "no NVIDIA GPU" and exits 2.  As
# root with BTF, the whole check runs against the double on the BPF
# source (GPU_CHECK_NO_GPU_OK=1): its JSON, and nothing of it left after
# it ends, finished or killed.  TAP.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
bgpid=
trap '[[ -n $bgpid ]] && kill "$bgpid" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"

make -s -C "$ROOT" user gpu-job build/unit/cuda/libcuda.so.1 >/dev/null || exit 1
JOB=$ROOT/build/user/gpu_job
DOUBLE=$ROOT/build/unit/cuda/libcuda.so.1
CHECK=$ROOT/scripts/gpu-check
KUS=2000	# the kernel's spin time in the job runs, us

# jget JSON FIELD: FIELD's value in one line of flat JSON
jget() { sed -n "s/.*\"$2\":\"\{0,1\}\([^\",}]*\).*/\1/p" <<<"$1"; }
# job ARGS...: gpu_job against the double; its JSON line in $out
job() { out=$(LD_LIBRARY_PATH=${DOUBLE%/*} "$JOB" "$@" 2>"$tmp/err"); }
# hogs: gpu-check's CPU hogs still running
hogs() { ps -eo args= | grep -c '[g]pu-check-hog'; }
# gpu_here: this machine has an NVIDIA GPU
gpu_here() { ls /dev/nvidia[0-9]* /proc/driver/nvidia/gpus/* >/dev/null 2>&1; }

echo "TAP version 13"
echo "1..38"

# --- the workload against the double ----------------------------------------
job -m blocking -n 20 -k $KUS
rc=$?
check "gpu_job blocking: exit 0" '((rc == 0))'
check "gpu_job blocking: CU_CTX_SCHED_BLOCKING_SYNC, 20 calls, one sync each" \
	'[[ $(jget "$out" mode) == blocking && $(jget "$out" ctx_flags) == 4 &&
	   $(jget "$out" calls) == 20 && $(jget "$out" sync_calls) == 20 &&
	   $(jget "$out" kernel_ns) == $((KUS * 1000)) ]]'
check "gpu_job blocking: every call lasts the kernel's time at least" \
	'(($(jget "$out" min_ns) >= KUS * 1000 && $(jget "$out" sync_min_ns) >= KUS * 1000))'
check "gpu_job blocking: asleep in its calls (CPU under a quarter of the wall)" \
	'(($(jget "$out" cpu_ns) * 4 < $(jget "$out" total_ns)))'
check "gpu_job blocking: pid and device named" \
	'[[ $(jget "$out" pid) =~ ^[0-9]+$ && $(jget "$out" device) == fake_cuda ]]'

job -m spin -n 20 -k $KUS
rc=$?
check "gpu_job spin: exit 0, CU_CTX_SCHED_SPIN, 20 calls" \
	'((rc == 0)) && [[ $(jget "$out" mode) == spin && $(jget "$out" ctx_flags) == 1 &&
	   $(jget "$out" calls) == 20 ]]'
check "gpu_job spin: every call lasts the kernel's time at least" \
	'(($(jget "$out" min_ns) >= KUS * 1000 && $(jget "$out" sync_min_ns) >= KUS * 1000))'
check "gpu_job spin: spins in its calls (CPU over half the wall)" \
	'(($(jget "$out" cpu_ns) * 2 > $(jget "$out" total_ns)))'

job -m yield -n 5 -k $KUS
check "gpu_job yield: CU_CTX_SCHED_YIELD, calls of the kernel's time" \
	'[[ $(jget "$out" ctx_flags) == 2 ]] && (($(jget "$out" min_ns) >= KUS * 1000))'

job -m blocking -n 10 -k $KUS -c -d
rc=$?
check "gpu_job -c -d: cuCtxSynchronize and cuMemcpyDtoH too, 3 syncs a call" \
	'((rc == 0)) && [[ $(jget "$out" calls) == 10 && $(jget "$out" sync_calls) == 30 ]]'
check "gpu_job -c -d: the kernel's time once per call (the later syncs find it done)" \
	'(($(jget "$out" min_ns) >= KUS * 1000 && $(jget "$out" p50_ns) < 3 * KUS * 1000))'

t0=$SECONDS
job -n 1000000 -k 1000 -t 1
check "gpu_job -t 1: stops launching after a second, says so" \
	'[[ $(jget "$out" stopped_early) == true ]] && (($(jget "$out" calls) > 50 &&
	   $(jget "$out" calls) < 1000 && SECONDS - t0 < 10))'

"$JOB" -n 0 >/dev/null 2>&1
rc1=$?
"$JOB" -m warp >/dev/null 2>&1
rc2=$?
check "gpu_job: bad usage exits 2" '((rc1 == 2 && rc2 == 2))'
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
	skip "gpu_job: no libcuda.so.1 exits 1, naming it" "this machine has a libcuda.so.1"
else
	mkdir "$tmp/empty"
	LD_LIBRARY_PATH=$tmp/empty "$JOB" -n 1 >/dev/null 2>"$tmp/err"
	rc=$?
	check "gpu_job: no libcuda.so.1 exits 1, naming it" \
		'((rc == 1)) && grep -q "libcuda.so.1" "$tmp/err"'
fi

"$JOB" -P >"$tmp/k.ptx"
check "gpu_job -P: the PTX kernel spins on %globaltimer" \
	'grep -q "^.entry gpu_job_spin\|^.visible .entry gpu_job_spin" "$tmp/k.ptx" &&
	 grep -q "%globaltimer" "$tmp/k.ptx" && grep -q "^.target sm_50" "$tmp/k.ptx"'
PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null || true)
if [[ -n $PTXAS ]]; then
	check "gpu_job -P: ptxas assembles the kernel for sm_75" \
		'"$PTXAS" -arch=sm_75 -o "$tmp/k.cubin" "$tmp/k.ptx" 2>"$tmp/err"'
else
	skip "gpu_job -P: ptxas assembles the kernel for sm_75" "no ptxas here"
fi

# The double's old behaviour: no kernel launched, each wait $FAKE_CUDA_GPU_US.
${CC:-gcc} -O2 -o "$tmp/oldjob" "$ROOT/tests/cuda/job.c" -ldl 2>"$tmp/err"
out=$(FAKE_CUDA_GPU_US=2000 LD_LIBRARY_PATH=${DOUBLE%/*} "$tmp/oldjob" cuStreamSynchronize 10 2>&1)
check "the double without kernels: waits \$FAKE_CUDA_GPU_US, as before" \
	'[[ $(jget "$out" calls) == 10 ]] && (($(jget "$out" min_ns) >= 2000000))'

# --- the bundle --------------------------------------------------------------
B=$tmp/bundle
"$CHECK" --bundle "$B" >"$tmp/bundle.out" 2>&1
rc=$?
check "gpu-check --bundle: exit 0" '((rc == 0))'
check "bundle: gpu-check, bin/gpulat, bin/gpu_job, lib.tar.gz, BUNDLE" \
	'[[ -x $B/gpu-check && -x $B/bin/gpulat && -x $B/bin/gpu_job &&
	   -f $B/lib.tar.gz && -f $B/BUNDLE ]] && cmp -s "$B/gpu-check" "$CHECK"'
check "bundle: the module's source and a Makefile for the running kernel" \
	'[[ -f $B/module/Makefile && -f $B/module/Kbuild && -f $B/module/kmod/Kbuild &&
	   -f $B/module/kmod/main.c && -f $B/module/kmod/probe_cuda.c &&
	   -f $B/module/kmod/uapi/gpulat.h && -f $B/module/kmod/compat/features.mk ]] &&
	 grep -q "uname -r)/build" "$B/module/Makefile"'
check "bundle: no build output in the module's source" \
	'[[ -z $(find "$B/module" -name "*.o" -o -name "*.ko" -o -name ".*.cmd") ]]'
kib=$(du -sk "$B" | awk '{print $1}')
echo "# bundle: $kib KiB ($(sed -n 's/^tool=//p' "$B/BUNDLE") gpulat)"
check "bundle: at most 8 MiB" '((kib <= 8192))'
loader=$(sed -n 's/^loader=//p' "$B/BUNDLE")
tar -C "$tmp" -xzf "$B/lib.tar.gz"
if [[ $(sed -n 's/^tool=//p' "$B/BUNDLE") == static ]]; then
	gv=$("$B/bin/gpulat" -V 2>&1)
else
	gv=$("$tmp/lib/$loader" --library-path "$tmp/lib" "$B/bin/gpulat" -V 2>&1)
fi
check "bundle: its gpulat runs" '[[ $gv == gpulat* ]] && grep -qF "version=$gv" "$B/BUNDLE"'
out=$(LD_LIBRARY_PATH=${DOUBLE%/*} "$B/bin/gpu_job" -n 3 -k 1000 2>&1)
check "bundle: its gpu_job runs on this glibc" '[[ $(jget "$out" calls) == 3 ]]'
out=$("$tmp/lib/$loader" --library-path "$tmp/lib:${DOUBLE%/*}" "$B/bin/gpu_job" -n 3 -k 1000 2>&1)
check "bundle: its gpu_job runs on the bundled glibc (lib.tar.gz)" \
	'[[ $(jget "$out" calls) == 3 ]] && (($(jget "$out" min_ns) >= 1000000))'
"$CHECK" --bundle "$B" >/dev/null 2>"$tmp/err"
rc=$?
check "gpu-check --bundle: a folder not empty is refused, exit 1" \
	'((rc == 1)) && grep -q "not an empty folder" "$tmp/err"'

# --- gpu-check on this machine -----------------------------------------------
mkdir -p "$tmp/t"
"$CHECK" --seconds 0 >/dev/null 2>"$tmp/err"
rc1=$?
"$CHECK" --frobnicate >/dev/null 2>&1
rc2=$?
check "gpu-check: bad usage exits 1 with the reason" \
	'((rc1 == 1 && rc2 == 1)) && grep -q "seconds is 1 to 30" "$tmp/err"'
if gpu_here; then
	skip "gpu-check with no GPU: exit 2, no NVIDIA GPU" "this machine has one"
	skip "the bundle's gpu-check with no GPU: exit 2" "this machine has one"
else
	TMPDIR=$tmp/t "$CHECK" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "gpu-check with no GPU: exit 2, one line: no NVIDIA GPU, nothing left" \
		'((rc == 2)) && [[ $(wc -l <"$tmp/err") == 1 && ! -s $tmp/out &&
		   -z $(ls -A "$tmp/t") ]] && grep -q "^gpu-check: no NVIDIA GPU" "$tmp/err"'
	TMPDIR=$tmp/t "$B/gpu-check" --seconds 2 >/dev/null 2>"$tmp/err"
	rc=$?
	check "the bundle's gpu-check with no GPU: exit 2" \
		'((rc == 2)) && grep -q "no NVIDIA GPU" "$tmp/err"'
fi

# The whole check against the double: root, BTF, a mount namespace.
why=
[[ $(id -u) == 0 ]] || why="not root"
[[ -n $why || -e /sys/kernel/btf/vmlinux ]] || why="no BTF"
[[ -n $why ]] || unshare -m true 2>/dev/null || why="no mount namespace"
# e2e ARGS...: the bundle's check against the double, its JSON in $tmp/e2e.json
e2e() {
	GPU_CHECK_NO_GPU_OK=1 TMPDIR=$tmp/t "$B/gpu-check" --libcuda "$DOUBLE" \
		--no-module --json "$tmp/e2e.json" "$@" >"$tmp/e2e.out" 2>"$tmp/e2e.err"
}
# runs_ok JSON: runs that timed the job
runs_ok() { grep -o '"ok":true' "$1" | wc -l; }
if [[ -n $why ]]; then
	for d in "exit 0, four runs on the BPF source" "valid JSON with the facts" \
		"per run: the job's calls, each of the kernel's time" \
		"the cuda series of the job's pid" "nothing left: no hog, no file, no pin" \
		"on the bundled glibc: four runs" "killed: exit 1, interrupted, nothing left" \
		"a job that fails: each run says why, exit 1 with the reason" \
		"out of time: runs skipped, exit 1 with the reason"; do
		skip "gpu-check against the double: $d" "$why"
	done
else
	t0=$SECONDS
	e2e --seconds 1 --kernel-us $KUS
	rc=$?
	echo "# gpu-check --seconds 1 against the double: $((SECONDS - t0)) s"
	check "gpu-check against the double: exit 0, four runs on the BPF source" \
		'((rc == 0)) && (($(runs_ok "$tmp/e2e.json") == 4)) &&
		 (($(grep -o "\"source\":\"bpf\",\"mode\":\"blocking\",\"hog\":false" "$tmp/e2e.json" | wc -l) == 1)) &&
		 (($(grep -o "\"source\":\"bpf\",\"mode\":\"spin\",\"hog\":true" "$tmp/e2e.json" | wc -l) == 1))'
	if command -v python3 >/dev/null; then
		check "gpu-check against the double: valid JSON with the facts" \
			'python3 - "$tmp/e2e.json" <<-"EOF"
			import json, sys
			d = json.load(open(sys.argv[1]))
			for k in ("gpu_check", "host", "driver", "gpus", "irqs", "threads",
			          "btf", "modules", "libcuda", "sources", "runs", "notes"):
			    assert k in d, k
			assert d["host"]["gpu"] is False and d["btf"]["vmlinux"] is True
			assert d["modules"]["build"].startswith("skipped")
			assert d["sources"]["bpf"]["bpffs"] == "private"
			assert d["libcuda"]["given"].endswith("libcuda.so.1")
			EOF'
		check "gpu-check against the double: per run: the job's calls, each of the kernel's time" \
			'python3 - "$tmp/e2e.json" '"$KUS"' <<-"EOF"
			import json, sys
			d, kus = json.load(open(sys.argv[1])), int(sys.argv[2])
			for r in d["runs"]:
			    j = r["job"]
			    assert r["ok"] and r["pid"] == j["pid"], r
			    assert j["mode"] == r["mode"] and j["calls"] > 10, r
			    assert j["min_ns"] >= kus * 1000 and j["kernel_ns"] == kus * 1000, r
			    assert r["hogs"] == (0 if not r["hog"] else r["hogs"]) and (r["hogs"] > 0) == r["hog"], r
			EOF'
		if grep -q '"family cuda: attached' "$tmp/e2e.json"; then
			check "gpu-check against the double: the cuda series of the job's pid" \
				'python3 - "$tmp/e2e.json" <<-"EOF"
				import json, sys
				d = json.load(open(sys.argv[1]))
				for r in d["runs"]:
				    calls = [s for s in r["series"] if s["name"] == "cuda.call"]
				    assert calls and calls[0]["key"] == r["pid"], r
				    # each call timed, or counted where it could not be
				    # split (the drops count since the source attached)
				    lost = r["drops"].get("cuda.negative", 0)
				    n, sync = calls[0]["count"], r["job"]["sync_calls"]
				    assert n <= sync <= n + lost, r
				    assert (sync - n) * 100 <= sync, r
				EOF'
		else
			skip "gpu-check against the double: the cuda series of the job's pid" \
				"the BPF source has no cuda family here yet"
		fi
	else
		skip "gpu-check against the double: valid JSON with the facts" "no python3"
		skip "gpu-check against the double: per run: the job's calls, each of the kernel's time" "no python3"
		skip "gpu-check against the double: the cuda series of the job's pid" "no python3"
	fi
	check "gpu-check against the double: nothing left: no hog, no file, no pin" \
		'(($(hogs) == 0)) && [[ -z $(ls -A "$tmp/t") && ! -e /sys/fs/bpf/gpulat ]]'

	GPU_CHECK_BUNDLED_GLIBC=1 e2e --seconds 1 --source bpf
	rc=$?
	check "gpu-check against the double: on the bundled glibc: four runs" \
		'((rc == 0)) && (($(runs_ok "$tmp/e2e.json") == 4)) &&
		 grep -q "\"job_runtime\":\"bundled glibc" "$tmp/e2e.json"'

	rm -f "$tmp/e2e.json"
	GPU_CHECK_NO_GPU_OK=1 TMPDIR=$tmp/t "$B/gpu-check" --libcuda "$DOUBLE" \
		--no-module --json "$tmp/e2e.json" --seconds 5 >"$tmp/e2e.out" 2>"$tmp/e2e.err" &
	bgpid=$!
	for ((i = 0; i < 200; i++)); do
		(($(hogs) > 0)) && break
		sleep 0.1
	done
	kill -TERM "$bgpid"
	wait "$bgpid"
	rc=$?
	bgpid=
	check "gpu-check against the double: killed: exit 1, interrupted, nothing left" \
		'((rc == 1)) && grep -q "^gpu-check: error: interrupted" "$tmp/e2e.err" &&
		 (($(hogs) == 0)) && [[ -z $(ls -A "$tmp/t") && ! -e $tmp/e2e.json ]] &&
		 ! pgrep -f "$B/bin/gpu_job" >/dev/null'

	# a library with no driver API in it: every run fails, said
	mkdir -p "$tmp/nocuda"
	ln -sf "$(ldconfig -p | awk '/libm\.so\.6 .*x86-64|libm\.so\.6 /{print $NF; exit}')" \
		"$tmp/nocuda/libcuda.so.1"
	GPU_CHECK_NO_GPU_OK=1 TMPDIR=$tmp/t "$B/gpu-check" --libcuda "$tmp/nocuda/libcuda.so.1" \
		--no-module --seconds 1 --json "$tmp/e2e.json" >/dev/null 2>"$tmp/e2e.err"
	rc=$?
	check "gpu-check against the double: a job that fails: each run says why, exit 1 with the reason" \
		'((rc == 1)) && [[ $(tail -n 1 "$tmp/e2e.err") == "gpu-check: error: no run timed the job: bpf blocking: gpu_job: exit 1: gpu_job: libcuda.so.1 has no cuInit" ]] &&
		 (($(grep -o "has no cuInit" "$tmp/e2e.json" | wc -l) == 4)) && [[ -z $(ls -A "$tmp/t") ]]'

	GPU_CHECK_LIMIT_S=60 e2e --seconds 20
	rc=$?
	check "gpu-check against the double: out of time: runs skipped, exit 1 with the reason" \
		'((rc == 1)) && grep -q "no run timed the job: .*skipped" "$tmp/e2e.err" &&
		 (($(grep -o "\"skipped\":" "$tmp/e2e.json" | wc -l) == 4)) &&
		 [[ -z $(ls -A "$tmp/t") ]]'
fi
echo "# gpu-check: $((n - fail)) of $n as expected"
exit $fail
