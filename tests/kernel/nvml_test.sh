#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# NVML in the VM, through the dynamic tool (/gpulat/dyn/gpulat) and the
# NVML test double (tests/nvml/fake_nvml.c, two fixed GPUs), loaded by
# the tool's ordinary dlopen() path: by its soname libnvidia-ml.so.1
# through LD_LIBRARY_PATH, and by file through $GPULAT_NVML_LIB.
# gpulat report's host/nvml.txt holds the double's answers, with the
# module's source and with the BPF source.  A double whose nvmlInit
# never returns is named as hung by the GPU sampler a second after the
# window (and costs $GPULAT_NVML_TIMEOUT seconds with the sampler off).
# gpulat diagnose, with the double playing scripted timelines against a
# known spike on CPU 1, gives the triage rule's verdict: idle GPUs point
# at the host, a full busy GPU at the job; a GPU hog that is the CPU
# culprit is named as both; an NVML Xid ranks the driver first; a hung
# call is named and costs the watch at most a second; gpulat trace prints
# NVML's Xids.  Skips when the
# dynamic tool is absent (a tree built with guest-user alone).
set -u
LIB=${GPULAT_LIB:-/gpulat/lib}
. "$LIB/nvml.sh" || exit 1
. "$LIB/watchdog.sh" || exit 1
nvml_dyn_require

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n $1"; }
# check DESC COMMAND...: one result line for a command's status
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
# secs_since T0: seconds since T0 (from now), with hundredths
secs_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# The double's fixed answers for its first GPU.
GPU0_NAME="NVIDIA H100 80GB HBM3"
GPU0_PCI="00000000:3B:00.0"
D=2		# report's duration, seconds
T=2		# GPULAT_NVML_TIMEOUT for the hanging double
MARGIN=10	# tool start, archive and unpacking under TCG

echo "TAP version 13"
echo "1..17"
"$GPULAT_DYN" --version | sed "s/^/# /"
echo "# the double: $FAKE_NVML_LIB"

# report NAME CMD...: run CMD (a gpulat report writing /tmp/NAME.tar.gz)
# and unpack it into /tmp/NAME; the top folder in TOP, the seconds the
# command took in SECS; 0 when all went well
report() {
	_name=$1
	shift
	rm -rf "/tmp/$_name" "/tmp/$_name.tar.gz"
	mkdir -p "/tmp/$_name"
	_t0=$(now)
	"$@" -o "/tmp/$_name.tar.gz" >"/tmp/$_name.out" 2>&1
	_rc=$?
	SECS=$(secs_since "$_t0")
	sed 's/^/# /' "/tmp/$_name.out"
	echo "# $_name: exit $_rc after ${SECS}s"
	TOP=
	[ $_rc -eq 0 ] && tar -xzf "/tmp/$_name.tar.gz" -C "/tmp/$_name" &&
		TOP=$(ls -d /tmp/"$_name"/gpulat-report-*-*-* 2>/dev/null)
	[ -n "$TOP" ] && [ -f "$TOP/host/nvml.txt" ] && [ -f "$TOP/MANIFEST" ]
}

# fake_gpus LIBRARY: nvml.txt of $TOP is the double's, loaded as
# LIBRARY: 2 GPUs, the first one's name and PCI address, nothing absent
fake_gpus() {
	f=$TOP/host/nvml.txt
	if grep -qx "library:      $1" "$f" &&
	   grep -qx "gpus:         2" "$f" &&
	   [ "$(grep -m1 '^  name: ' "$f")" = "  name:         $GPU0_NAME" ] &&
	   [ "$(grep -m1 '^  pci: ' "$f")" = "  pci:          $GPU0_PCI" ] &&
	   [ "$(grep -c '^gpu [0-9]' "$f")" -eq 2 ] &&
	   ! grep -q "^  absent: host/nvml.txt" "$TOP/MANIFEST"; then
		return 0
	fi
	sed 's/^/#   nvml.txt: /' "$f"
	return 1
}

# (a) by soname, through LD_LIBRARY_PATH, on the module's source
if report soname with_fake_nvml gpulat_dyn report -d $D; then
	check "soname: nvml.txt has the double's 2 GPUs, $GPU0_NAME at $GPU0_PCI" \
		fake_gpus libnvidia-ml.so.1
	check "soname: the module was the source" \
		grep -q "^source:    module /dev/gpulat" "$TOP/MANIFEST"
else
	not_ok "soname: gpulat report with LD_LIBRARY_PATH=$FAKE_NVML_DIR"
	not_ok "soname: the module was the source"
fi
T_SONAME=$SECS

# (b) by file, through GPULAT_NVML_LIB, and no LD_LIBRARY_PATH
if report file env GPULAT_NVML_LIB="$FAKE_NVML_LIB" "$GPULAT_DYN" \
	report -d $D; then
	check "GPULAT_NVML_LIB: nvml.txt has the double's 2 GPUs" \
		fake_gpus "$FAKE_NVML_LIB"
else
	not_ok "GPULAT_NVML_LIB=$FAKE_NVML_LIB: gpulat report"
fi

