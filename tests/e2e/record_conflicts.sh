#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Two recorders on different CPUs work independently; a second one on a CPU already traced
# refuses with a clear message. A symbolic link at the output path is never followed.
. "$(dirname "$0")/lib.sh"
need_tracefs

start_record -p 1 -c 0 -s 3 -e "$SYSCALL_EVENTS" -o one.vmt
first=$rec_pid
run vmtrace-record -p 1 -c 0 -s 1 -e "$SYSCALL_EVENTS" -o two.vmt
expect_one_line_error vmtrace-record "another recorder traces the same CPUs (vmtrace-$first on CPU 1)"
[ ! -e two.vmt ] || fail "the refused recorder wrote a file"
ls ./two.vmt.*.part 2>/dev/null && fail "the refused recorder left a temporary file"
# CPU 0 is free: a recorder there works alongside (collecting on CPU 1).
run vmtrace-record -q -p 0 -c 1 -s 1 -e "$SYSCALL_EVENTS" -o zero.vmt
expect_rc 0 "a recorder on another CPU"
wait "$first" || fail "the first recorder failed"
for f in one zero; do
	run vmtrace-report --json "$f.vmt"
	expect_rc 0 "$f.vmt"
done

# A link planted at the output path: the link itself is moved aside, its target untouched.
echo "precious" >target.txt
ln -s target.txt link.vmt
run vmtrace-record -q -p 1 -c 0 -s 200ms -e "$SYSCALL_EVENTS" -o link.vmt
expect_rc 0 "recording over a link"
[ "$(cat target.txt)" = precious ] || fail "the link's target was written"
[ -L link.vmt.old ] || fail "the link was not kept as link.vmt.old"
[ -f link.vmt ] && [ ! -L link.vmt ] || fail "link.vmt is not a new regular file"
exit 0
