# SPDX-License-Identifier: GPL-2.0
# For the guest tests of NVML (as /gpulat/lib/nvml.sh).  The guest's
# gpulat on PATH is static and cannot load libraries; `make guest`
# ships the normal, dynamic build of the tool beside it, with the NVML
# test double (tests/nvml/fake_nvml.c, soname libnvidia-ml.so.1), and
# scripts/vmrun the libraries the two need.
#
#   GPULAT_DYN          the dynamic tool (/gpulat/dyn/gpulat)
#   FAKE_NVML_DIR       the double's folder (/gpulat/dyn/nvml)
#   FAKE_NVML_LIB       the double's file, for $GPULAT_NVML_LIB
#   nvml_dyn_require    print a TAP plan that skips all and exit 4
#                       (KSFT_SKIP) unless the tool runs and the double
#                       is there; call it before the test's plan
#   gpulat_dyn ARGS...  run the dynamic tool
#   with_fake_nvml CMD...
#                       run CMD (a command or a function) with
#                       LD_LIBRARY_PATH leading to the double, so that
#                       dlopen("libnvidia-ml.so.1") finds it; in a
#                       subshell, the caller's environment stays as it is

GPULAT_DYN=${GPULAT_DYN:-/gpulat/dyn/gpulat}
FAKE_NVML_DIR=${FAKE_NVML_DIR:-/gpulat/dyn/nvml}
FAKE_NVML_LIB=$FAKE_NVML_DIR/libnvidia-ml.so.1

nvml_dyn_require() {
	_why=
	if [ ! -x "$GPULAT_DYN" ]; then
		_why="no dynamic gpulat at $GPULAT_DYN (make guest-dyn)"
	elif [ ! -f "$FAKE_NVML_LIB" ]; then
		_why="no NVML double at $FAKE_NVML_LIB (make guest-dyn)"
	elif ! "$GPULAT_DYN" --version >/dev/null 2>&1; then
		# a library missing in the guest: the loader says which
		_why="$GPULAT_DYN does not run: $("$GPULAT_DYN" --version 2>&1 | head -n 1)"
	fi
	[ -z "$_why" ] && return 0
	echo "TAP version 13"
	echo "1..0 # SKIP $_why"
	exit 4
}

gpulat_dyn() {
	"$GPULAT_DYN" "$@"
}

with_fake_nvml() {
	(
		LD_LIBRARY_PATH=$FAKE_NVML_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		export LD_LIBRARY_PATH
		"$@"
	)
}
