# SPDX-License-Identifier: GPL-2.0
# Shared by tests/kernel/run.sh and tests/stress/run.sh (in the guest, as
# /gpulat/lib/watchdog.sh): run one test under a time limit and, when it
# overruns, say where it and the kernel were before killing it.
#
#   run_limited LIMIT OUT CMD...   run CMD with stdout+stderr to OUT (a file
#                                  or fifo); status in RL_RC, seconds in
#                                  RL_SECS; RL_TIMEOUT is a file holding the
#                                  report when it overran, else empty
#   now                            seconds since boot, with hundredths
# GPULAT_WATCHDOG_SYSRQ=0 leaves the kernel log alone (a run on the host).

RL_REPORT=/tmp/watchdog.timeout

now() { cut -d' ' -f1 /proc/uptime; }

# descendants PID - PID's children, grandchildren, ... (from /proc)
descendants() {
	for s in /proc/[0-9]*/stat; do
		read -r p _ _ pp _ <"$s" 2>/dev/null || continue
		[ "$pp" = "$1" ] && { echo "$p"; descendants "$p"; }
	done
}

# where PID... - each task's threads: state, wait channel, kernel stack
where() {
	for p in "$@"; do
		for t in /proc/$p/task/*; do
			[ -d "$t" ] || continue
			echo "# pid $p tid ${t##*/} ($(cat "$t/comm" 2>/dev/null))" \
				"state $(awk '{print $3}' "$t/stat" 2>/dev/null)" \
				"wchan $(cat "$t/wchan" 2>/dev/null)"
			sed 's/^/#   /' "$t/stack" 2>/dev/null
		done
	done
}

# others PID... - tasks outside the test (PID...) that may hold what it
# waits for: any running or in D state, and the kernel threads that run
# deferred work (irq_work/N on PREEMPT_RT, ksoftirqd/N, ktimers/N)
others() {
	for s in /proc/[0-9]*/stat; do
		read -r p c st _ <"$s" 2>/dev/null || continue
		case " $* $$ " in *" $p "*) continue ;; esac
		case "$st:$c" in
		R:* | D:* | *:"(irq_work/"* | *:"(ksoftirqd/"* | *:"(ktimers/"*)
			echo "$p" ;;
		esac
	done
}

run_limited() {
	_lim=$1 _out=$2
	shift 2
	_t0=$(now)
	rm -f "$RL_REPORT"
	"$@" >"$_out" 2>&1 &
	_pid=$!
	# The watchdog notes where the test, its children and the tasks
	# they may wait on were before it kills them, with the kernel's
	# own list of blocked tasks (sysrq w).
	( sleep "$_lim"
	  kill -0 $_pid 2>/dev/null || exit 0
	  _kids=$(descendants $_pid)
	  { where $_pid $_kids
	    echo "# other tasks: running, D state, irq_work, ksoftirqd, ktimers"
	    where $(others $_pid $_kids)
	    if [ "${GPULAT_WATCHDOG_SYSRQ:-1}" = 1 ] &&
	       [ -w /proc/sysrq-trigger ]; then
		echo w >/proc/sysrq-trigger
		sleep 1
		echo "# the kernel's blocked tasks (sysrq w)"
		dmesg | sed -n '/sysrq: Show Blocked State/,$p' | tail -n 400
	    fi; } >"$RL_REPORT.part"
	  mv "$RL_REPORT.part" "$RL_REPORT"
	  kill -TERM $_pid $_kids 2>/dev/null
	  sleep 3
	  kill -KILL $_pid $_kids $(descendants $_pid) 2>/dev/null ) &
	_wd=$!
	wait $_pid
	RL_RC=$?
	kill $_wd $(descendants $_wd) 2>/dev/null
	wait $_wd 2>/dev/null
	RL_SECS=$(awk -v a="$_t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	RL_TIMEOUT=
	[ -f "$RL_REPORT" ] && RL_TIMEOUT=$RL_REPORT
	return 0
}