# Without either, the dynamic tool finds no NVML in the guest.
if report none gpulat_dyn report -d 1; then
	check "neither: libnvidia-ml.so.1 not loadable, stated absent" \
		sh -c "grep -q '^absent: libnvidia-ml.so.1 not loadable: ' '$TOP/host/nvml.txt' &&
		       grep -q '^  absent: host/nvml.txt: libnvidia-ml.so.1 not loadable' '$TOP/MANIFEST'"
else
	not_ok "neither: gpulat report"
fi

# (c) nvmlInit never returns.  The GPU sampler holds NVML over the
# window; it gets a second after it, then its call is named as hung and
# nvml.txt is not asked again: between D + 1 and D + 1 + MARGIN.
if report hang with_fake_nvml env FAKE_NVML_INIT_HANG=1 \
	GPULAT_NVML_TIMEOUT=$T "$GPULAT_DYN" report -d $D; then
	check "hang: nvml.txt and the timeline say the sampler's nvmlInit hung" \
		sh -c "grep -q '^absent: NVML failed during the window: nvmlInit and the first reading had not returned after ' '$TOP/host/nvml.txt' &&
		       grep -q '^hung:      nvmlInit and the first reading had not returned after ' '$TOP/gpu/timeline.txt'"
	check "hang: the MANIFEST says so too" \
		grep -q "^  absent: host/nvml.txt: NVML failed during the window: nvmlInit" \
		"$TOP/MANIFEST"
else
	not_ok "hang: gpulat report finishes"
	not_ok "hang: the MANIFEST says NVML failed"
fi
check "hang: the report took ${SECS}s: $D + 1 <= s < $D + 1 + $MARGIN (unhung: ${T_SONAME}s)" \
	awk -v s="$SECS" -v lo=$((D + 1)) -v hi=$((D + 1 + MARGIN)) \
	'BEGIN { exit !(s >= lo && s < hi) }'
# The same without the sampler: the one reading's own bound, T seconds.
if report hang0 with_fake_nvml env FAKE_NVML_INIT_HANG=1 \
	GPULAT_NVML_TIMEOUT=$T "$GPULAT_DYN" report -d $D --gpu-interval 0; then
	check "hang, no sampler: nvml.txt says NVML did not answer within $T s, in ${SECS}s" \
		sh -c "grep -q '^absent: NVML did not answer within $T s (the process asking it, pid [0-9]*, was killed' '$TOP/host/nvml.txt' &&
		       awk -v s=$SECS -v lo=$((D + T)) -v hi=$((D + T + MARGIN)) 'BEGIN { exit !(s >= lo && s < hi) }'"
else
	not_ok "hang, no sampler: gpulat report finishes"
fi

# The BPF source (libbpf of the guest's shared libraries), beside the
# module, with the double by soname.
if report bpf with_fake_nvml gpulat_dyn --source bpf report -d $D; then
	check "BPF source: the source in the MANIFEST, its window read" \
		sh -c "grep -q '^source:    BPF, loaded for this command' '$TOP/MANIFEST' &&
		       grep -q '^sched.wakeup' '$TOP/snapshots/window.txt'"
	check "BPF source: nvml.txt has the double's 2 GPUs" \
		fake_gpus libnvidia-ml.so.1
else
	not_ok "BPF source: gpulat --source bpf report"
	not_ok "BPF source: nvml.txt has the double's 2 GPUs"
fi

# --- GPU diagnose -----------------------------------------------------------
# gpulat diagnose with the sampler and a scripted double
# ($FAKE_NVML_SCRIPT), against a known host: a nice-19 sleeper on CPU 1
# woken every 2 ms from CPU 0, and a hog on CPU 1 (serve_test.sh's spike).
# The compact JSON must carry the verdict the triage rule gives.

SCRIPT=/tmp/nvml.script
# diag NAME SECONDS: gpulat diagnose -j with the script, its JSON in
# /tmp/NAME.json, its seconds in SECS
diag() {
	_t0=$(now)
	with_fake_nvml env FAKE_NVML_SCRIPT=$SCRIPT "$GPULAT_DYN" diagnose \
		-d "$2" -t sched=2ms -j >"/tmp/$1.json" 2>"/tmp/$1.err"
	_rc=$?
	SECS=$(secs_since "$_t0")
	sed 's/^/# /' "/tmp/$1.err"
	echo "# diagnose $1: exit $_rc after ${SECS}s"
	return $_rc
}
# has NAME TEXT...: every TEXT is in /tmp/NAME.json
has() {
	_f=/tmp/$1.json
	shift
	for _w in "$@"; do
		grep -qF -- "$_w" "$_f" && continue
		echo "# lacks: $_w"
		sed 's/.*"gpu":{/"gpu":{/' "$_f" | fold -w 160 | sed 's/^/#   /'
		return 1
	done
}
spike_start() {
	mkfifo /tmp/nvml.fifo
	nice -n 19 taskset -c 1 sh -c 'while read -r x; do :; done' \
		</tmp/nvml.fifo &
	SLEEPER=$!
	taskset -c 0 sh -c 'while :; do echo; usleep 2000; done' \
		>/tmp/nvml.fifo &
	WAKER=$!
	# named as a cryptominer (a task may rename itself), with "the GPU"
	# open: gpulat names only processes of its pid namespace that have
	# a /dev/nvidia* file open (here a null device of that name)
	[ -e /dev/nvidia0 ] || mknod /dev/nvidia0 c 1 3
	taskset -c 1 sh -c 'exec 3</dev/nvidia0; echo xmrig >/proc/self/comm
		while :; do :; done' &
	HOG=$!
}
spike_stop() {
	kill $HOG $WAKER $SLEEPER 2>/dev/null
	wait $HOG $WAKER $SLEEPER 2>/dev/null
	rm -f /tmp/nvml.fifo
}
taskset -p -c 0 $$ >/dev/null

