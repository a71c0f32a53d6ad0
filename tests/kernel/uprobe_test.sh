#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel interface the job's GPU waits are measured by, on every
# kernel: a uprobe and a uretprobe placed through kmod/compat/uprobe.h
# (tests/kmod/gpulat_uprobe_count.c) at the file offset the tool finds
# (lib/elfsym.c, made on the build host: /gpulat/dyn/cuda/offsets) of a
# function of the libcuda.so.1 double.  Known answers: a job's CALLS calls
# are CALLS entries and CALLS returns; two jobs at once, each its own
# process, are counted together (one registration covers every process
# that maps the file); a job that loads the library through a bind mount,
# as a container does, is counted too (the same inode); after rmmod, a
# job runs as before.  Skips without the files (make guest-dyn).
set -u
MOD=/gpulat/modules
DYN=/gpulat/dyn/cuda
P=/sys/module/gpulat_uprobe_count/parameters
CALLS=20
. "${GPULAT_LIB:-/gpulat/lib}/tap.sh" || exit 1
# job DIR FUNCTION COUNT: the job, with the double loaded from DIR
job() {
	FAKE_CUDA_GPU_US=200 LD_LIBRARY_PATH=$1 $DYN/job "$2" "$3" >/dev/null
}
# counted FUNCTION CMD...: load the counter at FUNCTION, run CMD, print
# "HITS RETURNS", unload; empty when the module did not load
counted() {
	_off=$(sed -n "s/^$1 //p" $DYN/offsets)
	shift
	insmod $MOD/gpulat_uprobe_count.ko path=$DYN/libcuda.so.1 \
		offset="$_off" || return 1
	"$@"
	echo "$(cat $P/hits) $(cat $P/returns)"
	rmmod gpulat_uprobe_count
}

[ -x $DYN/job ] && [ -f $DYN/libcuda.so.1 ] && [ -f $DYN/offsets ] ||
	skip_all "no CUDA job, double or offsets in $DYN (make guest-dyn)"
grep -q . $DYN/offsets || skip_all "empty $DYN/offsets"

echo "TAP version 13"
echo "1..5"
sed 's/^/# offset: /' $DYN/offsets

r=$(counted cuStreamSynchronize job $DYN cuStreamSynchronize $CALLS)
echo "# cuStreamSynchronize, one job of $CALLS: $r"
check "a job's $CALLS calls: $CALLS entries and $CALLS returns" \
	[ "$r" = "$CALLS $CALLS" ]

r=$(counted cuMemcpyDtoH_v2 job $DYN cuMemcpyDtoH_v2 $CALLS)
echo "# cuMemcpyDtoH_v2, one job of $CALLS: $r"
check "another function's offset: its calls only" [ "$r" = "$CALLS $CALLS" ]

two() {
	job $DYN cuCtxSynchronize $CALLS &
	job $DYN cuCtxSynchronize $CALLS
	wait
}
r=$(counted cuCtxSynchronize two)
echo "# cuCtxSynchronize, two jobs at once: $r"
check "two processes at once, one registration" \
	[ "$r" = "$((2 * CALLS)) $((2 * CALLS))" ]

mkdir -p /tmp/ctr
mount --bind $DYN /tmp/ctr
r=$(counted cuEventSynchronize job /tmp/ctr cuEventSynchronize $CALLS)
umount /tmp/ctr
echo "# cuEventSynchronize through a bind mount: $r"
check "a bind-mounted library (a container's) is the same inode" \
	[ "$r" = "$CALLS $CALLS" ]

check "after rmmod a job runs as before" job $DYN cuStreamSynchronize 5
exit $fail
