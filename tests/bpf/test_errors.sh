#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source: each reason it cannot run has its own message and exit
# code, and a family the verifier refuses is left out while the others
# load.  The kernel's answers where this machine allows (not root, a
# real verifier rejection); a fake /sys (GPULAT_SYSROOT) for no BTF and
# lockdown.
. "$(dirname "$0")/lib.sh"

# expect NAME RC PATTERN CMD...: CMD exits RC and prints PATTERN on stderr
expect() {
	local name=$1 want=$2 pat=$3 rc=0
	shift 3
	"$@" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	if [[ $rc -eq $want ]] && grep -q -- "$pat" "$T_TMP/err"; then
		ok "$name"
	else
		not_ok "$name # rc $rc (want $want): $(head -c 300 "$T_TMP/err")"
	fi
}

if command -v setpriv >/dev/null; then
	expect "not root: says so" 1 "needs root (or CAP_BPF and CAP_PERFMON)" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all "$GPULAT" --source bpf status
else
	ok "not root # SKIP setpriv missing"
fi

mkdir -p "$T_TMP/nobtf/sys/kernel"
expect "no BTF: names the kernel option" 1 "CONFIG_DEBUG_INFO_BTF" \
	env GPULAT_SYSROOT="$T_TMP/nobtf" "$GPULAT" --source bpf status

mkdir -p "$T_TMP/ld/sys/kernel/btf" "$T_TMP/ld/sys/kernel/security"
touch "$T_TMP/ld/sys/kernel/btf/vmlinux"
echo "none integrity [confidentiality]" >"$T_TMP/ld/sys/kernel/security/lockdown"
expect "lockdown=confidentiality: says so and what to do" 1 \
	"locked down (lockdown=confidentiality).*signed" \
	env GPULAT_SYSROOT="$T_TMP/ld" "$GPULAT" --source bpf status
echo "none [integrity] confidentiality" >"$T_TMP/ld/sys/kernel/security/lockdown"
rc=0
GPULAT_SYSROOT="$T_TMP/ld" "$GPULAT" --source bpf status >/dev/null 2>&1 || rc=$?
[[ $rc -eq 0 ]] && ok "lockdown=integrity allows the BPF source" ||
	not_ok "lockdown=integrity allows the BPF source # rc $rc"

if [[ -e /dev/gpulat ]]; then
	ok "auto without module or BPF # SKIP the module is loaded here"
else
	expect "auto, no module and no BPF: exit 2, both reasons" 2 \
		"module is not loaded.*BPF source cannot run: this kernel has no BTF" \
		env GPULAT_SYSROOT="$T_TMP/nobtf" "$GPULAT" status
	rc=0
	"$GPULAT" status >"$T_TMP/st" 2>&1 || rc=$?
	[[ $rc -eq 0 ]] && grep -q '^source: *BPF' "$T_TMP/st" &&
		ok "auto without the module: BPF, and status says so" ||
		not_ok "auto without the module: BPF # rc $rc $(head -c 200 "$T_TMP/st")"
fi

# A real rejection: the sched family's programs read above the stack.
rc=0
GPULAT_BPF_TEST_REJECT=sched "$GPULAT" --source bpf status -j \
	>"$T_TMP/rej.json" 2>"$T_TMP/rej.err" || rc=$?
[[ $rc -eq 0 ]] && grep -q "verifier refused the sched family.*invalid read from stack" \
	"$T_TMP/rej.err" && ok "a verifier rejection is named, with its reason" ||
	not_ok "a verifier rejection is named # rc $rc $(head -c 300 "$T_TMP/rej.err")"
check "the refused family's probes are failed, with EACCES" \
	"all(p['state'] == 'failed' and p['error'] == 13 for f in d['families'] if f['family'] == 'sched' for p in f['probes'])" \
	"$T_TMP/rej.json"
# the cgroup family's probes are the programs of others: sched's fail too
check "the other families still load" \
	"all(p['state'] != 'failed' for f in d['families'] if f['family'] != 'sched' for p in f['probes'] if f['family'] != 'cgroup' or p['tracepoint'] != 'sched_switch')" \
	"$T_TMP/rej.json"
t_done