spike_start
# (d) the GPUs idle while the host stalls: look at the host's layers
cat >$SCRIPT <<EOS
at 0 gpu 0 util 4 1
at 0 gpu 1 util 2 0
EOS
if diag idle 4; then
	check "idle GPUs, host spike: triage host, the scheduler ranked first" \
		has idle '"verdict":"scheduler"' '"gpu":{"present":true' \
		'"triage":"host"' '"interval_s":1,'
	# the double's fixed GPU 0: hw slowdown, x8 of x16; GPU 1 thermal
	check "the double's throttled GPUs and downtrained link are causes" \
		has idle '"kind":"throttle","gpu":0' '"kind":"throttle","gpu":1' \
		'"kind":"link","gpu":0'
else
	not_ok "idle GPUs, host spike: gpulat diagnose"
	not_ok "the double's throttled GPUs and downtrained link are causes"
fi
# (e) the hog on CPU 1 holds GPU 0 too: named once, as both
cat >$SCRIPT <<EOS
at 0 gpu 0 util 70 30
at 0 gpu 0 procs $HOG:30000:92 $$:100:1
EOS
if diag hog 4; then
	check "a GPU hog that is the CPU culprit: named, miner, joined" \
		has hog "\"pid\":$HOG,\"comm\":\"xmrig\",\"gpu\":0,\"alive\":true,\"ours\":true,\"sharing\":2,\"sm_mean\":92," \
		'"hog":true,"miner":true,"cpu_culprit":true' '"kind":"hog","gpu":0' \
		'holds both the GPU and a feeder'
else
	not_ok "a GPU hog that is the CPU culprit: gpulat diagnose"
fi
# (f) busy with its memory full while the host stalls: the job's resources
cat >$SCRIPT <<EOS
at 0 gpu 1 util 99 90
at 0 gpu 1 mem 80000 81559
EOS
if diag full 3; then
	check "busy GPU with full memory: triage job" \
		has full '"triage":"job"' '"kind":"memory_full"' \
		'GPU 1 was busy (99% mean) with its memory full'
else
	not_ok "busy GPU with full memory: gpulat diagnose"
fi
spike_stop
# (g) an Xid from NVML's events (no tracepoint here): the driver layer
cat >$SCRIPT <<EOS
at 1 xid 0 79
EOS
if diag xid 3; then
	check "an NVML Xid: counted once in the driver layer, ranked first" \
		has xid '"verdict":"driver"' '"code":79,"device":"0000:3b:00.0"' \
		'"seen_by":"nvml"' '"xids_nvml":1,"xids_both":0'
else
	not_ok "an NVML Xid: gpulat diagnose"
fi
# (h) a call that never returns: named, and diagnose ends on time
cat >$SCRIPT <<EOS
at 1 hang nvmlDeviceGetUtilizationRates
EOS
if diag hung 3; then
	check "a hung NVML call: named, diagnose done in ${SECS}s (3 + 1 <= s < 3 + 1 + $MARGIN)" \
		sh -c "grep -qF '\"hung\":\"nvmlDeviceGetUtilizationRates on GPU 0 had not returned after' /tmp/hung.json &&
		       grep -qF '\"kind\":\"hung\"' /tmp/hung.json &&
		       awk -v s=$SECS -v lo=4 -v hi=$((3 + 1 + MARGIN)) 'BEGIN { exit !(s >= lo && s < hi) }'"
else
	not_ok "a hung NVML call: gpulat diagnose"
fi
# (i) gpulat trace prints NVML's Xids among the module's records
cat >$SCRIPT <<EOS
at 0.5 xid 1 48
EOS
with_fake_nvml env FAKE_NVML_SCRIPT=$SCRIPT "$GPULAT_DYN" trace -d 3 -j \
	>/tmp/trace.json 2>/tmp/trace.err
sed 's/^/# /' /tmp/trace.err
check "gpulat trace: NVML's Xid 48 once, its source nvml" \
	sh -c "[ \$(grep -c '\"xid\":48,\"device\":\"0000:86:00.0\",\"source\":\"nvml\"' /tmp/trace.json) -eq 1 ]"
# --- end of GPU diagnose ----------------------------------------------------

rm -f /dev/nvidia0
rm -rf /tmp/soname /tmp/file /tmp/none /tmp/hang /tmp/hang0 /tmp/bpf /tmp/*.tar.gz \
	/tmp/*.json /tmp/*.err $SCRIPT
exit $fail
