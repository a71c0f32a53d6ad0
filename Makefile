# SPDX-License-Identifier: GPL-2.0
#
# gpulat top-level build.
#
#   make              the module (against the running kernel) and the tool
#   make run          set up, run gpulat on this machine (module, else BPF)
#   make demo         set up, boot the module in a VM under load, show it
#   make check        set up and run every test (host, fuzz, VM kernels)
#
# KDIR picks the kernel to build the module against (default: running one).
# KERNELS lists the Debian kernels `make check` boots (see scripts/vmrun).

KDIR ?= /lib/modules/$(shell uname -r)/build
KERNELS ?= 5.10 6.1 6.1-rt 6.12
VMRUN_SMP ?= 2

.DEFAULT_GOAL := all

include bpf/bpf.mk
include user/user.mk
include scripts/install.mk

.PHONY: all module module-clean guest guest-tests setup checkpatch \
	modules-check vmtest check demo run clean bench bench-host bench-quick bench-scale bench-serve bpftest scenarios \
	script-tests gen gen-check check-layers guest-stress stress stress-quick check-debug stress-debug

all: user
	@if [ -d "$(KDIR)" ]; then $(MAKE) module; else \
	 echo "note: no kernel build tree at $(KDIR): module not built" \
	      "(set KDIR, or use make demo / make check to run it in a VM)"; fi

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Not kbuild's clean: with M= at the top it would delete every *.ko below,
# the cached kernels' modules included.
module-clean:
	rm -f kmod/*.o kmod/*.ko kmod/*.mod kmod/*.mod.c kmod/.*.cmd \
	      kmod/modules.order modules.order Module.symvers .*.cmd

# --- Programs that run inside the test VM (static, no libraries needed;
#     the dynamic tool of guest-dyn aside, see user/user.mk) ---

GUEST_TEST_SRCS := $(wildcard tests/kernel/*.c)
GUEST_TESTS := $(patsubst tests/kernel/%.c,build/guest/tests/%,$(GUEST_TEST_SRCS))
GUEST_SCRIPTS := $(patsubst tests/kernel/%,build/guest/tests/%,\
		   $(wildcard tests/kernel/*.sh)) build/guest/tests/timeouts \
		 $(patsubst tests/lib/%,build/guest/lib/%,$(wildcard tests/lib/*.sh))

guest: guest-user guest-dyn guest-tests

guest-tests: $(GUEST_TESTS) $(GUEST_SCRIPTS)

# They link the library alone (tests/kernel/ uses no engine or command),
# and tests/lib/ for sh().
build/guest/tests/%: tests/kernel/%.c $(wildcard tests/kernel/*.h) $(wildcard tests/lib/*) \
		     $(USER_LIB_STATIC) | user-selftest-check
	@mkdir -p $(@D)
	$(USER_CC) -D_GNU_SOURCE $(USER_INC) -I tests/lib $(USER_SELFTEST_FLAGS) \
		$(USER_CFLAGS) -static -o $@ $< $(wildcard tests/lib/*.c) \
		$(USER_LIB_STATIC) $(USER_LDLIBS)

build/guest/tests/%.sh: tests/kernel/%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

# shell libraries of the guest's scripts, as /gpulat/lib
build/guest/lib/%.sh: tests/lib/%.sh
	@mkdir -p $(@D)
	install -m 0644 $< $@

build/guest/tests/timeouts: tests/kernel/timeouts
	@mkdir -p $(@D)
	install -m 0644 $< $@

# --- Checks ----------------------------------------------------------------

# Host packages a fresh Debian machine lacks (idempotent, quiet when done).
setup:
	@scripts/setup-host

# The series declaration (kmod/gpulat_series.h) is X-macro lists: as the
# kernel's own code but for them.
DECL_H := kmod/gpulat_series.h kmod/gpulat_tps.h kmod/gpulat_cuda.h

# bpf/ as the kernel's own code, but for macros that define programs
# (GL_TP returns from the program it defines, as libbpf's BPF_PROG does),
# settings fixed at load, which BPF declares const volatile, and the
# X-macro lists that state each family's tracepoints once (gpulat_bpf.h).
CHECKPATCH = perl $(SELFTEST_INC)/scripts/checkpatch.pl --no-tree --strict \
	--terse --show-types --ignore BIT_MACRO
checkpatch:
	@{ $(CHECKPATCH) -f kmod/*.c $(filter-out $(DECL_H),$(wildcard kmod/*.h)) \
		kmod/compat/*.h kmod/uapi/*.h tests/kmod/*.c tests/kmod/*.h; \
	   $(CHECKPATCH) --ignore COMPLEX_MACRO,MACRO_ARG_REUSE -f $(DECL_H); \
	   $(CHECKPATCH) --ignore MACRO_WITH_FLOW_CONTROL,VOLATILE \
		--ignore COMPLEX_MACRO,MACRO_ARG_REUSE \
		-f bpf/*.bpf.c bpf/*.h; } | \
	 grep -v '^total: 0 errors, 0 warnings, 0 checks' | \
	 { ! grep . ; } || { echo "not ok checkpatch"; exit 1; }
	@echo "ok checkpatch"

# The docs' tables made from the series declaration (scripts/gen-docs):
# gen rewrites them, gen-check fails when one is stale.
gen: $(GENDOC)
	@scripts/gen-docs $(GENDOC)
gen-check: $(GENDOC)
	@scripts/gen-docs --check $(GENDOC) && echo "ok gen-check"

# user/'s includes only go down: lib, engines, commands (scripts/check-layers).
check-layers:
	@scripts/check-layers

# Tests of the scripts themselves (TAP), on the host.
script-tests:
	@fail=0; for t in tests/scripts/test_*.sh; do \
		echo "# $$t"; bash $$t || { echo "# FAILED: $$t"; fail=1; }; \
	done; exit $$fail

# Warning-free module builds against every kernel we boot.
modules-check:
	@set -e; for k in $(KERNELS); do \
		scripts/build-module $$k >/dev/null; echo "ok build-module $$k"; \
	done

# Kernel modules and host programs the VM tests use.
VMTEST_ARGS := --net --kmod null_blk --kmod veth --kmod sch_netem \
	--add $(shell command -v ip) --add $(shell command -v tc)

# A whole VM run may take its tests' limits (tests/kernel/timeouts)
# plus the boot: vmrun's limit follows from them.
VMTEST_BOOT_S := 120
vmtest-budget = $$(( $(VMTEST_BOOT_S) + \
	$$(sh tests/kernel/run.sh --budget build/guest/tests '$(1)') ))

# Every test on each kernel, then the IRQ tests again with threaded
# interrupts (the NVIDIA driver's handlers run in irq/N threads then).
vmtest: guest
	@set -e; for k in $(KERNELS); do \
		echo "# kernel $$k"; \
		scripts/vmrun --kernel $$k --smp $(VMRUN_SMP) $(VMTEST_ARGS) \
			--timeout $(call vmtest-budget,*) tests/kernel/run.sh; \
		echo "ok vmtest $$k"; \
		echo "# kernel $$k, threadirqs"; \
		scripts/vmrun --kernel $$k --smp $(VMRUN_SMP) $(VMTEST_ARGS) \
			--timeout $(call vmtest-budget,*irq*) \
			--append threadirqs tests/kernel/run.sh '*irq*'; \
		echo "ok vmtest $$k threadirqs"; \
	done

# The BPF source on this machine's kernel (root, BTF): tests/bpf/.  A
# machine that cannot run them says SKIPPED, never passed.
bpftest: user
	@rc=0; tests/bpf/run.sh || rc=$$?; \
	 if [ $$rc -eq 4 ]; then echo "SKIPPED bpftest (see the reason above)"; \
	 elif [ $$rc -ne 0 ]; then echo "not ok bpftest"; exit 1; \
	 else echo "ok bpftest"; fi

# The scenario library (tests/scenarios/): incidents with a known answer,
# diagnosed on this machine's kernel with the BPF source; its confusion
# matrix.  make check runs the short form (--short).
scenarios: user
	@rc=0; tests/scenarios/run.sh $(SCENARIOS) || rc=$$?; \
	 if [ $$rc -ne 0 ]; then echo "not ok scenarios"; exit 1; fi; \
	 echo "ok scenarios"

# Run gpulat on this machine for a short window: the module when it is
# loaded or loadable, else the BPF source (scripts/run-host).
run: setup user
	@scripts/run-host

check: setup
	$(MAKE) unit
	$(MAKE) bpftest
	$(MAKE) scenarios SCENARIOS=--short
	$(MAKE) script-tests
	$(MAKE) fuzz
	$(MAKE) checkpatch
	$(MAKE) gen-check
	$(MAKE) check-layers
	$(MAKE) modules-check
	$(MAKE) install-check
	$(MAKE) vmtest
	$(MAKE) stress-quick
	$(MAKE) bench-quick
	@echo "check: all passed"

# The kernel suite on the debug kernel (KASAN, lockdep, kmemleak, debug
# objects; scripts/build-debug-kernel builds it once from Debian's
# source, cached): test limits scaled by DEBUG_SCALE, guest memory
# DEBUG_MEM MB (KASAN's shadow takes an eighth, kmemleak and lockdep
# more: mm_test's page cache needs 512 MB free).  Not in `make check`:
# the first build takes most of an hour on 2 cores.
DEBUG_SCALE ?= 4
DEBUG_MEM ?= 1536
check-debug: guest
	@set -e; scripts/fetch-kernel debug >/dev/null; \
	echo "# kernel debug"; \
	scripts/vmrun --kernel debug --smp $(VMRUN_SMP) --mem $(DEBUG_MEM) $(VMTEST_ARGS) \
		--append GPULAT_TIMEOUT_SCALE=$(DEBUG_SCALE) \
		--timeout $$(( $(DEBUG_SCALE) * $(call vmtest-budget,*) )) \
		tests/kernel/run.sh; \
	echo "ok vmtest debug"; \
	scripts/vmrun --kernel debug --smp $(VMRUN_SMP) --mem $(DEBUG_MEM) $(VMTEST_ARGS) \
		--append "threadirqs GPULAT_TIMEOUT_SCALE=$(DEBUG_SCALE)" \
		--timeout $$(( $(DEBUG_SCALE) * $(call vmtest-budget,*irq*) )) \
		tests/kernel/run.sh '*irq*'; \
	echo "ok vmtest debug threadirqs"
	@echo "check-debug: all passed"

# Overhead against floors and peers (QEMU -icount, wall clock, snapshot
# time at 1-8 vCPUs), then the real-kernel lane: see
# Documentation/overhead.rst.  Results in build/bench/results-FLAVOR.json
# and build/bench/results-host.json.
bench:
	@set -e; for k in $(KERNELS); do scripts/bench --kernel $$k; done
	$(MAKE) bench-host
	scripts/bench-cuda $(foreach k,$(KERNELS),--kernel $(k))

# The BPF source beside libbpf-tools on this machine's running kernel.
bench-host: user
	scripts/bench-host

# A short run that keeps the benchmark working; no thresholds.
bench-quick:
	scripts/bench --quick
	scripts/bench-serve --quick
	scripts/bench-cuda --quick

# serve's user-space cost per tick at 2 to 224 CPUs, natively on this
# host, from a snapshot of it (Documentation/overhead.rst, "Scale").
bench-serve: user
	scripts/bench-serve

# A host of many CPUs and keys (16 disks, 8 veth pairs, 256 IRQ handlers,
# 100 cgroups) at 16 and 64 vCPUs, both sources: memory, snapshot time,
# serve's /metrics and CPU, projected to 224 CPUs
# (Documentation/overhead.rst, "Scale").  Not in make check (about 20
# minutes).  Results in build/bench/results-scale-FLAVOR.json.
BENCH_SCALE_KERNEL ?= 6.12
bench-scale:
	scripts/bench-scale --kernel $(BENCH_SCALE_KERNEL)

# vmrun builds the module and the tool (messages in build/demo/vmrun.log);
# the scripts install the packages they need, and no more than the demo
# needs (no compilers for fuzzing, no kselftest sources).
demo: setup
	@scripts/demo

clean: user-clean module-clean
	rm -rf build

# --- Stress lane (scripts/stress, tests/stress/) ----------------------------
# Static programs and scripts for the guest under build/guest/stress/, which
# vmrun ships as /gpulat/stress: `make guest-stress` builds them and the rest
# of the guest tree (scripts/stress passes it to vmrun as --guest-target).
# stress-quick is the short form (a few minutes per kernel), stress the long.
STRESS_SRCS := $(wildcard tests/stress/*.c)
STRESS_BINS := $(patsubst tests/stress/%.c,build/guest/stress/%,$(STRESS_SRCS))
STRESS_SCRIPTS := $(patsubst tests/stress/%,build/guest/stress/%,\
		  $(wildcard tests/stress/*.sh))

guest-stress: guest $(STRESS_BINS) $(STRESS_SCRIPTS)

build/guest/stress/%: tests/stress/%.c tests/stress/stress.h $(USER_LIB_STATIC)
	@mkdir -p $(@D)
	$(USER_CC) -D_GNU_SOURCE $(USER_INC) $(USER_CFLAGS) \
		-static -pthread -o $@ $< $(USER_LIB_STATIC) $(USER_LDLIBS)

build/guest/stress/%.sh: tests/stress/%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

stress:
	scripts/stress $(addprefix --kernel ,$(KERNELS))

stress-quick:
	scripts/stress --quick $(addprefix --kernel ,$(KERNELS))

# The short form on the debug kernel (KASAN, lockdep, kmemleak; see
# check-debug), limits scaled by 4: not in make check (about 16 minutes).
stress-debug:
	@scripts/fetch-kernel debug >/dev/null
	scripts/stress --quick --kernel debug
