#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# NVML in the VM, through the dynamic tool (/gpulat/dyn/gpulat) and the
# NVML test double (tests/nvml/fake_nvml.c, two fixed GPUs), loaded by
# the tool's ordinary dlopen() path: by its soname libnvidia-ml.so.1
# through LD_LIBRARY_PATH, and by file through $GPULAT_NVML_LIB.
# gpulat report's host/nvml.txt holds the double's answers, with the
# module's source and with the BPF source; a double whose nvmlInit never
# returns costs the report $GPULAT_NVML_TIMEOUT seconds, and nvml.txt and
# the MANIFEST say NVML did not answer.  Skips when the dynamic tool is
# absent (a tree built with guest-user alone).
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
echo "1..9"
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

# (c) nvmlInit never returns: the report waits T seconds for NVML, then
# writes the rest.  Between D + T (the window, then the wait) and
# D + T + MARGIN.
if report hang with_fake_nvml env FAKE_NVML_INIT_HANG=1 \
	GPULAT_NVML_TIMEOUT=$T "$GPULAT_DYN" report -d $D; then
	check "hang: nvml.txt says NVML did not answer within $T s" \
		grep -q "^absent: NVML did not answer within $T s (the process asking it, pid [0-9]*, was killed" \
		"$TOP/host/nvml.txt"
	check "hang: the MANIFEST says so too" \
		grep -q "^  absent: host/nvml.txt: NVML did not answer within $T s" \
		"$TOP/MANIFEST"
else
	not_ok "hang: gpulat report finishes"
	not_ok "hang: the MANIFEST says NVML did not answer"
fi
check "hang: the report took ${SECS}s: $D + $T <= s < $D + $T + $MARGIN (unhung: ${T_SONAME}s)" \
	awk -v s="$SECS" -v lo=$((D + T)) -v hi=$((D + T + MARGIN)) \
	'BEGIN { exit !(s >= lo && s < hi) }'

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
# Checks of `gpulat diagnose` with the GPU sampler go here: run
#   with_fake_nvml env FAKE_NVML_SCRIPT=... gpulat_dyn diagnose -d 4 -j
# and grep its compact JSON (e.g. '"triage":"host"').  Raise the plan
# above by the number of checks added.
# --- end of GPU diagnose ----------------------------------------------------

rm -rf /tmp/soname /tmp/file /tmp/none /tmp/hang /tmp/bpf /tmp/*.tar.gz
exit $fail
