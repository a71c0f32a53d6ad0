# SPDX-License-Identifier: GPL-2.0
#
# gpulat userspace: the tool, its library, host unit tests and fuzzers.
# Included by the top-level Makefile; paths are relative to the top.
#
#   make user         build/user/gpulat and build/user/libgpulat.a
#   make unit         unit tests (ASan + UBSan), TAP output
#   make fuzz         every fuzzer for FUZZ_SECONDS (default 20) each
#   make guest-user   static build/guest/bin/gpulat, $(USER_LIB_STATIC) and
#                     $(USER_TOOL_LIB_STATIC)
#   make guest-dyn    the normal (dynamic) tool, the NVML and libcuda test
#                     doubles and the CUDA job under build/guest/dyn/, for
#                     the guest tests that load them
#   make user-clean   remove what these targets built
#
# Layers, one folder each: user/lib/ is libgpulat (device access, snapshot
# decoding and differencing, histogram math, trace records, the family
# table, the CPU set), which knows no command; user/engine/ (watch, hist
# view, trace printing, diagnosis, report bundle, host facts, NVML) builds
# on it; the commands are user/cmd/, one file each; user/cli.c parses,
# user/gpulat.c dispatches.  libgpulat.a holds user/lib/ alone; libgpulat-tool.a holds
# the rest but main.
#
# Programs using the library: $(USER_INC) to compile, $(USER_LIB) or
# $(USER_LIB_STATIC) to link; those using engines or commands too put
# $(USER_TOOL_LIB) or $(USER_TOOL_LIB_STATIC) before it.

USER_SAVED_GOAL := $(.DEFAULT_GOAL)

USER_CC ?= gcc
USER_CLANG ?= clang
USER_AR ?= ar
USER_PYTHON ?= python3
USER_OPT ?= -O2 -g
USER_WARN := -Wall -Wextra -Werror
# user/'s headers are named from user/ ("lib/json.h", "engine/view/view.h",
# "cmd/cmd.h"); kmod/'s and bpf/'s shared ones by their own names, which
# are unique (scripts/check-layers).
USER_INC := -I user -I kmod -I bpf -I $(BPF_OUT)
# libbpf (the BPF source) and what it needs, static too for the guest.
USER_LDLIBS := -lbpf -lelf -lz -lm
# gpulat serve's HTTP (libmicrohttpd), dynamic builds only: Debian has no
# static GnuTLS for it, so the static guest tool serves --textfile alone.
USER_HTTP_LDLIBS := -lmicrohttpd -pthread
USER_CPPFLAGS := -D_GNU_SOURCE $(USER_INC) -MMD -MP
USER_CFLAGS := $(USER_OPT) $(USER_WARN) -std=gnu11

