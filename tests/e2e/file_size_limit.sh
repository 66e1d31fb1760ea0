#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A write past the file size limit (ulimit -f) is a write error like a full disk's: one
# line naming the file, exit status 1, no temporary file left, and the recorder keeps what
# fit and removes its instance. SIGXFSZ, whose default action kills without a word (the
# adversarial tester's exit 153 and out.csv.PID.part files), is ignored.
. "$(dirname "$0")/lib.sh"

S="$DATA/sample-kvm.vmt"

# limited BLOCKS CMD...: CMD under `ulimit -f BLOCKS`, its outputs in out.txt and err.txt
limited() {
	local blocks=$1
	shift
	(ulimit -f "$blocks" && exec "$@") >out.txt 2>err.txt
	rc=$?
}

# one_error PROG FILE: exit 1 and one line naming FILE and the limit, no temporary file
one_error() {
	[ "$rc" = 1 ] || { cat err.txt; fail "$1 $2: exit $rc, not 1"; }
	[ "$(wc -l <err.txt)" = 1 ] && grep -qx "$1: $2: .*File too large" err.txt ||
		{ cat err.txt; fail "$1 $2: not one line naming the file and the limit"; }
	! ls ./*.part out/*.part 2>/dev/null || fail "$1 $2: a temporary file is left"
}

mkdir out
limited 200 vmtrace-convert --csv -o out/x.csv "$S"
one_error vmtrace-convert out/x.csv
[ ! -e out/x.csv ] || fail "--csv: a part of the CSV was published"
limited 200 vmtrace-convert --to-vmt -o out/x.vmt "$S"
one_error vmtrace-convert out/x.vmt
limited 20 vmtrace-report --html out/x.html "$S"
one_error vmtrace-report "out/x.html: cannot write the HTML report"
# into standard output, a file the shell opened under the limit
(ulimit -f 20 && exec vmtrace-report -v "$S") >out/v.txt 2>err.txt
rc=$?
one_error vmtrace-report "standard output"
(ulimit -f 20 && exec vmtrace-convert --csv "$S") >out/c.csv 2>err.txt
rc=$?
one_error vmtrace-convert "standard output"
# under the limit everything is written: the limit, not the programs, stopped them
limited 100000 vmtrace-convert --csv -o out/y.csv "$S"
[ "$rc" = 0 ] && [ -s out/y.csv ] || { cat err.txt; fail "--csv under a high limit"; }

# The recorder: the chunks that fit are kept, the file not finished, the instance removed.
if [ "$(id -u)" != 0 ] || [ ! -e /sys/kernel/tracing/events/raw_syscalls/sys_enter ] ||
   [ "$(nproc)" -lt 2 ]; then
	skip_part "the recorder under the limit (needs root, tracefs and 2 CPUs)"
	finish
fi
need_tracefs
(ulimit -f 200 && exec vmtrace-record -p 1 -c 0 -s 30 -e "$SYSCALL_EVENTS" -o r.vmt) \
	>rec.out 2>rec.err &
pid=$!
cleanup_hooks="$cleanup_hooks; kill -9 $pid 2>/dev/null"
# syscalls on CPU 1 until the file is past the limit (at most 20 rounds of 200000)
for _ in $(seq 20); do
	kill -0 $pid 2>/dev/null || break
	"$HELPERS/syscall_loop" 1 200000 >/dev/null
done
wait $pid
rc=$?
[ "$rc" = 1 ] || { cat rec.err; fail "vmtrace-record: exit $rc, not 1"; }
grep -q "^vmtrace-record: r.vmt.$pid.part: write failed: File too large" rec.err ||
	{ cat rec.err; fail "vmtrace-record: no word on the limit"; }
grep -q "stopped by write error" rec.err || { cat rec.err; fail "vmtrace-record: stop reason"; }
no_instance_left $pid
! ls ./*.part 2>/dev/null || fail "vmtrace-record: a temporary file is left"
# what fit is there: the chunks the recorder said it kept, read back unfinished
kept=$(sed -n 's/.*the \([0-9]*\) chunks\{0,1\} written before .* kept in r.vmt.*/\1/p' rec.err)
[ -n "$kept" ] || { cat rec.err; fail "vmtrace-record: how many chunks were kept"; }
run vmtrace-report --json r.vmt
expect_rc 2 "the recording cut by the limit"
[ "$(json out.txt '(d["finished"], d["chunks"])')" = "(False, $kept)" ] ||
	fail "r.vmt: $(json out.txt '(d["finished"], d["chunks"])'), not (False, $kept)"
finish
