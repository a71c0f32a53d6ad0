#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The BPF source's tests on this machine's own kernel (TAP): each
# tests/bpf/test_*.sh (or those named) with known workloads.  They need
# root and the kernel's BTF; without them every test is reported as
# skipped with the reason, never as passed.
#
#   tests/bpf/run.sh [TEST...]     (test_block, test_block.sh or a path)
#                                  GPULAT=path/to/gpulat (build/user/gpulat)
cd "$(dirname "$0")/../.." || exit 1
why=
if [[ $(id -u) -ne 0 ]]; then
	why="not root: BPF programs need root (or CAP_BPF and CAP_PERFMON)"
elif [[ ! -r /sys/kernel/btf/vmlinux ]]; then
	why="this kernel has no BTF (/sys/kernel/btf/vmlinux)"
fi
tests=("$@")
((${#tests[@]})) || tests=(tests/bpf/test_*.sh)
fail=0

# Other gpulat users beside the tests, as on a shared host, each in a
# bpffs of its own (never the host's pins, which may be someone's): a
# pinned source read by a serve with its flight recorder, and an
# attach/detach loop.  GPULAT_BPFTEST_ALONE=1 runs without them.
BESIDE=
beside_stop() {
	[[ -n $BESIDE ]] || return 0
	kill -- -"$BESIDE" 2>/dev/null
	wait "$BESIDE" 2>/dev/null
	BESIDE=
}
if [[ -z $why && -z ${GPULAT_BPFTEST_ALONE:-} ]]; then
	g=$(realpath "${GPULAT:-build/user/gpulat}")
	port=$(python3 tests/bpf/serve_probe.py port)
	dir=$(mktemp -d /tmp/gpulat-beside.XXXXXX)
	setsid bash -c '
		trap "kill 0" EXIT
		tests/bpf/own_bpffs.sh bash -c "
			\"\$0\" attach &&
			exec \"\$0\" serve --listen 127.0.0.1:$1 \
				-t sched=5ms --flight $2 --flight-gap 5" \
			"$0" "$1" "$2" >"$2/serve.log" 2>&1 &
		tests/bpf/own_bpffs.sh bash -c "
			while :; do \"\$0\" attach; \"\$0\" detach; sleep 1; done" \
			"$0" >/dev/null 2>&1 &
		wait' "$g" "$port" "$dir" &
	BESIDE=$!
	trap 'beside_stop; rm -rf "$dir"' EXIT
	echo "# beside the tests: gpulat serve on a pinned source (127.0.0.1:$port) and an attach/detach loop, each in a bpffs of its own"
fi
for t in "${tests[@]}"; do
	[[ -f $t ]] || t=tests/bpf/$t
	[[ -f $t ]] || t=$t.sh
	name=$(basename "$t" .sh)
	if [[ -n $why ]]; then
		echo "ok - $name # SKIP $why"
		continue
	fi
	echo "# $name"
	out=$(mktemp)
	# each in a bpffs of its own (own_bpffs.sh, Documentation/testing.rst)
	if tests/bpf/own_bpffs.sh bash "$t" | tee "$out"; [[ ${PIPESTATUS[0]} -eq 0 ]]; then
		# a check this machine could not make is a skip, never a pass
		n=$(grep -cE '^(not )?ok [0-9]' "$out")
		k=$(grep -cE '^ok [0-9]+ .*# SKIP' "$out")
		if ((k && k == n)); then
			echo "ok - $name # SKIP all $n checks skipped here"
		elif ((k)); then
			echo "ok - $name ($k of $n checks skipped here)"
		else
			echo "ok - $name"
		fi
	else
		echo "not ok - $name"
		fail=1
	fi
	rm -f "$out"
done
if [[ -n $why ]]; then
	echo "# SKIPPED (not passed): $why"
	exit 4
fi
exit $fail
