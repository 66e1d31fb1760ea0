#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Missing tracefs, no permission, unknown events, offline CPUs, an unwritable or full
# output: one clear line, a non-zero exit, nothing left behind.
. "$(dirname "$0")/lib.sh"
need_tracefs

VMTRACE_TRACEFS=/nonexistent run vmtrace-record -p 1 -s 1
expect_one_line_error vmtrace-record "tracefs not found"

run vmtrace-record -p 1 -c 0 -s 1 -e nosuch:event,nosuch:other -o x.vmt
expect_one_line_error vmtrace-record "cannot enable event"
[ ! -e x.vmt ] || fail "a file was left for a failed start"
ls ./*.part 2>/dev/null && fail "a temporary file was left for a failed start"

run vmtrace-record -p 4095 -s 1
expect_one_line_error vmtrace-record "CPU 4095 is not online"
run vmtrace-record -p 1 -c 4000 -s 1
expect_one_line_error vmtrace-record "collector CPU 4000 is not online"

run vmtrace-record -p 1 -s 1 -e "$SYSCALL_EVENTS" -o /nonexistent/dir/x.vmt
expect_one_line_error vmtrace-record "/nonexistent/dir/x.vmt.*No such file or directory"

# An unprivileged user cannot create an ftrace instance.
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	cp "$(command -v vmtrace-record)" ./rec && chmod 755 ./rec "$scratch"
	setpriv --reuid=nobody --regid=nogroup --clear-groups ./rec -p 1 -s 1 \
		-e "$SYSCALL_EVENTS" -o /tmp/x.vmt >out.txt 2>err.txt
	rc=$?
	sed -i 's/^rec:/vmtrace-record:/' err.txt
	expect_one_line_error vmtrace-record "run as root"
else
	skip_part "the unprivileged user (no setpriv or no user nobody)"
fi

# A full disk: a 4 MiB tmpfs, uncompressed 1 MiB chunks: a few fit, then ENOSPC. The recorder stops with a clear error, the chunks written
# before stay readable, and the instance is removed.
mkdir full
if mount -t tmpfs -o size=4m tmpfs full 2>/dev/null; then
	cleanup_hooks="$cleanup_hooks; umount $scratch/full 2>/dev/null"
	start_record -p 1 -c 0 -s 20 -l 0 -e "$SYSCALL_EVENTS" -o full/f.vmt
	"$HELPERS/syscall_loop" 1 0 3 >/dev/null &
	wait "$rec_pid"
	rc=$?
	wait
	[ "$rc" = 1 ] || { cat rec.err; fail "disk full: exit $rc, expected 1"; }
	grep -q "No space left on device" rec.err || fail "disk full: no clear error"
	no_instance_left "$rec_pid"
	f=$(ls full/f.vmt* | head -1)
	run vmtrace-report --json "$f"
	case $rc in 0|2) ;; *) cat err.txt; fail "disk full: the file does not read back" ;; esac
	[ "$(json out.txt 'd["pairs"] > 0')" = True ] || { cat out.txt err.txt rec.err; ls -la full; fail "disk full: nothing read back"; }
	umount full
else
	skip_part "the full disk (cannot mount a tmpfs)"
fi
finish
