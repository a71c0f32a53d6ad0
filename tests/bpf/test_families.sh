#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BPF source, only what is asked: gpulat --source bpf hist sched attaches
# the sched family's three tracepoints and nothing else, and loads no
# other family's program; a command that asks for every family, on a
# host without the NVIDIA driver, attaches no nvidia program (they would
# run on every scheduler event), and does with GPULAT_BPF_ASSUME_DRIVERS.
# What a process has attached is read from its own file descriptors
# (/proc/PID/fdinfo: each link's id, each program's id) and bpftool.
. "$(dirname "$0")/lib.sh"

# progs_of PID: "program-name tracepoint" for each link PID holds (every
# program PID holds, with "-" for one not attached)
progs_of() {
	"$PY" - "$1" <<'PYEOF'
import glob, json, re, subprocess, sys
pid = sys.argv[1]
links, progs = set(), set()
for f in glob.glob("/proc/%s/fdinfo/*" % pid):
    try:
        t = open(f).read()
    except OSError:
        continue
    m = re.search(r"^link_id:\s*(\d+)", t, re.M)
    if m:
        links.add(int(m.group(1)))
    elif re.search(r"^prog_type:", t, re.M):
        progs.add(int(re.search(r"^prog_id:\s*(\d+)", t, re.M).group(1)))
def bt(*a):
    return json.loads(subprocess.run(["bpftool", "-j"] + list(a),
                                     capture_output=True, text=True).stdout or "[]")
names = {p["id"]: p.get("name", "?") for p in bt("prog", "show")}
attached = set()
for l in bt("link", "show"):
    if l["id"] in links:
        attached.add(l["prog_id"])
        print(names.get(l["prog_id"], "?"), l.get("tp_name", "?"))
for p in sorted(progs - attached):
    print(names.get(p, "?"), "-")
PYEOF
}

# held CMD...: run gpulat CMD for 3 s; its programs, once loaded, in $T_TMP/p
held() {
	"$@" >/dev/null 2>&1 &
	local pid=$! i
	for ((i = 0; i < 40; i++)); do
		progs_of "$pid" >"$T_TMP/p"
		[[ -s $T_TMP/p ]] && grep -q ' [a-z]' "$T_TMP/p" && break
		sleep 0.1
	done
	sleep 0.3
	progs_of "$pid" >"$T_TMP/p"
	wait "$pid"
	sed 's/^/# /' "$T_TMP/p"
}

held "$GPULAT" --source bpf hist sched 3 1
got=$(awk '$2 != "-" { print $2 }' "$T_TMP/p" | sort | tr '\n' ' ')
[[ $got == "sched_switch sched_wakeup sched_wakeup_new " ]] &&
	ok "hist sched attaches the sched family alone" ||
	not_ok "hist sched attaches the sched family alone # $got"
others=$(awk '$1 !~ /^gl_(switch|sched_)/' "$T_TMP/p" | wc -l)
[[ $others -eq 0 ]] &&
	ok "hist sched loads no other family's program" ||
	not_ok "hist sched loads others # $(awk '$1 !~ /^gl_(switch|sched_)/ { print $1 }' "$T_TMP/p" | tr '\n' ' ')"

if [[ -e /sys/module/nvidia ]]; then
	ok "no nvidia program without the driver # SKIP this host has the driver"
else
	held "$GPULAT" --source bpf hist 3 1
	n=$(awk '$1 ~ /^gl_nv_/ && $2 != "-"' "$T_TMP/p" | wc -l)
	all=$(awk '$2 != "-"' "$T_TMP/p" | wc -l)
	[[ $n -eq 0 && $all -gt 10 ]] &&
		ok "every family but nvidia attached without the driver ($all links)" ||
		not_ok "no nvidia program without the driver # $n of $all"
	GPULAT_BPF_ASSUME_DRIVERS=1 held "$GPULAT" --source bpf hist 3 1
	n=$(awk '$1 ~ /^gl_nv_/ && $2 != "-"' "$T_TMP/p" | wc -l)
	[[ $n -ge 5 ]] && ok "with the driver (assumed) its programs attach ($n)" ||
		not_ok "nvidia with the driver assumed # $n"
fi
t_done
