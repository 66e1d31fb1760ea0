#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# valgrind (memcheck) finds no error and no leak in the report on the bundled samples (also
# the causes, and convert --why) and on a damaged file, nor in a short real recording (that
# part needs root and tracefs).
. "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || skip "valgrind not installed"
# valgrind and AddressSanitizer exclude each other; the plain build runs this test.
ldd "$(command -v vmtrace-report)" | grep -q libasan && skip "built with AddressSanitizer"

vg() {
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		"$@"
}

vg vmtrace-report --json "$DATA/sample-syscalls.vmt" >out.txt 2>vg.txt
rc=$?
[ "$rc" = 0 ] || { cat vg.txt; fail "valgrind: report on the sample, exit $rc"; }

# the causes: a real KVM recording with context events, the report and convert --why
vg vmtrace-report --json --threshold 4ms "$DATA/why/sample/kvm.vmt" >out.txt 2>vg.txt
rc=$?
[ "$rc" = 0 ] || { cat vg.txt; fail "valgrind: report on the sample with causes, exit $rc"; }
vg vmtrace-convert --csv --why "$DATA/why/sample/kvm.vmt" >out.txt 2>vg.txt
rc=$?
[ "$rc" = 0 ] || { cat vg.txt; fail "valgrind: convert --why, exit $rc"; }

# trace-cmd files: v7 zlib chunks, and a v6 instance buffer through convert
vg vmtrace-report --json "$DATA/tracedat/kvm.v7zlib.dat" >out.txt 2>vg.txt
rc=$?
[ "$rc" = 0 ] || { cat vg.txt; fail "valgrind: report on a trace.dat, exit $rc"; }
vg vmtrace-convert --csv --pair "$SYSCALL_EVENTS" "$DATA/tracedat/syscalls-extract.v6.dat" \
	>out.txt 2>vg.txt
rc=$?
[ "$rc" = 0 ] || { cat vg.txt; fail "valgrind: convert of a trace.dat, exit $rc"; }

size=$(stat -c %s "$DATA/sample-syscalls.vmt")
head -c $((size * 2 / 3)) "$DATA/sample-syscalls.vmt" >cut.vmt
printf '\377\377\377\377' | dd of=cut.vmt bs=1 seek=$((size / 3)) conv=notrunc status=none
vg vmtrace-report cut.vmt >out.txt 2>vg.txt
rc=$?
[ "$rc" = 2 ] || { cat vg.txt; fail "valgrind: report on a damaged file, exit $rc"; }

if [ "$(id -u)" = 0 ] && [ -e /sys/kernel/tracing/trace_clock ] && [ "$(nproc)" -ge 2 ]; then
	exec 9>"${TMPDIR:-/tmp}/vmtrace-e2e.lock"
	flock 9
	vg vmtrace-record -p 1 -c 0 -s 1 -e "$SYSCALL_EVENTS" -o rec.vmt >out.txt 2>vg.txt
	rc=$?
	[ "$rc" = 0 ] || { cat vg.txt; fail "valgrind: record, exit $rc"; }
else
	skip_part "the recorder under valgrind (needs root, tracefs and 2 CPUs)"
fi
finish
