#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The rule for errors while recording (man/vmtrace-record.1): no END block, the file is
# still published under its final name with every chunk written, one error line says so,
# exit 1; the report then says "not finished" and exits 2. A device as the output is
# written directly, never replaced.
. "$(dirname "$0")/lib.sh"
need_tracefs

# A full disk: a 4 MiB tmpfs and uncompressed 1 MiB chunks.
mkdir full
mount -t tmpfs -o size=4m tmpfs full 2>/dev/null || skip "cannot mount a tmpfs"
cleanup_hooks="$cleanup_hooks; umount $scratch/full 2>/dev/null"
start_record -p 1 -c 0 -s 20 -l 0 -e "$SYSCALL_EVENTS" -o full/f.vmt
"$HELPERS/syscall_loop" 1 0 3 >/dev/null &
wait "$rec_pid"
rc=$?
wait
[ "$rc" = 1 ] || { cat rec.err; fail "disk full: exit $rc, expected 1"; }
no_instance_left "$rec_pid"
errors=$(unfold rec.err | grep -v -e '^vmtrace-record: recording ' -e '^vmtrace-record: wrote ' \
	-e '^vmtrace-record: warning: ' -e '^vmtrace-record: context events not on this kernel: ')
[ "$(printf '%s\n' "$errors" | wc -l)" = 1 ] || { cat rec.err; fail "disk full: not one error line"; }
printf '%s\n' "$errors" | grep -q "^vmtrace-record: full/f\.vmt\.$rec_pid\.part: write failed: No space left on device; the [0-9]* chunks\? written before \(is\|are\) kept in full/f\.vmt, not finished\$" ||
	{ cat rec.err; fail "disk full: unexpected error line"; }
# The file and the problem on the error's first line, what was kept on the next; every line
# fits 120 columns (the one line of both was 149).
grep -qx "vmtrace-record: full/f\.vmt\.$rec_pid\.part: write failed: No space left on device;" rec.err ||
	{ cat rec.err; fail "disk full: the error's first line is not the file and the problem"; }
grep -q "^  the [0-9]* chunks\? written before \(is\|are\) kept in full/f\.vmt, not finished\$" rec.err ||
	{ cat rec.err; fail "disk full: the error's second line is not what was kept"; }
widths_ok rec.err || fail "disk full: messages wider than 120 columns"
[ -f full/f.vmt ] || fail "disk full: the recording was not published under its name"
ls full/*.part 2>/dev/null && fail "disk full: a temporary file was left"
run vmtrace-report --json full/f.vmt
[ "$rc" = 2 ] || { cat err.txt; fail "disk full: report exit $rc, expected 2"; }
grep -q "not finished" err.txt || fail "disk full: the report did not say 'not finished'"
[ "$(json out.txt 'd["finished"]')" = False ] || fail "disk full: an END block was written"
said=$(unfold rec.err | sed -n 's/.*; the \([0-9]*\) chunks\? written before.*/\1/p')
[ "$(json out.txt 'd["chunks"]')" = "$said" ] ||
	fail "disk full: $(json out.txt 'd["chunks"]') chunks in the file, the recorder said $said"
[ "$said" = 1 ] && words="1 chunk written before is" || words="$said chunks written before are"
unfold rec.err | grep -q "; the $words kept in " || { cat rec.err; fail "disk full: not 'the $words kept'"; }
[ "$(json out.txt 'd["pairs"] > 0 and d["bad_chunks"] == 0')" = True ] ||
	fail "disk full: the chunks written do not read back"
umount full

# /dev/null as the output: written directly, still a device afterwards.
run vmtrace-record -q -p 1 -c 0 -s 200ms -e "$SYSCALL_EVENTS" -o /dev/null
expect_rc 0 "-o /dev/null"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
ls /dev/null.* 2>/dev/null && fail "a file was left next to /dev/null"

# Standard output: the same bytes a file would get, here through a pipe.
vmtrace-record -p 1 -c 0 -s 300ms -e "$SYSCALL_EVENTS" -o - 2>err.txt | cat >piped.vmt
[ "$(wc -l <err.txt)" -ge 1 ] && ! grep -q "warning\|failed\|cannot" err.txt ||
	{ cat err.txt; fail "-o -: errors"; }
run vmtrace-report --json piped.vmt
expect_rc 0 "a recording written to standard output"
[ "$(json out.txt 'd["finished"]')" = True ] || fail "-o -: not finished"
exit 0
