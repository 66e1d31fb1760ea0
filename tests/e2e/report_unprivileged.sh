#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-report needs no privilege and writes nowhere: run as nobody in a read-only
# directory, it reads the sample and prints the same figures as root does.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root to switch to nobody"
command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 || skip "no setpriv or nobody"

mkdir ro && cp "$DATA/sample-syscalls.vmt" "$(command -v vmtrace-report)" ro/
chmod 755 "$scratch" ro ro/vmtrace-report
chmod 444 ro/sample-syscalls.vmt
chmod 555 ro
before=$(ls -la ro)
(cd ro && setpriv --reuid=nobody --regid=nogroup --clear-groups ./vmtrace-report --json \
	sample-syscalls.vmt) >out.txt 2>err.txt
rc=$?
[ "$rc" = 0 ] || { cat err.txt; fail "unprivileged report: exit $rc"; }
[ "$(ls -la ro)" = "$before" ] || fail "the report wrote into its directory"
(cd "$DATA" && vmtrace-report --json sample-syscalls.vmt) >root.txt
diff root.txt out.txt || fail "unprivileged figures differ"
exit 0
