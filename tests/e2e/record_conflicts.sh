#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Two recorders on different CPUs work independently; a second one on a CPU already traced
# refuses with one line that names exactly the CPUs of its own held by the first, and the
# first by its instance and pid (a set that only overlaps too). A symbolic link at the output path is followed (its target
# replaced, the link kept); -o /dev/stdout writes into standard output; an output that is
# standard output's file while the summary goes there is refused.
. "$(dirname "$0")/lib.sh"
need_tracefs

# (6 s: the first still records while three more start, on a loaded machine too)
start_record -p 1 -c 0 -s 6 -e "$SYSCALL_EVENTS" -o one.vmt
first=$rec_pid
root=/sys/kernel/tracing
run vmtrace-record -p 1 -c 0 -s 1 -e "$SYSCALL_EVENTS" -o two.vmt
expect_rc 1 "a second recorder on CPU 1"
# the error (after the notes on context events this kernel lacks, when it lacks some)
refusal() { unfold err.txt | grep "^vmtrace-record: $root/instances: "; }
[ "$(refusal)" = "vmtrace-record: $root/instances: another recorder traces CPU 1 (vmtrace-$first, \
pid $first); one recorder per CPU" ] || { cat err.txt; fail "-p 1 against -p 1"; }
[ ! -e two.vmt ] || fail "the refused recorder wrote a file"
ls ./two.vmt.*.part 2>/dev/null && fail "the refused recorder left a temporary file"
# a set that only overlaps: the CPU held is named, not "the same CPUs"; the first recorder's
# mask, read here, says which it holds
[ "$(cat "$root/instances/vmtrace-$first/tracing_cpumask" | tr -d ',\n' | sed 's/^0*//')" = 2 ] ||
	fail "the first recorder's mask is not CPU 1's"
run vmtrace-record -p 0-1 -s 1 -e "$SYSCALL_EVENTS" -o two.vmt
expect_rc 1 "a second recorder on CPUs 0-1"
[ "$(refusal)" = "vmtrace-record: $root/instances: another recorder traces CPU 1 (vmtrace-$first, \
pid $first); one recorder per CPU" ] || { cat err.txt; fail "-p 0-1 against -p 1"; }
[ ! -e two.vmt ] || fail "the refused recorder (-p 0-1) wrote a file"
# refused, it says nothing of its collector (every CPU traced: "runs unpinned" came first)
! unfold err.txt | grep -q "collector" || { cat err.txt; fail "a collector warning before the refusal"; }
# CPU 0 is free: a recorder there works alongside (collecting on CPU 1).
run vmtrace-record -q -p 0 -c 1 -s 1 -e "$SYSCALL_EVENTS" -o zero.vmt
expect_rc 0 "a recorder on another CPU"
wait "$first" || fail "the first recorder failed"
for f in one zero; do
	run vmtrace-report --json "$f.vmt"
	expect_rc 0 "$f.vmt"
done

# A link at the output path is followed: its target is replaced (the previous one kept as
# target.txt.old), the link stays a link to the recording.
echo "precious" >target.txt
ln -s target.txt link.vmt
run vmtrace-record -q -p 1 -c 0 -s 200ms -e "$SYSCALL_EVENTS" -o link.vmt
expect_rc 0 "recording over a link"
[ "$(readlink link.vmt)" = target.txt ] || fail "the link was replaced"
[ "$(cat target.txt.old)" = precious ] || fail "the previous target is not target.txt.old"
[ ! -e link.vmt.old ] || fail "the link was moved aside"
run vmtrace-report --json link.vmt
expect_rc 0 "the recording through the link"

# -o /dev/stdout is standard output itself (as -o -): the file the shell opened gets the
# recording, and /dev/stdout stays the link it is
vmtrace-record -q -p 1 -c 0 -s 200ms -e "$SYSCALL_EVENTS" -o /dev/stdout >dev.vmt 2>err.txt ||
	{ cat err.txt; fail "-o /dev/stdout"; }
run vmtrace-report --json dev.vmt
expect_rc 0 "the recording written through /dev/stdout"
[ -L /dev/stdout ] || fail "/dev/stdout is no longer a link"

# An output that is standard output's file while the summary goes there: refused (64),
# before tracing, the file untouched
echo keep >same.out
for args in "-o same.out" "--metrics same.out -o m.vmt"; do
	# shellcheck disable=SC2086
	vmtrace-record -p 1 -c 0 -s 200ms -e "$SYSCALL_EVENTS" $args >>same.out 2>err.txt
	rc=$?
	expect_rc 64 "$args >>same.out"
	expect_one_line_error vmtrace-record "same.out: .* is the same file as standard output (the summary)"
	[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "$args: not one line"; }
	[ "$(cat same.out)" = keep ] || fail "$args: same.out was written"
	[ ! -e m.vmt ] || fail "$args: a recording was made"
done
exit 0
