#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/bench-cuda (runs as /gpulat/run under
# scripts/vmrun): what the module's cuda family costs a call.  The job
# (tests/cuda/job.c) calls the libcuda.so.1 double's cuStreamSynchronize
# CALLS times, each returning at once (a spinning context and a "GPU" of
# 0 us), with the library not probed and then probed (gpulat cuda
# attach), REPS times in turn.  Arguments: calls=N reps=N.
#   BENCH cuda REP off NS on NS calls N
#   BENCH done
set -u
calls=200000 reps=5
for a in "$@"; do
	case $a in
	calls=* | reps=*) eval "${a%%=*}=\${a#*=}" ;;
	*) echo "bench-cuda: unknown argument $a"; exit 2 ;;
	esac
done
DYN=/gpulat/dyn/cuda
[ -x $DYN/job ] || { echo "BENCH skip no job in $DYN (make guest-dyn)"; exit 0; }
# total_ns: the job's whole time for its calls
job() {
	FAKE_CUDA_SPIN=1 FAKE_CUDA_GPU_US=0 LD_LIBRARY_PATH=$DYN \
		taskset -c 1 $DYN/job cuStreamSynchronize "$calls" |
		sed -n 's/.*"total_ns":\([0-9]*\).*/\1/p'
}
gpulat cuda detach >/dev/null 2>&1
r=1
while [ $r -le "$reps" ]; do
	off=$(job)
	gpulat cuda attach $DYN/libcuda.so.1 >/dev/null || {
		echo "BENCH skip gpulat cuda attach failed"; exit 0; }
	on=$(job)
	gpulat cuda detach >/dev/null
	echo "BENCH cuda $r off $off on $on calls $calls"
	r=$((r + 1))
done
echo "BENCH done"
