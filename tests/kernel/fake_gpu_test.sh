#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The stand-in GPU of the job's GPU waits, end to end in the guest: a
# CUDA job (tests/cuda/job.c) loads the libcuda.so.1 double by its soname
# and makes synchronising calls, each a read() of /dev/gpulat_fake_gpu
# (tests/kmod/gpulat_fake_gpu.c) that the "nvidia" IRQ thread completes
# after gpu_us of "GPU" work.  Known answers: every call lasts at least
# the GPU's time; one read, one interrupt and one thread run per call (a
# single caller: the next read starts only once the thread completed the
# last); and gpulat's nvidia family times every one of those interrupts
# (nvidia.hardirq on the stand-in's IRQ).  Skips without the dynamic
# files (make guest-dyn) or the module.
set -u
MOD=/gpulat/modules
DYN=/gpulat/dyn/cuda
P=/sys/module/gpulat_fake_gpu/parameters
DEV=/dev/gpulat_fake_gpu
CALLS=50
GPU_US=3000
. "${GPULAT_LIB:-/gpulat/lib}/tap.sh" || exit 1
# json_num KEY LINE: the number KEY has in one line of JSON
json_num() { echo "$2" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }
# hardirqs IRQ: nvidia.hardirq samples on IRQ in the module's totals
# (gpulat hist's summary, one line per key: "nvidia.hardirq  irq N ...")
hardirqs() {
	gpulat hist nvidia -D -s 2>/dev/null |
		awk -v irq="$1" '$1 == "nvidia.hardirq" && $2 == "irq" &&
				 $3 == irq { n += $(NF - 3) } END { print n + 0 }'
}

[ -x $DYN/job ] && [ -f $DYN/libcuda.so.1 ] ||
	skip_all "no CUDA job or libcuda.so.1 double in $DYN (make guest-dyn)"
# its own counters: one left loaded by a test before is unloaded first
rmmod gpulat_fake_gpu 2>/dev/null && rm -f $DEV
insmod $MOD/gpulat_fake_gpu.ko gpu_us=$GPU_US ||
	skip_all "cannot load gpulat_fake_gpu.ko"
irq=$(cat $P/irq)
if [ ! -c $DEV ]; then
	mknod $DEV c "$(cut -d: -f1 /sys/class/misc/gpulat_fake_gpu/dev)" \
		"$(cut -d: -f2 /sys/class/misc/gpulat_fake_gpu/dev)"
fi

echo "TAP version 13"
echo "1..6"
echo "# IRQ $irq: $(grep "^ *$irq:" /proc/interrupts | tr -s ' ')"
h0=$(hardirqs "$irq")
out=$(FAKE_CUDA_DEV=$DEV LD_LIBRARY_PATH=$DYN $DYN/job cuStreamSynchronize $CALLS)
rc=$?
h1=$(hardirqs "$irq")
echo "# job: $out"
echo "# reads $(cat $P/reads), hard_calls $(cat $P/hard_calls), thread_calls $(cat $P/thread_calls); nvidia.hardirq on IRQ $irq ${h0:-0} -> ${h1:-0}"

check "the job made its $CALLS calls" \
	[ $rc -eq 0 ] && [ "$(json_num calls "$out")" = $CALLS ]
check "every call lasted at least the GPU's ${GPU_US} us" \
	[ "$(json_num min_ns "$out")" -ge $((GPU_US * 1000)) ]
check "one read per call" [ "$(cat $P/reads)" -eq $CALLS ]
check "one interrupt per call" [ "$(cat $P/hard_calls)" -eq $CALLS ]
check "one thread run per interrupt (each woke its caller)" \
	[ "$(cat $P/thread_calls)" -eq $CALLS ]
check "gpulat's nvidia family timed every interrupt" \
	[ $((${h1:-0} - ${h0:-0})) -eq $CALLS ]
rmmod gpulat_fake_gpu
exit $fail
