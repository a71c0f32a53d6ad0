#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source, the keyed maxima a reader keeps between snapshots: a key's
# per-CPU maxima are read again only when its count moved, so a reader
# that lives through new samples and a reset (snapmax.c) must give every
# keyed series' max as a reader opened for that snapshot gives it, for
# every series of equal count; and some maxima must have moved on the
# way, or the keeping was never put to the test.
. "$(dirname "$0")/lib.sh"

HERE=$(dirname "$0")
PROBE=$T_TMP/snapmax
if ! ${CC:-gcc} -O2 -D_GNU_SOURCE -I user -I kmod -I bpf -I build/bpf \
	-o "$PROBE" "$HERE/snapmax.c" build/user/libgpulat.a \
	-lbpf -lelf -lz -lm; then
	not_ok "snapmax built"
	t_done
	exit
fi
"$GPULAT" attach >/dev/null || { not_ok "attach"; t_done; exit; }

# keyed samples of growing size: direct writes of more and more blocks
# (block, irq), and a sleeper woken late by a hog (cgroup keys need none)
spawn sh -c "n=1; while :; do dd if=/dev/zero of=$T_TMP/io bs=4k \
	count=\$n oflag=direct conv=notrunc 2>/dev/null; n=\$((n % 512 + 7)); done"
rc=0
"$PROBE" 30 "$T_TMP/stop" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
read -r _ compared _ changed _ differ < <(tail -1 "$T_TMP/out")
sed 's/^/# /' "$T_TMP/err"
[[ $rc -eq 0 && ${differ:-1} -eq 0 && ${compared:-0} -gt 0 ]] &&
	ok "a long-lived reader's keyed maxima are a fresh reader's ($compared series compared)" ||
	not_ok "a long-lived reader's keyed maxima # rc $rc: $(grep -c '^#' "$T_TMP/out") differ: $(head -3 "$T_TMP/out" | tr '\n' ' ')"
[[ ${changed:-0} -gt 0 ]] &&
	ok "maxima moved under the reader ($changed times), and a reset came between" ||
	not_ok "no max moved under the reader # $(tail -1 "$T_TMP/out")"
"$GPULAT" detach >/dev/null
t_done
