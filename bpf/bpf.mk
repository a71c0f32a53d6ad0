# SPDX-License-Identifier: GPL-2.0
#
# The BPF source (bpf/): one object built with clang for the BPF target,
# CO-RE, against a vmlinux.h that bpftool generates from the build
# machine's kernel BTF (BPF_BTF; any kernel's serves: libbpf relocates
# every field access to the running kernel's layout at load), and the
# skeleton libgpulat embeds (user/lib/bpf_source.c).  Included by the
# top-level Makefile, before user/user.mk.

BPF_CLANG ?= clang
BPFTOOL ?= bpftool
BPF_BTF ?= /sys/kernel/btf/vmlinux
BPF_OUT := build/bpf
BPF_SRCS := $(wildcard bpf/*.bpf.c) $(wildcard bpf/*.bpf.h) bpf/gpulat_bpf.h \
	    kmod/gpulat_hist.h kmod/gpulat_hold.h kmod/uapi/gpulat.h
BPF_OBJ := $(BPF_OUT)/gpulat.bpf.o
BPF_SKEL := $(BPF_OUT)/gpulat.skel.h
# -mcpu=v2: the instruction set of every kernel we support (5.10 has no
# BPF atomics beyond add; v3's would be refused there).
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v2 -D__TARGET_ARCH_x86 \
	      -Wall -Wextra -Wno-unused-parameter -Wno-int-conversion -Werror \
	      -I $(BPF_OUT) -I bpf -I kmod

.PHONY: bpf
bpf: $(BPF_SKEL)

$(BPF_OUT)/vmlinux.h:
	@mkdir -p $(@D)
	@test -r $(BPF_BTF) || { \
	 echo "bpf: $(BPF_BTF) not readable: building the BPF source needs a kernel's BTF" >&2; \
	 echo "bpf: set BPF_BTF to a vmlinux with BTF (e.g. a cached test kernel's)" >&2; \
	 exit 1; }
	$(BPFTOOL) btf dump file $(BPF_BTF) format c > $@.tmp
	@mv $@.tmp $@

$(BPF_OBJ): $(BPF_SRCS) $(BPF_OUT)/vmlinux.h
	$(BPF_CLANG) $(BPF_CFLAGS) -c bpf/gpulat.bpf.c -o $@

$(BPF_SKEL): $(BPF_OBJ)
	$(BPFTOOL) gen skeleton $< name gpulat_bpf > $@.tmp
	@mv $@.tmp $@
