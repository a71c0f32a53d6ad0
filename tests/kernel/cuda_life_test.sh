#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What the cuda family's probes leave behind: nothing.  A job killed
# (SIGKILL) inside a call frees its thread's slot (cuda.exited); the
# module unloaded with the library probed and jobs inside calls removes
# its uprobes, and the jobs go on and finish their calls; loaded again,
# it probes nothing until told, and gpulat serve tells it; a directory,
# and a file without the functions, are refused, leaving nothing probed.
# vmrun fails the run on any kernel splat.  Skips without the dynamic
# files (make guest-dyn) or the stand-in GPU.
set -u
MOD=/gpulat/modules
DYN=/gpulat/dyn/cuda
DEV=/dev/gpulat_fake_gpu
. "${GPULAT_LIB:-/gpulat/lib}/tap.sh" || exit 1
# counter NAME: a cuda drop counter of gpulat status
counter() {
	gpulat status | sed -n "s/.*cuda\.$1 \([0-9]*\).*/\1/p" | head -n 1
}
# job COUNT: the job itself, not a shell around it (a kill reaches it)
job() {
	FAKE_CUDA_DEV=$DEV LD_LIBRARY_PATH=$DYN exec $DYN/job cuStreamSynchronize "$1"
}

[ -x $DYN/job ] && [ -f $DYN/libcuda.so.1 ] ||
	skip_all "no CUDA job or libcuda.so.1 double in $DYN (make guest-dyn)"
ours=0
if ! grep -q '^gpulat_fake_gpu ' /proc/modules; then
	insmod $MOD/gpulat_fake_gpu.ko gpu_us=3000 ||
		skip_all "cannot load gpulat_fake_gpu.ko"
	ours=1
fi
[ -c $DEV ] || mknod $DEV c "$(cut -d: -f1 /sys/class/misc/gpulat_fake_gpu/dev)" \
	"$(cut -d: -f2 /sys/class/misc/gpulat_fake_gpu/dev)"

echo "TAP version 13"
echo "1..7"
gpulat cuda attach $DYN/libcuda.so.1 >/dev/null
e0=$(counter exited)
# a GPU of 200 ms: the kill lands inside a call
echo 200000 >/sys/module/gpulat_fake_gpu/parameters/gpu_us
(job 5 >/dev/null) &
j=$!
sleep 0.3
kill -9 $j
wait $j 2>/dev/null
e1=$(counter exited)
echo "# cuda.exited ${e0:-?} -> ${e1:-?}"
check "a job killed inside a call frees its slot" [ "$((${e1:-0} - ${e0:-0}))" -eq 1 ]

echo 20000 >/sys/module/gpulat_fake_gpu/parameters/gpu_us
(job 40 >/tmp/cuda_job1) &
j1=$!
(job 40 >/tmp/cuda_job2) &
j2=$!
sleep 0.2
rmmod gpulat
r=$?
wait $j1
rc1=$?
wait $j2
rc2=$?
check "gpulat unloads with the library probed and jobs inside calls" [ $r -eq 0 ]
check "the jobs finish every call after the unload" \
	[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && grep -q '"calls":40' /tmp/cuda_job1 &&
	grep -q '"calls":40' /tmp/cuda_job2
insmod $MOD/gpulat.ko
check "loaded again, nothing is probed" \
	sh -c 'gpulat cuda | grep -q "no library probed"'
echo 3000 >/sys/module/gpulat_fake_gpu/parameters/gpu_us
mkdir -p /tmp/cuda_tf
GPULAT_LIBCUDA=$DYN/libcuda.so.1 timeout 3 gpulat serve --textfile /tmp/cuda_tf \
	>/dev/null 2>/tmp/cuda_serve.err
echo "# $(grep cuda /tmp/cuda_serve.err)"
check "gpulat serve hands the module the library it finds" \
	sh -c 'gpulat cuda | grep -q "^cuda: 7 functions probed"'
gpulat cuda detach >/dev/null

check "a directory is refused" sh -c '! gpulat cuda attach /gpulat 2>/dev/null'
# a file too short for the double's offsets: they lie past its end
head -c 256 $DYN/libcuda.so.1 >/tmp/short.so
out=$(gpulat cuda attach /tmp/short.so 2>&1)
echo "# $out"
check "a file without the functions is refused by the tool, nothing probed" \
	sh -c '! gpulat cuda attach /tmp/short.so 2>/dev/null && gpulat cuda | grep -q "no library probed"'
# left as found: the tests after load the stand-in their way
[ $ours = 1 ] && rm -f $DEV && rmmod gpulat_fake_gpu
exit $fail
