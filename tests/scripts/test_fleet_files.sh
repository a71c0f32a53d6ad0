#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The operator files of scripts/fleet/: the udev rule gives the group
# gpulat read access to /dev/gpulat and nothing more; both systemd units
# pass systemd-analyze verify (where it exists), run the daemon with
# exactly the options it accepts, and keep the privileges
# Documentation/service.rst gives each source.  TAP.
set -u
FLEET=$(cd "$(dirname "$0")/../../scripts/fleet" && pwd)
RULE=$FLEET/60-gpulat.rules
UNITS="gpulat.service gpulat-bpf.service"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"

# rule_lines - the rule file without comments and blank lines
rule_lines() { grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$RULE"; }
# rule_fields - the one rule's fields, one a line, sorted
rule_fields() { rule_lines | sed 's/,[[:space:]]*/\n/g' | sort; }

# key UNIT KEY - the values of KEY= in UNIT, one a line
key() { sed -n "s/^$2=//p" "$FLEET/$1"; }

# exec_flags LINE - the options of an ExecStart= line, sorted, one a line
exec_flags() { tr ' ' '\n' <<<"$1" | grep -- '^--' | sed 's/=.*//' | sort; }

# verify UNIT... - systemd-analyze verify on copies whose ExecStart names
# an executable that exists here: gpulat is not installed on this host,
# and a missing binary is the one complaint verify would make of it
verify() {
	local u out
	for u in "$@"; do
		sed "s|^ExecStart=/usr/local/sbin/gpulat |ExecStart=$(command -v true) |" \
			"$FLEET/$u" >"$tmp/$u"
	done
	out=$(cd "$tmp" && systemd-analyze verify --man=no "$@" 2>&1) &&
		[[ -z $out ]] || { sed 's/^/# /' <<<"$out"; return 1; }
}

# hardening UNIT - the settings both units share, each as one line
hardening() {
	local kv bad=0
	for kv in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes \
		PrivateTmp=yes ProtectControlGroups=yes ProtectKernelModules=yes \
		"RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX" \
		LockPersonality=yes MemoryDenyWriteExecute=yes \
		RestrictRealtime=yes SystemCallArchitectures=native \
		"StateDirectory=gpulat gpulat/flight"; do
		grep -qx "$kv" "$FLEET/$1" || { echo "# $1: no $kv"; bad=1; }
	done
	return $bad
}

echo "TAP version 13"
echo "1..18"

# --- The udev rule ---------------------------------------------------------
check "60-gpulat.rules: one rule" '[[ $(rule_lines | wc -l) == 1 ]]'
check "60-gpulat.rules: the gpulat misc device, group gpulat, mode 0640, nothing else" \
	'[[ $(rule_fields) == $(printf "%s\n" "GROUP=\"gpulat\"" "KERNEL==\"gpulat\"" "MODE=\"0640\"" "SUBSYSTEM==\"misc\"" | sort) ]]'
check "60-gpulat.rules: says why a member can only read" \
	'grep -q "^#.*CAP_SYS_ADMIN" "$RULE"'
if udevadm verify --help >/dev/null 2>&1; then
	check "60-gpulat.rules: udevadm verify" \
		'udevadm verify --no-summary "$RULE" >/dev/null 2>&1'
else
	skip "60-gpulat.rules: udevadm verify" "this udevadm has no verify (systemd < 254)"
fi

# --- The units ---------------------------------------------------------------
want_exec="/usr/local/sbin/gpulat serve --listen 127.0.0.1:9464 --textfile /var/lib/prometheus/node-exporter --flight /var/lib/gpulat/flight"
for u in $UNITS; do
	check "$u: ExecStart is the daemon's, with exactly --listen --textfile --flight" \
		'[[ $(key $u ExecStart) == "$want_exec" &&
		    $(exec_flags "$(key $u ExecStart)") == $(printf "%s\n" --flight --listen --textfile) ]]'
done
# the check itself, on a line with one option more
check "an ExecStart with another option is told apart" \
	'[[ $(exec_flags "$want_exec --source bpf") != $(printf "%s\n" --flight --listen --textfile) ]]'
check "gpulat.service: user gpulat, no capability, no new privileges" \
	'[[ $(key gpulat.service User) == gpulat && $(key gpulat.service Group) == gpulat &&
	    $(key gpulat.service CapabilityBoundingSet) == "" &&
	    $(key gpulat.service NoNewPrivileges) == yes ]]'
check "gpulat.service: /dev/gpulat read-only, every other device closed" \
	'[[ $(key gpulat.service DeviceAllow) == "/dev/gpulat r" &&
	    $(key gpulat.service DevicePolicy) == closed &&
	    -z $(key gpulat.service PrivateDevices) ]]'
check "gpulat.service: the module source" \
	'[[ $(key gpulat.service Environment) == GPULAT_SOURCE=kmod ]]'
check "gpulat-bpf.service: CAP_BPF CAP_PERFMON CAP_SYSLOG, nothing more" \
	'[[ $(key gpulat-bpf.service CapabilityBoundingSet) == "CAP_BPF CAP_PERFMON CAP_SYSLOG" &&
	    $(key gpulat-bpf.service AmbientCapabilities) == "" ]]'
check "gpulat-bpf.service: /sys/fs/bpf writable, no ProtectKernelTunables" \
	'key gpulat-bpf.service ReadWritePaths | grep -qx /sys/fs/bpf &&
	 [[ -z $(key gpulat-bpf.service ProtectKernelTunables) ]]'
check "gpulat-bpf.service: the BPF source, memlock unlimited" \
	'[[ $(key gpulat-bpf.service Environment) == GPULAT_SOURCE=bpf &&
	    $(key gpulat-bpf.service LimitMEMLOCK) == infinity ]]'
for u in $UNITS; do
	check "$u: common hardening" 'hardening $u'
done
check "the units conflict with each other" \
	'[[ $(key gpulat.service Conflicts) == gpulat-bpf.service &&
	    $(key gpulat-bpf.service Conflicts) == gpulat.service ]]'
if command -v systemd-analyze >/dev/null; then
	for u in $UNITS; do
		check "$u: systemd-analyze verify" 'verify $u'
	done
else
	for u in $UNITS; do
		skip "$u: systemd-analyze verify" "no systemd-analyze on this host"
	done
fi
exit $fail