USER_LIB_SRCS := $(wildcard user/lib/*.c)
USER_TOOL_SRCS := $(filter-out user/gpulat.c,\
		  $(wildcard user/*.c user/engine/*/*.c user/cmd/*.c))
USER_SRCS := $(USER_LIB_SRCS) $(USER_TOOL_SRCS)

# Normal build.
USER_OUT := build/user
USER_OBJS := $(patsubst user/%.c,$(USER_OUT)/obj/%.o,$(USER_LIB_SRCS))
USER_TOOL_OBJS := $(patsubst user/%.c,$(USER_OUT)/obj/%.o,$(USER_TOOL_SRCS))
USER_LIB := $(USER_OUT)/libgpulat.a
USER_TOOL_LIB := $(USER_OUT)/libgpulat-tool.a
USER_BIN := $(USER_OUT)/gpulat

# Static build for the guest VM.
USER_GUEST_OUT := build/guest
USER_GUEST_OBJ := build/guest-obj
USER_GUEST_OBJS := $(patsubst user/%.c,$(USER_GUEST_OBJ)/%.o,$(USER_LIB_SRCS))
USER_GUEST_TOOL_OBJS := $(patsubst user/%.c,$(USER_GUEST_OBJ)/%.o,$(USER_TOOL_SRCS))
USER_LIB_STATIC := $(USER_OUT)/libgpulat-static.a
USER_TOOL_LIB_STATIC := $(USER_OUT)/libgpulat-tool-static.a
USER_GUEST_BIN := $(USER_GUEST_OUT)/bin/gpulat

# Unit tests: library and tool again, with sanitizers.
USER_UNIT_OUT := build/unit
USER_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -fno-omit-frame-pointer
USER_UNIT_CFLAGS := -O1 -g $(USER_WARN) -std=gnu11 $(USER_SAN)
USER_UNIT_OBJS := $(patsubst user/%.c,$(USER_UNIT_OUT)/obj/%.o,$(USER_LIB_SRCS))
USER_UNIT_TOOL_OBJS := $(patsubst user/%.c,$(USER_UNIT_OUT)/obj/%.o,$(USER_TOOL_SRCS))
USER_UNIT_LIB := $(USER_UNIT_OUT)/libgpulat.a
USER_UNIT_TOOL_LIB := $(USER_UNIT_OUT)/libgpulat-tool.a
USER_UNIT_BIN := $(USER_UNIT_OUT)/gpulat
USER_UNIT_HELPERS := $(filter-out tests/unit/test_%.c,$(wildcard tests/unit/*.c))
# tests/lib/: helpers the unit and the guest tests share (sh()).
USER_TEST_LIB_SRCS := $(wildcard tests/lib/*.c)
USER_UNIT_HELPER_OBJS := $(patsubst tests/unit/%.c,$(USER_UNIT_OUT)/obj/t_%.o,$(USER_UNIT_HELPERS)) \
			 $(patsubst tests/lib/%.c,$(USER_UNIT_OUT)/obj/tl_%.o,$(USER_TEST_LIB_SRCS))
USER_UNIT_TESTS := $(patsubst tests/unit/%.c,$(USER_UNIT_OUT)/%,$(wildcard tests/unit/test_*.c))

# kselftest.h and kselftest_harness.h: SELFTEST_INC is a folder holding
# them, directly or under tools/testing/selftests.  Asked for once.
SELFTEST_INC ?= $(shell scripts/fetch-kernel --selftest-headers)
USER_SELFTEST = $(eval USER_SELFTEST := $(SELFTEST_INC))$(USER_SELFTEST)
USER_SELFTEST_FLAGS = -isystem $(USER_SELFTEST)/tools/testing/selftests \
		      -isystem $(USER_SELFTEST)

# Fuzzers (clang, libFuzzer).
FUZZ_SECONDS ?= 20
USER_FUZZ_OUT := build/fuzz
USER_FUZZ_CFLAGS := -O1 -g $(USER_WARN) -std=gnu11 \
		    -fsanitize=address,undefined -fno-sanitize-recover=all
USER_FUZZ_OBJS := $(patsubst user/%.c,$(USER_FUZZ_OUT)/obj/%.o,$(USER_SRCS))
USER_FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
USER_FUZZERS := $(addprefix $(USER_FUZZ_OUT)/fuzz_,$(USER_FUZZ_NAMES))
USER_FUZZ_SEEDS := $(USER_FUZZ_OUT)/seeds/.done
# the libcuda.so.1 test double (below), a seed of fuzz_elfsym too
USER_CUDA_DOUBLE := $(USER_UNIT_OUT)/cuda/libcuda.so.1

# The version (scripts/version: git describe, else VERSION) goes into a
# generated header that only user/cmd/version.c includes, rewritten only when
# it changes: a new commit recompiles that one file, not the tool.
USER_VERSION_H := $(USER_OUT)/version.h
USER_VERSION_OBJS := $(addsuffix /cmd/version.o,$(USER_OUT)/obj \
		     $(USER_GUEST_OBJ) $(USER_UNIT_OUT)/obj $(USER_FUZZ_OUT)/obj)
$(USER_VERSION_OBJS): $(USER_VERSION_H)
$(USER_VERSION_OBJS): USER_CPPFLAGS += -I $(USER_OUT)

.PHONY: user-version
$(USER_VERSION_H): user-version
	@scripts/version --header $@

.PHONY: user unit fuzz guest-user user-clean

user: $(USER_BIN) $(USER_LIB) $(USER_TOOL_LIB)

$(USER_OUT)/obj/%.o: user/%.c
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CPPFLAGS) $(USER_CFLAGS) -c -o $@ $<

$(USER_LIB): $(USER_OBJS)
	@rm -f $@
	$(USER_AR) rcs $@ $^

$(USER_TOOL_LIB): $(USER_TOOL_OBJS)
	@rm -f $@
	$(USER_AR) rcs $@ $^

$(USER_BIN): $(USER_OUT)/obj/gpulat.o $(USER_TOOL_LIB) $(USER_LIB)
	$(USER_CC) $(USER_CFLAGS) -o $@ $^ $(USER_LDLIBS) $(USER_HTTP_LDLIBS)

$(USER_OUT)/obj/engine/serve/serve_http.o $(USER_UNIT_OUT)/obj/engine/serve/serve_http.o: \
	USER_CPPFLAGS += -DGPULAT_HTTP

guest-user: $(USER_GUEST_BIN) $(USER_LIB_STATIC) $(USER_TOOL_LIB_STATIC)

$(USER_GUEST_OBJ)/%.o: user/%.c
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CPPFLAGS) $(USER_CFLAGS) -c -o $@ $<

$(USER_LIB_STATIC): $(USER_GUEST_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(USER_AR) rcs $@ $^

$(USER_TOOL_LIB_STATIC): $(USER_GUEST_TOOL_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(USER_AR) rcs $@ $^

$(USER_GUEST_BIN): $(USER_GUEST_OBJ)/gpulat.o $(USER_TOOL_LIB_STATIC) \
		   $(USER_LIB_STATIC)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) -static -o $@ $^ $(USER_LDLIBS)

$(USER_UNIT_OUT)/obj/%.o: user/%.c
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CPPFLAGS) $(USER_UNIT_CFLAGS) -c -o $@ $<

$(USER_UNIT_OUT)/obj/t_%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CPPFLAGS) -I tests/unit -I tests/lib \
		$(USER_SELFTEST_FLAGS) $(USER_UNIT_CFLAGS) -c -o $@ $<

$(USER_UNIT_OUT)/obj/tl_%.o: tests/lib/%.c
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CPPFLAGS) -I tests/lib $(USER_UNIT_CFLAGS) -c -o $@ $<

$(USER_UNIT_LIB): $(USER_UNIT_OBJS)
	@rm -f $@
	$(USER_AR) rcs $@ $^

$(USER_UNIT_TOOL_LIB): $(USER_UNIT_TOOL_OBJS)
	@rm -f $@
	$(USER_AR) rcs $@ $^

$(USER_UNIT_BIN): $(USER_UNIT_OUT)/obj/gpulat.o $(USER_UNIT_TOOL_LIB) \
		  $(USER_UNIT_LIB)
	$(USER_CC) $(USER_UNIT_CFLAGS) -o $@ $^ $(USER_LDLIBS) $(USER_HTTP_LDLIBS)

# Unit tests cover the tool too: both archives, the tool's first.
$(USER_UNIT_OUT)/test_%: $(USER_UNIT_OUT)/obj/t_test_%.o \
			 $(USER_UNIT_HELPER_OBJS) $(USER_UNIT_TOOL_LIB) \
			 $(USER_UNIT_LIB)
	$(USER_CC) $(USER_UNIT_CFLAGS) -o $@ $^ $(USER_LDLIBS) $(USER_HTTP_LDLIBS)

# Every test runs even when one fails; the target fails if any did.
# GPULAT_SOURCE=kmod: the tool's tests are of the module's absence and
# of files; the BPF source has its own (tests/bpf/, as root).
unit: user-selftest-check $(USER_UNIT_TESTS) $(USER_UNIT_BIN)
	@fail=0; for t in $(USER_UNIT_TESTS); do \
		echo "# $$t"; \
		GPULAT_BIN=$(USER_UNIT_BIN) GPULAT_PYTHON=$(USER_PYTHON) \
		GPULAT_SOURCE=kmod \
		ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			$$t || { echo "# FAILED: $$t"; fail=1; }; \
	done; exit $$fail

.PHONY: user-selftest-check
user-selftest-check:
	@test -f $(USER_SELFTEST)/tools/testing/selftests/kselftest_harness.h || \
	 test -f $(USER_SELFTEST)/kselftest_harness.h || \
	 { echo "kselftest_harness.h not found under SELFTEST_INC='$(USER_SELFTEST)'" >&2; \
	   echo "run scripts/fetch-kernel --selftest-headers or set SELFTEST_INC" >&2; \
	   exit 1; }

$(USER_FUZZ_OUT)/obj/%.o: user/%.c
	@mkdir -p $(@D)
	$(USER_CLANG) $(USER_CPPFLAGS) $(USER_FUZZ_CFLAGS) \
		-fsanitize=fuzzer-no-link -c -o $@ $<

$(USER_FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c $(USER_FUZZ_OBJS)
	$(USER_CLANG) $(USER_CPPFLAGS) $(USER_FUZZ_CFLAGS) -fsanitize=fuzzer \
		-o $@ $^ $(USER_LDLIBS)

# Seeds: valid snapshots made by the unit tests' blob builder, the
# libcuda.so.1 double for elfsym, plus the small files committed under
# tests/fuzz/corpus/<name>/.
$(USER_FUZZ_OUT)/gen_seeds: tests/fuzz/gen_seeds.c tests/unit/blob.c \
			    tests/unit/blob.h $(USER_LIB)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CPPFLAGS) -I tests/unit $(USER_CFLAGS) -o $@ \
		tests/fuzz/gen_seeds.c tests/unit/blob.c $(USER_LIB) $(USER_LDLIBS)

$(USER_FUZZ_SEEDS): $(USER_FUZZ_OUT)/gen_seeds $(USER_CUDA_DOUBLE)
	@rm -rf $(@D) && mkdir -p $(@D)/snapshot $(@D)/elfsym
	$< $(@D)/snapshot
	cp $(USER_CUDA_DOUBLE) $(@D)/elfsym/
	@touch $@

fuzz: $(USER_FUZZERS) $(USER_FUZZ_SEEDS)
	@set -e; for n in $(USER_FUZZ_NAMES); do \
		mkdir -p $(USER_FUZZ_OUT)/corpus/$$n $(USER_FUZZ_OUT)/artifacts; \
		seeds=""; \
		for d in $(USER_FUZZ_OUT)/seeds/$$n tests/fuzz/corpus/$$n; do \
			test -d $$d && seeds="$$seeds $$d"; \
		done; \
		dict=""; test -f tests/fuzz/$$n.dict && dict=-dict=tests/fuzz/$$n.dict; \
		echo "# fuzz_$$n for $(FUZZ_SECONDS) s"; \
		$(USER_FUZZ_OUT)/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) \
			-timeout=10 -rss_limit_mb=2048 -max_len=65536 \
			-print_final_stats=1 $$dict \
			-artifact_prefix=$(USER_FUZZ_OUT)/artifacts/$$n- \
			$(USER_FUZZ_OUT)/corpus/$$n $$seeds >$(USER_FUZZ_OUT)/$$n.log 2>&1 || \
			{ tail -n 60 $(USER_FUZZ_OUT)/$$n.log; echo "not ok fuzz_$$n"; exit 1; }; \
		grep -E '^stat::number_of_executed_units' $(USER_FUZZ_OUT)/$$n.log || true; \
		echo "ok fuzz_$$n"; \
	done

user-clean:
	rm -rf $(USER_OUT) $(USER_UNIT_OUT) $(USER_FUZZ_OUT) \
	       $(USER_GUEST_OBJ) $(USER_GUEST_BIN) $(USER_GUEST_DYN)

-include $(USER_OBJS:.o=.d) $(USER_TOOL_OBJS:.o=.d) $(USER_OUT)/obj/gpulat.d
-include $(USER_GUEST_OBJS:.o=.d) $(USER_GUEST_TOOL_OBJS:.o=.d) \
	 $(USER_GUEST_OBJ)/gpulat.d
-include $(USER_UNIT_OBJS:.o=.d) $(USER_UNIT_TOOL_OBJS:.o=.d) \
	 $(USER_UNIT_OUT)/obj/gpulat.d
-include $(USER_UNIT_HELPER_OBJS:.o=.d) $(USER_UNIT_TESTS:$(USER_UNIT_OUT)/%=$(USER_UNIT_OUT)/obj/t_%.d)
-include $(USER_FUZZ_OBJS:.o=.d)

# Keep objects that only pattern rules name.
.SECONDARY: $(USER_UNIT_HELPER_OBJS) $(USER_FUZZ_OBJS) \
	    $(patsubst $(USER_UNIT_OUT)/%,$(USER_UNIT_OUT)/obj/t_%.o,$(USER_UNIT_TESTS))

# The BPF source's loader embeds the skeleton, its reader and pins use its
# types (bpf/bpf.mk).
$(foreach f,bpf_source bpf_load bpf_pin,$(patsubst %,%/lib/$(f).o,$(USER_OUT)/obj \
	$(USER_GUEST_OBJ) $(USER_UNIT_OUT)/obj $(USER_FUZZ_OUT)/obj)): $(BPF_SKEL)

# Leave the including Makefile's default goal alone.
.DEFAULT_GOAL := $(USER_SAVED_GOAL)

# --- gpulat report ---------------------------------------------------------
# tests/nvml/fake_nvml.c stands in for libnvidia-ml.so.1, built twice: as
# a current library and as one from before driver 535 (older names, no
# replay counter); fake_script.c reads the timeline $FAKE_NVML_SCRIPT names.
# test_nvml, test_fake_nvml, test_gpusample and test_trace_nvml load both
# by file name, test_report's tool
# runs the first through LD_LIBRARY_PATH by its soname.
USER_NVML_DOUBLE := $(USER_UNIT_OUT)/nvml/libnvidia-ml.so.1
USER_NVML_DOUBLE_OLD := $(USER_UNIT_OUT)/nvml-old/libnvidia-ml.so.1
USER_NVML_DOUBLE_FLAGS := -I user $(USER_CFLAGS) -fPIC -shared \
			  -Wl,-soname,libnvidia-ml.so.1

USER_NVML_DOUBLE_SRCS := tests/nvml/fake_nvml.c tests/nvml/fake_script.c
# tests/bpf/test_serve_safety.sh hangs NVML in a flight bundle's writer
bpftest: $(USER_NVML_DOUBLE)
USER_NVML_DOUBLE_DEPS := $(USER_NVML_DOUBLE_SRCS) tests/nvml/fake_script.h \
			 user/engine/nvml/nvml.h

$(USER_NVML_DOUBLE): $(USER_NVML_DOUBLE_DEPS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_NVML_DOUBLE_FLAGS) -o $@ $(USER_NVML_DOUBLE_SRCS)

$(USER_NVML_DOUBLE_OLD): $(USER_NVML_DOUBLE_DEPS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_NVML_DOUBLE_FLAGS) -DFAKE_NVML_OLD -o $@ \
		$(USER_NVML_DOUBLE_SRCS)

# Order-only: the pattern rule links $^, which must not hold the doubles.
$(USER_UNIT_OUT)/test_report $(USER_UNIT_OUT)/test_nvml \
$(USER_UNIT_OUT)/test_fake_nvml $(USER_UNIT_OUT)/test_gpusample \
$(USER_UNIT_OUT)/test_trace_nvml: | $(USER_NVML_DOUBLE) $(USER_NVML_DOUBLE_OLD)

# tests/cuda/fake_cuda.c stands in for libcuda.so.1 (its synchronising
# calls wait for a "GPU" of $FAKE_CUDA_GPU_US); test_elfsym finds its
# functions' file offsets and checks them against the loader's.
$(USER_CUDA_DOUBLE): tests/cuda/fake_cuda.c
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) -fPIC -shared -Wl,-soname,libcuda.so.1 \
		-o $@ $< -pthread

$(USER_UNIT_OUT)/test_elfsym $(USER_UNIT_OUT)/test_cudalib: | $(USER_CUDA_DOUBLE)

# The static guest tool cannot load libraries: it states NVML as absent.
$(USER_GUEST_OBJ)/engine/nvml/nvml.o: USER_CFLAGS += -DGPULAT_NO_DLOPEN
# Nor NSS modules: the gpulat group is looked up in /etc/group itself.
$(USER_GUEST_OBJ)/lib/outfile.o: USER_CFLAGS += -DGPULAT_NO_NSS

# The guest tests of NVML run the normal build of the tool, which loads
# the double by its soname (LD_LIBRARY_PATH=/gpulat/dyn/nvml) or by
# $GPULAT_NVML_LIB; scripts/vmrun ships the libraries both need.  The
# static tool stays the guest's gpulat on PATH.
USER_GUEST_DYN := $(USER_GUEST_OUT)/dyn
USER_GUEST_DYN_FILES := $(USER_GUEST_DYN)/gpulat \
			$(USER_GUEST_DYN)/nvml/libnvidia-ml.so.1 \
			$(USER_GUEST_DYN)/cuda/libcuda.so.1 \
			$(USER_GUEST_DYN)/cuda/job \
			$(USER_GUEST_DYN)/cuda/offsets

.PHONY: guest-dyn
guest-dyn: $(USER_GUEST_DYN_FILES)

$(USER_GUEST_DYN)/gpulat: $(USER_BIN)
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(USER_GUEST_DYN)/nvml/libnvidia-ml.so.1: $(USER_NVML_DOUBLE)
	@mkdir -p $(@D)
	install -m 0644 $< $@

# The job's GPU waits in the guest: tests/cuda/job.c loads the
# libcuda.so.1 double by its soname, whose calls read the stand-in GPU of
# tests/kmod/gpulat_fake_gpu.c (tests/kernel/fake_gpu_test.sh).
$(USER_GUEST_DYN)/cuda/libcuda.so.1: $(USER_CUDA_DOUBLE)
	@mkdir -p $(@D)
	install -m 0644 $< $@

$(USER_GUEST_DYN)/cuda/job: tests/cuda/job.c
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) -o $@ $<

# tests/bpf/test_cuda.sh runs the job on the double on this host
bpftest: $(USER_CUDA_DOUBLE) $(USER_GUEST_DYN)/cuda/job

# The double's functions' file offsets as the tool finds them, for the
# guest's uprobe test (tests/kernel/uprobe_test.sh)
USER_CUDA_OFFSETS := $(USER_OUT)/cuda-offsets
$(USER_CUDA_OFFSETS): tests/cuda/offsets.c $(USER_LIB)
	$(USER_CC) $(USER_CPPFLAGS) $(USER_CFLAGS) -o $@ $^ $(USER_LDLIBS)

$(USER_GUEST_DYN)/cuda/offsets: $(USER_GUEST_DYN)/cuda/libcuda.so.1 \
				$(USER_CUDA_OFFSETS)
	$(USER_CUDA_OFFSETS) $< cuStreamSynchronize cuEventSynchronize \
		cuCtxSynchronize cuMemcpyDtoH_v2 cuMemcpyHtoD_v2 >$@.tmp
	mv $@.tmp $@

# The docs' tables made from the family table (scripts/gen-docs).
GENDOC := $(USER_OUT)/gendoc
$(GENDOC): scripts/gendoc.c $(USER_TOOL_LIB) $(USER_LIB)
	$(USER_CC) $(USER_CPPFLAGS) $(USER_CFLAGS) -o $@ $^ $(USER_LDLIBS) \
		$(USER_HTTP_LDLIBS)
include tests/cuda/cuda.mk
