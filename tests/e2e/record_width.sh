#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every line vmtrace-record writes fits 120 columns, on stderr and on stdout, in real
# recordings that print its longest messages: the note naming the default context events
# this kernel lacks (six irq_vectors events here: one line of 244 columns before it was
# folded), the "recording ..." line of a recording until Ctrl-C, and the warning about
# lost events (a tiny buffer, a slow collector, a fast loop, as record_lost.sh). A folded
# message still says all it said: unfolded, the note names every missing event.
. "$(dirname "$0")/lib.sh"
need_tracefs

T=/sys/kernel/tracing

# Until SIGINT: the "recording" line ends in "; Ctrl-C to stop".
start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" -o w.vmt
"$HELPERS/syscall_loop" 1 20000 >/dev/null
kill -INT "$rec_pid"
wait "$rec_pid"
rc=$?
[ "$rc" = 0 ] || { cat rec.err >&2; fail "vmtrace-record exited $rc"; }
unfold rec.err | grep -q "^vmtrace-record: recording .*; Ctrl-C to stop\$" ||
	{ cat rec.err >&2; fail "no recording line"; }
widths_ok rec.err rec.out || fail "lines wider than 120 columns (above)"

# The note, unfolded, names what the file's context.missing key lists (read by
# tests/helpers/ctxstat), in its order.
"$HELPERS/ctxstat" w.vmt >ctx.txt || fail "ctxstat w.vmt"
missing=$(awk '$1 == "missing" { print $2 }' ctx.txt)
note=$(unfold rec.err | sed -n 's/^vmtrace-record: context events not on this kernel: //p')
if [ "$missing" = - ]; then
	skip_part "every default context event is on this kernel: no note to fold"
	[ -z "$note" ] || fail "a note of missing events when none is missing"
else
	[ "$(grep -c 'context events not on this kernel' rec.err)" = 1 ] ||
		fail "the note is not one message"
	[ "$(echo "$note" | tr -d ' ')" = "$missing" ] ||
		fail "the note names '$note', the file '$missing'"
fi

# Losses: the warning (and its advice) within the width too.
start_record -p 1 -c 0 -s 2 -b 16K --poll-interval 500ms -e "$SYSCALL_EVENTS" -o lost.vmt
"$HELPERS/syscall_loop" 1 300000 >/dev/null
wait "$rec_pid"
rc=$?
[ "$rc" = 0 ] || { cat rec.err >&2; fail "lossy recording: vmtrace-record exited $rc"; }
grep -q "events were lost" rec.err || fail "no loss provoked: the warning's width is not checked"
widths_ok rec.err rec.out || fail "lines wider than 120 columns (above)"
finish
