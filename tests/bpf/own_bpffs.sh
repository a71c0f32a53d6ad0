#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# own_bpffs.sh CMD [ARG...]: run CMD in a mount namespace of its own with
# a bpffs of its own on /sys/fs/bpf, nothing of it propagated back: no
# test reads or changes the host's pins, nor another test's.  In a
# chroot "/" is no mount point and cannot be made private: the mount
# that holds /sys/fs/bpf is made so then.
if [[ -z ${GL_OWN_BPFFS_IN:-} ]]; then
	GL_OWN_BPFFS_IN=1 exec unshare -m --propagation unchanged "$0" "$@"
fi
unset GL_OWN_BPFFS_IN
if ! mount --make-rprivate / 2>/dev/null &&
   ! mount --make-rprivate /sys 2>/dev/null; then
	echo "own_bpffs: no mount here can be made private" >&2
	exit 1
fi
mount -t bpf bpf /sys/fs/bpf || exit 1
exec "$@"
